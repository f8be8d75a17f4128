"""Skill sedimentation, the use cases: reflect, like, distill (DESIGN.md section 5).

Each composes the pure rules of ``gitmem.engines.sediment`` with the one writer:
the entry guard first (nothing written on a violation), then a plan that the
writer's chain judges (sandbox, then amplitude: an automated write that grows
a bank/ file past the limit commits one batch and queues the rest in
``.gitmem/pending/``). Every step is a commit carrying its ``sedimentation.*``
event, and the event's fields (the seed's JSON) go to the clone's event log.
Promotion and its reviews are in ``gitmem.api.promotions``; the bank's status, threshold
and clearing in ``gitmem.api.bank``.

Under ``sediment.min_free_mb`` of free disk, sedimentation records only: the
event is written and a reflection waits in the queue, but no new file is made.
"""

from __future__ import annotations

import re
import time
from dataclasses import dataclass, replace
from datetime import datetime

from gitmem.api.context import Context
from gitmem.api.experience import REFLECTIONS, degraded, emit, event, find, reflections, trailers
from gitmem.base import clock
from gitmem.engines.sediment import distill as routes
from gitmem.engines.sediment import entry, events, guard
from gitmem.engines.sediment.entry import Reflection
from gitmem.writer.plan import Plan


def _expire(ctx: Context, now: datetime) -> None:
    """Every sedimentation step first rejects by default the marked promotions whose time ran out."""
    from gitmem.api import promotions

    promotions.expire(ctx, now)


# --- reflect --------------------------------------------------------------------------------------

@dataclass(frozen=True)
class Reflected:
    """What ``reflect`` did: ``written``, ``queued`` (growth or the disk check) or ``skipped`` (and why)."""

    outcome: str
    reason: str
    reflection: Reflection | None
    commit: str | None = None
    deferred: tuple[str, ...] = ()
    event: dict[str, object] | None = None

    def to_json(self) -> dict[str, object]:
        """What ``sediment reflect --json`` prints."""
        return {"outcome": self.outcome, "reason": self.reason, "commit": self.commit, "deferred": list(self.deferred),
                "reflection": self.reflection.to_json() if self.reflection else None, "event": self.event}


def reflect(ctx: Context, *, topic: str, context: str, approach: str, result: str, score: int, reusable: str,
            kind: str, tags: tuple[str, ...] = (), skill: str = "", role: str = "", repeat: bool = False,
            deviation: bool = False, loop: str = "", source: str = "agent", output: str | None = None,
            operator: str = "agent", session: str = "", now: datetime | None = None) -> Reflected:
    """Append one reflection in the seed's format to ``bank/reflections.md`` (at most one per loop).

    ``output``: the task's output for the trigger pre-check (empty: skip everything); by default the
    approach and the reusable point. An entry more than 0.8 similar to one of the last 3 is skipped
    (distill may still run); a deviation entry is not written twice within ``sediment.ttl_hours``.
    """
    started = time.monotonic()
    now = now or clock.now()
    _expire(ctx, now)
    texts = (topic, context, approach, reusable, " ".join(tags), skill, role, source, loop)
    problems = guard.problems(guard.Input(
        ttl_hours=ctx.cfg.sediment.ttl_hours, skill=skill or None,
        content_bytes=sum(len(str(t).encode("utf-8", "replace")) for t in texts),
        required=(("topic", topic), ("context", context), ("approach", approach), ("reusable", reusable))))
    if isinstance(score, bool) or not isinstance(score, int) or not 1 <= score <= 5:
        problems.append(f"score={score!r} must be a whole number from 1 to 5")
    if result not in entry.RESULTS:
        problems.append(f"result={result!r} must be one of {', '.join(entry.RESULTS)}")
    if kind not in entry.KINDS:
        problems.append(f"kind={kind!r} must be one of {', '.join(entry.KINDS)}")
    if role and guard.skill_problem(role):
        problems.append(f"role {role!r} is not 1-64 letters, digits or underscores")
    for name, value in (("loop", loop), ("source", source)):
        if not re.fullmatch(entry.TOKEN, value):
            problems.append(f"{name}={value!r} may hold only letters, digits and . : # / + - _ (200 at most)")
    if problems:
        emit(ctx, event("guard_triggered", now, operator, session, started, reason="; ".join(problems),
                        guard=events.Guard(path_check_passed=True, sandbox_path=REFLECTIONS)))
        from gitmem.base.errors import ValidationError

        raise ValidationError("sediment reflect refused, nothing written: " + "; ".join(problems),
                              hint="fix each value listed and run the command again")
    from gitmem.base.model import iso

    at = iso(now)
    made = Reflection(entry.new_id(at, topic, reusable), at, topic.strip(), context.strip(), approach.strip(),
                      result, score, reusable.strip(), entry.tags_of(kind, tags), kind,  # type: ignore[arg-type]
                      skill, role, 0, repeat, deviation, loop, source)
    existing = reflections(ctx)
    skip = _skip(ctx, made, existing, output, now)
    if skip is not None:
        kind_of: events.Kind = "guard_triggered" if skip.startswith(("ttl", "loop")) else "reflect"
        ev = emit(ctx, event(kind_of, now, operator, session, started, skipped=skip, reflection=made.id))
        return Reflected("skipped", skip, made, event=ev)
    text = entry.render(made)
    if degraded(ctx):
        return _queue(ctx, made, text, operator, session, now, started)

    def plan(parent: str | None) -> Plan[None] | None:
        old = (ctx.git.read(REFLECTIONS, parent) if parent else None) or b""
        if any(r.id == made.id for r in entry.parse(old.decode("utf-8", "replace"))):
            return None
        return Plan({REFLECTIONS: old + text.encode("utf-8")}, f"gitmem: reflect {made.topic[:80]}",
                    "sedimentation.reflect", auto=True, defer=True, session=session or None,
                    trailers=trailers("reflect", made, operator))

    written = ctx.writer.write(plan, now)
    ev = emit(ctx, event("reflect", now, operator, session, started, reflection=made.id,
                         guard=events.Guard(True, not written.deferred, False, REFLECTIONS),
                         bytes_written=len(text.encode("utf-8"))))
    return Reflected("queued" if written.deferred else "written",
                     "growth past the amplitude limit queued in .gitmem/pending/" if written.deferred else "",
                     made, written.commit, written.deferred, ev)


