"""The experience bank as a whole: its status, the threshold a person sets, and clearing it.

``status`` reads only. ``set_threshold`` and ``clear`` are a person's operations,
each one commit with its ``sedimentation.*`` event: the threshold set is audited
and locks automatic changes for ``experience.override_lock_seconds``; clearing
needs ``confirm`` and can be reverted with ``git revert``.
"""

from __future__ import annotations

from dataclasses import dataclass
from datetime import datetime

from gitmem.api import experience
from gitmem.api.context import Context
from gitmem.api.experience import REFLECTIONS, emit, event, metadata_change, trailers, with_decision
from gitmem.base import clock
from gitmem.base.errors import UsageError
from gitmem.engines.sediment import distill as routes
from gitmem.engines.sediment import entry, guard, threshold
from gitmem.store import enginestate
from gitmem.writer.plan import Plan


# --- threshold ------------------------------------------------------------------------------------

@dataclass(frozen=True)
class ThresholdSet:
    """The outcome of ``threshold --set``: ``{"success", "old", "new"}`` as the seed returns it."""

    old: float
    new: float
    commit: str | None

    def to_json(self) -> dict[str, object]:
        """What ``sediment threshold --set N --json`` prints."""
        return {"success": True, "old": self.old, "new": self.new, "commit": self.commit, "threshold": self.new}


def set_threshold(ctx: Context, value: float, operator: str = "user", now: datetime | None = None) -> ThresholdSet:
    """Set the threshold (audited: a commit and a ``threshold_update`` event); automatic permanent
    changes wait ``experience.override_lock_seconds``."""
    now = now or clock.now()
    guard.check(guard.Input(threshold=value), "threshold")
    decision = threshold.Decision(now, "set", f"{float(value):g} {operator}")
    seen: dict[str, float] = {}

    def plan(parent: str | None) -> Plan[None]:
        data, before, after = with_decision(ctx, parent, decision)
        seen["old"], seen["new"] = before.value, after.value
        changes: dict[str, bytes | None] = {enginestate.STATE_FILE: data}
        changes.update(metadata_change(ctx, parent, after))
        return Plan(changes, f"gitmem: set the sedimentation threshold to {float(value):g}",
                    "sedimentation.threshold_update", trailers=trailers(
                        "threshold_update", None, operator, old=f"{before.value:g}", new=f"{after.value:g}"))

    written = ctx.writer.write(plan, now)
    emit(ctx, event("threshold_update", now, operator, old=seen["old"], new=seen["new"]))
    return ThresholdSet(seen["old"], seen["new"], written.commit)


# --- clear ----------------------------------------------------------------------------------------

@dataclass(frozen=True)
class Cleared:
    """What ``clear`` removed, in one commit ``git revert`` undoes."""

    cleared: str
    reflections: int
    promotions: int
    commit: str | None

    def to_json(self) -> dict[str, object]:
        """What ``sediment clear --json`` prints."""
        return {"success": True, "cleared": self.cleared, "reflections": self.reflections,
                "promotions": self.promotions, "commit": self.commit}


def clear(ctx: Context, skill: str | None = None, cascade: bool = False, confirm: bool = False,
          operator: str = "user", now: datetime | None = None) -> Cleared:
    """Clear the reflections (all, or ``skill``'s), and with ``cascade`` their promotion entries."""
    from gitmem.engines.sediment import promotions

    if not confirm:
        raise UsageError("sediment clear needs a second confirmation: nothing cleared",
                         hint="run it again with --confirm (the commit it makes can be reverted)")
    now = now or clock.now()
    guard.check(guard.Input(skill=skill), "clear")
    counts: dict[str, int] = {}

    def plan(parent: str | None) -> Plan[None] | None:
        refl = (ctx.git.read(REFLECTIONS, parent) or b"").decode("utf-8") if parent else ""
        ids = {r.id for r in entry.parse(refl) if skill is None or r.skill == skill}
        changes: dict[str, bytes | None] = {REFLECTIONS: entry.remove_entries(refl, ids).encode("utf-8")}
        counts["r"], counts["p"] = len(ids), 0
        if cascade:
            prom = (ctx.git.read(routes.PROMOTIONS, parent) or b"").decode("utf-8") if parent else ""
            kept, removed = promotions.remove(prom, ids)
            counts["p"] = removed
            changes[routes.PROMOTIONS] = kept.encode("utf-8")
        return Plan(changes, f"gitmem: clear sedimentation experience ({skill or 'all'}{', cascade' if cascade else ''})",
                    "sedimentation.experience_cleared",
                    trailers=trailers("experience_cleared", None, operator, skill=skill or "all",
                                       cascade="yes" if cascade else "no"))

    written = ctx.writer.write(plan, now)
    emit(ctx, event("experience_cleared", now, operator, skill_id=skill, cascade=cascade,
                    reflections=counts.get("r", 0), promotions=counts.get("p", 0)))
    return Cleared(skill or "all", counts.get("r", 0), counts.get("p", 0), written.commit)


# --- status ---------------------------------------------------------------------------------------

@dataclass(frozen=True)
class Review:
    """One open sedimentation review."""

    branch: str
    id: str
    target: str
    flags: tuple[str, ...]
    expires: str

    def to_json(self) -> dict[str, object]:
        """One entry of ``sediment status --json``'s ``reviews``."""
        return {"branch": self.branch, "id": self.id, "target": self.target, "flags": list(self.flags),
                "expires": self.expires or None}


@dataclass(frozen=True)
class BankStatus:
    """The bank at a glance: the threshold in force and its history, the reflections with their
    priority, the open reviews, the queue of growth waiting in ``.gitmem/pending/``, the disk check."""

    threshold: threshold.Threshold
    reflections: tuple[tuple[entry.Reflection, float, str], ...]
    reviews: tuple[Review, ...]
    queue: tuple[str, ...]
    free_mb: int
    degraded: bool
    promotions: int

    def to_json(self) -> dict[str, object]:
        """What ``sediment status --json`` prints (``threshold``: the value in force)."""
        t = self.threshold.to_json()
        return {**t, "threshold": self.threshold.value, "threshold_state": t,
                "reflections": [{**r.to_json(), "priority": p, "formula": f} for r, p, f in self.reflections],
                "reviews": [r.to_json() for r in self.reviews], "queue": list(self.queue),
                "free_mb": self.free_mb, "degraded": self.degraded, "promotions": self.promotions}


def status(ctx: Context, now: datetime | None = None) -> BankStatus:
    """The bank's status at ``now`` (reads only)."""
    from gitmem.api import promotions
    from gitmem.engines.sediment import priority
    from gitmem.engines.sediment import promotions as log
    from gitmem.guards import guard as write_guard
    from gitmem.writer import pending

    now = now or clock.now()
    head = ctx.head
    weights = ctx.cfg.sediment.type_weights
    rows = []
    for r in experience.reflections(ctx, head):
        p = priority.priority(r, weights)
        rows.append((r, p.value, p.formula))
    reviews = []
    for branch in ctx.git.branches(promotions.PREFIX):
        tip = ctx.git.tip(branch)
        if tip is not None:
            m = promotions.meta(ctx, tip)
            reviews.append(Review(branch, m.id, m.target, m.flags, m.expires))
    prom = ctx.git.read(routes.PROMOTIONS, head) if head else None
    free = write_guard.free_mb(ctx.root)
    return BankStatus(experience.current_threshold(ctx, now, head), tuple(rows), tuple(reviews),
                      tuple(pending.queued(ctx.git, head)), free, experience.degraded(ctx),
                      len(log.sources(prom.decode("utf-8", "replace"))) if prom else 0)
