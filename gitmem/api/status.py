"""Status and the event stream: what the review loop stands at, and what happened, from git and the local log."""

from __future__ import annotations

import builtins
import json
from dataclasses import dataclass
from datetime import datetime
from os import PathLike
from typing import TYPE_CHECKING

from gitmem.api import patterns, reviews, timeline
from gitmem.api.context import Context
from gitmem.base import clock
from gitmem.store import enginestate, formats, store

if TYPE_CHECKING:
    from gitmem.api.findings import Refused

JOB_RUN = "job.run"        # a background job (hook, cron, the daemon) that did its work
JOB_ERROR = "job.error"    # one that failed: shown by `status` and once by the next SessionStart


CHECKS_FILE = "job-checks.json"   # per clone: each job's last run that found nothing to do


def record_job(root: str | PathLike[str], job: str, ok: bool, at: str, summary: str, hint: str | None = None,
               changed: bool = True) -> None:
    """Record one run of a background job (the one writer of job events): a failure, or a run that
    changed something, in the clone's event log; a run that found nothing to do only as the job's last
    check (a file rewritten, not a log: the daemon checks every few minutes)."""
    from gitmem.base import state

    fields = {"job": job, "summary": summary[:300], **({"hint": hint} if hint else {})}
    if ok and not changed:
        from gitmem.base import files

        checks = _checks(root)
        checks[job] = {"event": JOB_RUN, "at": at, **fields}
        files.write_atomic(state.shared_dir(root) / CHECKS_FILE, json.dumps(checks, sort_keys=True))
        return
    state.log_event(root, JOB_RUN if ok else JOB_ERROR, at, **fields)


def record_failure(root: str | PathLike[str], job: str, at: datetime, summary: str, hint: str | None = None) -> None:
    """Record a failed run of ``job`` at ``at`` (a hook's failure, before or without a repository opened)."""
    from gitmem.base.model import iso

    record_job(root, job, False, iso(at), summary, hint)


def unseen_job_error(root: str | PathLike[str], notice: str) -> tuple[str, str]:
    """The last job error as quoted text for an agent's context, and its key; ("", "") when there is none
    or it was shown already (its key is in the state file ``notice``)."""
    from gitmem.base import state
    from gitmem.engines.render import quote

    last = last_job_error(root)
    if last is None:
        return "", ""
    key = f"{last.get('at')}|{last.get('job')}|{last.get('summary')}"
    try:
        shown = json.loads((state.worktree_dir(root) / notice).read_text("utf-8")).get("shown")
    except (OSError, ValueError, AttributeError):
        shown = None
    if shown == key:
        return "", ""
    text = f"{last.get('job')} failed at {last.get('at')}: {last.get('summary')}"[:400]
    return ("gitmem reports a failed background job (details: `gitmem status`):\n" + quote(text) + "\n\n"), key


def mark_job_error_shown(root: str | PathLike[str], notice: str, key: str) -> None:
    """Record in the state file ``notice`` that the job error ``key`` was shown."""
    from gitmem.base import files, state

    files.write_atomic(state.worktree_dir(root) / notice, json.dumps({"shown": key}))


def last_job_runs(root: str | PathLike[str]) -> dict[str, dict[str, object]]:
    """Each job's last recorded run in this clone, by job name: the later of its last event and last check."""
    from gitmem.base import state

    last: dict[str, dict[str, object]] = {}
    for e in state.read(state.events_path(root)):
        if e.get("event") in (JOB_RUN, JOB_ERROR) and isinstance(e.get("job"), str):
            last[str(e["job"])] = e
    for job, check in _checks(root).items():
        if str(check.get("at", "")) > str(last.get(job, {}).get("at", "")):
            last[job] = check
    return last


def _checks(root: str | PathLike[str]) -> dict[str, dict[str, object]]:
    from gitmem.base import state

    try:
        data = json.loads((state.shared_dir(root) / CHECKS_FILE).read_text("utf-8"))
    except (OSError, ValueError):
        return {}
    if not isinstance(data, dict):
        return {}
    return {k: v for k, v in data.items() if isinstance(k, str) and isinstance(v, dict) and isinstance(v.get("at"), str)}


def last_job_error(root: str | PathLike[str]) -> dict[str, object] | None:
    """The last recorded failure of a background job in this clone, or None (``statuscache.last_job_error``)."""
    from gitmem.api.statuscache import last_job_error as last

    return last(root)


@dataclass(frozen=True)
class Counts:
    """What the memory holds: live memories by tier and by band, archived ones, episodes, patterns."""

    memories: int
    tiers: dict[str, int]
    bands: dict[str, int]
    archived: int
    episodes: int
    patterns: int
    unreadable: int = 0

    def to_json(self) -> dict[str, object]:
        return {"memories": self.memories, "tiers": self.tiers, "bands": self.bands, "archived": self.archived,
                "episodes": self.episodes, "patterns": self.patterns, "unreadable": self.unreadable}


def counts(ctx: Context, rev: str | None) -> Counts:
    """Memories by tier and band, archived memories, episodes and patterns at ``rev``."""
    listing = store.listing(ctx.git, rev)
    tiers: dict[str, int] = {}
    bands: dict[str, int] = {}
    for m in listing.memories:
        tiers[m.tier] = tiers.get(m.tier, 0) + 1
        bands[m.band] = bands.get(m.band, 0) + 1
    order = {"core": 0, "active": 1, "background": 2, "fading": 3, "short": 0, "long": 1}
    tiers = dict(sorted(tiers.items(), key=lambda kv: (order.get(kv[0], 9), kv[0])))
    bands = dict(sorted(bands.items(), key=lambda kv: (order.get(kv[0], 9), kv[0])))

    def files(folder: str) -> int:
        return sum(1 for path, _ in ctx.git.files(folder, rev) if path.endswith(".md")) if rev else 0

    return Counts(len(listing.memories), tiers, bands, files("archive"), files("episodes"),
                  len(store.all_patterns(ctx.git, rev)), len(listing.problems))


