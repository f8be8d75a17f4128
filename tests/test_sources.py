"""Tests for gitmem.engines.harvest.sources: discovery, format detection, the record split."""

from __future__ import annotations

import os
from pathlib import Path

import pytest

from gitmem.engines.harvest.sources import detect_format, discover
from tests.conftest import bench_dir

FIXTURES = Path(__file__).parent / "fixtures" / "sessions"


def bench_sessions() -> Path:
    """The shared folder of real transcripts (never copied into the repository)."""
    path = bench_dir("sessions")
    if path is None:
        pytest.skip("bench transcripts are not beside the project (set GITMEM_BENCH_DIR)")
    return path


def bench_files() -> list[Path]:
    return discover([bench_sessions()])


def test_bench_discover_finds_every_session_file_including_deleted_archive() -> None:
    files = bench_files()
    assert len(files) == 25
    assert any(".jsonl.deleted." in f.name for f in files)
    assert files == sorted(files, key=str)
    assert not any(f.name.endswith(".md") for f in files)


def test_detect_format_of_each_fixture() -> None:
    assert detect_format(FIXTURES / "claude-code" / "v1_session.jsonl") == "claude-code"
    assert detect_format(FIXTURES / "openclaw" / "secrets.jsonl") == "openclaw"
    assert detect_format(FIXTURES / "jsonl" / "signals_fr.jsonl") == "jsonl"
    assert detect_format(FIXTURES / "edge" / "empty.jsonl") == "jsonl"
    assert detect_format(FIXTURES / "edge" / "truncated.jsonl") == "claude-code"


def test_openclaw_folder_discovery_skips_the_index() -> None:
    files = discover([FIXTURES / "openclaw" / "sessions"])
    names = [f.name for f in files]
    assert "sessions.json" not in names
    assert names == ["22222222-3333-4444-8555-666677778888.jsonl",
                     "33333333-4444-4555-8666-777788889999.jsonl.deleted.2026-03-14T13-36-43.934Z"]


def test_discover_walks_folders_keeps_given_files_and_is_deterministic(tmp_path: Path) -> None:
    (tmp_path / "a" / "b").mkdir(parents=True)
    for name in ("a/b/z.jsonl", "a/x.jsonl.reset.2026-01-01T00-00-00.000Z", "a/y.jsonl.deleted.2026-01-01", "a/sessions.json",
                 "a/notes.txt", "history.jsonl"):
        (tmp_path / name).write_text("")
    given = tmp_path / "a" / "notes.txt"
    found = discover([tmp_path, given, tmp_path / "a"])
    rel = [str(p.relative_to(tmp_path)).replace(os.sep, "/") for p in found]
    assert rel == ["a/b/z.jsonl", "a/notes.txt", "a/x.jsonl.reset.2026-01-01T00-00-00.000Z", "a/y.jsonl.deleted.2026-01-01"]
    assert discover([given, tmp_path]) == found