def _skip(ctx: Context, made: Reflection, existing: list[Reflection], output: str | None, now: datetime) -> str | None:
    """Why ``made`` is not written (None: write it). A deviation entry answers to its TTL instead of the
    similarity check: after ``ttl_hours`` the same deviation may be written again."""
    from gitmem.engines.similarity import similarity

    shown = made.text() if output is None else output
    if not shown.strip():
        return "empty output: nothing to reflect on"
    if made.loop and any(r.loop == made.loop for r in existing):
        return f"loop {made.loop!r} has its reflection already (at most one per loop)"
    if made.deviation:
        earlier = entry.within_ttl(made, existing, now, ctx.cfg.sediment.ttl_hours)
        if earlier is not None:
            return f"ttl: the same deviation was written at {earlier.at}, within {ctx.cfg.sediment.ttl_hours} h"
        return None
    recent = existing[-entry.RECENT:]
    best = max((similarity(shown, r.text()) for r in recent), default=0.0)
    if entry.precheck(shown, recent, best) == "skip_reflect":
        return f"more than {entry.SIMILAR} similar ({best:.2f}) to one of the last {entry.RECENT} reflections"
    return None


def _queue(ctx: Context, made: Reflection, text: str, operator: str, session: str, now: datetime,
           started: float) -> Reflected:
    """Record only: the entry waits in the queue of bank/reflections.md, no file of bank/ is made."""
    from gitmem.guards.amplitude import pending_path

    queue = pending_path(REFLECTIONS)

    def plan(parent: str | None) -> Plan[None] | None:
        old = (ctx.git.read(queue, parent) if parent else None) or b""
        if any(x.id == made.id for x in entry.parse(old.decode("utf-8", "replace"))):
            return None
        return Plan({queue: old + text.encode("utf-8")}, f"gitmem: reflect {made.topic[:80]} (queued: disk low)",
                    "sedimentation.guard_triggered", auto=True, session=session or None,
                    trailers=trailers("guard_triggered", made, operator, reason="disk"))

    written = ctx.writer.write(plan, now)
    reason = f"under sediment.min_free_mb ({ctx.cfg.sediment.min_free_mb} MB free needed): recorded only, queued"
    ev = emit(ctx, event("guard_triggered", now, operator, session, started, reason=reason, reflection=made.id,
                         guard=events.Guard(True, True, False, queue)))
    return Reflected("queued", reason, made, written.commit, (REFLECTIONS,), ev)


