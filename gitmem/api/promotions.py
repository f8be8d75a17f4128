"""Sedimentation's promotions: proposed by priority, each a review branch of its own kind that a person decides.

``promote`` opens ``gitmem/review/sediment-<reflection id>`` holding the rule
written into its target (bank/ or skills/), for every reflection whose priority
reaches the threshold in force, or for the one a person asks for. ``review
accept`` writes the rule into the target as the branch of the checked-out
branch stands then, logs the promotion in ``bank/promotions.md`` and counts an
approval; ``review reject`` counts a veto. A promotion that adds a capability,
rewrites a rule or adds an external dependency is rejected by default when no
person accepts it within ``sediment.veto_timeout_minutes`` (kept under
``refs/gitmem/rejected/``, reason "expired"; not a veto); ``reopen`` undoes that.
"""

from __future__ import annotations

import time
from collections.abc import Callable
from dataclasses import dataclass, replace
from datetime import datetime, timedelta

from gitmem.api import experience
from gitmem.api.context import Context
from gitmem.base import clock
from gitmem.base.errors import NotFoundError, SecurityError, UsageError
from gitmem.engines.sediment import distill as routes
from gitmem.engines.sediment import entry, events, guard, priority, threshold
from gitmem.engines.sediment import promotions as log
from gitmem.engines.sediment.entry import Reflection
from gitmem.store import enginestate
from gitmem.writer.plan import Plan

PREFIX = "gitmem/review/sediment-"
REJECTED = "refs/gitmem/rejected/"


def branch_of(entry_id: str) -> str:
    """The review branch of reflection ``entry_id``'s promotion."""
    return PREFIX + entry_id


@dataclass(frozen=True)
class Proposed:
    """One promotion proposed (or, with ``branch`` None, why not)."""

    id: str
    priority: float
    formula: str
    threshold: float
    branch: str | None
    target: str
    flags: tuple[str, ...] = ()
    reason: str = ""

    def to_json(self) -> dict[str, object]:
        """One entry of ``sediment promote --json``."""
        return {"id": self.id, "priority": self.priority, "formula": self.formula, "threshold": self.threshold,
                "branch": self.branch, "target": self.target, "flags": list(self.flags), "reason": self.reason}


def _exists(ctx: Context, rev: str | None) -> Callable[[str], bool]:
    return lambda path: rev is not None and ctx.git.read(path, rev) is not None


def _similar(a: str, b: str) -> float:
    from gitmem.engines.similarity import similarity

    return similarity(a, b)


def change_of(ctx: Context, r: Reflection, rev: str | None) -> tuple[routes.Route, bytes, tuple[str, ...]]:
    """The target, its new text and the veto flags of promoting ``r`` onto ``rev``."""
    from gitmem.engines.similarity import DUPLICATE_THRESHOLD

    target = routes.route(r, _exists(ctx, rev), promotion=True)
    assert target is not None
    guard.check_target(target.path)
    old = ctx.git.read(target.path, rev) if rev else None
    flags: list[str] = []
    if target.creates and target.path.startswith(("skills/", "bank/characters/")):
        flags.append("capability")
    text = old.decode("utf-8") if old is not None else ""
    replacing = routes.rewritten(text, r, _similar, DUPLICATE_THRESHOLD) if old else None
    if replacing is not None:
        flags.append("rewrite")
    else:
        replacing = routes.own_line(text, r)   # its distilled line becomes the rule: no rewrite of another
    known = ctx.cfg.sediment.skills
    if r.skill and known and r.skill not in known and "capability" not in flags:
        flags.append("capability")   # a skill gitmem.yaml does not list is a new one
    if "#dependency" in r.tags:
        flags.append("dependency")
    made = (routes.new_file(target, r, promoted=True) if old is None
            else routes.insert(text, target, r, replacing, promoted=True))
    return target, made.encode("utf-8"), tuple(flags)


