"""Tests for gitmem.engines.harvest.sources: discovery, format detection, the record split."""

from __future__ import annotations

import json
import os
from pathlib import Path
from typing import Any

import pytest

from gitmem.base.errors import UsageError
from gitmem.engines.harvest.sources import (FORMATS, Event, Reading, check_format, detect_format, discover, loads,
                                            not_jsonl, open_transcript, split_records)
from tests.conftest import bench_transcripts, corpora, corpus_format

FIXTURES = Path(__file__).parent / "fixtures" / "sessions"


bench_files = bench_transcripts


def test_bench_discover_finds_every_session_file_including_deleted_archive() -> None:
    for corpus in corpora():
        files = discover([corpus.folder])
        assert len(files) == corpus.files
        assert any(".jsonl.deleted." in f.name for f in files)
        assert files == sorted(files, key=str)
        assert not any(f.name.endswith(".md") for f in files) and any(corpus.folder.glob("*.md"))


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



def write(path: Path, *records: Any, last_newline: bool = True) -> Path:
    lines = [r if isinstance(r, str) else json.dumps(r) for r in records]
    path.write_text("\n".join(lines) + ("\n" if last_newline else ""))
    return path


# --------------------------------------------------------------------------- formats

def test_check_format_accepts_auto_and_each_format() -> None:
    assert FORMATS == ("claude-code", "openclaw", "jsonl")
    assert [check_format(f) for f in ("auto", *FORMATS)] == ["auto", *FORMATS]


def test_check_format_refuses_others_naming_the_choices() -> None:
    with pytest.raises(UsageError, match="unknown transcript format: yaml") as info:
        check_format("yaml")
    assert "auto, claude-code, openclaw, jsonl" in (info.value.hint or "")
    with pytest.raises(UsageError):
        check_format("Claude-Code")   # names are exact


# --------------------------------------------------------------------------- the Reading a pass accumulates

def test_reading_add_drops_empty_text_except_for_tool_traffic() -> None:
    st = Reading("jsonl")
    st.add(1, "user", "", None)
    st.add(2, "assistant", "", None)
    st.add(3, "tool_call", "", None, tool="bash")
    st.add(4, "tool_result", "", None, tool="bash", is_error=True)
    st.add(5, "user", "hi", "2026-01-01T00:00:00Z", sidechain=True, meta=True)
    assert st.events == [Event(3, "tool_call", "", None, "bash"), Event(4, "tool_result", "", None, "bash", True),
                         Event(5, "user", "hi", "2026-01-01T00:00:00Z", None, False, True, True)]


def test_reading_stamp_widens_start_and_end_in_any_order() -> None:
    st = Reading("jsonl")
    for ts in ("2026-01-02T00:00:00Z", None, "2026-01-01T00:00:00Z", "", "2026-01-03T00:00:00Z"):
        st.stamp(ts)
    assert (st.started, st.ended) == ("2026-01-01T00:00:00Z", "2026-01-03T00:00:00Z")


# --------------------------------------------------------------------------- records

def test_loads_is_lenient() -> None:
    assert loads(b'{"a": 1}') == {"a": 1}
    assert loads(b"not json") is None
    assert loads(b"[" * 100_000) is None   # nesting too deep to parse is a bad line, not a crash
    assert loads(b'{"t": "caf\xe9"}') == {"t": "caf\ufffd"}


def test_split_records_numbers_lines_and_counts_bad_ones() -> None:
    data = b'{"a": 1}\n\nnot json\n[1, 2]\n{"b": 2}\n'
    records, end, last, bad = split_records(data, 0, 0)
    assert records == [(1, {"a": 1}), (5, {"b": 2})]
    assert (end, last, bad) == (len(data), 5, 2)   # a JSON array is not a record either


def test_split_records_leaves_a_partial_last_line_for_later() -> None:
    data = b'{"a": 1}\n{"b": '
    records, end, last, bad = split_records(data, 0, 10)
    assert records == [(11, {"a": 1})] and end == 9 and last == 11 and bad == 0


def test_split_records_reads_a_whole_last_object_without_newline() -> None:
    data = b'{"a": 1}\n{"b": 2}'
    records, end, last, _ = split_records(data, 0, 0)
    assert records == [(1, {"a": 1}), (2, {"b": 2})] and end == len(data) and last == 2


