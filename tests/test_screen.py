"""Tests for gitmem.engines.harvest.screen: a secret anywhere in a transcript is found, with its line."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from gitmem.engines.harvest.screen import find_secrets, scanned_strings
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