def promote(ctx: Context, entry_id: str | None = None, operator: str = "agent", session: str = "",
            now: datetime | None = None) -> list[Proposed]:
    """Propose for review each reflection whose priority reaches the threshold in force; with
    ``entry_id`` (a person's request) that one whatever its priority."""
    now = now or clock.now()
    expire(ctx, now)
    head = ctx.head
    t = experience.current_threshold(ctx, now, head)
    found = []
    for r in experience.reflections(ctx, head):
        if (entry_id and r.id != entry_id) or (not entry_id and r.promoted):
            continue
        p = priority.priority(r, ctx.cfg.sediment.type_weights)
        if entry_id is None and not priority.due(p.value, t.value):
            continue
        found.append(_propose(ctx, r, p, t, bool(entry_id), operator, session, now))
    if entry_id and not found:
        experience.find(ctx, entry_id)
    return found


def _propose(ctx: Context, r: Reflection, p: priority.Priority, t: threshold.Threshold, asked: bool,
             operator: str, session: str, now: datetime) -> Proposed:
    from gitmem.base.errors import CasFailed
    from gitmem.base.model import iso

    started = time.monotonic()
    branch = branch_of(r.id)
    base = ctx.head
    trigger = "user_request" if asked else "priority_threshold"
    if base is None or ctx.git.tip(branch) is not None or ctx.git.refs(REJECTED + branch):
        return Proposed(r.id, p.value, p.formula, t.value, None, "", reason="proposed already")
    target, data, flags = change_of(ctx, r, base)
    if target.creates and experience.degraded(ctx):
        experience.emit(ctx, experience.event("guard_triggered", now, operator, session, started, reflection=r.id,
                                     reason="disk low: no new file"))
        return Proposed(r.id, p.value, p.formula, t.value, None, target.path, flags,
                        f"under sediment.min_free_mb: {target.path} is not created (recorded only)")
    expires = iso(now + timedelta(minutes=ctx.cfg.sediment.veto_timeout_minutes)) if flags else ""
    trailers = (("Gitmem-Review", branch), ("Gitmem-Sediment-Id", r.id), ("Gitmem-Sediment-Target", target.path),
                ("Gitmem-Sediment-Priority", p.formula), ("Gitmem-Sediment-Trigger", trigger),
                ("Gitmem-Sediment-Operator", operator)) + ((("Gitmem-Sediment-Veto", ", ".join(flags)),
                                                            ("Gitmem-Sediment-Expires", expires)) if flags else ())
    try:
        ctx.git.set_ref(f"refs/heads/{branch}", base, None)
    except (CasFailed, Exception):   # another writer opened it a moment ago
        return Proposed(r.id, p.value, p.formula, t.value, None, target.path, flags, "proposed already")
    plan: Plan[None] = Plan({target.path: data}, f"gitmem: promote reflection {r.id} into {target.path}",
                            "sedimentation.promote", auto=True, body=f"rule: {r.reusable}\npriority: {p.formula}",
                            trailers=trailers)
    try:
        written = ctx.writer.write(lambda parent: plan if parent == base else None, now, branch=branch)
    except BaseException:   # a guard refused it: no empty review is left behind
        ctx.git.delete_ref(f"refs/heads/{branch}")
        raise
    if written.commit is None:
        ctx.git.delete_ref(f"refs/heads/{branch}")
        return Proposed(r.id, p.value, p.formula, t.value, None, target.path, flags, "the branch moved; try again")
    decision = threshold.Decision(now, "propose", branch)

    def mark(parent: str | None) -> Plan[None] | None:
        refl = (ctx.git.read(experience.REFLECTIONS, parent) or b"").decode("utf-8") if parent else ""
        current = next((x for x in entry.parse(refl) if x.id == r.id), None)
        state, _, after = experience.with_decision(ctx, parent, decision)
        # the log's metadata block comes with the first proposal, so that an accept only appends its entry
        changes: dict[str, bytes | None] = {enginestate.STATE_FILE: state, **experience.metadata_change(ctx, parent, after)}
        if current is not None and not current.promoted:
            changes[experience.REFLECTIONS] = entry.replace_entry(refl, replace(current, promoted=branch)).encode()
        return Plan(changes, f"gitmem: propose promotion of {r.id} ({branch})", "sedimentation.promote",
                    auto=True, session=session or None, trailers=(("Gitmem-Sediment-Id", r.id),
                                                                  ("Gitmem-Sediment-Review", branch)))

    ctx.writer.write(mark, now)
    experience.emit(ctx, experience.event(
        "promote", now, operator, session, started, reflection=r.id, review=branch,
        promotion={"priority_score": p.value, "trigger": trigger, "threshold_at_time": t.value,
                   "output_type": "skill" if target.path.startswith("skills/") else "rule",
                   "output_target": target.path},
        guard=events.Guard(True, True, bool(flags), target.path), bytes_written=len(data)))
    return Proposed(r.id, p.value, p.formula, t.value, branch, target.path, flags)


