"""Working memory: session notes outside git, the ones kept at session end, and the log they live in."""

from __future__ import annotations

import json
import re
import subprocess
from datetime import datetime, timezone
from pathlib import Path

import pytest

from gitmem.api import MemoryRepo
from gitmem.base import state
from gitmem.base.config import Memory as MemoryConfig
from gitmem.base.errors import UsageError, ValidationError
from gitmem.base.model import is_valid_id, memory_path
from gitmem.engines import working
from gitmem.engines.working import Note
from tests.conftest import NOW, run_cli

T = datetime(2026, 11, 29, 12, 0, tzinfo=timezone.utc)
CFG = MemoryConfig()


def commits(repo_dir: Path) -> int:
    return int(subprocess.run(["git", "rev-list", "--count", "HEAD"], cwd=repo_dir, capture_output=True,
                              text=True, check=True).stdout)


def test_note_is_checked_stripped_encoded_and_stamped() -> None:
    n = working.note("  remember the staging password rotates on Mondays  \n", None, None, None, T, 1000)
    assert re.fullmatch(r"w-[0-9a-f]{8}", n.id)
    assert n.text == "remember the staging password rotates on Mondays"
    assert n.at == "2026-11-29T12:00:00Z"
    assert 0.0 <= n.importance <= 1.0 and n.type and n.domain


def test_explicit_fields_win_over_the_encoder() -> None:
    n = working.note("anything at all", 0.9, "decision", "project", T, 1000)
    assert (n.importance, n.type, n.domain) == (0.9, "decision", "project")
    assert isinstance(n.importance, float)


def test_note_ids_are_unique() -> None:
    assert len({working.note("same text", 0.5, None, None, T, 1000).id for _ in range(50)}) == 50


@pytest.mark.parametrize("text, message", [("", "note is empty"), ("   ", "note is empty"),
                                           ("a\x00b", "note holds a NUL character")])
def test_bad_text_is_refused(text: str, message: str) -> None:
    with pytest.raises(ValidationError, match=message):
        working.note(text, None, None, None, T, 1000)


def test_text_over_the_limit_is_refused() -> None:
    with pytest.raises(ValidationError, match="note is 11 bytes, over the limit of 10 bytes"):
        working.note("x" * 11, None, None, None, T, 10)


@pytest.mark.parametrize("importance", [-0.1, 1.1, float("nan")])
def test_importance_out_of_range_is_refused(importance: float) -> None:
    with pytest.raises(ValidationError, match=r"importance must be a number in \[0.0, 1.0\]"):
        working.note("x", importance, None, None, T, 1000)


@pytest.mark.parametrize("field, value", [("type", "rumour"), ("domain", "mars")])
def test_unknown_type_or_domain_is_refused(field: str, value: str) -> None:
    kw = {"type": None, "domain": None, field: value}
    with pytest.raises(UsageError, match=f"{field} '{value}' is not one of"):
        working.note("x", 0.5, kw["type"], kw["domain"], T, 1000)


def _n(importance: float, text: str = "t") -> Note:
    return Note(f"w-{int(importance * 100):08x}", text, importance, "fact", "user", "2026-11-29T11:00:00Z")


def test_kept_keeps_notes_at_or_above_working_keep() -> None:
    notes = [_n(0.59), _n(0.6), _n(0.95), _n(0.0)]
    assert [n.importance for n in working.kept(notes, CFG)] == [0.6, 0.95]
    assert working.kept([], CFG) == []
    assert working.kept(notes, MemoryConfig(working_keep=0.0)) == notes
    assert working.kept(notes, MemoryConfig(working_keep=1.0)) == []


def test_to_memory_makes_a_short_term_memory_with_a_stable_id() -> None:
    n = Note("w-00000001", "The build cache lives in /var/cache/build", 0.8, "fact", "project",
             "2026-11-29T11:00:00Z")
    mem = working.to_memory(n, T, CFG, "s-42")
    assert is_valid_id(mem.id) and mem.id.startswith("m-2026-11-29-")
    assert mem.id == working.to_memory(n, T, CFG, "other").id
    assert (mem.tier, mem.band, mem.importance) == ("short", "core", 0.8)
    assert (mem.type, mem.domain, mem.content) == ("fact", "project", n.text)
    assert mem.created == n.at and mem.last_accessed == "2026-11-29T12:00:00Z"
    assert mem.source == "working:s-42" and mem.path == memory_path("project", mem.id)
    assert mem.keywords and "build" in " ".join(mem.keywords)