def test_split_records_from_a_position() -> None:
    data = b'{"a": 1}\n{"b": 2}\n'
    records, end, last, _ = split_records(data, 9, 1)
    assert records == [(2, {"b": 2})] and end == len(data) and last == 2


def test_open_transcript_and_not_jsonl_name_the_file(tmp_path: Path) -> None:
    with pytest.raises(UsageError, match="cannot read transcript .*gone.jsonl"):
        open_transcript(tmp_path / "gone.jsonl")
    err = not_jsonl(tmp_path / "x.md")
    assert "x.md" in err.message and err.hint


# --------------------------------------------------------------------------- detection

@pytest.mark.parametrize(("record", "expected"), [
    ({"type": "session", "version": 3, "id": "s"}, "openclaw"),
    ({"type": "message", "parentId": None, "message": {"role": "user"}}, "openclaw"),
    ({"type": "model_change", "parentId": "p"}, "openclaw"),
    ({"type": "user", "sessionId": "s", "message": {"role": "user", "content": "hi"}}, "claude-code"),
    ({"type": "summary", "summary": "t", "leafUuid": "u"}, "claude-code"),
    ({"type": "file-history-snapshot", "snapshot": {}}, "claude-code"),
    ({"type": "assistant", "message": {"role": "assistant", "content": []}}, "claude-code"),
    ({"role": "user", "content": "hi"}, "jsonl"),
    ({"message": {"role": "user", "content": "hi"}}, "jsonl"),
])
def test_detect_format_from_the_first_known_record(tmp_path: Path, record: dict[str, Any], expected: str) -> None:
    assert detect_format(write(tmp_path / "t.jsonl", {"unrelated": True}, record)) == expected


def test_detect_format_of_objects_of_no_known_shape_is_generic(tmp_path: Path) -> None:
    assert detect_format(write(tmp_path / "t.jsonl", {"x": 1}, {"y": 2})) == "jsonl"


def test_detect_format_looks_only_at_the_head(tmp_path: Path) -> None:
    records = [{"x": n} for n in range(40)] + [{"type": "session", "version": 3}]
    assert detect_format(write(tmp_path / "t.jsonl", *records)) == "jsonl"


@pytest.mark.parametrize(("partial", "expected"), [
    ('{"type":"session","version":3,"id":"s"}', "openclaw"),   # whole object, no newline
    ('{"type":"session","version":3,"cwd":"/ho', "openclaw"),
    ('{"parentUuid":null,"sessionId":"abc","mess', "claude-code"),
    ('{"role":"user","content":"hal', "jsonl"),
])
def test_detect_format_of_a_file_still_being_written(tmp_path: Path, partial: str, expected: str) -> None:
    assert detect_format(write(tmp_path / "t.jsonl", partial, last_newline=False)) == expected


def test_detect_format_refuses_a_head_without_objects(tmp_path: Path) -> None:
    with pytest.raises(UsageError, match="not a JSONL transcript"):
        detect_format(write(tmp_path / "t.jsonl", "# notes", "- item"))
    with pytest.raises(UsageError, match="not a JSONL transcript"):
        detect_format(write(tmp_path / "u.jsonl", "plain text without newline", last_newline=False))
    with pytest.raises(UsageError, match="not a JSONL transcript"):
        detect_format(write(tmp_path / "v.jsonl", "[1]", "[2", last_newline=False))


def test_detect_format_skips_blank_lines(tmp_path: Path) -> None:
    assert detect_format(write(tmp_path / "t.jsonl", "", "  ", {"role": "user", "content": "x"})) == "jsonl"


# --------------------------------------------------------------------------- discovery

def test_discover_leaves_out_prompt_history_and_other_files(tmp_path: Path) -> None:
    for name in ("history.jsonl", "sessions.json", "notes.md", "a.jsonl", "b.jsonl.reset.1", "c.jsonl.bak"):
        (tmp_path / name).write_text("")
    assert [p.name for p in discover([tmp_path])] == ["a.jsonl", "b.jsonl.reset.1"]


def test_discover_keeps_a_named_file_whatever_its_name(tmp_path: Path) -> None:
    (tmp_path / "history.jsonl").write_text("")
    assert discover([tmp_path / "history.jsonl"]) == [tmp_path / "history.jsonl"]