@dataclass(frozen=True)
class Status:
    """The review loop at a glance."""

    patterns: tuple[dict[str, object], ...]
    atrophy_candidates: tuple[str, ...]
    reviews: tuple[dict[str, object], ...]
    auto_streak: int
    forced_review_after: int
    drift: dict[str, object]
    last_snapshot: str | None
    last_error: dict[str, object] | None
    refused: tuple[Refused, ...] = ()   # sessions a secret refused, with their finding ids (api.findings)
    pending: tuple[str, ...] = ()   # files whose growth waits in .gitmem/pending/ (the next job applies a batch)
    counts: Counts | None = None

    @property
    def review_forced(self) -> bool:
        """True when the next weight update must be proposed for review."""
        return self.auto_streak >= self.forced_review_after

    def to_json(self) -> dict[str, object]:
        """What ``status --json`` prints."""
        return {"patterns": list(self.patterns), "atrophy_candidates": list(self.atrophy_candidates),
                "reviews": list(self.reviews), "auto_streak": self.auto_streak,
                "forced_review_after": self.forced_review_after, "review_forced": self.review_forced,
                "drift": self.drift, "last_snapshot": self.last_snapshot, "last_error": self.last_error,
                "refused_sessions": [r.to_json() for r in self.refused],
                "pending": {"count": len(self.pending), "files": list(self.pending)},
                "counts": self.counts.to_json() if self.counts else None}


def status(ctx: Context, now: datetime | None = None) -> Status:
    """Weights and stages, atrophy candidates, open reviews, the forced-review counter, drift, the last
    snapshot and the last error of a background job."""
    from gitmem.api.findings import refused
    from gitmem.engines import review
    from gitmem.writer import pending
    from gitmem.store import snapshots
    from gitmem.api import statuscache

    now = now or clock.now()
    before = statuscache.inputs(ctx.root, now)   # what this status is computed from, read first
    head = ctx.head
    pats = store.all_patterns(ctx.git, head)
    candidates = review.atrophy_candidates(pats, now, ctx.cfg.hebbian, patterns.proposed(ctx, review.ATROPHY))
    state = enginestate.read(ctx.git.read(formats.STATE_FILE, head) if head else None)
    done = Status(
        tuple({"slug": p.slug, "weight": p.weight, "stage": p.stage} for p in pats),
        tuple(c.pattern.slug for c in candidates),
        tuple(r.to_json() for r in reviews.reviews(ctx)),
        state.auto_streak,
        ctx.cfg.hebbian.forced_review_after,
        timeline.drift(ctx).to_json(),
        snapshots.latest(ctx.git),
        last_job_error(ctx.root),
        tuple(refused(ctx.root)),
        tuple(pending.queued(ctx.git, head)),
        counts(ctx, head))
    if before is not None and before.get("head") == head and statuscache.inputs(ctx.root, now) == before:
        statuscache.keep(ctx.root, now, done.to_json())   # nothing moved while it was computed
    return done


def history(ctx: Context, limit: int | None = None) -> builtins.list[dict[str, object]]:
    """The commit history of the branch, newest first, each commit with its gitmem event (from its
    trailers; None for a person's own commit) and whether it was automated."""
    head = ctx.head
    commits = builtins.list(ctx.git.log(head, limit=limit)) if head else []
    trailers = ctx.git.trailers([c.id for c in commits]) if commits else {}
    out: builtins.list[dict[str, object]] = []
    for c in commits:
        t = trailers.get(c.id)
        has = t is not None and t.has("Gitmem-Event")
        out.append({"commit": c.id, "timestamp": c.time, "subject": c.subject,
                    "event_type": t.get("Gitmem-Event") if t is not None and has else None,
                    "auto": bool(t.flag("Gitmem-Auto")) if t is not None else False,
                    "merge": len(c.parents) > 1})
    return out


def events(ctx: Context, limit: int | None = None) -> builtins.list[dict[str, object]]:
    """The structured event stream, oldest first: one event per gitmem commit (from its trailers) and
    every record of the local event log."""
    from gitmem.base import state

    head = ctx.head
    commits = builtins.list(ctx.git.log(head, limit=limit)) if head else []
    trailers = ctx.git.trailers([c.id for c in commits]) if commits else {}
    found: builtins.list[dict[str, object]] = []
    for c in commits:
        t = trailers.get(c.id)
        if t is None or not t.has("Gitmem-Event"):
            continue
        event: dict[str, object] = {"event_type": t.get("Gitmem-Event"), "timestamp": c.time, "commit": c.id,
                                    "subject": c.subject, "auto": t.flag("Gitmem-Auto"), "origin": "commit"}
        for key, field in (("Gitmem-Session", "session_id"), ("Gitmem-Approved-By", "approved_by"),
                           ("Gitmem-Review", "review"), ("Gitmem-Veto", "reason"), ("Gitmem-Files", "files")):
            if t.has(key):
                event[field] = t.get(key)
        found.append(event)
    for record in state.read(state.events_path(ctx.root)):
        if record.get("event") == "write":
            continue   # the commit's own event says it, from git
        event = {"event_type": record.get("event"), "timestamp": record.get("at"), "origin": "local"}
        event.update({k: v for k, v in record.items() if k not in ("event", "at")})
        found.append(event)
    found.sort(key=lambda e: str(e.get("timestamp") or ""))
    return found
