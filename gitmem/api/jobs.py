"""Background jobs: what the SessionEnd hook, post-session, cron, the daemon and the MCP server run unattended.

One job is one call of ``run_job``: it never raises for a failure a person must fix later
(a bad transcript, a lock held too long, a broken file); it records ``job.run`` or
``job.error`` in the clone's event log and returns a ``JobRun``. Before its own work every
job applies the next batch of the growth queued in ``.gitmem/pending/`` (one commit of its
own, ``drain``): what a run queues waits for the next run of any job. ``gitmem status`` shows the
last error; ``job_runs`` gives the last run of each job (the daemon's status, the dashboard).
"""

from __future__ import annotations

import builtins
import json
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from datetime import datetime
from pathlib import Path
from typing import TYPE_CHECKING

from gitmem.api import harvest, lifecycle, patterns, timeline
from gitmem.api.context import Context
from gitmem.api.status import last_job_runs, record_job
from gitmem.base import clock
from gitmem.base.errors import GitmemError, UsageError
from gitmem.base.model import iso

if TYPE_CHECKING:
    from gitmem.engines.harvest.planning import Harvested

JOBS = ("harvest", "weights", "reflect", "decay", "snapshot")
"""Every job, in the order a round of the daemon runs them."""

JOBS_FILE = "jobs.json"   # per clone: the head each write-gated job last saw


@dataclass(frozen=True)
class JobRun:
    """One run of a background job: whether it worked, what it did, and the details a script reads."""

    job: str
    ok: bool
    summary: str
    at: str
    details: dict[str, object] = field(default_factory=dict)

    def to_json(self) -> dict[str, object]:
        """What ``--json`` prints and what the event log keeps."""
        return {"job": self.job, "ok": self.ok, "summary": self.summary, "at": self.at, **self.details}


def run_job(ctx: Context, job: str, now: datetime | None = None,
            paths: Sequence[str | Path] | None = None) -> JobRun:
    """Run one job (see ``JOBS``) and record its outcome; a failure is recorded and returned, not raised.

    ``paths`` narrows ``harvest`` to given transcripts or folders (default: the session folders).
    An unknown job name is the caller's mistake and raises ``UsageError``.
    """
    if job not in JOBS:
        raise UsageError(f"unknown job {job!r}", hint="one of: " + ", ".join(JOBS))
    now = now or clock.now()
    at = iso(now)
    drained = {**drain(ctx, now), **expire(ctx, now)}
    try:
        summary, details = _JOBS[job](ctx, now, paths)
        run = JobRun(job, True, summary + _drained_note(drained), at, {**details, **drained})
    except GitmemError as exc:
        run = JobRun(job, False, exc.message, at, {**({"hint": exc.hint} if exc.hint else {}), **drained})
    except (OSError, ValueError, RecursionError, UnicodeError) as exc:
        run = JobRun(job, False, f"{type(exc).__name__}: {exc}"[:300], at, drained)
    _record(ctx, run)
    return run


def drain(ctx: Context, now: datetime) -> dict[str, object]:
    """Apply the next batch of every file's queued growth (``.gitmem/pending/``) as one commit.

    Returns the details a job run carries: ``drained`` (the files), ``drain_commit``, and the files
    still queued after it (``pending``); ``drain_error`` when the write failed (the job runs anyway,
    the queue stays for the next run). Nothing when nothing is queued.
    """
    from gitmem.writer import pending

    if not pending.queued(ctx.git, ctx.head):
        return {}
    try:
        written = ctx.writer.write(pending.planner(ctx.git), now)
    except GitmemError as exc:
        return {"drain_error": exc.message, "pending": pending.queued(ctx.git, ctx.head)}
    except (OSError, ValueError, RecursionError, UnicodeError) as exc:   # as a job's own failure: told, not raised
        return {"drain_error": f"{type(exc).__name__}: {exc}"[:300], "pending": pending.queued(ctx.git, ctx.head)}
    if written.commit is None:
        return {"pending": pending.queued(ctx.git, ctx.head)}
    return {"drained": builtins.list(written.result or ()), "drain_commit": written.commit,
            "pending": pending.queued(ctx.git, ctx.head)}