# --- the review kind: show, accept, reject, expire, reopen -----------------------------------------

@dataclass(frozen=True)
class Meta:
    """What a sediment review's commit says about itself (its trailers)."""

    id: str
    target: str
    formula: str
    trigger: str
    flags: tuple[str, ...]
    expires: str


def meta(ctx: Context, tip: str) -> Meta:
    """The trailers of a sediment review's commit."""
    t = ctx.git.trailers([tip]).get(tip)

    def get(key: str) -> str:
        return (t.get(key) or "") if t is not None else ""

    flags = tuple(f.strip() for f in get("Gitmem-Sediment-Veto").split(",") if f.strip())
    return Meta(get("Gitmem-Sediment-Id"), get("Gitmem-Sediment-Target"), get("Gitmem-Sediment-Priority"),
                get("Gitmem-Sediment-Trigger"), flags, get("Gitmem-Sediment-Expires"))


FLAG_WORDS = {"capability": "adds a capability (a new skill or role)", "rewrite": "rewrites an existing rule",
              "dependency": "adds an external dependency"}


def shown(ctx: Context, base: str | None, tip: str) -> list[str]:
    """The lines ``review show`` prints for a sediment review: the rule, its target, its marks."""
    from gitmem.engines.review import visible

    m = meta(ctx, tip)
    lines = [f"promote reflection {visible(m.id)} into {visible(m.target)} ({visible(m.trigger)}; "
             f"priority {visible(m.formula)})"]
    lines += [f"human veto: {FLAG_WORDS.get(f, visible(f))}; rejected by default at {visible(m.expires)} "
              "unless a person accepts it" for f in m.flags]
    return lines   # every changed path, and what is outside the kind's scope, is listed by review show itself


def accept_changes(ctx: Context, branch: str, parent: str, tip: str, who: str,
                   now: datetime) -> dict[str, bytes | None]:
    """The changes of accepting sediment review ``branch`` onto ``parent``: the rule in its target (computed
    again from the reflection, as the target stands now: never the branch's text), the promotion logged,
    an approval counted."""
    m = meta(ctx, tip)   # the kind's scope (gitmem.engines.reviewkinds.SEDIMENT) was checked before this
    if not m.id:   # a hand-made branch: what it changes is never taken, there is no rule to compute
        paths = ", ".join(c.path for c in ctx.git.diff(ctx.git.merge_base(tip, parent), tip)) or "nothing"
        raise SecurityError(f"{branch} names no reflection (no Gitmem-Sediment-Id trailer); it changes {paths}",
                            hint=f"reject it: gitmem review reject {branch} --reason 'no reflection'")
    r = experience.find(ctx, m.id, parent)
    target, data, _ = change_of(ctx, r, parent)
    state, before, after = experience.with_decision(ctx, parent, threshold.Decision(now, "approve", branch))
    prom = (ctx.git.read(routes.PROMOTIONS, parent) or b"# Promotions\n").decode("utf-8")
    prom = log.add(prom, log.Promotion(r, m.formula, m.trigger, target.path, branch, who))
    return {target.path: data, enginestate.STATE_FILE: state,
            routes.PROMOTIONS: log.with_metadata(prom, after).encode("utf-8")}


