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
    assert code == 2 and "QUERY" in err   # a usage error: exit 2


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


# --- Layer 3: a title per episode, never its path twice ---

def test_layer_3_shows_an_episode_title_not_its_path_twice(repo: MemoryRepo, repo_dir: Path, tmp_path: Path) -> None:
    from tests.test_recall import claude_session

    titled = claude_session(tmp_path / "a.jsonl", "s-a", "Set up the Hugo blog", "hugo please", "The blog builds")
    untitled = claude_session(tmp_path / "b.jsonl", "s-b", None, "why is the CI cache cold", "Keyed it on the lockfile")
    results = repo.harvest([titled, untitled], fmt="claude-code", signals=0, now=clock.parse_time(NOW))
    # an episode written before titles existed: front matter without a title or summary
    old = "episodes/2026/01/s-old.md"
    (repo_dir / old).parent.mkdir(parents=True, exist_ok=True)
    (repo_dir / old).write_text("---\nid: s-old\ntype: episode\nsession: s-old\ndate: 2026-01-02\n---\n## Summary\n\nx\n")
    subprocess.run(["git", "add", old], cwd=repo_dir, check=True)
    subprocess.run(["git", "commit", "-q", "--no-verify", "-m", "an old episode"], cwd=repo_dir, check=True)
    repo.sync_core(now=clock.parse_time(NOW))
    layer = (repo_dir / "CLAUDE.md").read_text().split("gitmem:layer 3")[1].split("/gitmem:layer")[0]
    lines = [line for line in layer.splitlines() if line.startswith("- ")]
    assert len(lines) == 3
    for line in lines:
        path = line.rsplit(" — ", 1)[1]
        assert line.count(path) == 1 and line.count("episodes/") == 1, line
    assert any("Set up the Hugo blog" in line for line in lines)
    assert any("why is the CI cache cold" in line for line in lines)
    assert any(": s-old — " in line for line in lines)
    assert {r.status for r in results} == {"harvested"}


# --- load-core keeps to a project; old documents without a project are global ---

def test_load_core_keeps_to_the_working_folders_project(repo: MemoryRepo, repo_dir: Path, tmp_path: Path,
                                                         plain_git_repo: Path, linked_worktree: Path,
                                                         capsys: pytest.CaptureFixture[str],
                                                         monkeypatch: pytest.MonkeyPatch) -> None:
    other = tmp_path / "billing"
    other.mkdir()
    subprocess.run(["git", "init", "-q"], cwd=other, check=True)
    now = clock.parse_time(NOW)
    shop = repo.remember("The shop release branch is cut on Mondays", domain="project", importance=0.8,
                         project=str(plain_git_repo), now=now).id
    billing = repo.remember("Billing invoices are frozen on the last Friday", domain="project", importance=0.8,
                            project=str(other), now=now).id
    person = repo.remember("Reply to the person in Chinese", domain="user", importance=0.8,
                           project=str(other), now=now).id
    # a document written before projects existed: no project key, read as global
    old = repo.remember("The build machines run Debian", domain="world", importance=0.8, now=now).id
    assert "project" not in (repo_dir / repo.show(old).path).read_text()
    assert {i.id for i in repo.core_items(here=linked_worktree)} == {shop, person, old}
    assert {i.id for i in repo.core_items(here=other)} == {billing, person, old}
    assert {i.id for i in repo.core_items(project="billing")} == {billing, person, old}
    assert {i.id for i in repo.core_items()} == {shop, billing, person, old}
    monkeypatch.chdir(plain_git_repo)
    code, out, _ = run_cli(["--repo", str(repo_dir), "load-core", "--json"], capsys)
    assert code == 0 and set(json.loads(out)["included"]) == {shop, person, old}
    code, out, _ = run_cli(["--repo", str(repo_dir), "load-core", "--all-projects", "--json"], capsys)
    assert code == 0 and set(json.loads(out)["included"]) == {shop, billing, person, old}
    code, out, _ = run_cli(["--repo", str(repo_dir), "load-core", "--project", "billing", "--json"], capsys)
    assert code == 0 and set(json.loads(out)["included"]) == {billing, person, old}
    code, out, _ = run_cli(["--repo", str(repo_dir), "session", "start"], capsys)
    assert code == 0 and shop in out and billing not in out