def test_to_memory_without_a_session_names_the_source_generically() -> None:
    assert working.to_memory(_n(0.7), T, CFG, None).source == "working:session"


def test_different_notes_get_different_ids() -> None:
    a, b = _n(0.7, "one"), _n(0.7, "two")
    assert working.to_memory(a, T, CFG, None).id != working.to_memory(b, T, CFG, None).id


def _record(n: Note) -> dict[str, object]:
    return {"id": n.id, "text": n.text, "importance": n.importance, "type": n.type, "domain": n.domain, "at": n.at}


def test_notes_of_reads_back_what_was_written(tmp_path: Path) -> None:
    notes = [_n(0.2, "a"), _n(0.9, "b")]
    path = tmp_path / working.WORKING_LOG
    path.write_text("".join(json.dumps(_record(n)) + "\n" for n in notes))
    assert working.notes_of(state.read(path)) == notes


def test_notes_of_a_missing_log_is_empty(tmp_path: Path) -> None:
    assert working.notes_of(state.read(tmp_path / "nope.jsonl")) == []


def test_notes_of_skips_torn_and_incomplete_lines(tmp_path: Path) -> None:
    good = _record(_n(0.7, "kept"))
    lines = [
        json.dumps(good),
        json.dumps({**good, "importance": "high"}),          # not a number
        json.dumps({k: v for k, v in good.items() if k != "text"}),   # a field missing
        json.dumps({**good, "importance": None}),            # wrong type
        "[1, 2, 3]",                                         # not a record
        json.dumps({**good, "text": "second"}),
        json.dumps(good)[:25],                               # torn last line of a killed writer
    ]
    path = tmp_path / "working.jsonl"
    path.write_text("\n".join(lines))
    assert [n.text for n in working.notes_of(state.read(path))] == ["kept", "second"]


def test_notes_of_stringifies_odd_scalars(tmp_path: Path) -> None:
    path = tmp_path / "working.jsonl"
    path.write_text(json.dumps({"id": 7, "text": 8, "importance": "0.5", "type": "fact", "domain": "user",
                                "at": "2026-11-29T12:00:00Z"}) + "\n")
    (n,) = working.notes_of(state.read(path))
    assert (n.id, n.text, n.importance) == ("7", "8", 0.5)


def test_notes_round_trip_through_the_repository(repo_dir: Path) -> None:
    repo = MemoryRepo.open(repo_dir)
    added = repo.note("remember to rotate the staging keys", importance=0.9, now=T)
    repo.note("a passing thought", importance=0.1, now=T)
    notes = repo.notes()
    assert [n.text for n in notes] == ["remember to rotate the staging keys", "a passing thought"]
    assert notes[0] == added
    end = repo.session_end(now=T, session="s-1")
    assert len(end.kept) == 1 and end.dropped == 1 and end.commit is not None
    assert repo.notes() == []
    assert repo.show(end.kept[0]).source == "working:s-1"


# --- working memory ----------------------------------------------------------------

def test_working_notes_stay_out_of_git_until_session_end(repo: MemoryRepo, repo_dir: Path) -> None:
    before = commits(repo_dir)
    repo.note("Remember that the deploy key rotates monthly", now=T)
    repo.note("looking at the logs now", now=T)
    assert commits(repo_dir) == before
    end = repo.session_end(T, session="s-42")
    assert len(end.kept) == 1 and end.dropped == 1 and commits(repo_dir) == before + 1
    assert repo.notes() == []
    assert repo.session_end(T).commit is None


def test_session_start_reports_pending(repo_dir: Path, capsys: pytest.CaptureFixture[str]) -> None:
    base = ["--repo", str(repo_dir), "--now", NOW]
    run_cli([*base, "remember", "I prefer squash merges", "--importance", "0.8"], capsys)
    run_cli([*base, "remember", "scratch idea", "--working"], capsys)
    code, out, _ = run_cli([*base, "session", "start"], capsys)
    assert code == 0 and "pending reflections: 1" in out and "working notes" in out
    assert "I prefer squash merges" in out
