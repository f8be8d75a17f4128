"""The plugin loaded by a real Claude Code (the `claude` command on PATH, skipped without it): its own
validator, a local marketplace install, its MCP health check, and a headless session that is not logged in,
which still runs the SessionStart and SessionEnd hooks. Everything runs under the test's private HOME, with
no account and no API key, so Claude Code writes its settings and transcripts there."""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from gitmem.api import MemoryRepo
from tests.agent_helpers import make_memory, settle

ROOT = Path(__file__).resolve().parent.parent
CLAUDE = shutil.which("claude")
pytestmark = [pytest.mark.slow,
              pytest.mark.skipif(CLAUDE is None, reason="Claude Code is not installed (npm install -g @anthropic-ai/claude-code)")]
CORE = "the deploy script needs the staging flag before production"   # make_memory's core memory


def claude(*args: str, cwd: Path | None = None) -> subprocess.CompletedProcess[str]:
    """Run Claude Code offline: no account, no key, no update check, nothing of an enclosing agent session."""
    env = {k: v for k, v in os.environ.items()
           if not k.startswith(("CLAUDE", "ANTHROPIC_")) and k not in ("CLAUDECODE", "GITMEM_DIR")}
    env.update(DISABLE_AUTOUPDATER="1", CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC="1")
    assert CLAUDE is not None
    return subprocess.run([CLAUDE, *args], capture_output=True, text=True, env=env, cwd=cwd, timeout=180)


@pytest.fixture
def installed() -> Path:
    """The memory repository at ~/memory, with the plugin installed from this repository as a local marketplace."""
    mem = make_memory()
    subprocess.run(["git", "-C", str(mem), "config", "gitmem.python", sys.executable], check=True)
    added = claude("plugin", "marketplace", "add", str(ROOT))
    assert added.returncode == 0, added.stdout + added.stderr
    done = claude("plugin", "install", "gitmem@gitmem")
    assert done.returncode == 0 and "Successfully installed" in done.stdout, done.stdout + done.stderr
    return mem


@pytest.mark.parametrize("path", [ROOT / "plugin", ROOT], ids=["plugin", "marketplace"])
def test_claude_code_validates_the_manifests_strictly(path: Path) -> None:
    done = claude("plugin", "validate", "--strict", str(path))
    assert done.returncode == 0 and "Validation passed" in done.stdout, done.stdout + done.stderr


def test_the_installed_plugin_lists_its_hooks_skill_and_server(installed: Path) -> None:
    listed = claude("plugin", "list")
    assert "gitmem@gitmem" in listed.stdout and "enabled" in listed.stdout, listed.stdout
    details = claude("plugin", "details", "gitmem@gitmem").stdout
    assert "Skills (1)" in details and "SessionStart, SessionEnd" in details and "MCP servers (1)" in details, details
    health = claude("mcp", "list")
    assert "plugin:gitmem:gitmem" in health.stdout and "Connected" in health.stdout, health.stdout + health.stderr


def test_a_session_gets_the_core_memories_and_is_harvested_at_its_end(installed: Path, tmp_path: Path) -> None:
    work = tmp_path / "project"
    work.mkdir()
    ran = claude("-p", "hello", cwd=work)   # not logged in: the model is never called, the session hooks still run
    transcripts = list((Path(os.environ["HOME"]) / ".claude" / "projects").glob("*/*.jsonl"))
    assert len(transcripts) == 1, ran.stdout + ran.stderr
    records = [json.loads(line) for line in transcripts[0].read_text().splitlines() if line.strip()]
    started = [r["attachment"] for r in records
               if r.get("attachment", {}).get("hookName", "").startswith("SessionStart")]
    assert started and started[0]["type"] == "hook_success" and CORE in started[0]["content"], records[:5]
    assert "post-session: ok: 1 harvested" in settle(installed, "post-session.log", "post-session:")
    repo = MemoryRepo.open(installed)
    assert any(transcripts[0].stem in p for p, _ in repo.git.blobs("episodes", repo.head or ""))
