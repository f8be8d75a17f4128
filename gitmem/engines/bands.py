"""Effective importance, bands and decay arithmetic (DESIGN.md section 5)."""

from __future__ import annotations

from datetime import datetime
from functools import lru_cache

from gitmem.base.config import Memory as MemoryConfig
from gitmem.base.config import parse_time
from gitmem.base.errors import UsageError
from gitmem.base.model import Memory, iso, memory_path


def days_between(earlier: str, now: datetime) -> float:
    """Days from an ISO time to ``now`` (0 when unparseable or in the future)."""
    then = _parsed(earlier)
    if then is None:
        return 0.0
    return max(0.0, (now - then).total_seconds() / 86400.0)


@lru_cache(maxsize=65536)
def _parsed(stamp: str) -> datetime | None:
    # decay parses two stamps per memory; bulk imports share a handful of them
    if not stamp:
        return None
    try:
        return parse_time(stamp)
    except UsageError:
        return None


def effective(base: float, tier: str, last_accessed: str, now: datetime, cfg: MemoryConfig) -> float:
    """base x decay_base^days, and for short-term also x (1 - decay_rate)^(whole weeks unaccessed)."""
    days = days_between(last_accessed, now)
    value = base * cfg.decay_base ** days
    if tier == "short":
        value *= (1.0 - cfg.decay_rate) ** int(days // cfg.short_term_days)
    return max(0.0, min(1.0, value))


def band(value: float, cfg: MemoryConfig) -> str:
    """core >= tiers.core > active >= tiers.active > background >= tiers.background > fading."""
    if value >= cfg.tiers.core:
        return "core"
    if value >= cfg.tiers.active:
        return "active"
    if value >= cfg.tiers.background:
        return "background"
    return "fading"


def new_memory(memory_id: str, content: str, type: str, domain: str, importance: float, created: str,
               now: datetime, cfg: MemoryConfig, **fields: object) -> Memory:
    """A new short-term memory at its canonical path, band from its importance, last accessed now.

    ``fields`` sets the rest (keywords, tags, source, source_id).
    """
    return Memory(id=memory_id, content=content, type=type, domain=domain, tier="short",
                  band=band(importance, cfg), importance=round(importance, 4), created=created,
                  last_accessed=iso(now), path=memory_path(domain, memory_id), **fields)  # type: ignore[arg-type]


def reinforce(memory: Memory, now: datetime, cfg: MemoryConfig) -> Memory:
    """``memory`` reinforced instead of duplicated: importance +reinforce_boost (relative,
    capped at 1), counted once more, last accessed now, band to match."""
    imp = min(1.0, round(memory.importance * (1.0 + cfg.reinforce_boost), 4))
    return memory.with_(importance=imp, reinforced=memory.reinforced + 1, last_accessed=iso(now),
                        band=band(imp, cfg))
