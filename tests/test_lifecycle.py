"""Across the engines: recall through the repository, provenance and the weekly review."""

from __future__ import annotations

import json
import subprocess
from datetime import timedelta
from pathlib import Path

import pytest

from gitmem.api import MemoryRepo
from gitmem.base import clock
from tests.conftest import NOW, run_cli

T = clock.parse_time(NOW)


def commits(repo_dir: Path) -> int:
    return int(subprocess.run(["git", "rev-list", "--count", "HEAD"], cwd=repo_dir, capture_output=True,
                              text=True, check=True).stdout)


# --- recall ------------------------------------------------------------------------

def test_recall_ranks_and_logs_hits_without_committing(repo: MemoryRepo, repo_dir: Path) -> None:
    a = repo.remember("The payments service retries webhooks three times", now=T)
    repo.remember("Lunch on Fridays is pizza", now=T)
    before = commits(repo_dir)
    hits = repo.recall("how many webhook retries in payments", now=T)
    assert hits[0].id == a.id and hits[0].path == a.memory.path
    assert commits(repo_dir) == before
    log = (repo_dir / ".git/gitmem/access.jsonl").read_text()
    assert a.id in log


def test_recall_index_follows_commits_incrementally(repo: MemoryRepo) -> None:
    repo.remember("kafka topics are partitioned by tenant", now=T)
    assert repo.recall("kafka tenant", now=T)
    b = repo.remember("redis is used for the rate limiter", now=T)
    assert repo.recall("rate limiter redis", now=T)[0].id == b.id
    repo.forget(b.id, now=T)
    assert repo.recall("rate limiter redis", now=T) == []
    assert repo.recall("rate limiter redis", include_archive=True, now=T)[0].id == b.id


def test_corrupt_index_is_rebuilt(repo: MemoryRepo, repo_dir: Path) -> None:
    a = repo.remember("graphql schema lives in api/schema.graphql", now=T)
    repo.recall("graphql", now=T)
    (repo_dir / ".git/gitmem/index.sqlite").write_bytes(b"this is not sqlite" * 100)
    for suffix in ("-wal", "-shm"):
        Path(str(repo_dir / ".git/gitmem/index.sqlite") + suffix).unlink(missing_ok=True)
    assert repo.recall("graphql schema", now=T)[0].id == a.id


def test_background_band_hidden_unless_asked(repo: MemoryRepo) -> None:
    r = repo.remember("the old office wifi is called blueberry", importance=0.3, now=T)
    assert r.memory.band == "background"
    assert repo.recall("office wifi blueberry", now=T) == []
    assert repo.recall("office wifi blueberry", band="background", now=T)[0].id == r.id
    assert repo.recall("office wifi blueberry", include_background=True, now=T)[0].id == r.id


def test_recall_at_a_tag_sees_the_past(repo: MemoryRepo, repo_dir: Path) -> None:
    r = repo.remember("the cache TTL is 300 seconds", now=T)
    subprocess.run(["git", "tag", "before"], cwd=repo_dir, check=True)
    repo.forget(r.id, now=T)
    assert repo.recall("cache ttl", now=T) == []
    past = repo.recall("cache ttl", at="before", now=T)
    assert past and past[0].id == r.id and past[0].tier == "short"


def test_cli_recall_json_and_batch(repo_dir: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch) -> None:
    import io

    base = ["--repo", str(repo_dir), "--now", NOW]
    run_cli([*base, "remember", "the frontend is built with vite"], capsys)
    run_cli([*base, "remember", "the backend is written in go"], capsys)
    code, out, _ = run_cli([*base, "recall", "--json", "-k", "1", "frontend build tool"], capsys)
    items = json.loads(out)
    assert code == 0 and len(items) == 1
    assert {"id", "score", "content", "type", "domain", "importance", "tier", "band", "path"} <= set(items[0])
    monkeypatch.setattr("sys.stdin", io.StringIO("frontend vite\nbackend language go\n\n"))
    code, out, _ = run_cli([*base, "recall", "--batch", "-k", "1"], capsys)
    lines = [json.loads(l) for l in out.splitlines()]
    assert [l["query"] for l in lines] == ["frontend vite", "backend language go"]
    assert "go" in lines[1]["results"][0]["content"]
    code, _, err = run_cli([*base, "recall"], capsys)
    assert code == 1 and "QUERY" in err


def test_expand_follows_links_one_hop(repo: MemoryRepo) -> None:
    a = repo.remember("the outage on monday was caused by a full disk", now=T)
    b = repo.remember("log rotation was disabled on the database host", now=T)
    repo.link(b.id, a.id, "cause", now=T)
    plain = {h.id for h in repo.recall("outage monday", now=T)}
    assert b.id not in plain
    expanded = repo.recall("outage monday", expand=True, now=T)
    assert b.id in {h.id for h in expanded}
    assert any(h.via for h in expanded)


# --- provenance --------------------------------------------------------------------

def test_why_walks_history(repo: MemoryRepo, capsys: pytest.CaptureFixture[str]) -> None:
    a = repo.remember("the staging database runs on port 5432", source="session:abc#L12", now=T)
    repo.remember("The staging database runs on port 5432.", now=T)
    repo.forget(a.id, now=T)
    w = repo.why(a.id)
    assert w.source == "session:abc#L12"
    assert [s.event for s in w.steps] == ["created", "reinforced", "archived"]
    code, out, _ = run_cli(["--repo", str(repo.root), "why", a.id], capsys)
    assert code == 0 and "session:abc#L12" in out


def test_consolidate_summarises_the_week(repo: MemoryRepo) -> None:
    repo.remember("fact one about grpc", now=T)
    repo.remember("fact one about grpc!", now=T)
    r = repo.consolidate("7d", now=T + timedelta(days=1))
    assert r.counts.get("memories created") == 1 and r.counts.get("memories reinforced") == 1
    assert r.commits.get("created") == 1 and r.commits.get("reinforced") == 1
    assert all(len(s.commit) == 40 for s in r.steps)
