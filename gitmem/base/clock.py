"""The clock: ISO 8601 times, and "now" (``--now``, else ``GITMEM_NOW``, else the system time)."""

from __future__ import annotations

import os
from datetime import datetime, timezone

from gitmem.base.errors import UsageError


def parse_time(text: str) -> datetime:
    """An ISO 8601 time as an aware UTC datetime; a naive one is taken as UTC."""
    try:
        value = datetime.fromisoformat(text.strip().replace("Z", "+00:00"))
    except ValueError:
        raise UsageError(f"not an ISO 8601 time: {text!r}", hint="use e.g. 2026-11-29T13:40:00Z") from None
    if value.tzinfo is None:
        value = value.replace(tzinfo=timezone.utc)
    return value.astimezone(timezone.utc)


def now(explicit: str | None = None) -> datetime:
    """The clock: --now, else GITMEM_NOW, else the system time (UTC)."""
    text = explicit or os.environ.get("GITMEM_NOW")
    return parse_time(text) if text else datetime.now(timezone.utc).replace(microsecond=0)