def expire(ctx: Context, now: datetime) -> dict[str, object]:
    """Reject by default the marked sedimentation promotions no person accepted within
    ``sediment.veto_timeout_minutes`` (reason "expired"), as every job run does first; the details a run
    carries (``expired``: the branches; ``expire_error`` when that failed: the job runs anyway)."""
    from gitmem.api import promotions

    if ctx.head is None:
        return {}
    try:
        gone = promotions.expire(ctx, now)
    except GitmemError as exc:
        return {"expire_error": exc.message}
    except (OSError, ValueError, UnicodeError) as exc:
        return {"expire_error": f"{type(exc).__name__}: {exc}"[:300]}
    return {"expired": gone} if gone else {}


def _drained_note(drained: dict[str, object]) -> str:
    files = drained.get("drained")
    if isinstance(files, builtins.list) and files:
        left = drained.get("pending")
        return f"; applied queued growth of {len(files)} files" + (
            f" ({len(left)} still queued)" if isinstance(left, builtins.list) and left else "")
    error = drained.get("drain_error")
    return f"; queued growth not applied: {error}" if error else ""


def job_runs(ctx: Context) -> dict[str, dict[str, object]]:
    """The last recorded run of each job that ran in this clone, by job name."""
    return last_job_runs(ctx.root)


def decay_due(ctx: Context, now: datetime | None = None) -> bool:
    """Whether decay is due in this clone: it never ran here, or its last run is ``daemon.decay_hours`` old
    (the cron entry runs it this way, so a crontab without the daemon decays daily too)."""
    from gitmem.base.clock import parse_time

    now = now or clock.now()
    last = job_runs(ctx).get("decay")
    if last is None or not isinstance(last.get("at"), str):
        return True
    try:
        age = (now - parse_time(str(last["at"]))).total_seconds()
    except GitmemError:
        return True
    return age >= ctx.cfg.daemon.decay_hours * 3600


def _record(ctx: Context, run: JobRun) -> None:
    hint = run.details.get("hint")
    record_job(ctx.root, run.job, run.ok, run.at, run.summary, hint if isinstance(hint, str) else None,
               changed=_changed(run))

# the jobs: each returns (summary, details) or raises
def _job_harvest(ctx: Context, now: datetime, paths: Sequence[str | Path] | None) -> tuple[str, dict[str, object]]:
    # the session folders, confined to them: a path given outside is refused, a link pointing out left out
    if not paths and not any(f.exists() for f in harvest.session_folders(ctx)):
        return "no session folder exists", {"harvested": 0}
    scope = harvest.session_files(ctx, paths)
    found, outside = builtins.list(scope.files), scope.outside
    results = harvest.harvest(ctx, found, now=now, confine=True)
    counts: dict[str, int] = {}
    for r in results:
        counts[r.status] = counts.get(r.status, 0) + 1
    new = counts.get("harvested", 0) + counts.get("updated", 0)
    details: dict[str, object] = {"counts": counts, "harvested": new, **_outside(outside)}
    summary = ", ".join(f"{n} {k}" for k, n in sorted(counts.items())) or "no transcripts found"
    if outside:
        summary += f"; {len(outside)} left out (outside the session folders)"
    reflected = _reflections(ctx, [r for r in results if r.status in ("harvested", "updated")], now)
    if reflected:
        details["reflections"] = reflected
        summary += f"; {len(reflected)} reflection(s) proposed for sedimentation"
    unsure = [r for r in results if r.inbox]
    if unsure:
        details["inbox"] = sum(r.inbox for r in unsure)
        summary += f"; {details['inbox']} to keep or drop in {unsure[-1].inbox_branch}"
    if new and ctx.head is not None:
        proposed = patterns.propose_weights(ctx, now)
        if proposed.branch:
            details["review"] = proposed.branch
            summary += f"; weight update proposed on {proposed.branch}"
    return summary, details


