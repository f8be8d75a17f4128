"""Reflections proposed from harvested sessions: a session that fixed a failure or made a decision.

After a harvest, each session's memories tell what it did: an ``error`` memory
(the default scorer's cause-and-fix candidate, or the encoder's, when one is
configured) becomes an error-fix reflection, else a ``decision`` memory becomes a
preference; the person's "keep this for later" messages in the transcript count
as likes. One reflection per session (its loop), through ``sediment.reflect``
and its guards.
"""

from __future__ import annotations

from dataclasses import dataclass
from datetime import datetime
from pathlib import Path
from typing import TYPE_CHECKING, Sequence

from gitmem.api import harvest as harvesting
from gitmem.api import memories, sediment
from gitmem.api.context import Context
from gitmem.base import clock
from gitmem.engines.sediment import likes

if TYPE_CHECKING:
    from gitmem.engines.harvest.planning import Harvested

ERROR_SCORE, DECISION_SCORE = 4, 3


@dataclass(frozen=True)
class FromSession:
    """One harvested session and the reflection it proposed (None: nothing to reflect on)."""

    path: str
    session: str
    reflected: sediment.Reflected | None
    likes: int = 0

    def to_json(self) -> dict[str, object]:
        """One entry of ``sediment reflect --from-session --json``."""
        return {"path": self.path, "session": self.session, "likes": self.likes,
                "reflected": self.reflected.to_json() if self.reflected else None}


def reflect_sessions(ctx: Context, paths: Sequence[str | Path], now: datetime | None = None) -> list[FromSession]:
    """Harvest ``paths`` and propose one reflection from each session that fixed a failure or made a decision."""
    now = now or clock.now()
    return propose_from(ctx, harvesting.harvest(ctx, paths, now=now), now)


def propose_from(ctx: Context, harvested: Sequence[Harvested], now: datetime | None = None) -> list[FromSession]:
    """One reflection proposed from each session already harvested (``harvested``) that fixed a failure
    or made a decision; the harvest job hands over what it harvested, so nothing is read twice."""
    now = now or clock.now()
    done = []
    for h in harvested:
        if not h.episode:
            continue
        episode = Path(h.episode).stem
        found = [m for m in memories.list_memories(ctx).memories
                 if (m.source or "").startswith(f"session:{episode}#")]
        chosen = next((m for m in found if m.type == "error"), None) or next(
            (m for m in found if m.type == "decision"), None)
        if chosen is None:
            done.append(FromSession(h.path, h.session_id, None))
            continue
        n = _likes(Path(h.path))
        error = chosen.type == "error"
        cause, _, fix = chosen.content.partition(" — ")
        r = sediment.reflect(
            ctx, topic=" ".join(chosen.content.split()[:8]), context=cause.strip() or chosen.content,
            approach=fix.strip() or chosen.content, result="good", score=ERROR_SCORE if error else DECISION_SCORE,
            reusable=(fix.strip() or chosen.content), kind="error_fix" if error else "preference",
            tags=tuple(chosen.tags[:3]), loop=episode, source=f"session:{episode}", session=h.session_id, now=now)
        if n and r.reflection is not None and r.outcome == "written":
            for _ in range(n):
                sediment.like(ctx, r.reflection.id, operator="user", now=now)
        done.append(FromSession(h.path, h.session_id, r, n))
    return done


def _likes(path: Path) -> int:
    """The person's "keep this for later" messages in transcript ``path`` (counted, never stored)."""
    from gitmem.engines.harvest import reader

    try:
        t = reader.read(path)
    except (OSError, ValueError):
        return 0
    return likes.count([e.text for e in t.events if e.role == "user" and not e.meta and not e.sidechain])
