"""`gitmem status` answered from the state folder: the status kept for the same HEAD, refs, config,
CLAUDE.md and hour is printed again without pygit2, and any of those changing makes a full status.
The last job error and the refused sessions are read live on every call."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

from gitmem.api import MemoryRepo, statuscache
from gitmem.api.status import record_failure
from gitmem.base import state
from tests.conftest import run_cli
from tests.test_status_counts import NOW, T

ROOT = Path(__file__).resolve().parent.parent


def status(repo_dir: Path, *extra: str, env: dict[str, str] | None = None, now: str = NOW) -> subprocess.CompletedProcess[str]:
    return subprocess.run([sys.executable, "-m", "gitmem", "--repo", str(repo_dir), "--now", now, "status", *extra],
                          capture_output=True, text=True, env={**os.environ, **(env or {})}, timeout=120)


def no_pygit2(tmp_path: Path) -> dict[str, str]:
    """An environment whose processes cannot import pygit2: a status it prints was answered from the state."""
    blocked = tmp_path / "blocked"
    blocked.mkdir(exist_ok=True)
    (blocked / "pygit2.py").write_text("raise ImportError('pygit2 is blocked in this process')\n")
    return {"PYTHONPATH": os.pathsep.join(filter(None, [str(blocked), str(ROOT), os.environ.get("PYTHONPATH")]))}


def test_a_kept_status_is_the_full_status_and_needs_no_pygit2(repo: MemoryRepo, repo_dir: Path, tmp_path: Path) -> None:
    repo.remember("I prefer tabs over spaces", importance=0.8, now=T)
    blocked = no_pygit2(tmp_path)
    first = status(repo_dir, "--json", env=blocked)
    assert first.returncode != 0 and "pygit2 is blocked" in first.stderr   # nothing kept yet: the full status
    full, text = status(repo_dir, "--json"), status(repo_dir)
    assert full.returncode == 0 and text.returncode == 0
    assert status(repo_dir, "--json", env=blocked).stdout == full.stdout
    assert status(repo_dir, env=blocked).stdout == text.stdout and "memories: 1 live" in text.stdout


@pytest.mark.parametrize("change", ["commit", "review branch", "config", "claude_md", "hour"])
def test_anything_status_reads_changing_makes_a_full_status(repo: MemoryRepo, repo_dir: Path, tmp_path: Path,
                                                            change: str) -> None:
    repo.remember("I prefer tabs over spaces", importance=0.8, now=T)
    assert status(repo_dir).returncode == 0
    now = NOW
    if change == "commit":
        repo.remember("the cache lives in /var/cache/app", now=T)
    elif change == "review branch":
        head = repo.head
        assert head is not None
        repo.git.set_ref("refs/heads/gitmem/review/weights-20261129T120000Z", head, None)
    elif change == "config":
        cfg = repo_dir / "gitmem.yaml"
        cfg.write_text(cfg.read_text() + "\n")
    elif change == "claude_md":
        with (repo_dir / "CLAUDE.md").open("a") as f:
            f.write("\n")
    else:
        now = "2026-11-29T13:00:00Z"
    again = status(repo_dir, env=no_pygit2(tmp_path), now=now)
    assert again.returncode != 0 and "pygit2 is blocked" in again.stderr, change   # not answered from the state


def test_the_job_error_and_refusals_are_read_live(repo: MemoryRepo, repo_dir: Path, tmp_path: Path,
                                                  capsys: pytest.CaptureFixture[str]) -> None:
    assert status(repo_dir).returncode == 0
    record_failure(repo_dir, "harvest", T, "the disk is full")
    shown = status(repo_dir, "--json", env=no_pygit2(tmp_path))
    assert shown.returncode == 0, shown.stderr
    assert json.loads(shown.stdout)["last_error"]["summary"] == "the disk is full"
    assert "last background error:" in status(repo_dir, env=no_pygit2(tmp_path)).stdout


def test_a_state_that_cannot_be_read_is_a_full_status(repo: MemoryRepo, repo_dir: Path,
                                                      capsys: pytest.CaptureFixture[str]) -> None:
    code, before, _ = run_cli(["--repo", str(repo_dir), "--now", NOW, "status", "--json"], capsys)
    kept = state.worktree_dir(repo_dir) / statuscache.CACHE_FILE
    assert code == 0 and kept.is_file()
    kept.write_text("{not json")
    code, after, _ = run_cli(["--repo", str(repo_dir), "--now", NOW, "status", "--json"], capsys)
    assert code == 0 and after == before
    assert json.loads(kept.read_text())["status"]["counts"] == json.loads(before)["counts"]   # kept again
