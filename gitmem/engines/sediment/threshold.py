"""The adaptive threshold, recomputed from an ordered log of decisions.

The engine state keeps the decisions as a set of lines ``<ISO time> <action> <argument>``
(merged by union across clones); sorted, they replay to the same threshold on
every machine. Actions:

    propose BRANCH   a promotion was proposed for review (>= 3 within an hour: 20 for the next hour)
    approve BRANCH   a person accepted a sedimentation review (10 in a row: -2, permanently)
    veto BRANCH      a person rejected one (3 in a row: +2, permanently)
    expire BRANCH    rejected by default on timeout: not a person's veto, counts in no streak
    reopen BRANCH    a person undid a default rejection
    set N            a person set the threshold (audited); automatic permanent changes wait 60 s

A streak that completes inside the override lock is used up without a change. A review
is decided once: a second approve or veto of the same branch (recorded by another clone
at another moment) counts in no streak.
The value always stays within [10, 30].
"""

from __future__ import annotations

from dataclasses import dataclass, field
from datetime import datetime, timedelta
from typing import TYPE_CHECKING, Iterable, Literal

if TYPE_CHECKING:
    from gitmem.base.config import Sediment

Action = Literal["propose", "approve", "veto", "expire", "reopen", "set"]
ACTIONS: tuple[Action, ...] = ("propose", "approve", "veto", "expire", "reopen", "set")
LOW, HIGH = 10.0, 30.0


@dataclass(frozen=True)
class Decision:
    """One line of the log."""

    at: datetime
    action: Action
    argument: str

    def line(self) -> str:
        """The line the engine state keeps."""
        from gitmem.base.model import iso

        return f"{iso(self.at)} {self.action} {self.argument}"


def parse(line: str) -> Decision | None:
    """The decision ``line`` records (None: not a decision line)."""
    from gitmem.base.clock import parse_time

    parts = line.split(" ", 2)
    if len(parts) != 3 or parts[1] not in ACTIONS:
        return None
    try:
        return Decision(parse_time(parts[0]), parts[1], parts[2])
    except ValueError:
        return None


def ordered(lines: Iterable[str]) -> list[Decision]:
    """The readable decisions of ``lines``, oldest first (ties by line, so every clone agrees)."""
    found = [(d, line) for line in set(lines) if (d := parse(line)) is not None]
    return [d for d, _ in sorted(found, key=lambda pair: (pair[0].at, pair[1]))]


@dataclass(frozen=True)
class Change:
    """One change of the permanent threshold: when, from, to and why (``promotions.md``'s history)."""

    at: str
    old: float
    new: float
    reason: str

    def to_json(self) -> dict[str, object]:
        """One entry of the threshold history."""
        return {"date": self.at, "from": self.old, "to": self.new, "reason": self.reason}


@dataclass(frozen=True)
class Threshold:
    """The threshold at a moment: the value in force, the permanent one under it, and what made them."""

    value: float
    base: float
    burst_until: str | None = None
    locked_until: str | None = None
    veto_streak: int = 0
    approve_streak: int = 0
    recent_promotions: int = 0
    history: tuple[Change, ...] = field(default=())

    def to_json(self) -> dict[str, object]:
        """What ``sediment status --json`` and ``threshold --json`` carry."""
        return {"threshold": self.value, "base": self.base, "burst_until": self.burst_until,
                "locked_until": self.locked_until, "veto_streak": self.veto_streak,
                "approve_streak": self.approve_streak, "recent_promotions": self.recent_promotions,
                "history": [c.to_json() for c in self.history]}


def clamp(value: float) -> float:
    """``value`` within [10, 30]."""
    return min(HIGH, max(LOW, value))


def current(lines: Iterable[str], cfg: Sediment, now: datetime) -> Threshold:
    """The threshold at ``now`` from the decision log (decisions after ``now`` are not yet made)."""
    from gitmem.base.model import iso

    base = clamp(cfg.threshold)
    vetoes = approvals = 0
    lock: datetime | None = None
    last_set: datetime | None = None
    burst: datetime | None = None
    proposals: list[datetime] = []
    history: list[Change] = []
    hour = timedelta(hours=1)

    def change(at: datetime, new: float, reason: str) -> None:
        nonlocal base
        new = clamp(new)
        if new != base:
            history.append(Change(iso(at), base, new, reason))
            base = new

    counted: set[str] = set()   # a review is decided once: the same decision logged by two clones counts once
    for d in ordered(lines):
        if d.at > now:
            break
        if d.action in ("approve", "veto"):
            if d.argument in counted:
                continue
            counted.add(d.argument)
        locked = lock is not None and d.at < lock
        if d.action == "set":
            try:
                change(d.at, float(d.argument.split()[0]), "set by a person")
            except (ValueError, IndexError):
                continue
            lock, last_set, vetoes, approvals = d.at + timedelta(seconds=cfg.override_lock_seconds), d.at, 0, 0
        elif d.action == "veto":
            vetoes, approvals = vetoes + 1, 0
            if vetoes >= cfg.veto_streak:
                vetoes = 0
                if not locked:
                    change(d.at, base + cfg.step, f"{cfg.veto_streak} vetoes in a row")
        elif d.action == "approve":
            approvals, vetoes = approvals + 1, 0
            if approvals >= cfg.approve_streak:
                approvals = 0
                if not locked:
                    change(d.at, base - cfg.step, f"{cfg.approve_streak} approvals in a row")
        elif d.action == "propose":
            proposals = [p for p in proposals if d.at - p < hour] + [d.at]
            if len(proposals) >= cfg.burst_promotions:
                burst = d.at + hour
    recent = len([p for p in proposals if now - p < hour])
    bursting = burst is not None and now < burst and (last_set is None or last_set < burst - hour)
    value = max(base, clamp(cfg.burst_threshold)) if bursting else base
    return Threshold(value, base, iso(burst) if bursting and burst else None,
                     iso(lock) if lock is not None and now < lock else None, vetoes, approvals, recent, tuple(history))
