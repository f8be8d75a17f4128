"""The environment variables of gitmem's configuration: ``GITMEM_ALLOWED_DIRS`` (and the Hebbian
design's ``HEBBIAN_ALLOWED_DIRS``), ``GITMEM_ALLOW_GROWTH``, ``GITMEM_MCP_TOKEN`` and
``GITMEM_DAEMON_TICK``, each read here and nowhere else (``gitmem.base.config`` re-exports them).
``GITMEM_NOW`` belongs to ``gitmem.base.clock`` and ``GITMEM_DIR`` to ``gitmem.base.state``.
"""

from __future__ import annotations

import os

from gitmem.base.errors import ConfigError

__all__ = ["env_allowed_dirs", "env_amplitude_override", "env_daemon_tick", "env_mcp_token"]


def env_allowed_dirs() -> tuple[str, ...] | None:
    """GITMEM_ALLOWED_DIRS (``:`` or ``,`` separated) narrows paths.allowed_dirs; HEBBIAN_ALLOWED_DIRS,
    the Hebbian memory design's name for it, is read when GITMEM_ALLOWED_DIRS is not set."""
    raw = os.environ.get("GITMEM_ALLOWED_DIRS")
    if raw is None:
        raw = os.environ.get("HEBBIAN_ALLOWED_DIRS")
    if raw is None:
        return None
    return tuple(p.strip().strip("/") for p in raw.replace(",", ":").split(":") if p.strip())


def env_amplitude_override() -> bool:
    """GITMEM_ALLOW_GROWTH=1 lets a person's commit grow a file past the amplitude limit."""
    return os.environ.get("GITMEM_ALLOW_GROWTH", "") not in ("", "0", "false", "no")


def env_mcp_token() -> str | None:
    """GITMEM_MCP_TOKEN: the bearer token ``gitmem serve --http`` asks of every request (unset or empty: none)."""
    return os.environ.get("GITMEM_MCP_TOKEN") or None


def env_daemon_tick() -> float | None:
    """GITMEM_DAEMON_TICK=SECONDS runs every interval job of ``gitmem daemon run`` that often (tests, demos)."""
    raw = os.environ.get("GITMEM_DAEMON_TICK", "").strip()
    if not raw:
        return None
    try:
        value = float(raw)
    except ValueError:
        raise ConfigError(f"GITMEM_DAEMON_TICK={raw!r} is not a number of seconds", hint="e.g. GITMEM_DAEMON_TICK=2") from None
    if not 0.05 <= value <= 31_536_000:
        raise ConfigError(f"GITMEM_DAEMON_TICK={raw!r} is out of range [0.05..31536000] seconds", hint="e.g. GITMEM_DAEMON_TICK=2")
    return value