def test_discover_does_not_follow_symlinked_folders(tmp_path: Path) -> None:
    outside = tmp_path / "outside"
    outside.mkdir()
    (outside / "x.jsonl").write_text("")
    walked = tmp_path / "walked"
    walked.mkdir()
    (walked / "y.jsonl").write_text("")
    try:
        (walked / "link").symlink_to(outside, target_is_directory=True)
    except OSError:
        pytest.skip("symlinks are not available here")
    assert [p.name for p in discover([walked])] == ["y.jsonl"]


def test_discover_of_nothing_is_empty_and_a_missing_path_is_an_error(tmp_path: Path) -> None:
    assert discover([]) == [] and discover([tmp_path]) == []
    with pytest.raises(UsageError, match="no such transcript file or folder") as info:
        discover([tmp_path / "missing"])
    assert "Claude Code projects folder" in (info.value.hint or "")


def test_discover_lists_a_file_once_however_it_is_named(tmp_path: Path) -> None:
    (tmp_path / "d").mkdir()
    f = tmp_path / "d" / "s.jsonl"
    f.write_text("")
    assert discover([f, tmp_path / "d", tmp_path, f]) == [f]


# --------------------------------------------------------------------------- values and properties

def test_events_and_transcripts_are_frozen_values() -> None:
    e = Event(1, "user", "hi", None)
    with pytest.raises(AttributeError):
        e.text = "changed"  # type: ignore[misc]  # the point of the test: frozen
    assert e == Event(1, "user", "hi", None) and hash(e) == hash(Event(1, "user", "hi", None))


@pytest.mark.parametrize("cut", [0, 1, 5, 9, 10, 17, 30, 31])
def test_split_records_resumed_at_a_line_end_gives_the_same_records(cut: int) -> None:
    data = b'{"a": 1}\n{"bb": 22}\n\nbad\n{"c": [3]}\n'
    whole, end, last, bad = split_records(data, 0, 0)
    assert (end, last, bad) == (len(data), 5, 1)
    start = data.rfind(b"\n", 0, cut) + 1 if cut else 0
    head, pos, line, _ = split_records(data[:start], 0, 0)
    tail, tail_end, tail_last, _ = split_records(data, pos, line)
    assert head + tail == whole and (tail_end, tail_last) == (end, last)


def test_bench_files_are_detected_as_the_folder_they_sit_in() -> None:
    files = bench_files()
    assert files
    for path in files:
        assert detect_format(path) == corpus_format(path), path.name


def test_discover_sorts_by_path_text_across_folders(tmp_path: Path) -> None:
    for name in ("b/z.jsonl", "a-b/y.jsonl", "a/x.jsonl", "A/w.jsonl"):
        (tmp_path / name).parent.mkdir(exist_ok=True)
        (tmp_path / name).write_text("")
    found = [str(p.relative_to(tmp_path)).replace(os.sep, "/") for p in discover([tmp_path])]
    assert found == sorted(found) and len(found) == 4


def test_discover_takes_path_strings(tmp_path: Path) -> None:
    (tmp_path / "s.jsonl").write_text("")
    assert discover([str(tmp_path)]) == [tmp_path / "s.jsonl"]  # type: ignore[list-item]  # callers pass CLI strings


def test_a_fresh_reading_holds_nothing() -> None:
    st = Reading("openclaw")
    assert (st.events, st.tools, st.uuids, st.summary_leaves) == ([], {}, set(), {})
    assert (st.session_id, st.agent_id, st.cwd, st.version, st.started, st.ended) == (None,) * 6


def test_the_format_of_bytes_already_read_is_the_format_detected_from_the_file(tmp_path: Path) -> None:
    from gitmem.base.errors import UsageError
    from gitmem.engines.harvest.sources import detect_format, format_of

    contents = [b"", b"\n\n", b'{"type":"session","version":3}\n', b'{"sessionId":"s","type":"user"}',
                b'{"role":"user","content":"hi"}\n', b"not json\n", b"not json\n{\"sessionId\"", b'{"x":1}\n' * 50,
                b'{"x":1}\n' * 39 + b'{"parentUuid":null}\n', b'{"x":1}\n' * 40 + b'{"parentUuid":null}\n',
                b'\n{"type":"message","parentId":"p"}\n', b"[1,2]\n" + b'{"role":"user"}\n']
    for n, data in enumerate(contents):
        path = tmp_path / f"{n}.jsonl"
        path.write_bytes(data)
        try:
            want: object = detect_format(path)
        except UsageError as exc:
            want = exc.message
        try:
            got: object = format_of(path, data)
        except UsageError as exc:
            got = exc.message
        assert got == want, data
