"""Harvest: transcripts become episodes and memories; a secret rejects the session."""

from __future__ import annotations

import json
import subprocess
from pathlib import Path

import pytest

from gitmem.base import config
from gitmem.api import MemoryRepo
from tests.conftest import NOW, bench_dir, run_cli

T = config.parse_time(NOW)
FIXTURES = Path(__file__).parent / "fixtures" / "sessions"
# Fabricated credentials in real vendor formats (random characters, not live keys).
AWS_KEY = "AKIA" + "Q7XZ4RT2LMWP9KVB"
GH_TOKEN = "ghp_" + "x7Tq2LmZ9vR4kW8nB3cY6fH1jD5sA0eGuPqN"


def commits(root: Path) -> int:
    return int(subprocess.run(["git", "rev-list", "--count", "HEAD"], cwd=root, capture_output=True, text=True,
                              check=True).stdout)


def claude_session(path: Path, sid: str, turns: list[tuple[str, object]]) -> Path:
    lines, parent = [], None
    for n, (kind, content) in enumerate(turns):
        uid = f"{sid}-{n}"
        msg = {"role": "user", "content": content} if kind == "user" else \
            {"id": f"msg_{n}", "type": "message", "role": "assistant", "model": "m", "content": content}
        lines.append(json.dumps({"parentUuid": parent, "isSidechain": False, "userType": "external", "cwd": "/home/alice/app",
                                 "sessionId": sid, "version": "2.1.27", "type": kind, "message": msg, "uuid": uid,
                                 "timestamp": f"2026-11-20T10:{n:02d}:00Z"}))
        parent = uid
    path.write_text("\n".join(lines) + "\n")
    return path


TURNS = [
    ("user", "Please fix the flaky upload test. Remember that the CI runner has only 2 cores."),
    ("assistant", [{"type": "tool_use", "id": "t1", "name": "Bash", "input": {"command": "pytest tests/test_upload.py"}}]),
    ("user", [{"type": "tool_result", "tool_use_id": "t1", "content": "1 failed: test_upload_retry", "is_error": True}]),
    ("user", "No, don't add sleeps; we inject the clock instead."),
    ("assistant", [{"type": "text", "text": "Done, the clock is injected."}]),
]


def test_session_becomes_one_commit_with_episode_and_memories(repo: MemoryRepo, repo_dir: Path, tmp_path: Path) -> None:
    src = claude_session(tmp_path / "s1.jsonl", "sess-0001", TURNS)
    before = commits(repo_dir)
    [r] = repo.harvest([src], now=T)
    assert r.status == "harvested" and r.created >= 2
    assert commits(repo_dir) == before + 1
    episode = (repo_dir / r.episode).read_text()
    assert r.episode.startswith("episodes/2026/11/") and "pytest tests/test_upload.py" in episode
    assert "/home/alice" not in episode   # home paths stripped by the write path
    sources = {m.source for m in repo.list().memories}
    assert any(s.startswith("session:sess-0001#L") for s in sources)
    msg = subprocess.run(["git", "log", "-1", "--format=%B"], cwd=repo_dir, capture_output=True, text=True).stdout
    assert "Gitmem-Session: sess-0001" in msg and "Gitmem-Auto: true" in msg


def test_harvest_is_idempotent_and_incremental(repo: MemoryRepo, repo_dir: Path, tmp_path: Path) -> None:
    src = claude_session(tmp_path / "s2.jsonl", "sess-0002", TURNS)
    repo.harvest([src], now=T)
    before = commits(repo_dir)
    assert repo.harvest([src], now=T)[0].status == "unchanged"
    assert repo.harvest([src], now=T, rescan=True)[0].status == "unchanged"
    assert commits(repo_dir) == before
    claude_session(src, "sess-0002", TURNS + [("user", "We decided to use Redis for the upload queue.")])
    [r] = repo.harvest([src], now=T)
    assert r.status == "updated" and r.created == 1
    assert commits(repo_dir) == before + 1
    assert any("Redis" in m.content for m in repo.list().memories)


