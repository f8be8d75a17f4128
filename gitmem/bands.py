"""Effective importance, bands and decay arithmetic (DESIGN.md section 5)."""

from __future__ import annotations

from datetime import datetime
from functools import lru_cache

from gitmem.config import Memory as MemoryConfig
from gitmem.config import parse_time
from gitmem.errors import UsageError


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


def reinforced(importance: float, cfg: MemoryConfig) -> float:
    """Importance after a reinforcement: +reinforce_boost (relative), capped at 1."""
    return min(1.0, round(importance * (1.0 + cfg.reinforce_boost), 4))
