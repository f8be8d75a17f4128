"""Tests for gitmem.engines.harvest.reader: whole reads, leniency, resume points, secrets surfacing."""

from __future__ import annotations

import json
import re
import shutil
from pathlib import Path

import pytest

from gitmem.base.errors import UsageError
from gitmem.engines.harvest.reader import read
from gitmem.engines.harvest.sources import FORMATS, Event, Transcript, detect_format, discover
from tests.conftest import bench_transcripts, corpora, corpus_format

FIXTURES = Path(__file__).parent / "fixtures" / "sessions"
AWS_KEY = re.compile(r"AKIA[0-9A-Z]{16}")
GITHUB_TOKEN = re.compile(r"ghp_[0-9A-Za-z]{36}")


bench_files = bench_transcripts


def texts(t: Transcript, role: str | None = None) -> list[str]:
    return [e.text for e in t.events if role is None or e.role == role]


def _same_but_settled(first: Transcript, rest: Transcript, whole: Transcript) -> bool:
    """Equal except for summaries whose leaf lies in the other half (meta flag differs)."""
    joined = first.events + rest.events
    return len(joined) == len(whole.events) and all(
        (a.line, a.role, a.text) == (b.line, b.role, b.text) for a, b in zip(joined, whole.events))


def test_bench_every_file_reads_whole_without_bad_lines() -> None:
    for path in bench_files():
        t = read(path)
        expected = corpus_format(path)
        assert t.format == expected, path.name
        assert detect_format(path) == expected
        assert t.end_offset == path.stat().st_size, path.name
        assert t.end_line == path.read_bytes().count(b"\n"), path.name
        assert t.skipped == 0, path.name
        assert t.session_id, path.name
        assert all(1 <= e.line <= t.end_line for e in t.events)
        assert all(e.tool for e in t.events if e.role == "tool_call")
        assert all(isinstance(e, Event) and isinstance(e.text, str) for e in t.events)


def test_bench_conversation_files_have_events_and_times() -> None:
    empty_by_design = 0
    for path in bench_files():
        t = read(path)
        if not any(e.role in {"user", "assistant"} for e in t.events):
            empty_by_design += 1  # the snapshot-only and summary-only files
            continue
        assert t.started and t.ended and t.started <= t.ended, path.name
        assert t.cwd, path.name
    assert empty_by_design == sum(c.empty for c in corpora())


def test_bench_tool_calls_and_results_pair_up() -> None:
    for path in bench_files():
        t = read(path)
        calls = sum(1 for e in t.events if e.role == "tool_call")
        results = sum(1 for e in t.events if e.role == "tool_result")
        # A session can stop mid-tool, and a compaction agent sees a result without its call.
        assert abs(calls - results) <= 2, path.name


