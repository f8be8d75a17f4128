"""Claude Code's print mode as an encoder: ``claude -p --output-format json``, the prompt on stdin.

Claude Code prints one JSON object when the run ends; its ``result`` field
holds the model's answer (the candidate lines) and ``is_error`` / ``subtype``
say whether the run succeeded. The run is one turn (``--max-turns 1``: the
prompt asks for no tool), leaves no session behind to be harvested in turn
(``--no-session-persistence``), starts no MCP server (``--strict-mcp-config``
with none given) and runs no hook (``disableAllHooks``: gitmem's own
SessionStart and SessionEnd hooks would otherwise fire inside a harvest).
A harvest started by a Claude Code hook inherits ``CLAUDECODE``, which makes
``claude`` refuse to start as a nested session: it is left out of the run's
environment (the run is a separate, non-interactive session).
"""

from __future__ import annotations

import json
import shlex
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from gitmem.base.gitio.tool import ToolRun

__all__ = ["FLAGS", "NESTING", "answer", "argv", "result_of"]

# Set by a running Claude Code for its children; the first makes a child `claude` refuse to start.
NESTING = ("CLAUDECODE", "CLAUDE_CODE_ENTRYPOINT")
FLAGS = ("-p", "--output-format", "json", "--max-turns", "1", "--no-session-persistence", "--strict-mcp-config",
         "--settings", '{"disableAllHooks": true}')


def argv(executable: str, model: str = "") -> list[str]:
    """The command line of one encoding run."""
    return [executable, *FLAGS, *(("--model", model) if model else ())]


def answer(executable: str, model: str, prompt: bytes, timeout: float, limit: int) -> ToolRun:
    """Run Claude Code once over ``prompt``: the ``result`` text as bytes, or the problem."""
    import os

    from gitmem.base.gitio.tool import run_tool

    env = {k: v for k, v in os.environ.items() if k not in NESTING}
    done = run_tool(" ".join(shlex.quote(a) for a in argv(executable, model)), prompt, timeout, limit, env)
    return result_of(done.stdout) if done.ok else done


def result_of(stdout: bytes) -> ToolRun:
    """The ``result`` of the JSON object print mode wrote, or why there is none."""
    from gitmem.base.gitio.tool import ToolRun

    try:
        data = json.loads(stdout.decode("utf-8"))
    except (UnicodeDecodeError, ValueError, RecursionError):
        return ToolRun(b"", "claude did not print one JSON object (--output-format json)")
    if not isinstance(data, dict):
        return ToolRun(b"", "claude printed JSON that is not an object")
    result = data.get("result")
    if data.get("is_error") is True or data.get("subtype", "success") != "success":
        said = f": {result[:200]}" if isinstance(result, str) and result else ""
        return ToolRun(b"", f"claude reported an error ({data.get('subtype', 'is_error')}){said}")
    if not isinstance(result, str):
        return ToolRun(b"", "claude's JSON has no result text")
    return ToolRun(result.encode("utf-8"))
