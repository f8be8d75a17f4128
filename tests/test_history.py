"""Provenance from git history: ``why`` one memory and the weekly review, over real commits."""

from __future__ import annotations

import subprocess
from datetime import datetime, timedelta, timezone
from pathlib import Path

import pytest

from gitmem.api import MemoryRepo
from gitmem.base.clock import parse_time
from gitmem.base.errors import UsageError
from gitmem.engines import history

NOW = parse_time("2026-11-29T12:00:00Z")


def git(root: Path, *args: str, env: dict[str, str] | None = None) -> str:
    import os

    done = subprocess.run(["git", *args], cwd=root, capture_output=True, text=True, env={**os.environ, **(env or {})})
    assert done.returncode == 0, done.stderr
    return done.stdout.strip()


def head(repo: MemoryRepo) -> str:
    assert repo.head is not None
    return repo.head


# --- why ----------------------------------------------------------------------------------

def test_why_lists_creation_then_reinforcement(repo: MemoryRepo) -> None:
    first = repo.remember("The staging database listens on port 5432.", now=NOW)
    again = repo.remember("Remember: the staging database listens on port 5432.", now=NOW + timedelta(hours=1))
    assert again.action == "reinforced"
    found = history.why(repo.git, head(repo), repo.show(first.id))
    assert [s.event for s in found.steps] == ["created", "reinforced"]
    assert found.steps[0].commit == first.commit and found.steps[1].commit == again.commit
    assert found.memory.id == first.id and found.source == found.memory.source
    assert found.steps[0].trailers["Gitmem-Event"] == "memory.create"
    assert found.steps[0].author.endswith(">")


def test_why_follows_a_move_to_the_archive(repo: MemoryRepo) -> None:
    made = repo.remember("A fact to be archived later.", now=NOW)
    repo.forget(made.id, now=NOW + timedelta(days=1))
    found = history.why(repo.git, head(repo), repo.show(made.id))
    assert [s.event for s in found.steps] == ["created", "archived"]


def test_why_counts_a_persons_commit(repo: MemoryRepo) -> None:
    made = repo.remember("A fact a person will edit by hand.", now=NOW)
    path = repo.root / repo.show(made.id).path
    path.write_text(path.read_text() + "\nA line from a person.\n")
    git(repo.root, "commit", "-q", "--no-verify", "-am", "Edit my memory by hand")
    found = history.why(repo.git, git(repo.root, "rev-parse", "HEAD"), repo.show(made.id))
    assert [s.event for s in found.steps] == ["created", "person"]
    assert found.steps[-1].subject == "Edit my memory by hand"
    assert found.steps[-1].trailers == {}


def test_step_record_is_json_data(repo: MemoryRepo) -> None:
    made = repo.remember("Records are plain data.", now=NOW)
    step = history.why(repo.git, head(repo), repo.show(made.id)).steps[0]
    record = step.to_json()
    assert set(record) == {"commit", "time", "event", "subject", "author", "trailers"}
    assert record["time"] == "2026-11-29T12:00:00Z"
    import json

    assert json.loads(json.dumps(record)) == record


def test_an_unknown_event_is_shown_as_written() -> None:
    from gitmem.base.gitio import CommitInfo, Trailers

    info = CommitInfo("a" * 40, "Subject\n\nGitmem-Event: review.opened\n", "A <a@x>", "2026-11-29T12:00:00Z", ())
    step = history._step(info, Trailers([("Gitmem-Event", "review.opened")]))
    assert step.event == "review.opened" and step.subject == "Subject"
    assert history._step(info, Trailers([("Gitmem-Event", "memory.link")])).event == "linked"


def test_every_event_verb_is_a_readable_phrase() -> None:
    assert history.EVENT_VERBS
    for event, verb in history.EVENT_VERBS.items():
        assert "." in event and verb and verb == verb.lower(), event


# --- parse_since ------------------------------------------------------------------------------

@pytest.mark.parametrize(("text", "delta"), [
    ("7d", timedelta(days=7)), ("12h", timedelta(hours=12)), ("2w", timedelta(days=14)), ("0d", timedelta()),
])
def test_parse_since_durations(text: str, delta: timedelta) -> None:
    assert history.parse_since(text, NOW) == NOW - delta


def test_parse_since_iso_date() -> None:
    assert history.parse_since("2026-11-01", NOW) == datetime(2026, 11, 1, tzinfo=timezone.utc)


@pytest.mark.parametrize("text", ["", "7", "d", "7y", "-7d", "last week"])
def test_parse_since_rejects_the_rest(text: str) -> None:
    with pytest.raises(UsageError) as caught:
        history.parse_since(text, NOW)
    assert "neither a duration" in caught.value.message