def record_landed(ctx: Context, branch: str, tip: str, merger: str, merged_at: datetime, commit: str,
                  now: datetime) -> str | None:
    """Sediment review ``branch`` accepted on a remote by ``merger`` (merged, squashed or rebased there in
    ``commit``), recorded as a local accept records it, onto the head as the merge left it: the rule in its
    target unless the merged tree carries it already, the promotion logged, the approval counted. The approval
    is dated by the merge and keyed by the review, so that clones recording the same merge count it once;
    the commit made (None: recorded already, or a branch that names no reflection)."""
    m = meta(ctx, tip)
    if not m.id:   # a hand-made branch: nothing is computed from it
        return None

    def plan(parent: str | None) -> Plan[None] | None:
        if parent is None:
            return None
        _, current = experience.state_at(ctx, parent)
        if any(d.action == "approve" and d.argument == branch for d in threshold.ordered(current.decisions)):
            return None   # another clone recorded it (or a person accepted it there)
        try:
            r = experience.find(ctx, m.id, parent)
        except NotFoundError:
            return None   # its reflection was cleared since
        changes: dict[str, bytes | None] = {}
        target = routes.route(r, _exists(ctx, parent), promotion=True)
        old = ctx.git.read(target.path, parent) if target is not None else None
        line = routes.own_line(old.decode("utf-8", "replace"), r) if old is not None else None
        if target is None or line is None or not line.startswith("- Rule: "):
            target, data, _ = change_of(ctx, r, parent)   # the merge did not carry the rule: written as accept does
            changes[target.path] = data
        state, _, after = experience.with_decision(ctx, parent, threshold.Decision(merged_at, "approve", branch))
        prom = (ctx.git.read(routes.PROMOTIONS, parent) or b"# Promotions\n").decode("utf-8")
        prom = log.add(prom, log.Promotion(r, m.formula, m.trigger, target.path, branch, merger))
        changes.update({enginestate.STATE_FILE: state, routes.PROMOTIONS: log.with_metadata(prom, after).encode()})
        return Plan(changes, f"gitmem: record review {branch}, accepted on the remote", "review.accept",
                    approved_by=merger, trailers=(("Gitmem-Review", branch), ("Gitmem-Merged-In", commit)))

    before = threshold_base(ctx, branch, now)
    written = ctx.writer.write(plan, now)
    if written.commit is not None:
        decided(ctx, branch, "accepted", now, before)
    return written.commit


def reject_changes(ctx: Context, branch: str, parent: str | None, now: datetime,
                   expired: bool = False) -> dict[str, bytes | None]:
    """The state change of a person's veto of ``branch`` (or of its default rejection: no veto counted)."""
    state, _, after = experience.with_decision(ctx, parent, threshold.Decision(now, "expire" if expired else "veto",
                                                                             branch))
    changes: dict[str, bytes | None] = {enginestate.STATE_FILE: state}
    changes.update(experience.metadata_change(ctx, parent, after))
    return changes


def threshold_base(ctx: Context, branch: str, now: datetime) -> float | None:
    """The permanent threshold before a decision on ``branch`` (None: not a sediment review)."""
    return experience.current_threshold(ctx, now).base if branch.startswith(PREFIX) else None


