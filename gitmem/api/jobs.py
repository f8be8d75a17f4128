"""Background jobs: what the SessionEnd hook, post-session, cron, the daemon and the MCP server run unattended.

One job is one call of ``run_job``: it never raises for a failure a person must fix later
(a bad transcript, a lock held too long, a broken file); it records ``job.run`` or
``job.error`` in the clone's event log and returns a ``JobRun``. ``gitmem status`` shows the
last error; ``job_runs`` gives the last run of each job (the daemon's status, the dashboard).
"""

from __future__ import annotations

import builtins
import json
import os
from collections.abc import Sequence
from dataclasses import dataclass, field
from datetime import datetime
from pathlib import Path

from gitmem.api.lifecycle import Lifecycle
from gitmem.api.sessions import Sessions
from gitmem.api.status import Observed, last_job_runs, record_job
from gitmem.base import clock
from gitmem.base.errors import GitmemError, UsageError
from gitmem.base.model import iso

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


class Jobs(Lifecycle, Sessions, Observed):
    """Unattended work: harvest of the session folders, weight proposals, reflect, decay, snapshots."""

    def session_folders(self) -> builtins.list[Path]:
        """The configured folders agents write session logs to (``daemon.session_folders``), expanded."""
        return [Path(os.path.expandvars(os.path.expanduser(f))) for f in self.cfg.daemon.session_folders]

    def inside_session_folders(self, path: str | Path) -> bool:
        """True when ``path`` (symlinks resolved) lies inside one of the configured session folders."""
        target = Path(path).expanduser().resolve()
        return any(target.is_relative_to(f.resolve()) for f in self.session_folders())

    def run_job(self, job: str, now: datetime | None = None,
                paths: Sequence[str | Path] | None = None) -> JobRun:
        """Run one job (see ``JOBS``) and record its outcome; a failure is recorded and returned, not raised.

        ``paths`` narrows ``harvest`` to given transcripts or folders (default: the session folders).
        An unknown job name is the caller's mistake and raises ``UsageError``.
        """
        if job not in JOBS:
            raise UsageError(f"unknown job {job!r}", hint="one of: " + ", ".join(JOBS))
        now = now or clock.now()
        at = iso(now)
        try:
            summary, details = getattr(self, f"_job_{job}")(now, paths)
            run = JobRun(job, True, summary, at, details)
        except GitmemError as exc:
            run = JobRun(job, False, exc.message, at, {"hint": exc.hint} if exc.hint else {})
        except (OSError, ValueError, RecursionError, UnicodeError) as exc:
            run = JobRun(job, False, f"{type(exc).__name__}: {exc}"[:300], at)
        self._record(run)
        return run

    def job_runs(self) -> dict[str, dict[str, object]]:
        """The last recorded run of each job that ran in this clone, by job name."""
        return last_job_runs(self.root)

    def _record(self, run: JobRun) -> None:
        hint = run.details.get("hint")
        record_job(self.root, run.job, run.ok, run.at, run.summary, hint if isinstance(hint, str) else None,
                   changed=_changed(run))

    # the jobs: each returns (summary, details) or raises
    def _job_harvest(self, now: datetime, paths: Sequence[str | Path] | None) -> tuple[str, dict[str, object]]:
        folders = builtins.list(paths) if paths else [f for f in self.session_folders() if f.exists()]
        if not folders:
            return "no session folder exists", {"harvested": 0}
        results = self.harvest(folders, now=now)
        counts: dict[str, int] = {}
        for r in results:
            counts[r.status] = counts.get(r.status, 0) + 1
        new = counts.get("harvested", 0) + counts.get("updated", 0)
        details: dict[str, object] = {"counts": counts, "harvested": new}
        summary = ", ".join(f"{n} {k}" for k, n in sorted(counts.items())) or "no transcripts found"
        unsure = [r for r in results if r.inbox]
        if unsure:
            details["inbox"] = sum(r.inbox for r in unsure)
            summary += f"; {details['inbox']} to keep or drop in {unsure[-1].inbox_branch}"
        if new and self.head is not None:
            proposed = self.propose_weights(now)
            if proposed.branch:
                details["review"] = proposed.branch
                summary += f"; weight update proposed on {proposed.branch}"
        return summary, details

    def _job_weights(self, now: datetime, paths: Sequence[str | Path] | None) -> tuple[str, dict[str, object]]:
        if self.head is None:
            return "nothing to weigh yet", {}
        proposed = self.propose_weights(now)
        if not proposed.branch:
            return "no weight changes", {}
        return f"weight update proposed on {proposed.branch}", {"review": proposed.branch}

    def _job_reflect(self, now: datetime, paths: Sequence[str | Path] | None) -> tuple[str, dict[str, object]]:
        head = self.head
        seen = self._job_state().get("reflect")
        if head is None or head == seen:
            return "no new writes since the last reflect", {}
        done = self.reflect(now, auto=True)
        self._set_job_state("reflect", self.head)
        return f"{len(done.created)} new patterns, {len(done.updated)} verified again", {"commit": done.commit}

    def _job_decay(self, now: datetime, paths: Sequence[str | Path] | None) -> tuple[str, dict[str, object]]:
        report = self.decay(now)
        return (f"{report.examined} examined, {len(report.moves)} moved, {len(report.archived)} archived",
                {"commit": report.commit, "archived": len(report.archived)})

    def _job_snapshot(self, now: datetime, paths: Sequence[str | Path] | None) -> tuple[str, dict[str, object]]:
        if self.head is None:
            return "nothing to snapshot yet", {}
        snap = self.snapshot(now)
        return (f"snapshot {snap.tag} {'created' if snap.created else 'already there'}",
                {"tag": snap.tag, "created": snap.created})

    def _job_state(self) -> dict[str, str]:
        from gitmem.base import state

        try:
            data = json.loads((state.worktree_dir(self.root) / JOBS_FILE).read_text("utf-8"))
        except (OSError, ValueError):
            return {}
        return {k: v for k, v in data.items() if isinstance(k, str) and isinstance(v, str)} if isinstance(data, dict) else {}

    def _set_job_state(self, key: str, value: str | None) -> None:
        from gitmem.base import files, state

        data = self._job_state()
        if value is None:
            data.pop(key, None)
        else:
            data[key] = value
        files.write_atomic(state.worktree_dir(self.root) / JOBS_FILE, json.dumps(data, sort_keys=True))


def _changed(run: JobRun) -> bool:
    """Whether a run changed something (a commit, a tag, a review branch, harvested sessions): only such
    runs, and failures, go to the event log."""
    d = run.details
    return bool(d.get("harvested") or d.get("review") or d.get("commit") or d.get("created"))