# --- consolidate ------------------------------------------------------------------------------

def test_consolidate_groups_the_weeks_commits(repo: MemoryRepo) -> None:
    for i, text in enumerate(["Port 5432 is staging.", "Alice owns billing.", "Deploys happen on Tuesday."]):
        repo.remember(text, now=NOW + timedelta(minutes=i))
    repo.remember("Remember: port 5432 is staging.", now=NOW + timedelta(hours=1))
    review = history.consolidate(repo.git, repo.head, NOW - timedelta(days=7))
    assert review.since == "2026-11-22T12:00:00Z"
    assert review.counts == {"memories created": 3, "memories reinforced": 1}
    assert review.commits == {"created": 3, "reinforced": 1, "repository created": 1}
    assert [s.event for s in review.steps][0] == "reinforced"           # newest first
    assert len(review.steps) == 5


def test_consolidate_stops_at_since(repo: MemoryRepo) -> None:
    repo.remember("An old fact.", now=NOW)
    repo.remember("A new fact.", now=NOW + timedelta(days=10))
    review = history.consolidate(repo.git, repo.head, NOW + timedelta(days=5))
    assert review.counts == {"memories created": 1}
    assert len(review.steps) == 1


def test_consolidate_counts_files_of_an_import(repo: MemoryRepo, tmp_path: Path) -> None:
    source = tmp_path / "m.jsonl"
    source.write_text("".join(f'{{"content": "Imported fact number {i} about topic {i}."}}\n' for i in range(4)))
    result = repo.import_file(source, now=NOW)
    assert result.created == 4
    review = history.consolidate(repo.git, repo.head, NOW - timedelta(days=1))
    assert review.counts == {"memories created": 4}     # four memories, not one commit or five files
    assert review.commits["imported"] == 1


def test_consolidate_of_an_unborn_branch_is_empty(tmp_path: Path) -> None:
    from gitmem.base import gitio

    g = gitio.init(tmp_path / "empty")
    review = history.consolidate(g, None, NOW)
    assert review.counts == {} and review.steps == ()


def test_consolidate_reads_the_decay_summary(repo: MemoryRepo) -> None:
    from gitmem.base.gitio import Git

    tip = head(repo)
    g = Git(repo.root)
    tree = g.tree_id(tip)
    made = g.create_commit("main", tree, tip, "gitmem: decay\n\nm-1: archived\nm-2: band warm -> cool\n"
                           "m-3: band hot -> warm\nm-4: tier short -> long\n\nGitmem-Event: memory.decay\n", NOW)
    review = history.consolidate(g, made, NOW - timedelta(days=1))
    assert review.counts["memories archived"] == 1
    assert review.counts["band changes"] == 2
    assert review.counts["promoted to long-term"] == 1
    assert "decayed" not in review.counts and review.commits["decayed"] == 1


def test_consolidate_counts_memories_links_and_patterns_not_commits(repo: MemoryRepo, tmp_path: Path) -> None:
    source = tmp_path / "m.jsonl"
    source.write_text("".join(f'{{"content": "Imported fact number {i} about topic {i}."}}\n' for i in range(3))
                      + '{"content": "Port 5432 is staging."}\n')
    first = repo.remember("Port 5432 is staging.", now=NOW)
    other = repo.remember("Alice owns the billing dashboard.", now=NOW)
    result = repo.import_file(source, dedupe=True, now=NOW)
    assert (result.created, result.reinforced) == (3, 1)
    repo.link(first.id, other.id, "supports", now=NOW)
    repo.forget(other.id, now=NOW)
    for text in ("The upload test is flaky because it sleeps", "Flaky upload test: inject the clock instead of sleeping"):
        repo.remember(text, now=NOW, dedupe=False)
    folded = repo.reflect(now=NOW)
    review = history.consolidate(repo.git, repo.head, NOW - timedelta(days=1))
    assert review.counts["memories created"] == 2 + 3 + 2
    assert review.counts["memories reinforced"] == 1
    assert review.counts["links made"] == 1
    assert review.counts["memories archived"] == 1
    assert review.counts["patterns created"] == len(folded.created) >= 1
    assert review.counts["memories folded into patterns"] == len(folded.consumed)
    assert review.commits["imported"] == 1 and review.commits["linked"] == 1


@pytest.mark.parametrize("text", ["999999999d", "99999999999999999999d", "999999999999w"])
def test_a_since_beyond_the_calendar_is_a_clear_error(text: str) -> None:
    from gitmem.base.errors import UsageError
    from gitmem.engines.history import parse_since

    with pytest.raises(UsageError) as info:
        parse_since(text, parse_time("2026-11-29T12:00:00Z"))
    assert text in info.value.message and info.value.hint
