"""The use case of the encoder a person chooses for harvest: Claude Code's print mode, set (or unset) in the git
config of this clone or of the user, never in the committed gitmem.yaml."""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path
from typing import Literal

__all__ = ["ClaudeEncoder", "set_claude_encoder"]

Scope = Literal["clone", "user"]


@dataclass(frozen=True)
class ClaudeEncoder:
    """What ``set_claude_encoder`` did: the ``claude`` recorded (None when unset), where, and what to say."""

    scope: Scope
    executable: str | None
    changed: bool
    version: str = ""
    missing: tuple[str, ...] = ()   # flags the encoder passes that this claude's --help does not list
    wins: str | None = None         # another encoder key that is set and wins over it
    key: str = "gitmem.encoder-claude"


def set_claude_encoder(root: Path, scope: Scope, remove: bool = False) -> ClaudeEncoder:
    """Record the ``claude`` found on PATH as the harvest encoder (``gitmem.encoder-claude``) in the git config of
    ``scope``, after checking it runs; or unset it. ``UsageError`` when there is no ``claude``."""
    import shutil

    from gitmem.base.errors import GitmemError, UsageError
    from gitmem.base.gitio import attempt, run
    from gitmem.base.gitio.tool import run_program
    from gitmem.engines.harvest import encoder
    from gitmem.engines.harvest.encoders import claude

    where = "--global" if scope == "user" else "--local"
    if remove:
        gone = attempt(root, "config", where, "--unset", encoder.CLAUDE_KEY) is not None
        return ClaudeEncoder(scope, None, gone)
    found = shutil.which("claude")
    if found is None:
        raise UsageError("Claude Code's `claude` is not on PATH",
                         hint=f"install Claude Code, or name it yourself: git config {encoder.CLAUDE_KEY} /path/to/claude")
    code, stdout, stderr = run_program([found, "--version"])
    if code != 0:
        said = (stderr.decode("utf-8", "replace").strip().splitlines() or [""])[-1][:200]
        raise GitmemError(f"`{found} --version` failed (exit code {code}){': ' + said if said else ''}",
                          hint="check that Claude Code runs and is logged in: claude -p hello")
    before = attempt(root, "config", where, "--get", encoder.CLAUDE_KEY)
    run(root, "config", where, encoder.CLAUDE_KEY, found)
    code, helped, _ = run_program([found, "--help"])
    missing = tuple(f for f in claude.FLAGS if f.startswith("--") and f.encode() not in helped) if code == 0 else ()
    first = next((k for k in encoder.KEYS if attempt(root, "config", "--get", k)), None)
    return ClaudeEncoder(scope, found, (before or b"").decode("utf-8", "replace").strip() != found,
                         stdout.decode("utf-8", "replace").strip()[:80], missing,
                         first if first != encoder.CLAUDE_KEY else None)
