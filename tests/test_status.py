"""Tests for gitmem.api.status: status and the event stream."""

from __future__ import annotations

import json
from datetime import timedelta
from pathlib import Path

import pytest

from tests.conftest import run_cli
from gitmem.api import MemoryRepo
from gitmem.base import state
from gitmem.base.clock import parse_time
from gitmem.base.errors import SecretError
from tests.loop_helpers import START, add_sessions

T = parse_time("2026-10-30T12:00:00Z")


def test_status_of_a_fresh_repository(repo: MemoryRepo) -> None:
    st = repo.status(now=T)
    assert st.patterns == () and st.reviews == () and st.atrophy_candidates == ()
    assert st.auto_streak == 0 and not st.review_forced and st.last_snapshot is None and st.last_error is None
    assert st.drift["baseline"] is None


def test_status_follows_the_loop(repo: MemoryRepo) -> None:
    repo.pattern_add("Retry with backoff", ["backoff"], now=T)
    repo.pattern_add("An old habit", ["fortran"], weight=0.11, now=T)
    for n in range(3):
        add_sessions(repo.root, ["backoff"], START + timedelta(days=n), first=n)
        repo.apply_weights(now=T)
    repo.snapshot(now=START + timedelta(days=3))
    add_sessions(repo.root, ["backoff"], START + timedelta(days=4), first=4)
    repo.propose_weights(now=T)
    st = repo.status(now=START + timedelta(weeks=6))
    assert st.patterns[0] == {"slug": "retry-with-backoff", "weight": 0.45, "stage": "episodic"}
    assert st.atrophy_candidates == ("an-old-habit",)
    assert [r["kind"] for r in st.reviews] == ["weights"]
    assert st.auto_streak == 3 and st.review_forced
    assert st.last_snapshot == "gitmem/snapshot/2026-11" and st.drift["ok"] is True


def test_status_shows_the_last_background_error(repo: MemoryRepo) -> None:
    state.log_event(repo.root, "job.error", "2026-11-02T00:00:00Z", job="session-end", message="harvest failed: boom")
    state.log_event(repo.root, "job.error", "2026-11-03T00:00:00Z", job="session-end", message="second failure")
    assert repo.status(now=T).last_error == {"event": "job.error", "at": "2026-11-03T00:00:00Z",
                                              "job": "session-end", "message": "second failure"}


def test_events_come_from_trailers_and_the_local_log(repo: MemoryRepo) -> None:
    repo.remember("the staging database listens on port 5432", now=T)
    with pytest.raises(SecretError):
        repo.remember("token ghp_" + "a1B2c3D4e5F6g7H8i9J0k1L2m3N4o5P6q7R8", now=T)
    events = repo.events()
    assert sorted(str(e["event_type"]) for e in events if e["origin"] == "commit") == ["memory.create", "repo.init"]
    commit_events = [e for e in events if e["origin"] == "commit"]
    assert commit_events and all(isinstance(e["commit"], str) and e["auto"] in (True, False) for e in commit_events)
    local = [e for e in events if e["origin"] == "local"]
    assert [e["event_type"] for e in local] == ["secret.rejected"]
    assert "ghp_" not in json.dumps(events)
    assert [str(e["timestamp"]) for e in events] == sorted(str(e["timestamp"]) for e in events)


def test_cli_status_and_log_events(repo_dir: Path, capsys: pytest.CaptureFixture[str]) -> None:
    base = ["--repo", str(repo_dir), "--now", "2026-10-30T12:00:00Z"]
    run_cli(["remember", "a fact about kafka", *base], capsys)
    code, out, _ = run_cli(["status", *base], capsys)
    assert code == 0 and "open reviews: 0" in out and "last snapshot: none" in out
    code, out, _ = run_cli(["status", "--json", *base], capsys)
    assert code == 0 and json.loads(out)["review_forced"] is False
    code, out, _ = run_cli(["log", "--events", "--json", *base], capsys)
    assert code == 0 and any(e["origin"] == "commit" for e in json.loads(out))
    code, _, err = run_cli(["log", "--events", "-n", "0", *base], capsys)
    assert code == 2 and "positive" in err   # a usage error: exit 2
