"""Small truths of the everyday verbs: status counts what the memory holds, `log` shows the commit
history, decay says how many files it changed, weights says why a session did not count, and
analyze proposes a merge only over enough shared sessions."""

from __future__ import annotations

import json
import subprocess
from datetime import datetime, timedelta, timezone
from pathlib import Path

import pytest

from gitmem.api import MemoryRepo
from gitmem.engines import analyze
from gitmem.engines.hebbian import SessionSignal
from gitmem.api.initrepo import template_dir
from tests.conftest import run_cli

T = datetime(2026, 11, 29, 12, 0, tzinfo=timezone.utc)
NOW = "2026-11-29T12:00:00Z"
SESSION = template_dir() / "demo" / "session-billing.jsonl"   # started 2026-11-20


def test_status_counts_memories_by_tier_and_band_episodes_patterns_and_reviews(
        repo: MemoryRepo, repo_dir: Path, capsys: pytest.CaptureFixture[str]) -> None:
    for text, imp in (("I prefer tabs over spaces", 0.8), ("the cache lives in /var/cache/app", 0.5),
                      ("a passing remark about lunch", 0.3)):
        repo.remember(text, importance=imp, now=T)
    repo.harvest([SESSION], now=T)
    repo.pattern_add("Retry flaky network calls", ["retry", "network"], now=T)
    code, out, _ = run_cli(["--repo", str(repo_dir), "--now", NOW, "status", "--json"], capsys)
    assert code == 0
    counts = json.loads(out)["counts"]
    listed = repo.list().memories
    assert counts["memories"] == len(listed) >= 3
    assert counts["tiers"] == {"short": len(listed)}
    assert sum(counts["bands"].values()) == len(listed) and counts["bands"]["core"] >= 1
    assert counts["bands"]["active"] >= 1 and counts["bands"]["background"] >= 1
    assert counts["episodes"] == 1 and counts["patterns"] == 1 and counts["archived"] == 0
    code, out, _ = run_cli(["--repo", str(repo_dir), "--now", NOW, "status"], capsys)
    first = out.splitlines()[0]
    assert first.startswith(f"memories: {len(listed)} live (tier: {len(listed)} short; band: ")
    # the harvest may leave its unsure candidates in one open review (the harvest inbox): status counts it
    reviews = subprocess.run(["git", "-C", str(repo_dir), "for-each-ref", "--format=%(refname)", "refs/heads/gitmem/review/"],
                             capture_output=True, text=True, check=True).stdout.split()
    assert first.endswith(", 0 archived") and "episodes: 1" in out and f"open reviews: {len(reviews)}" in out


def test_log_defaults_to_the_commit_history_with_events(repo: MemoryRepo, repo_dir: Path,
                                                        capsys: pytest.CaptureFixture[str]) -> None:
    mid = repo.remember("I prefer tabs over spaces", now=T).id
    (repo_dir / "notes.txt").write_text("mine\n")
    subprocess.run(["git", "add", "notes.txt"], cwd=repo_dir, check=True)
    subprocess.run(["git", "commit", "-q", "--no-verify", "-m", "my own note"], cwd=repo_dir, check=True)
    code, out, err = run_cli(["--repo", str(repo_dir), "log"], capsys)
    assert code == 0, err
    lines = out.splitlines()
    head = subprocess.run(["git", "rev-parse", "HEAD"], cwd=repo_dir, capture_output=True, text=True).stdout
    assert lines[0].startswith(head[:12]) and "(a person's commit)" in lines[0] and lines[0].endswith("my own note")
    assert "memory.create" in lines[1] and mid in lines[1]
    assert "repo.init" in lines[-1]
    code, out, _ = run_cli(["--repo", str(repo_dir), "log", "-n", "1", "--json"], capsys)
    assert [c["subject"] for c in json.loads(out)] == ["my own note"]
    code, out, _ = run_cli(["--repo", str(repo_dir), "log", "--events", "--json"], capsys)
    assert code == 0 and all("event_type" in e for e in json.loads(out))


def test_decay_reports_the_files_it_changed(repo: MemoryRepo, repo_dir: Path, capsys: pytest.CaptureFixture[str]) -> None:
    for i in range(4):
        repo.remember(f"fact number {i} about the build cache {i * 13}", importance=0.75, now=T)
    code, out, _ = run_cli(["--repo", str(repo_dir), "--now", "2027-01-20T12:00:00Z", "decay"], capsys)
    assert code == 0
    summary = out.splitlines()[-1]
    touched = subprocess.run(["git", "diff", "--name-only", "HEAD~1", "HEAD"], cwd=repo_dir,
                             capture_output=True, text=True, check=True).stdout.split()
    assert f", {len(touched)} files changed, " in summary and len(touched) >= 4, summary


def test_weights_says_why_no_session_counted(repo: MemoryRepo, repo_dir: Path, capsys: pytest.CaptureFixture[str]) -> None:
    code, out, _ = run_cli(["--repo", str(repo_dir), "--now", NOW, "weights"], capsys)
    assert out.strip() == "weights: no new sessions to count (no session harvested yet: gitmem harvest)"
    repo.harvest([SESSION], now=T)
    code, out, _ = run_cli(["--repo", str(repo_dir), "--now", NOW, "weights"], capsys)
    assert "1 sessions harvested, but no pattern yet" in out
    repo.pattern_add("Background jobs for slow exports", ["export", "timeout"], now=T)   # after the session
    code, out, _ = run_cli(["--repo", str(repo_dir), "--now", NOW, "weights"], capsys)
    assert out.strip() == ("weights: no new sessions to count (of 1 harvested sessions: 1 started before the "
                           "patterns were created, and a session older than a pattern never counts for it)")
    code, out, _ = run_cli(["--repo", str(repo_dir), "--now", NOW, "weights", "--json"], capsys)
    assert json.loads(out)["uncounted"] == {"harvested": 1, "patterns": 1, "older": 1, "counted": 0}


def _pattern(repo: MemoryRepo, slug_text: str) -> str:
    return repo.pattern_add(slug_text, [slug_text.split()[0].lower()], now=T).slug


def test_analyze_merges_only_over_enough_shared_sessions(repo: MemoryRepo) -> None:
    a, b = _pattern(repo, "Retry flaky calls"), _pattern(repo, "Pin tool versions")
    pats = repo.patterns()

    def sessions(n: int) -> list[SessionSignal]:
        return [SessionSignal(f"2026-12-0{i + 1}T00:00:00Z", f"s{i}", cited=frozenset({a, b})) for i in range(n)]

    one = analyze.analyze(pats, sessions(1))
    assert one.pairs == (tuple(sorted((a, b))) + (1.0,),)
    assert one.merge_candidates == ()              # one shared session is no evidence
    assert analyze.analyze(pats, sessions(2)).merge_candidates == ()
    assert len(analyze.analyze(pats, sessions(3)).merge_candidates) == 1
    assert len(analyze.analyze(pats, sessions(1), min_sessions=1).merge_candidates) == 1


def test_analyze_reads_min_sessions_from_the_config(repo_dir: Path, capsys: pytest.CaptureFixture[str]) -> None:
    text = (repo_dir / "gitmem.yaml").read_text()
    assert "min_sessions: 3" in text
    code, out, _ = run_cli(["--repo", str(repo_dir), "analyze", "--json"], capsys)
    assert code == 0 and json.loads(out)["min_sessions"] == 3