@pytest.mark.parametrize("where", ["user text", "tool input", "tool output", "structured tool result"])
def test_secret_anywhere_rejects_the_whole_session(repo: MemoryRepo, repo_dir: Path, tmp_path: Path, where: str) -> None:
    turns = list(TURNS)
    if where == "user text":
        turns.append(("user", f"here are my creds: aws_access_key_id={AWS_KEY}"))
    elif where == "tool input":
        turns.append(("assistant", [{"type": "tool_use", "id": "t9", "name": "Bash",
                                     "input": {"command": f"curl -H 'Authorization: token {GH_TOKEN}' https://api.github.com"}}]))
    elif where == "tool output":
        turns.append(("user", [{"type": "tool_result", "tool_use_id": "t1", "content": f"cat .env\nGITHUB_TOKEN={GH_TOKEN}\n"}]))
    else:   # an MCP-style result whose text sits under a "data" key
        turns.append(("user", [{"type": "tool_result", "tool_use_id": "t1",
                                "content": [{"type": "json", "data": {"env": f"GITHUB_TOKEN={GH_TOKEN}"}}]}]))
    src = claude_session(tmp_path / "leak.jsonl", "sess-leak", turns)
    before = commits(repo_dir)
    [r] = repo.harvest([src], now=T)
    assert r.status == "rejected" and "nothing written" in r.reason
    assert AWS_KEY not in r.reason and GH_TOKEN not in r.reason
    assert commits(repo_dir) == before
    events = (repo_dir / ".git/gitmem/events.jsonl").read_text()
    assert "secret.rejected" in events and "sess-leak" in events
    assert AWS_KEY not in events and GH_TOKEN not in events


def test_cli_harvest_exit_code_and_json(repo_dir: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    good = claude_session(tmp_path / "good.jsonl", "sess-good", TURNS)
    bad = claude_session(tmp_path / "bad.jsonl", "sess-bad", TURNS + [("user", f"token {GH_TOKEN}")])
    code, out, _ = run_cli(["--repo", str(repo_dir), "--now", NOW, "harvest", str(good), str(bad), "--json"], capsys)
    assert code == 1
    by = {Path(r["path"]).name: r["status"] for r in json.loads(out)}
    assert by == {"good.jsonl": "harvested", "bad.jsonl": "rejected"}


def test_fixture_formats_and_folder_walk(repo: MemoryRepo) -> None:
    results = repo.harvest([FIXTURES], now=T)
    statuses = {Path(r.path).name: r.status for r in results}
    assert all(s in ("harvested", "rejected", "unchanged") for s in statuses.values()), statuses
    assert statuses.get("secrets.jsonl") == "rejected"
    assert sum(1 for s in statuses.values() if s == "harvested") >= 4


def test_whole_keeps_one_summary_memory(repo: MemoryRepo, tmp_path: Path) -> None:
    src = claude_session(tmp_path / "w.jsonl", "sess-whole", TURNS)
    [r] = repo.harvest([src], whole=True, now=T)
    assert r.created == 1


def test_every_bench_transcript(tmp_path: Path) -> None:
    sessions = bench_dir("sessions")
    if sessions is None:
        pytest.skip("shared bench sessions are not beside the project")
    repo_path = tmp_path / "bench-mem"
    MemoryRepo.init(repo_path, T, install_hooks=False)
    repo = MemoryRepo.open(repo_path)
    results = repo.harvest([sessions], now=T)
    assert len(results) == 25
    failed = [r for r in results if r.status == "failed"]
    assert failed == []
    rejected = [(Path(r.path).name, r.reason) for r in results if r.status == "rejected"]
    assert rejected == []   # the bench files were screened for secrets by hand: a rejection is a false positive
    again = repo.harvest([sessions], now=T, rescan=True)
    assert all(r.status == "unchanged" for r in again)
