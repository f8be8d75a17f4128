"""Tests for gitmem.engines.harvest.screen: a secret anywhere in a transcript is found, with its line."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from gitmem.base.errors import UsageError
from gitmem.engines.harvest.reader import read
from gitmem.engines.harvest.screen import check_transcript, find_secrets, has_conversation, scanned_strings
from gitmem.guards.pii import Allowlist

FIXTURES = Path(__file__).parent / "fixtures" / "sessions"
# Fabricated credentials in real vendor formats (random characters, not live keys).
AWS_KEY = "AKIA" + "Q7XZ4RT2LMWP9KVB"
GH_TOKEN = "ghp_" + "x7Tq2LmZ9vR4kW8nB3cY6fH1jD5sA0eGuPqN"


def write_lines(path: Path, records: list[Any]) -> Path:
    path.write_text("".join((r if isinstance(r, str) else json.dumps(r)) + "\n" for r in records))
    return path


def test_scanned_strings_skip_signatures_media_data_and_short_strings() -> None:
    record = {"type": "assistant", "message": {"content": [
        {"type": "thinking", "thinking": "long enough thought", "signature": "EqoBCkgIBxABGAIiQL"},
        {"type": "image", "source": {"type": "base64", "media_type": "image/png", "data": "iVBORw0KGgoAAAANSUhEUg"}},
        {"type": "json", "data": {"env": "GITHUB_TOKEN=abc"}},
        {"type": "text", "text": "short"},
    ]}}
    assert scanned_strings(record) == ["assistant", "thinking", "long enough thought", "image/png", "GITHUB_TOKEN=abc"]


def test_scanned_strings_keep_data_of_a_block_that_is_not_media() -> None:
    assert scanned_strings({"type": "json", "data": "plain data string"}) == ["plain data string"]
    assert scanned_strings({"mimeType": "image/png", "data": "base64 payload here"}) == ["image/png"]


def test_scanned_strings_reach_any_depth() -> None:
    value: Any = "buried secret text"
    for _ in range(5000):
        value = {"wrap": [value]}
    assert scanned_strings(value) == ["buried secret text"]


def test_find_secrets_names_kind_and_line(tmp_path: Path) -> None:
    path = write_lines(tmp_path / "s.jsonl", [
        {"role": "user", "content": "hello there, nothing here"},
        {"role": "user", "content": f"creds: aws_access_key_id={AWS_KEY}"},
        {"role": "tool", "content": [{"type": "json", "data": {"out": f"GITHUB_TOKEN={GH_TOKEN}"}}]},
    ])
    found = find_secrets(path)
    assert any(f.endswith(" at line 2") and f.startswith("aws_access_key") for f in found), found
    assert any(f.endswith(" at line 3") for f in found), found
    assert not any(f.endswith(" at line 1") for f in found)
    assert all(AWS_KEY not in f and GH_TOKEN not in f for f in found)


def test_find_secrets_one_entry_per_kind_and_line(tmp_path: Path) -> None:
    path = write_lines(tmp_path / "s.jsonl", [{"a": f"key {AWS_KEY}", "b": f"again {AWS_KEY}"}])
    found = find_secrets(path)
    assert len(found) == len(set(found)) and found


def test_find_secrets_in_a_deeply_nested_field(tmp_path: Path) -> None:
    value: Any = f"token {GH_TOKEN}"
    for _ in range(60):
        value = {"x": value}
    assert find_secrets(write_lines(tmp_path / "deep.jsonl", [value]))


def test_find_secrets_skips_lines_that_are_not_json_or_nest_too_deep(tmp_path: Path) -> None:
    path = write_lines(tmp_path / "s.jsonl", [f"not json {GH_TOKEN}", "[" * 100_000, {"role": "user", "content": "fine"}])
    assert find_secrets(path) == []   # the reader skips those lines too: nothing of them reaches memory


def test_find_secrets_respects_the_allowlist(tmp_path: Path) -> None:
    path = write_lines(tmp_path / "s.jsonl", [{"role": "user", "content": f"aws_access_key_id={AWS_KEY}"}])
    assert find_secrets(path)
    assert find_secrets(path, Allowlist(values=frozenset({AWS_KEY}))) == []


def test_find_secrets_in_every_planted_fixture() -> None:
    files = sorted(FIXTURES.glob("*/secrets.jsonl"))
    assert files
    for path in files:
        assert find_secrets(path), path


def test_clean_fixtures_have_no_secrets() -> None:
    files = [p for p in sorted(FIXTURES.rglob("*.jsonl")) if p.name != "secrets.jsonl"]
    assert files
    for path in files:
        assert find_secrets(path) == [], path


CLAUDE = FIXTURES / "claude-code" / "v2_session.jsonl"
OPENCLAW = FIXTURES / "openclaw" / "sessions" / "22222222-3333-4444-8555-666677778888.jsonl"
GENERIC = FIXTURES / "jsonl" / "generic.jsonl"


@pytest.mark.parametrize(("path", "fmt", "reads_as"), [
    (CLAUDE, "openclaw", "claude-code"), (CLAUDE, "jsonl", "claude-code"),
    (OPENCLAW, "claude-code", "openclaw"), (OPENCLAW, "jsonl", "openclaw"),
    (GENERIC, "claude-code", "jsonl"), (GENERIC, "openclaw", "jsonl"),
])
def test_a_wrong_format_is_refused_naming_the_right_one(path: Path, fmt: str, reads_as: str) -> None:
    with pytest.raises(UsageError) as caught:
        check_transcript(path, fmt, read(path, fmt))
    assert f"format {fmt}" in caught.value.message and f"reads as {reads_as}" in caught.value.message
    assert "nothing written" in caught.value.message


@pytest.mark.parametrize("path", [CLAUDE, OPENCLAW, GENERIC])
def test_the_right_format_or_auto_passes(path: Path) -> None:
    check_transcript(path, "auto", read(path))
    fmt = read(path).format
    check_transcript(path, fmt, read(path, fmt))


@pytest.mark.parametrize("records", [
    [{"foo": 1}, {"bar": [1, 2]}],
    [{"name": "widget", "price": 3}, {"name": "gadget", "price": 4}],
    [{"event": "click", "ts": 1700000000}],
    [{"type": "metric", "value": 0.5, "labels": {"role": 1}}],
])
def test_jsonl_that_is_no_transcript_is_refused(tmp_path: Path, records: list[Any]) -> None:
    path = write_lines(tmp_path / "data.jsonl", records)
    for fmt in ("auto", "jsonl"):
        with pytest.raises(UsageError, match="not a transcript"):
            check_transcript(path, fmt, read(path, fmt))


def test_conversation_is_what_was_said_or_done(tmp_path: Path) -> None:
    assert has_conversation(read(CLAUDE)) and has_conversation(read(OPENCLAW)) and has_conversation(read(GENERIC))
    snapshots = write_lines(tmp_path / "s.jsonl", [
        {"type": "file-history-snapshot", "messageId": "m1", "snapshot": {"trackedFileBackups": {}}}] * 3)
    summaries = write_lines(tmp_path / "t.jsonl", [{"type": "summary", "summary": "Old work", "leafUuid": "gone"}])
    empty = write_lines(tmp_path / "e.jsonl", [])
    for path in (snapshots, summaries, empty):
        t = read(path)
        check_transcript(path, "auto", t)   # a transcript, only one with nothing said
        assert not has_conversation(t)


# --------------------------------------------------------------------------- one read for screen, events and redaction

def test_the_screen_reads_the_records_the_reader_read_and_finds_the_same(tmp_path: Path) -> None:
    from gitmem.engines.harvest.reader import load
    from gitmem.engines.harvest.screen import screen_session, secrets_in

    path = write_lines(tmp_path / "s.jsonl", [
        {"type": "user", "sessionId": "s", "message": {"role": "user", "content": "hello there, friend"}},
        {"type": "user", "sessionId": "s", "message": {"role": "user", "content": f"the key is {AWS_KEY}"}},
    ])
    loaded = load(path)
    assert [(f.line, f.kind) for f in screen_session(path, (), None, loaded={path: loaded.records}).found] == \
        [(f.line, f.kind) for f in secrets_in(path)] and secrets_in(path)
    path.unlink()   # screened from the records already read: the file is not opened again
    assert screen_session(path, (), None, loaded={path: loaded.records}).found


def test_a_secret_on_a_line_with_a_broken_byte_refuses_the_session(tmp_path: Path) -> None:
    from gitmem.engines.harvest.planning import read_session

    path = tmp_path / "s.jsonl"
    line = json.dumps({"type": "user", "sessionId": "s", "message": {"role": "user", "content": f"key {AWS_KEY} café"}})
    path.write_bytes(line.encode().replace(b"caf\\u00e9", b"caf\xe9") + b"\n")
    session = read_session(path, "auto", None)
    assert any(AWS_KEY in e.text for e in session.transcript.events)   # the reader reads the line
    assert session.secrets   # so the screen scans it too


def test_the_redaction_gets_the_screens_scan_of_each_text_it_scanned(tmp_path: Path) -> None:
    from collections.abc import Sequence

    from gitmem.engines.harvest.planning import read_session
    from gitmem.guards import pii

    path = write_lines(tmp_path / "s.jsonl", [
        {"type": "user", "sessionId": "s", "cwd": "/srv/app",
         "message": {"role": "user", "content": "mail priya.natarajan@corp-mail.net about the rollout"}},
        {"type": "user", "sessionId": "s", "cwd": "/srv/app",
         "message": {"role": "user", "content": "mail priya.natarajan@corp-mail.net about the rollout"}},
    ])
    given: list[tuple[str, Sequence[pii.Finding] | None]] = []

    def redactor(text: str, names: Sequence[str], found: Sequence[pii.Finding] | None) -> str:
        given.append((text, found))
        return text

    read_session(path, "auto", None, redactor)
    reused = [(text, found) for text, found in given if found is not None]
    assert reused and all(list(found) == pii.scan(text) for text, found in reused)
    assert any(f.kind == "email" for _, found in reused for f in found)


def test_each_distinct_string_of_a_session_is_scanned_once(tmp_path: Path) -> None:
    from gitmem.engines.harvest.reader import load
    from gitmem.engines.harvest.screen import Scans, screen_session

    record = {"type": "user", "sessionId": "s-123456789", "message": {"role": "user", "content": "hello there, friend"}}
    path = write_lines(tmp_path / "s.jsonl", [record, record, record])
    scans: Scans = {}
    screen_session(path, (), None, loaded={path: load(path).records}, scans=scans)
    assert sorted(scans) == sorted(set(scanned_strings(record)))
