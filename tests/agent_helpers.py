"""Shared by the agent-facing tests: gitmem in its own process, a memory under HOME, the background logs."""

from __future__ import annotations

import os
import subprocess
import sys
import time
from pathlib import Path

from tests.conftest import NOW
from gitmem.api import MemoryRepo
from gitmem.base import state
from gitmem.base.clock import parse_time


def gm(*args: str, stdin: str | bytes | None = None, cwd: Path | None = None,
       timeout: float = 120) -> subprocess.CompletedProcess[str]:
    """``python -m gitmem ARGS`` in its own process, stdin given (or closed)."""
    data = stdin.encode() if isinstance(stdin, str) else stdin
    done = subprocess.run([sys.executable, "-m", "gitmem", *args], input=data if data is not None else b"",
                          capture_output=True, timeout=timeout, cwd=cwd)
    return subprocess.CompletedProcess(done.args, done.returncode, done.stdout.decode("utf-8", "replace"),
                                       done.stderr.decode("utf-8", "replace"))


def make_memory() -> Path:
    """A memory repository under HOME holding one memory."""
    path = Path(os.environ["HOME"]) / "memory"
    MemoryRepo.init(path, parse_time(NOW), install_hooks=False)
    MemoryRepo.open(path).remember("the deploy script needs the staging flag before production", now=parse_time(NOW))
    return path


def errors(root: Path) -> list[dict[str, object]]:
    """The job.error events of the clone."""
    return [e for e in state.read(state.events_path(root)) if e.get("event") == "job.error"]


def settle(root: Path, log: str, marker: str, timeout: float = 90.0) -> str:
    """The background log once it holds ``marker`` (the detached process has finished its work)."""
    path = state.worktree_dir(root) / log
    deadline = time.monotonic() + timeout
    text = ""
    while time.monotonic() < deadline:
        text = path.read_text() if path.exists() else ""
        if marker in text:
            return text
        time.sleep(0.1)
    raise AssertionError(f"{log} never said {marker!r}: {text!r}")


def configure_folders(root: Path, folders: list[Path]) -> None:
    """Point ``daemon.session_folders`` of the memory at ``folders``."""
    cfg = root / "gitmem.yaml"
    text = cfg.read_text()
    start = text.index("  session_folders:")
    end = text.index("\n", start)
    cfg.write_text(text[:start] + "  session_folders: [" + ", ".join(f"'{f}'" for f in folders) + "]" + text[end:])