# --- like -----------------------------------------------------------------------------------------

def like(ctx: Context, entry_id: str, operator: str = "user", now: datetime | None = None) -> Reflection:
    """Count a person's explicit "keep this for later" for reflection ``entry_id`` (one commit)."""
    now = now or clock.now()
    find(ctx, entry_id)
    out: dict[str, Reflection] = {}

    def plan(parent: str | None) -> Plan[None] | None:
        r = find(ctx, entry_id, parent)
        old = ctx.git.read(REFLECTIONS, parent) if parent else None
        out["r"] = liked = replace(r, likes=r.likes + 1)
        return Plan({REFLECTIONS: entry.replace_entry((old or b"").decode("utf-8"), liked).encode("utf-8")},
                    f"gitmem: like reflection {entry_id}", "sedimentation.reflect", auto=True,
                    trailers=trailers("reflect", r, operator, like="1"))

    ctx.writer.write(plan, now)
    emit(ctx, event("reflect", now, operator, liked=entry_id, likes=out["r"].likes))
    return out["r"]


# --- distill --------------------------------------------------------------------------------------

@dataclass(frozen=True)
class Distilled:
    """One reflection distilled (``target`` empty: skipped, ``reason`` says why)."""

    id: str
    target: str
    commit: str | None
    reason: str = ""
    deferred: tuple[str, ...] = ()

    def to_json(self) -> dict[str, object]:
        """One entry of ``sediment distill --json``."""
        return {"id": self.id, "target": self.target, "commit": self.commit, "reason": self.reason,
                "deferred": list(self.deferred)}


def distill(ctx: Context, entry_id: str | None = None, operator: str = "agent", session: str = "",
            now: datetime | None = None) -> list[Distilled]:
    """Route each reflection not yet distilled (or ``entry_id``) into its structured file, one commit each."""
    now = now or clock.now()
    _expire(ctx, now)
    pending = [r for r in reflections(ctx) if (r.id == entry_id if entry_id else not r.distilled)]
    if entry_id and not pending:
        find(ctx, entry_id)
    return [_distill_one(ctx, r.id, operator, session, now) for r in pending]


def _distill_one(ctx: Context, entry_id: str, operator: str, session: str, now: datetime) -> Distilled:
    started = time.monotonic()
    head = ctx.head
    r = find(ctx, entry_id, head)

    def exists(path: str) -> bool:
        return head is not None and ctx.git.read(path, head) is not None

    target = routes.route(r, exists)
    if target is None:
        return Distilled(r.id, "", None, f"skill {r.skill!r} has no skills/{r.skill}/SKILL.md: only a promotion "
                                         "creates a skill" if r.skill else "a process reflection names no skill")
    guard.check_target(target.path)
    if target.creates and degraded(ctx):
        emit(ctx, event("guard_triggered", now, operator, session, started, reason="disk low: no new file",
                        reflection=r.id))
        return Distilled(r.id, "", None, f"under sediment.min_free_mb: {target.path} is not created (recorded only)")

    def plan(parent: str | None) -> Plan[None] | None:
        now_r = find(ctx, entry_id, parent)
        if now_r.distilled:
            return None
        old = ctx.git.read(target.path, parent) if parent else None
        text = routes.new_file(target, r) if old is None else routes.insert(old.decode("utf-8"), target, r)
        refl = (ctx.git.read(REFLECTIONS, parent) or b"").decode("utf-8") if parent else ""
        marked = entry.replace_entry(refl, replace(now_r, distilled=target.path))
        return Plan({target.path: text.encode("utf-8"), REFLECTIONS: marked.encode("utf-8")},
                    f"gitmem: distill {r.id} into {target.path}", "sedimentation.distill", auto=True, defer=True,
                    session=session or None, trailers=trailers("distill", r, operator, target=target.path))

    written = ctx.writer.write(plan, now)
    emit(ctx, event("distill", now, operator, session, started, reflection=r.id, target=target.path,
                    guard=events.Guard(True, not written.deferred, False, target.path)))
    return Distilled(r.id, target.path, written.commit, "queued in part" if written.deferred else "", written.deferred)
