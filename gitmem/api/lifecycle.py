"""Memory over time: decay (the access log folded, bands and tiers recomputed, the forgotten archived)
and reflect (similar memories grouped into patterns)."""

from __future__ import annotations

from collections.abc import Callable
from datetime import datetime
from typing import TYPE_CHECKING, Any

from gitmem.api import memories
from gitmem.api.context import Context
from gitmem.base import clock
from gitmem.base.model import Reflected, iso
from gitmem.writer.plan import Plan
from gitmem.store import store

if TYPE_CHECKING:
    from gitmem.engines.decay import DecayReport


def decay(ctx: Context, now: datetime | None = None, dry_run: bool = False) -> DecayReport:
    """Fold the access log, recompute bands and tiers, archive what is forgotten: ONE commit.

    No silent mass change: when more live memories would be archived at once than
    ``decay.change_limit`` allows, the band and tier changes still commit to the branch and
    the archives go to an archive review branch listing each memory and why (it supersedes
    the open one; an identical open one is kept as it is)."""
    from gitmem.base import state
    from gitmem.engines import decay
    from gitmem.api.recall import ACCESS_LOG

    now = now or clock.now()
    log, folding = ctx.writer.state / ACCESS_LOG, ctx.writer.state / decay.FOLDING
    if not dry_run:
        state.set_aside(log, folding)
    accesses = decay.latest_access((r for path in (folding, log) for r in state.read(path)), now)
    report: dict[str, Any] = {}

    def plan(parent: str | None) -> Plan[None] | None:
        if parent is None:
            return None
        changes, moves, examined = decay.plan_decay(ctx.git, parent, ctx.cfg, now, accesses)
        limit = decay.change_limit(examined, ctx.cfg.memory)
        changes, moves, held, held_moves = decay.hold_back(changes, moves, limit)
        report.update(moves=tuple(moves), examined=examined, files=len(changes), held=held,
                      held_moves=tuple(held_moves), limit=limit, base=parent)
        if dry_run or not changes:
            return None
        archived = sum(1 for m in moves if m.archives)
        return Plan(changes, f"gitmem: decay as of {iso(now)} ({len(moves)} moves, {archived} archived)",
                    "memory.decay", auto=True, body="\n".join(f"{m.id}: {m.change}" for m in moves[:200]),
                    trailers=(("Gitmem-Now", iso(now)),))

    written = ctx.writer.write(plan, now)
    if not dry_run:
        folding.unlink(missing_ok=True)
    held_moves: tuple[decay.Move, ...] = report.get("held_moves", ())
    review: tuple[str | None, str | None, tuple[str, ...]] = (None, None, ())
    if held_moves and not dry_run:
        review = _archive_review(
            ctx, report["held"], written.commit or report["base"], now,
            lambda b: b.startswith(decay.ARCHIVE_REVIEW) and not b.startswith(decay.FOLD_REVIEW),
            decay.archive_branch(now), f"archive {len(held_moves)} memories at once (decay as of {iso(now)})",
            "memory.archive.propose", decay.review_body(list(held_moves), int(report["examined"]), int(report["limit"])),
            len(held_moves), int(report["limit"]))
    return decay.DecayReport(written.commit, dry_run, int(report.get("examined", 0)), len(accesses),
                             report.get("moves", ()), int(report.get("files", 0)), held_moves, *review,
                             limit=int(report.get("limit", 0)))


def _archive_review(ctx: Context, held: dict[str, bytes | None], base: str, now: datetime, same_kind: Callable[[str], bool],
                    branch: str, what: str, event: str, body: str, count: int, limit: int, by_body: bool = False
                    ) -> tuple[str | None, str | None, tuple[str, ...]]:
    """Open the review ``branch`` of ``held`` at ``base``, superseding the open one of its kind (``same_kind``),
    or keep the open one when it already proposes exactly these changes (``by_body``: the same list in its
    message, for changes that carry their own date); (branch, commit, superseded)."""
    from gitmem.api import patterns
    from gitmem.base.gitio.command import blob_id
    from gitmem.engines import review

    open_ = [b for b in ctx.git.branches(review.REVIEW) if same_kind(b)]
    wanted = {p: blob_id(v) if v is not None else None for p, v in held.items()}
    for found in open_:
        tip = ctx.git.tip(found)
        if tip is None:
            continue
        if (body in next(iter(ctx.git.log(tip, limit=1))).message) if by_body else \
                ctx.git.tree_entry_hashes(tip, wanted) == wanted:
            return found, tip, ()   # the same changes are already up for review
    superseded = tuple(patterns._supersede(ctx, b, now) for b in open_)
    commit = patterns.open_review(ctx, branch, base, dict(held), f"gitmem: review: {what}", event, body, now)
    if commit is None:
        return None, None, superseded
    from gitmem.base import state

    state.log_event(ctx.root, "memory.archive.review", iso(now), branch=branch, commit=commit, held=count,
                    limit=limit)
    return branch, commit, superseded


