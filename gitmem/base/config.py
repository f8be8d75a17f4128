"""gitmem.yaml and the environment: the only module that reads ``GITMEM_*`` variables.

This module stays light (it is on the path of every command, recall and the
hooks included): the schema of gitmem.yaml — a dozen frozen dataclasses, their
validation and the JSON cache — lives in ``gitmem.base.settings`` and is loaded the
first time one of its names is asked for here (``config.Config``,
``config.load``, …), so callers keep one import.
"""

from __future__ import annotations

import os
from datetime import datetime, timezone
from gitmem.base.errors import UsageError

CONFIG_FILE = "gitmem.yaml"
SCHEMA_VERSION = 1

_SETTINGS = {"Config", "Hebbian", "Drift", "Tiers", "Memory", "TypeWeights", "Sediment", "Review", "Daemon",
             "Budgets", "Paths", "Allow", "Pii", "Problem", "Checked", "DEFAULT_ALLOWED", "fields_table",
             "check_data", "check_text", "load", "to_data", "render_template"}


def __getattr__(name: str) -> object:
    if name in _SETTINGS:
        from gitmem.base import settings

        return getattr(settings, name)
    raise AttributeError(f"module 'gitmem.base.config' has no attribute {name!r}")


# --- environment: the only place GITMEM_* variables are read ---------------

def env_repo_dir() -> str | None:
    """GITMEM_DIR, the memory repository to use when --repo is not given."""
    return os.environ.get("GITMEM_DIR") or None


def env_allowed_dirs() -> tuple[str, ...] | None:
    """GITMEM_ALLOWED_DIRS (``:`` or ``,`` separated) narrows paths.allowed_dirs."""
    raw = os.environ.get("GITMEM_ALLOWED_DIRS")
    if raw is None:
        return None
    return tuple(p.strip().strip("/") for p in raw.replace(",", ":").split(":") if p.strip())


def env_amplitude_override() -> bool:
    """GITMEM_ALLOW_GROWTH=1 lets a person's commit grow a file past the amplitude limit."""
    return os.environ.get("GITMEM_ALLOW_GROWTH", "") not in ("", "0", "false", "no")


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


