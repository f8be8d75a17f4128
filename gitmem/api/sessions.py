"""Working memory of an agent session: notes kept without a commit, and the session end that moves the
ones that matter into short-term memory."""

from __future__ import annotations

import builtins
from datetime import datetime
from pathlib import Path
from typing import TYPE_CHECKING

from gitmem.api import duplicates
from gitmem.api.context import Context
from gitmem.base import clock
from gitmem.engines import memorize
from gitmem.guards import guard
from gitmem.writer.plan import Plan

if TYPE_CHECKING:
    from gitmem.engines.working import Note, SessionEnd


def working_log(ctx: Context) -> Path:
    """This work tree's log of working notes."""
    from gitmem.engines.working import WORKING_LOG

    return ctx.writer.state / WORKING_LOG


def note(ctx: Context, text: str, *, importance: float | None = None, type: str | None = None,
         domain: str | None = None, now: datetime | None = None) -> Note:
    """Keep ``text`` for this session only (no commit): a working note."""
    from gitmem.base import state
    from gitmem.engines import working

    now = now or clock.now()
    max_bytes = ctx.cfg.sediment.max_content_bytes
    text = ctx.redactor.redact_text(guard.check_text(text, "note", max_bytes), "working note", "memory.working", now)
    n = working.note(text, importance, type, domain, now, max_bytes)
    state.append(working_log(ctx), n.__dict__)
    return n


def notes(ctx: Context) -> builtins.list[Note]:
    """The working notes of the current session, oldest first (those a failed session end set aside too)."""
    from gitmem.base import state
    from gitmem.engines import working

    log = working_log(ctx)
    return working.notes_of(state.read(log.with_suffix(".ending"))) + working.notes_of(state.read(log))


def session_end(ctx: Context, now: datetime | None = None, session: str | None = None) -> SessionEnd:
    """Move the working notes that matter into short-term memory (one commit), drop the rest."""
    from gitmem.base import state
    from gitmem.engines import working

    now = now or clock.now()
    if session:   # redacted before the memories' source is derived from it
        session = ctx.redactor.redact_text(session, "session", "memory.session_end", now)
    pending = working_log(ctx).with_suffix(".ending")
    state.set_aside(working_log(ctx), pending)
    all_notes = working.notes_of(state.read(pending))
    keep = working.kept(all_notes, ctx.cfg.memory)
    kept_ids: builtins.list[str] = []

    def plan(parent: str | None) -> Plan[None] | None:
        batch = memorize.Batch(duplicates.duplicate_lookup(ctx, parent), now, ctx.cfg.memory)
        kept_ids[:] = [batch.add(working.to_memory(n, now, ctx.cfg.memory, session)).memory.id for n in keep]
        changes = duplicates.batch_changes(ctx, batch, parent)
        if not changes:
            return None
        return Plan(changes, f"gitmem: session end, {len(keep)} working notes kept", "memory.session_end",
                    session=session, body=f"{len(all_notes) - len(keep)} notes dropped")

    written = ctx.writer.write(plan, now)
    pending.unlink(missing_ok=True)
    return working.SessionEnd(tuple(dict.fromkeys(kept_ids)), len(all_notes) - len(keep), written.commit)
