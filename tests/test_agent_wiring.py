"""Wiring the memory into the agents the seeds name: install openclaw (the core file in openclaw.json),
the cron entry's daily decay, and the post-session hook as shipped in hooks/."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

from gitmem.api import MemoryRepo
from tests.agent_helpers import configure_folders, gm, make_memory
from tests.conftest import head_of
from tests.loop_helpers import START, write_transcripts

ROOT = Path(__file__).resolve().parent.parent


@pytest.fixture
def mem() -> Path:
    return make_memory()


def test_install_openclaw_merges_the_core_file_into_memory_search(mem: Path, tmp_path: Path) -> None:
    config = tmp_path / "state" / "openclaw.json"
    config.parent.mkdir()
    original = {"gateway": {"port": 18789}, "agents": {"defaults": {"model": "x", "memorySearch": {"extraPaths": ["notes.md"]}}}}
    config.write_text(json.dumps(original, indent=2) + "\n")
    done = gm("--repo", str(mem), "install", "openclaw", "--config", str(config))
    assert done.returncode == 0, done.stderr
    core = str((mem / "HIPPOCAMPUS_CORE.md").resolve())
    data = json.loads(config.read_text())
    assert data["agents"]["defaults"]["memorySearch"]["extraPaths"] == ["notes.md", core]
    assert data["gateway"] == {"port": 18789} and data["agents"]["defaults"]["model"] == "x"
    assert (mem / "HIPPOCAMPUS_CORE.md").is_file() and "cron install" in done.stdout
    text = config.read_text()
    again = gm("--repo", str(mem), "install", "openclaw", "--config", str(config))
    assert again.returncode == 0 and "already names" in again.stdout and config.read_text() == text
    gone = gm("--repo", str(mem), "install", "openclaw", "--config", str(config), "--uninstall")
    assert gone.returncode == 0 and json.loads(config.read_text()) == original


def test_install_openclaw_in_the_state_dir_and_a_fresh_file(mem: Path, tmp_path: Path) -> None:
    env_dir = tmp_path / "oc"
    done = subprocess.run([sys.executable, "-m", "gitmem", "--repo", str(mem), "install", "openclaw"],
                          capture_output=True, text=True, env={**os.environ, "OPENCLAW_STATE_DIR": str(env_dir)})
    assert done.returncode == 0, done.stderr
    core = str((mem / "HIPPOCAMPUS_CORE.md").resolve())
    assert json.loads((env_dir / "openclaw.json").read_text()) == {
        "agents": {"defaults": {"memorySearch": {"extraPaths": [core]}}}}
    subprocess.run([sys.executable, "-m", "gitmem", "--repo", str(mem), "install", "openclaw", "--uninstall"],
                   check=True, capture_output=True, env={**os.environ, "OPENCLAW_STATE_DIR": str(env_dir)})
    assert json.loads((env_dir / "openclaw.json").read_text()) == {}


def test_install_openclaw_refuses_a_file_it_cannot_read(mem: Path, tmp_path: Path) -> None:
    config = tmp_path / "openclaw.json"
    config.write_text("{ agents: { defaults: {} }, }  // JSON5\n")
    done = gm("--repo", str(mem), "install", "openclaw", "--config", str(config))
    assert done.returncode == 1 and "is not valid JSON" in done.stderr
    assert config.read_text() == "{ agents: { defaults: {} }, }  // JSON5\n"


def cron_at(mem: Path, now: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run([sys.executable, "-m", "gitmem", "--repo", str(mem), "hook", "cron"], capture_output=True,
                          text=True, env={**os.environ, "GITMEM_NOW": now})


def test_the_cron_entry_decays_daily(mem: Path, tmp_path: Path) -> None:
    configure_folders(mem, [tmp_path / "sessions"])
    (tmp_path / "sessions").mkdir()
    first = cron_at(mem, "2027-02-01T03:00:00Z")
    assert first.returncode == 0 and "cron: 2027-02-01T03:00:00Z decay ok: 1 examined" in first.stdout, first
    soon = cron_at(mem, "2027-02-01T03:30:00Z")
    assert soon.returncode == 0 and "decay" not in soon.stdout
    day = cron_at(mem, "2027-02-02T03:00:00Z")
    assert "cron: 2027-02-02T03:00:00Z decay ok" in day.stdout


def test_the_shipped_post_session_hook_harvests_a_session(mem: Path, tmp_path: Path) -> None:
    (transcript,) = write_transcripts(tmp_path / "s", ["remember that the invoices are generated on the first"],
                                      START)
    configure_folders(mem, [transcript.parent])   # the hook harvests inside the session folders only
    subprocess.run(["git", "-C", str(mem), "config", "gitmem.python", sys.executable], check=True)
    env = {**os.environ, "GITMEM_DIR": str(mem), "PYTHONPATH": str(ROOT)}
    done = subprocess.run(["sh", str(ROOT / "hooks" / "post-session"), str(transcript)], capture_output=True,
                          text=True, env=env)
    assert done.returncode == 0 and "post-session: ok: 1 harvested" in done.stdout, done
    repo = MemoryRepo.open(mem)
    assert any(transcript.stem in p for p, _ in repo.git.blobs("episodes", head_of(repo)))


def test_the_post_session_hook_never_fails_the_agent_without_gitmem(tmp_path: Path) -> None:
    env = {"PATH": "/usr/bin:/bin", "HOME": str(tmp_path), "GITMEM_DIR": str(tmp_path / "none")}
    done = subprocess.run(["sh", str(ROOT / "hooks" / "post-session")], capture_output=True, text=True, env=env)
    assert done.returncode == 0 and "gitmem is not installed" in done.stderr