def reflect(ctx: Context, now: datetime | None = None, auto: bool = False) -> Reflected:
    """Group similar memories no pattern holds yet into patterns (one commit).

    No silent mass change: a run that would fold more live memories at once than ``decay.change_limit``
    allows commits nothing to the branch; its pattern documents go to a fold review
    (``gitmem/review/archive-fold-…``) listing each pattern and the memories it would take, superseding
    the open fold review, and the memories stay pending until it is decided."""
    from gitmem.api import embedding
    from gitmem.base import people
    from gitmem.engines import decay, reflect

    now = now or clock.now()
    info: dict[str, Any] = {}

    def plan(parent: str | None) -> Plan[None] | None:
        state = ctx.git.read(reflect.STATE_FILE, parent) if parent else None
        existing, live = store.all_patterns(ctx.git, parent), store.listing(ctx.git, parent).memories
        shared = [m for m in live if people.person_of(m.path) is None]   # a person's own: never into patterns
        run = reflect.plan_run(existing, shared, state, now, auto, ctx.cfg.memory.reflect_trigger,
                               ctx.cfg.hebbian.initial_weight, near=embedding.near(ctx.root))
        limit = decay.change_limit(len(live), ctx.cfg.memory)
        info.update(pending=run.pending, result=run.plan, limit=limit, base=parent, held=None)
        if run.plan is None:
            return None
        result = run.plan
        if parent is not None and len(result.consumed) > limit:
            info["held"] = reflect.fold_review(existing, result, len(live), limit)
            return None
        return Plan(result.changes, f"gitmem: reflect ({len(result.created)} new patterns, "
                    f"{len(result.updated)} verified again)", "reflect.patterns", auto=True,
                    body="consumed: " + ", ".join(result.consumed[:100]) if result.consumed else "")

    written = ctx.writer.write(plan, now)
    done = info.get("result")
    review: tuple[str | None, str | None, tuple[str, ...]] = (None, None, ())
    held = info.get("held")
    if held is not None:
        folded = len(info["result"].consumed)
        review = _archive_review(ctx, held.changes, info["base"], now, lambda b: b.startswith(decay.FOLD_REVIEW),
                                 decay.archive_branch(now, decay.FOLD_REVIEW),
                                 f"fold {folded} memories into patterns at once (reflect as of {iso(now)})",
                                 "reflect.fold.propose", held.body, folded, int(info["limit"]), by_body=True)
    return Reflected(written.commit, tuple(done.created) if done else (), tuple(done.updated) if done else (),
                     tuple(done.consumed) if done else (), int(info.get("pending", 0)), *review,
                     limit=int(info.get("limit", 0)))


def reflection_prompt(ctx: Context, limit: int = 20) -> str:
    """A self-reflection prompt from recent memories, for an agent to answer and `remember`."""
    from gitmem.engines import reflect, reflectprompt

    recent = sorted(memories.list_memories(ctx).memories, key=lambda m: m.created, reverse=True)[:limit]
    return reflectprompt.reflection_prompt([reflect.Item(m.id, m.content, m.type, m.created) for m in recent], limit)


def pending_reflections(ctx: Context) -> int:
    """New memories no pattern holds yet, created since the last reflect."""
    from gitmem.engines import reflect

    head = ctx.head
    consumed = {s for p in store.all_patterns(ctx.git, head) for s in p.sources}
    last, _ = reflect.read_state(ctx.git.read(reflect.STATE_FILE, head) if head else None)
    return sum(1 for m in memories.list_memories(ctx).memories if m.id not in consumed and m.created > last)
