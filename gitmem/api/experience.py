"""The experience bank as stored: its reflections, the decision log and the threshold replayed from it,
the events, and the promotion log's metadata. Shared by the sedimentation use cases
(``sediment``, ``promotions``, ``bank``), which import it and not one another's internals.
"""

from __future__ import annotations

import time
from dataclasses import replace
from collections.abc import Mapping
from datetime import datetime

from gitmem.api.context import Context
from gitmem.base.errors import NotFoundError
from gitmem.engines.sediment import distill as routes
from gitmem.engines.sediment import entry, events, threshold
from gitmem.engines.sediment.entry import Reflection
from gitmem.store import enginestate

REFLECTIONS = routes.REFLECTIONS


def reflections(ctx: Context, rev: str | None = None) -> list[Reflection]:
    """The entries of ``bank/reflections.md`` at ``rev`` (the head by default)."""
    rev = rev or ctx.head
    data = ctx.git.read(REFLECTIONS, rev) if rev else None
    return entry.parse(data.decode("utf-8", "replace")) if data else []


def find(ctx: Context, entry_id: str, rev: str | None = None) -> Reflection:
    """The reflection ``entry_id``; NotFoundError when there is none."""
    for r in reflections(ctx, rev):
        if r.id == entry_id:
            return r
    raise NotFoundError(f"no reflection {entry_id!r} in {REFLECTIONS}", hint="list them with `gitmem sediment status`")


def state_at(ctx: Context, rev: str | None) -> tuple[bytes | None, enginestate.EngineState]:
    """The engine state file's bytes and value at ``rev``."""
    old = ctx.git.read(enginestate.STATE_FILE, rev) if rev else None
    return old, enginestate.read(old)


def with_decision(ctx: Context, rev: str | None, decision: threshold.Decision) -> tuple[bytes, threshold.Threshold,
                                                                                        threshold.Threshold]:
    """The state file with ``decision`` logged and the derived fields (threshold, streaks) recomputed;
    and the threshold before and after."""
    old, state = state_at(ctx, rev)
    before = threshold.current(state.decisions, ctx.cfg.sediment, decision.at)
    log = tuple(sorted(set(state.decisions) | {decision.line()}))
    after = threshold.current(log, ctx.cfg.sediment, decision.at)
    new = replace(state, decisions=log, veto_streak=after.veto_streak, approve_streak=after.approve_streak)
    if after.base != before.base or state.threshold != after.base:
        new = new.set("threshold", after.base, enginestate.Stamp(decision.line().split(" ")[0],
                                                                 f"sediment {decision.action}"))
    return enginestate.write(old, new), before, after


def current_threshold(ctx: Context, now: datetime, rev: str | None = None) -> threshold.Threshold:
    """The threshold in force at ``now``."""
    _, state = state_at(ctx, rev or ctx.head)
    return threshold.current(state.decisions, ctx.cfg.sediment, now)


def emit(ctx: Context, event: events.Event) -> dict[str, object]:
    """Record ``event`` in the clone's event log; its JSON."""
    from gitmem.base import state

    data = event.to_json()
    state.log_event(ctx.root, str(data.pop("event_type")), str(data.pop("timestamp")), **data)
    return event.to_json()


def event(kind: events.Kind, now: datetime, operator: str, session: str = "", started: float | None = None,
          **fields: object) -> events.Event:
    """An event of ``kind`` at ``now``; ``guard`` and ``bytes_written`` may be given among ``fields``."""
    from gitmem.base.model import iso

    g = fields.pop("guard", None)
    written = fields.pop("bytes_written", 0)
    took = int((time.monotonic() - started) * 1000) if started is not None else 0
    return events.Event(kind, iso(now), session, operator, g if isinstance(g, events.Guard) else events.Guard(),
                        int(written) if isinstance(written, int) else 0, took, tuple(fields.items()))


def degraded(ctx: Context) -> bool:
    """Whether the disk has less free space than ``sediment.min_free_mb`` (sedimentation records only)."""
    from gitmem.guards import guard as write_guard

    limit = ctx.cfg.sediment.min_free_mb
    return limit > 0 and write_guard.free_mb(ctx.root) < limit


def trailers(kind: events.Kind, r: Reflection | None, operator: str, **more: str) -> tuple[tuple[str, str], ...]:
    pairs = [("Gitmem-Sediment-Operator", operator)]
    if r is not None:
        pairs.append(("Gitmem-Sediment-Id", r.id))
    pairs.extend((f"Gitmem-Sediment-{k.title()}", v) for k, v in more.items() if v)
    return tuple(pairs)


def metadata_change(ctx: Context, parent: str | None, t: threshold.Threshold) -> dict[str, bytes | None]:
    """``bank/promotions.md`` with its metadata block showing ``t`` (nothing when the file is missing)."""
    from gitmem.engines.sediment import promotions

    old = ctx.git.read(routes.PROMOTIONS, parent) if parent else None
    if old is None:
        return {}
    return {routes.PROMOTIONS: promotions.with_metadata(old.decode("utf-8"), t).encode("utf-8")}


def operator_of(environ: Mapping[str, str]) -> str:
    """Who runs a command, for the audit of its events: ``agent`` under an agent's environment, else ``user``."""
    from gitmem.guards.reviewer import agent_of

    return "agent" if agent_of(environ) is not None else "user"
