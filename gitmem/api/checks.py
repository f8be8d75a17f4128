"""Checks a person or CI runs: gitmem.yaml, the PII settings, CLAUDE.md's layers (and a range of commits),
the staged amplitude. Drift is ``timeline.drift``."""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING

from gitmem.api.context import Context

if TYPE_CHECKING:
    from gitmem.engines.checks import Report


def check(ctx: Context, what: str, rev_range: str | None = None) -> Report:
    """Run the check ``what`` (pii, layers, amplitude; config too) on the repository; ``rev_range`` (A..B)
    also audits those commits' layers."""
    from gitmem.engines import checks

    return checks.run(what, ctx.root, ctx.cfg, ctx.git, rev_range=rev_range)


def check_config(root: Path) -> Report:
    """Validate gitmem.yaml at ``root`` without loading it first (it may be what is broken)."""
    from gitmem.engines import checks

    return checks.check_config(root)


def pin_command() -> str:
    """The command that pins HEAD as the new drift baseline (the hint of a failed drift check)."""
    from gitmem.engines.drift import PIN_COMMAND

    return PIN_COMMAND