def _reflections(ctx: Context, harvested: Sequence[Harvested], now: datetime) -> builtins.list[str]:
    """The sessions just harvested that fixed a failure or made a decision each propose one reflection
    (``sediment_harvest.propose_from``); the ids written. A reflection that fails never fails the harvest."""
    from gitmem.api import sediment_harvest

    if not harvested:
        return []
    try:
        found = sediment_harvest.propose_from(ctx, harvested, now)
    except GitmemError:
        return []
    return [f.reflected.reflection.id for f in found
            if f.reflected is not None and f.reflected.outcome == "written" and f.reflected.reflection is not None]


def _job_weights(ctx: Context, now: datetime, paths: Sequence[str | Path] | None) -> tuple[str, dict[str, object]]:
    if ctx.head is None:
        return "nothing to weigh yet", {}
    proposed = patterns.propose_weights(ctx, now)
    if not proposed.branch:
        return "no weight changes", {}
    return f"weight update proposed on {proposed.branch}", {"review": proposed.branch}


def _job_reflect(ctx: Context, now: datetime, paths: Sequence[str | Path] | None) -> tuple[str, dict[str, object]]:
    head = ctx.head
    seen = _job_state(ctx).get("reflect")
    if head is None or head == seen:
        return "no new writes since the last reflect", {}
    done = lifecycle.reflect(ctx, now, auto=True)
    _set_job_state(ctx, "reflect", ctx.head)
    if done.review:
        return (f"{len(done.consumed)} memories to fold at once, more than {done.limit}: held for review on "
                f"{done.review}", {"commit": done.commit, "review": done.review})
    return f"{len(done.created)} new patterns, {len(done.updated)} verified again", {"commit": done.commit}


def _job_decay(ctx: Context, now: datetime, paths: Sequence[str | Path] | None) -> tuple[str, dict[str, object]]:
    report = lifecycle.decay(ctx, now)
    held = (f"; {len(report.held)} archives held for review on {report.review} (more than {report.limit} at once)"
            if report.held else "")
    return (f"{report.examined} examined, {len(report.moves)} moved, {len(report.archived)} archived{held}",
            {"commit": report.commit, "archived": len(report.archived), "held": len(report.held),
             "review": report.review})


def _job_snapshot(ctx: Context, now: datetime, paths: Sequence[str | Path] | None) -> tuple[str, dict[str, object]]:
    from gitmem.api.syncing import remotes

    if ctx.head is None:
        return "nothing to snapshot yet", {}
    if remotes(ctx.root):
        return "a remote is set: gitmem sync makes the monthly snapshot", {}
    snap = timeline.snapshot(ctx, now)
    return (f"snapshot {snap.tag} {'created' if snap.created else 'already there'}",
            {"tag": snap.tag, "created": snap.created})


def _job_state(ctx: Context) -> dict[str, str]:
    from gitmem.base import state

    try:
        data = json.loads((state.worktree_dir(ctx.root) / JOBS_FILE).read_text("utf-8"))
    except (OSError, ValueError):
        return {}
    return {k: v for k, v in data.items() if isinstance(k, str) and isinstance(v, str)} if isinstance(data, dict) else {}


def _set_job_state(ctx: Context, key: str, value: str | None) -> None:
    from gitmem.base import files, state

    data = _job_state(ctx)
    if value is None:
        data.pop(key, None)
    else:
        data[key] = value
    files.write_atomic(state.worktree_dir(ctx.root) / JOBS_FILE, json.dumps(data, sort_keys=True))


_JOBS: dict[str, Callable[[Context, datetime, Sequence[str | Path] | None], tuple[str, dict[str, object]]]] = {
    "harvest": _job_harvest, "weights": _job_weights, "reflect": _job_reflect, "decay": _job_decay,
    "snapshot": _job_snapshot}


def _outside(files: tuple[Path, ...]) -> dict[str, object]:
    return {"outside": [str(f) for f in files]} if files else {}


def _changed(run: JobRun) -> bool:
    """Whether a run changed something (a commit, a tag, a review branch, harvested sessions): only such
    runs, and failures, go to the event log."""
    d = run.details
    return bool(d.get("harvested") or d.get("review") or d.get("commit") or d.get("created") or d.get("drained")
                or d.get("reflections") or d.get("expired"))