def test_bench_resume_in_the_middle_gives_the_rest(tmp_path: Path) -> None:
    for path in bench_files():
        data = path.read_bytes()
        cut = data.rfind(b"\n", 0, len(data) // 2) + 1
        part = tmp_path / path.name
        part.write_bytes(data[:cut])
        first = read(part, fmt=detect_format(path))
        part.write_bytes(data)
        rest = read(part, fmt=first.format, start_offset=first.end_offset, start_line=first.end_line)
        whole = read(path)
        assert first.events + rest.events == whole.events or _same_but_settled(first, rest, whole), path.name
        assert rest.session_id == whole.session_id, path.name
        assert rest.end_offset == len(data)


def test_explicit_format_overrides_detection() -> None:
    t = read(FIXTURES / "jsonl" / "signals_en.jsonl", fmt="jsonl")
    assert t.format == "jsonl"
    with pytest.raises(UsageError, match="unknown transcript format"):
        read(FIXTURES / "jsonl" / "signals_en.jsonl", fmt="yaml")


def test_truncated_last_line_is_left_for_the_next_read(tmp_path: Path) -> None:
    src = FIXTURES / "edge" / "truncated.jsonl"
    data = src.read_bytes()
    t = read(src)
    assert t.end_offset == data.rfind(b"\n") + 1 < len(data)
    assert t.end_line == 2 and t.skipped == 0
    assert [e.role for e in t.events] == ["user", "assistant"]
    # the writer finishes the half-written line, then appends another
    path = tmp_path / "s.jsonl"
    line3 = json.dumps({"type": "assistant", "sessionId": "44444444-5555-4666-8777-888899990000", "uuid": "u3",
                        "message": {"role": "assistant", "content": [{"type": "text", "text": "Writing health.py."}]}}).encode()
    line4 = json.dumps({"type": "user", "sessionId": "44444444-5555-4666-8777-888899990000", "uuid": "u4",
                        "message": {"role": "user", "content": "Thanks, ship it."}}).encode()
    path.write_bytes(data[: t.end_offset] + line3[:40])
    mid = read(path, start_offset=t.end_offset, start_line=t.end_line)
    assert mid.events == () and mid.end_offset == t.end_offset and mid.end_line == t.end_line
    path.write_bytes(data[: t.end_offset] + line3 + b"\n" + line4 + b"\n")
    more = read(path, start_offset=mid.end_offset, start_line=mid.end_line)
    assert [(e.line, e.text) for e in more.events] == [(3, "Writing health.py."), (4, "Thanks, ship it.")]
    assert more.end_offset == path.stat().st_size


def test_invalid_json_at_eof_without_newline_is_not_consumed(tmp_path: Path) -> None:
    path = tmp_path / "s.jsonl"
    path.write_text('{"role": "user", "content": "hello there"}\n{"role": "assistant", "cont')
    t = read(path)
    assert [e.text for e in t.events] == ["hello there"]
    assert t.end_offset == len('{"role": "user", "content": "hello there"}\n') and t.skipped == 0


def test_complete_last_line_without_newline_is_read_and_resume_skips_its_newline(tmp_path: Path) -> None:
    path = tmp_path / "s.jsonl"
    path.write_text('{"role": "user", "content": "first message"}\n{"role": "user", "content": "second message"}')
    t = read(path)
    assert [e.text for e in t.events] == ["first message", "second message"]
    assert t.end_offset == path.stat().st_size and t.end_line == 2
    with path.open("a") as fh:
        fh.write('\n{"role": "user", "content": "third message"}\n')
    more = read(path, start_offset=t.end_offset, start_line=t.end_line)
    assert [(e.line, e.text) for e in more.events] == [(3, "third message")]
    assert more.skipped == 0


def test_bad_lines_in_the_middle_are_counted_and_skipped() -> None:
    t = read(FIXTURES / "edge" / "bad_middle.jsonl")
    assert t.skipped == 2
    assert [(e.line, e.text) for e in t.events] == [(1, "First prompt here."), (4, "Still reading after the bad lines.")]


def test_unknown_record_and_block_types_are_skipped_not_counted() -> None:
    t = read(FIXTURES / "edge" / "unknown_types.jsonl")
    assert t.skipped == 0
    assert [e.text for e in t.events] == ["Keep going with the migration.", "Migration step 2 done."]


def test_not_jsonl_is_a_usage_error_naming_the_file() -> None:
    path = FIXTURES / "edge" / "not_jsonl.md"
    with pytest.raises(UsageError, match="not_jsonl.md"):
        detect_format(path)
    with pytest.raises(UsageError, match="not a JSONL transcript"):
        read(path, fmt="jsonl")


def test_binary_file_is_a_usage_error(tmp_path: Path) -> None:
    path = tmp_path / "blob.jsonl"
    path.write_bytes(bytes(range(256)) * 4 + b"\n")
    with pytest.raises(UsageError, match="blob.jsonl"):
        read(path)


def test_missing_file_is_a_usage_error(tmp_path: Path) -> None:
    with pytest.raises(UsageError, match="nope.jsonl"):
        read(tmp_path / "nope.jsonl")
    with pytest.raises(UsageError, match="no such transcript"):
        discover([tmp_path / "nope"])


def test_empty_file_reads_as_no_events() -> None:
    t = read(FIXTURES / "edge" / "empty.jsonl")
    assert t.events == () and t.end_offset == 0 and t.session_id == "empty"


def test_resume_returns_only_appended_events(tmp_path: Path) -> None:
    path = tmp_path / "0a1b2c3d-1111-4222-8333-444455556666.jsonl"
    shutil.copy(FIXTURES / "claude-code" / "v1_session.jsonl", path)
    before = read(path)
    new = [
        {"type": "user", "sessionId": "0a1b2c3d-1111-4222-8333-444455556666", "uuid": "n1", "timestamp": "2026-03-02T10:00:00.000Z",
         "message": {"role": "user", "content": "Now add a test for the empty cart."}},
        {"type": "assistant", "sessionId": "0a1b2c3d-1111-4222-8333-444455556666", "uuid": "n2", "timestamp": "2026-03-02T10:00:05.000Z",
         "message": {"role": "assistant", "content": [{"type": "text", "text": "Added test_empty_cart."}]}},
    ]
    with path.open("a", encoding="utf-8") as fh:
        fh.writelines(json.dumps(r) + "\n" for r in new)
    after = read(path, start_offset=before.end_offset, start_line=before.end_line)
    assert [(e.line, e.role, e.text) for e in after.events] == [
        (before.end_line + 1, "user", "Now add a test for the empty cart."),
        (before.end_line + 2, "assistant", "Added test_empty_cart."),
    ]
    assert after.session_id == before.session_id and after.cwd == before.cwd
    assert after.started == "2026-03-02T10:00:00.000Z"
    again = read(path, start_offset=after.end_offset, start_line=after.end_line)
    assert again.events == () and again.end_offset == after.end_offset


def test_resume_keeps_the_openclaw_header_identity(tmp_path: Path) -> None:
    path = tmp_path / "renamed.jsonl"
    shutil.copy(FIXTURES / "openclaw" / "secrets.jsonl", path)
    before = read(path)
    with path.open("a", encoding="utf-8") as fh:
        fh.write(json.dumps({"type": "message", "id": "0000000a", "parentId": None, "timestamp": "2026-03-02T04:00:00.000Z",
                             "message": {"role": "user", "content": [{"type": "text", "text": "thanks"}]}}) + "\n")
    after = read(path, start_offset=before.end_offset, start_line=before.end_line)
    assert after.session_id == "88888888-9999-4aaa-8bbb-ccccddddeeee" and after.version == "3"
    assert [e.text for e in after.events] == ["thanks"]


def test_resume_offset_past_the_end_is_a_usage_error() -> None:
    path = FIXTURES / "jsonl" / "generic.jsonl"
    with pytest.raises(UsageError, match="shorter"):
        read(path, start_offset=path.stat().st_size + 10)


@pytest.mark.parametrize("name", ["claude-code/secrets.jsonl", "openclaw/secrets.jsonl", "jsonl/secrets.jsonl"])
def test_every_planted_secret_surfaces_in_some_event(name: str) -> None:
    path = FIXTURES / name
    raw = path.read_text(encoding="utf-8")
    planted = set(AWS_KEY.findall(raw)) | set(GITHUB_TOKEN.findall(raw))
    assert planted
    surfaced = "\n".join(texts(read(path)))
    assert {s for s in planted if s not in surfaced} == set()


def test_secrets_surface_in_user_text_tool_input_and_tool_output() -> None:
    t = read(FIXTURES / "claude-code" / "secrets.jsonl")
    by_role = {role: "\n".join(texts(t, role)) for role in ("user", "tool_call", "tool_result")}
    assert "AKIAB1SKCZTKMBF4JDPY" in by_role["user"]
    assert "AKIA76F1ADP2AP5ZDB16" in by_role["tool_call"]
    assert "AKIAA59SBNCW41OCB6K1" in by_role["tool_result"]
    assert "ghp_XlmPvNRB0tR1lirRVzYkBEyhiXUTdSZZqPy7" in by_role["tool_call"]  # inside Write content
    oc = read(FIXTURES / "openclaw" / "secrets.jsonl")
    assert "AKIAVFZRRRADRVINB92U" in "\n".join(texts(oc, "user"))
    assert "AKIA5L1N3OMTH0QNALWO" in "\n".join(texts(oc, "tool_call"))
    assert "AKIAP6C3U9VLSBX57Z6U" in "\n".join(texts(oc, "tool_result"))
    generic = read(FIXTURES / "jsonl" / "secrets.jsonl")
    assert "N7RGKNLI5MP2rdfqr6R7wIH3qS3205ZxauEKa4Ca" in "\n".join(texts(generic, "user"))



@pytest.mark.parametrize("fmt", FORMATS)
def test_every_format_has_a_reader_and_forcing_one_never_crashes(fmt: str) -> None:
    files = sorted(FIXTURES.rglob("*.jsonl"))
    assert files
    for path in files:
        t = read(path, fmt=fmt)
        assert t.format == fmt and t.skipped >= 0, path.name


def test_a_line_nested_too_deep_is_a_bad_line(tmp_path: Path) -> None:
    path = tmp_path / "deep.jsonl"
    path.write_text('{"role": "user", "content": "hello"}\n' + "[" * 100_000 + "\n")
    t = read(path)
    assert [e.text for e in t.events] == ["hello"] and t.skipped == 1


# --- an episode without a date takes the file's own timestamp ---

@pytest.mark.parametrize("lines", [
    [{"type": "summary", "summary": "Navigation history", "leafUuid": "x"}],          # summaries only
    [{"role": "user", "content": "hello there, fix the build"}, {"role": "assistant", "content": "done"}],
    [{"role": "user", "content": "no time", "timestamp": None}],                   # a null stamp
])
def test_records_without_a_timestamp_take_the_files(tmp_path: Path, lines: list[dict[str, object]]) -> None:
    import os

    path = tmp_path / "undated.jsonl"
    path.write_text("\n".join(json.dumps(r) for r in lines) + "\n")
    os.utime(path, (1767225600, 1767225600))   # 2026-01-01T00:00:00Z
    t = read(path)
    assert t.started == "2026-01-01T00:00:00Z"
    assert t.ended is None   # an end is only ever a record's own


def test_a_record_stamp_wins_over_the_files(tmp_path: Path) -> None:
    import os

    path = tmp_path / "dated.jsonl"
    path.write_text(json.dumps({"role": "user", "content": "hi", "timestamp": "2025-05-05T05:05:05Z"}) + "\n")
    os.utime(path, (1767225600, 1767225600))
    assert (read(path).started or "").startswith("2025-05-05T05:05:05")
