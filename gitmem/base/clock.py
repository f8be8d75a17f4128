"""The clock: ISO 8601 times, and "now" (``--now``, else ``GITMEM_NOW``, else the system time)."""

from __future__ import annotations

import os
from datetime import datetime, timezone
from functools import lru_cache

from gitmem.base.errors import ArgumentError, UsageError


def parse_time(text: str) -> datetime:
    """An ISO 8601 time as an aware UTC datetime; a naive one is taken as UTC."""
    try:
        value = datetime.fromisoformat(text.strip().replace("Z", "+00:00"))
        if value.tzinfo is None:
            value = value.replace(tzinfo=timezone.utc)
        return value.astimezone(timezone.utc)
    except (ValueError, OverflowError):   # OverflowError: an offset that leaves the range (0001-01-01T00:00+01:00)
        raise UsageError(f"not an ISO 8601 time: {text!r}", hint="use e.g. 2026-11-29T13:40:00Z") from None


EARLIEST = datetime(1970, 1, 1, tzinfo=timezone.utc)
LATEST = datetime(9000, 1, 1, tzinfo=timezone.utc)   # leaves room for decay's and review's arithmetic


def in_range(moment: datetime) -> bool:
    """True when ``moment`` lies between 1970 and 9000, where every date sum gitmem makes stays valid."""
    return EARLIEST <= moment < LATEST


@lru_cache(maxsize=65536)   # every reader checks two stamps per memory; bulk writes share a handful
def stored_time_problem(text: str) -> str | None:
    """Why a time stored in a document cannot be used, or None.

    A text that is not a time is tolerated (readers treat it as unknown); a
    time outside 1970-9000 is refused, because decay's and recall's date
    arithmetic would overflow on it mid-command.
    """
    try:
        moment = parse_time(text)
    except UsageError:
        return None
    return None if in_range(moment) else f"time {text!r} is out of range (1970 to 9000)"


def now(explicit: str | None = None) -> datetime:
    """The clock: --now, else GITMEM_NOW, else the system time (UTC).

    A given clock must lie between 1970 and 9000: date arithmetic on the edges
    of Python's range (year 1 or 9999) would fail later, mid-command.
    """
    text = explicit or os.environ.get("GITMEM_NOW")
    if not text:
        return datetime.now(timezone.utc).replace(microsecond=0)
    where = "--now" if explicit else "GITMEM_NOW"
    try:
        value = parse_time(text)
    except UsageError as exc:
        raise ArgumentError(f"{where}: {exc.message}; the accepted format is an ISO 8601 time",
                            hint=exc.hint) from None
    if not in_range(value):
        raise ArgumentError(f"{where} {text!r} is out of range: the clock must lie between 1970 and 9000",
                            hint="use e.g. 2026-11-29T13:40:00Z")
    return value


