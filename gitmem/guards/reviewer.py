"""A person's decision stays a person's: review accept and reject, and rollback.

An agent must not approve its own review. Claude Code sets ``CLAUDECODE`` for
the commands its agent runs; a command with no terminal is a script or an
agent. Either refuses unless the person says ``--i-am-the-reviewer``.
"""

from __future__ import annotations

from typing import Mapping

from gitmem.base.errors import UsageError

OVERRIDE = "--i-am-the-reviewer"


def require_person(action: str, interactive: bool, i_am_the_reviewer: bool, environ: Mapping[str, str]) -> None:
    """Refuse ``action`` under an agent (CLAUDECODE set) or without a terminal, unless overridden."""
    if i_am_the_reviewer:
        return
    if environ.get("CLAUDECODE"):
        raise UsageError(f"{action} is a person's decision and this runs under Claude Code (CLAUDECODE is set)",
                         hint=f"run it yourself in your own terminal, or add {OVERRIDE} if you are the reviewer")
    if not interactive:
        raise UsageError(f"{action} is a person's decision and no terminal is attached",
                         hint=f"run it in a terminal, or add {OVERRIDE} when a person runs it from a script")
