"""How much of the conversation history a harvest takes, as the seed's install defines it: ``--signals N``
the last N signals of all the sessions, ``--whole`` the whole history; the per-session cap and the summary
memory that those flags named before stay under ``--per-session N`` and ``--summary``."""

from __future__ import annotations

import json
import os
from pathlib import Path

import pytest

from gitmem.api import MemoryRepo
from tests.conftest import run_cli
from tests.test_planning import T, claude_session

WORDS = ("alpha bravo charlie delta echo foxtrot golf hotel india juliet kilo lima mike november oscar papa "
         "quebec romeo sierra tango uniform victor whiskey xray yankee zulu").split()
STAMP = 1_790_000_000   # a fixed mtime: the sessions' order never depends on the clock


def session(folder: Path, name: str, rules: int, age_hours: int) -> Path:
    """A transcript of ``rules`` distinct "remember that" statements about ``name``, written ``age_hours`` ago."""
    folder.mkdir(parents=True, exist_ok=True)
    turns: list[tuple[str, object]] = []
    for i in range(rules):
        turns += [("user", f"Remember that the {WORDS[i]} {name} service always listens on port {4000 + i}."),
                  ("assistant", [{"type": "text", "text": "Noted."}])]
    path = claude_session(folder / f"{name}.jsonl", f"sess-{name}", turns)
    os.utime(path, (STAMP - age_hours * 3600, STAMP - age_hours * 3600))
    return path


def harvest(repo_dir: Path, capsys: pytest.CaptureFixture[str], *args: str) -> dict[str, dict[str, object]]:
    code, out, err = run_cli(["--repo", str(repo_dir), "--now", "2026-11-20T12:00:00Z", "harvest", "--json", *args], capsys)
    assert code == 0, err
    return {Path(str(r["path"])).stem: r for r in json.loads(out)}


def memories_of(repo_dir: Path, name: str) -> list[str]:
    return [m.content for m in MemoryRepo.open(repo_dir).list().memories if f" {name} service" in m.content]


def test_signals_n_takes_the_last_n_signals_newest_sessions_first(repo: MemoryRepo, repo_dir: Path, tmp_path: Path,
                                                                  capsys: pytest.CaptureFixture[str]) -> None:
    folder = tmp_path / "sessions"
    session(folder, "oldest", 3, age_hours=30)
    session(folder, "middle", 3, age_hours=20)
    session(folder, "newest", 3, age_hours=10)
    got = harvest(repo_dir, capsys, "--signals", "5", str(folder))
    assert got["newest"]["created"] == 3 and got["middle"]["created"] == 2   # 3 + the middle's latest 2 = 5
    assert got["oldest"]["status"] == "skipped" and "last 5 signals" in str(got["oldest"]["reason"])
    middle = memories_of(repo_dir, "middle")
    assert len(middle) == 2 and not any("alpha" in m for m in middle), middle   # its latest two, not its first
    assert memories_of(repo_dir, "oldest") == []
    # the skipped session is marked read: the next (unattended) harvest does not take it ...
    assert harvest(repo_dir, capsys, str(folder))["oldest"]["status"] == "unchanged"
    # ... and the whole history, re-read, does
    again = harvest(repo_dir, capsys, "--whole", "--rescan", str(folder))
    assert again["oldest"]["created"] == 3 and len(memories_of(repo_dir, "oldest")) == 3


def test_whole_takes_every_signal_of_a_session_beyond_the_per_session_cap(repo: MemoryRepo, repo_dir: Path, tmp_path: Path,
                                                                          capsys: pytest.CaptureFixture[str]) -> None:
    first = session(tmp_path / "a", "billing", 26, age_hours=2)
    assert harvest(repo_dir, capsys, str(first))["billing"]["created"] == 20   # the default cap of one session
    second = session(tmp_path / "b", "ledger", 26, age_hours=1)
    assert harvest(repo_dir, capsys, "--whole", str(second))["ledger"]["created"] == 26
    third = session(tmp_path / "c", "payroll", 26, age_hours=1)
    assert harvest(repo_dir, capsys, "--per-session", "4", str(third))["payroll"]["created"] == 4


def test_the_old_meanings_keep_their_own_names(repo: MemoryRepo, repo_dir: Path, tmp_path: Path,
                                               capsys: pytest.CaptureFixture[str]) -> None:
    src = session(tmp_path, "invoices", 3, age_hours=1)
    assert harvest(repo_dir, capsys, "--summary", str(src))["invoices"]["created"] == 1
    code, _, err = run_cli(["--repo", str(repo_dir), "harvest", "--summary", "--whole", str(src)], capsys)
    assert code != 0 and "--summary" in err
    code, _, err = run_cli(["--repo", str(repo_dir), "harvest", "--signals", "-1", str(src)], capsys)
    assert code != 0 and "--signals must be 0 or more" in err


def test_install_openclaw_takes_the_last_100_signals_by_default_or_as_told(repo: MemoryRepo, repo_dir: Path, tmp_path: Path,
                                                                          capsys: pytest.CaptureFixture[str]) -> None:
    config = tmp_path / "state" / "openclaw.json"
    sessions = tmp_path / "state" / "agents" / "main" / "sessions"
    session(sessions, "older", 2, age_hours=20)
    session(sessions, "newer", 2, age_hours=10)
    install = ["--repo", str(repo_dir), "--now", "2026-11-20T12:00:00Z", "install", "openclaw", "--config", str(config)]
    code, out, err = run_cli([*install, "--signals", "2"], capsys)
    assert code == 0, err
    assert "the last 2 signals" in out and "2 signals kept" in out and "1 harvested, 1 skipped" in out, out
    assert len(memories_of(repo_dir, "newer")) == 2 and memories_of(repo_dir, "older") == []
    session(sessions, "latest", 2, age_hours=1)
    code, out, err = run_cli(install, capsys)   # the seed's default: the last 100 signals
    assert code == 0 and "the last 100 signals" in out and "2 signals kept" in out, out + err
    assert len(memories_of(repo_dir, "latest")) == 2


def test_install_claude_code_harvests_history_only_when_asked(repo: MemoryRepo, repo_dir: Path, tmp_path: Path,
                                                              capsys: pytest.CaptureFixture[str]) -> None:
    projects = Path(os.environ["HOME"]) / ".claude" / "projects" / "-home-alice-app"
    session(projects, "deploys", 3, age_hours=1)
    settings = tmp_path / "settings.json"
    base = ["--repo", str(repo_dir), "--now", "2026-11-20T12:00:00Z", "install", "claude-code", "--settings", str(settings)]
    code, out, err = run_cli(base, capsys)
    assert code == 0 and "history" not in out and memories_of(repo_dir, "deploys") == [], out + err
    code, out, err = run_cli([*base, "--whole"], capsys)
    assert code == 0 and "the whole history" in out and len(memories_of(repo_dir, "deploys")) == 3, out + err
