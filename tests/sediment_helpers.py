"""Shared by the sedimentation tests: a reflection with defaults, a clock, the state file."""

from __future__ import annotations

from datetime import datetime, timedelta
from pathlib import Path
from typing import Any

from gitmem.api import MemoryRepo
from gitmem.base.clock import parse_time
from gitmem.store import enginestate

T0 = parse_time("2026-12-01T10:00:00Z")


def at(minutes: float) -> datetime:
    return T0 + timedelta(minutes=minutes)


def reflect(repo: MemoryRepo, n: int = 0, now: datetime | None = None, **over: Any) -> Any:
    """One reflection (distinct by ``n``); ``over`` replaces any field."""
    topics = ["deploy timeout", "flaky clock test", "lockfile mismatch", "missing env var", "slow index rebuild",
              "wrong branch pushed", "stale cache read", "config typo", "port already bound", "disk nearly full",
              "unicode path crash", "silent retry loop"]
    words = topics[n % len(topics)]
    values: dict[str, Any] = dict(topic=f"{words} {n}", context=f"the {words} broke run {n}",
                                  approach=f"traced the {words} and fixed its cause {n}", result="good", score=5,
                                  reusable=f"check for {words} early ({n})", kind="error_fix", repeat=True)
    values.update(over)
    return repo.sediment_reflect(now=now or at(n), **values)


def state(repo: MemoryRepo) -> enginestate.EngineState:
    return enginestate.read((Path(repo.root) / ".gitmem" / "state.yaml").read_bytes())


def head(repo: MemoryRepo) -> str:
    found = repo.head
    assert found is not None
    return found