def decided(ctx: Context, branch: str, action: str, now: datetime, before: float | None = None) -> None:
    """The events of a person's accept or reject of a sediment review."""
    t = experience.current_threshold(ctx, now)
    kind: events.Kind = "promote" if action == "accepted" else "veto"
    experience.emit(ctx, experience.event(kind, now, "user", review=branch, decision=action,
                                 guard=events.Guard(True, True, True, "")))
    if before is not None and before != t.base:
        experience.emit(ctx, experience.event("threshold_update", now, "system", old=before, new=t.base,
                                     reason=t.history[-1].reason if t.history else ""))


def expire(ctx: Context, now: datetime | None = None) -> list[str]:
    """Reject by default the marked promotions no person accepted in time (reason "expired"); the branches."""
    from gitmem.base.clock import parse_time

    now = now or clock.now()
    done = []
    for branch in ctx.git.branches(PREFIX):
        tip = ctx.git.tip(branch)
        if tip is None:
            continue
        m = meta(ctx, tip)
        try:
            due = bool(m.flags) and parse_time(_deadline(ctx, branch, m)) <= now
        except ValueError:
            continue
        if due:
            _reject_default(ctx, branch, tip, now)
            done.append(branch)
    return done


def _deadline(ctx: Context, branch: str, m: Meta) -> str:
    """When ``branch`` expires: its own stamp, or the timeout after its last reopening."""
    from gitmem.base.model import iso

    _, state = experience.state_at(ctx, ctx.head)
    reopened = [d.at for d in threshold.ordered(state.decisions) if d.action == "reopen" and d.argument == branch]
    if reopened:
        return iso(reopened[-1] + timedelta(minutes=ctx.cfg.sediment.veto_timeout_minutes))
    return m.expires


def _reject_default(ctx: Context, branch: str, tip: str, now: datetime) -> None:
    kept = REJECTED + branch
    old = ctx.git.refs(kept)
    ctx.git.set_ref(kept, tip, ctx.git.commit(kept).id if old else None)
    ctx.git.delete_ref(f"refs/heads/{branch}")
    ctx.writer.write(lambda parent: Plan(reject_changes(ctx, branch, parent, now, expired=True),
                                         f"gitmem: reject {branch} by default (expired)", "sedimentation.veto",
                                         auto=True, body=f"reason: expired\nkept at: {kept} ({tip})",
                                         trailers=(("Gitmem-Review", branch), ("Gitmem-Veto", "expired"))), now)
    experience.emit(ctx, experience.event("veto", now, "system", review=branch, reason="expired",
                                 guard=events.Guard(True, True, True, "")))


def reopen(ctx: Context, name: str, now: datetime | None = None) -> str:
    """Undo the default rejection of sediment review ``name`` ("allow this promotion"): the branch is open
    again, for a person to accept, and its timeout starts again. A person's own rejection stays."""
    now = now or clock.now()
    branch = name if name.startswith(PREFIX) else PREFIX + name.removeprefix("gitmem/review/").removeprefix("sediment-")
    kept = REJECTED + branch
    if not ctx.git.refs(kept):
        raise NotFoundError(f"no rejected sediment review {name!r}", hint="list reviews with `gitmem review list`")
    _, state = experience.state_at(ctx, ctx.head)
    last = [d.action for d in threshold.ordered(state.decisions) if d.argument == branch and d.action != "propose"]
    if not last or last[-1] != "expire":
        raise UsageError(f"{branch} was rejected by a person, not by default: it stays rejected",
                         hint="reflect again, or promote the reflection again with a new entry")
    tip = ctx.git.commit(kept).id
    ctx.git.set_ref(f"refs/heads/{branch}", tip, None)
    ctx.git.delete_ref(kept)

    def plan(parent: str | None) -> Plan[None]:
        data, _, _ = experience.with_decision(ctx, parent, threshold.Decision(now, "reopen", branch))
        return Plan({enginestate.STATE_FILE: data}, f"gitmem: reopen {branch} (allow this promotion)",
                    "sedimentation.promote", trailers=(("Gitmem-Review", branch),))

    ctx.writer.write(plan, now)
    return branch
