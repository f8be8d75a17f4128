"""Memory over time: decay (the access log folded, bands and tiers recomputed, the forgotten archived)
and reflect (similar memories grouped into patterns)."""

from __future__ import annotations

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
    """Fold the access log, recompute bands and tiers, archive what is forgotten: ONE commit."""
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
        report.update(moves=tuple(moves), examined=examined)
        if dry_run or not changes:
            return None
        archived = sum(1 for m in moves if m.change.startswith("archived"))
        return Plan(changes, f"gitmem: decay as of {iso(now)} ({len(moves)} moves, {archived} archived)",
                    "memory.decay", auto=True, body="\n".join(f"{m.id}: {m.change}" for m in moves[:200]),
                    trailers=(("Gitmem-Now", iso(now)),))

    written = ctx.writer.write(plan, now)
    if not dry_run:
        folding.unlink(missing_ok=True)
    return decay.DecayReport(written.commit, dry_run, int(report.get("examined", 0)), len(accesses),
                             report.get("moves", ()))


def reflect(ctx: Context, now: datetime | None = None, auto: bool = False) -> Reflected:
    """Group similar memories no pattern holds yet into patterns (one commit)."""
    from gitmem.engines import reflect

    now = now or clock.now()
    info: dict[str, Any] = {}

    def plan(parent: str | None) -> Plan[None] | None:
        state = ctx.git.read(reflect.STATE_FILE, parent) if parent else None
        run = reflect.plan_run(store.all_patterns(ctx.git, parent), store.listing(ctx.git, parent).memories,
                               state, now, auto, ctx.cfg.memory.reflect_trigger, ctx.cfg.hebbian.initial_weight)
        info.update(pending=run.pending, result=run.plan)
        if run.plan is None:
            return None
        result = run.plan
        return Plan(result.changes, f"gitmem: reflect ({len(result.created)} new patterns, "
                    f"{len(result.updated)} verified again)", "reflect.patterns", auto=True,
                    body="consumed: " + ", ".join(result.consumed[:100]) if result.consumed else "")

    written = ctx.writer.write(plan, now)
    done = info.get("result")
    return Reflected(written.commit, tuple(done.created) if done else (), tuple(done.updated) if done else (),
                     tuple(done.consumed) if done else (), int(info.get("pending", 0)))


def reflection_prompt(ctx: Context, limit: int = 20) -> str:
    """A self-reflection prompt from recent memories, for an agent to answer and `remember`."""
    from gitmem.engines import reflect

    recent = sorted(memories.list_memories(ctx).memories, key=lambda m: m.created, reverse=True)[:limit]
    return reflect.reflection_prompt([reflect.Item(m.id, m.content, m.type, m.created) for m in recent], limit)


def pending_reflections(ctx: Context) -> int:
    """New memories no pattern holds yet, created since the last reflect."""
    from gitmem.engines import reflect

    head = ctx.head
    consumed = {s for p in store.all_patterns(ctx.git, head) for s in p.sources}
    last, _ = reflect.read_state(ctx.git.read(reflect.STATE_FILE, head) if head else None)
    return sum(1 for m in memories.list_memories(ctx).memories if m.id not in consumed and m.created > last)
