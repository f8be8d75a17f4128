"""A person's decision stays a person's: review accept and reject, and rollback.

An agent must not approve its own review. The agents gitmem works with mark
the commands they run with an environment variable; ``AGENT_VARIABLES`` is the
one list of them (the README repeats it). A variable counts when it is set at
all, even empty: an agent's shell that blanks ``CLAUDECODE`` still carries
``CLAUDE_CODE_ENTRYPOINT``, and a pseudo-terminal (``script -qec``) changes
nothing in the environment. Under any of them, accept, reject and rollback are
refused and no flag overrides it: ``--i-am-the-reviewer`` (and the Python API's
``interactive=True``) are a person's word only outside an agent. Without an
agent and without a terminal (a person's script) they need that flag.

This stops accidents and casual self-approval, not an agent that sets out to
defeat it: a process of the same OS user can unset variables. Enforcement
belongs on the git server (a protected branch, real pull requests through
``gitmem review push``); see the README's threat model.

Kept light: the pre-commit hook imports it (``agent_of``) on every commit.
"""

from __future__ import annotations

from gitmem.base.errors import ArgumentError

TYPE_CHECKING = False   # typing itself costs an import on every commit
if TYPE_CHECKING:
    from collections.abc import Mapping

OVERRIDE = "--i-am-the-reviewer"

# (variable, the agent that sets it in the environment of the commands it runs)
AGENT_VARIABLES: tuple[tuple[str, str], ...] = (
    ("CLAUDECODE", "Claude Code"),
    ("CLAUDE_CODE_ENTRYPOINT", "Claude Code"),
    ("OPENCLAW_SHELL", "OpenClaw"),           # "exec" in the exec tool's commands (pty and sandbox too)
    ("CODEX_THREAD_ID", "Codex"),
    ("CODEX_SESSION_ID", "Codex"),
    ("GEMINI_CLI", "Gemini CLI"),
    ("CURSOR_AGENT", "Cursor"),
    ("OPENCODE", "opencode"),
)


def agent_of(environ: Mapping[str, str]) -> tuple[str, str] | None:
    """(variable, agent) of the first agent variable set in ``environ``, even empty; None outside an agent."""
    for variable, agent in AGENT_VARIABLES:
        if variable in environ:
            return variable, agent
    return None


def require_person(action: str, interactive: bool, i_am_the_reviewer: bool, environ: Mapping[str, str]) -> None:
    """Refuse ``action`` under an agent (always), or without a terminal unless the person says ``OVERRIDE``."""
    found = agent_of(environ)
    if found is not None:
        variable, agent = found
        raise ArgumentError(f"{action} is a person's decision and this runs under {agent} ({variable} is set)",
                            hint=f"run it yourself in your own terminal, outside the agent ({OVERRIDE} does not "
                                 "apply under an agent)")
    if not interactive and not i_am_the_reviewer:
        raise ArgumentError(f"{action} is a person's decision and no terminal is attached",
                            hint=f"run it in a terminal, or add {OVERRIDE} when a person runs it from a script")
