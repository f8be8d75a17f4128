"""Import sources: JSONL rows (bad lines reported with their numbers), MEMORY.md and .learnings/."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from gitmem.base.errors import UsageError
from gitmem.base.model import DOMAINS, TYPES, name_key
from gitmem.engines import importer
from gitmem.engines.importer import Row, Skipped


def _jsonl(tmp_path: Path, *lines: Any, name: str = "in.jsonl") -> Path:
    path = tmp_path / name
    path.write_bytes(b"\n".join(x if isinstance(x, bytes) else json.dumps(x).encode() for x in lines) + b"\n")
    return path


def test_a_full_row_keeps_every_field(tmp_path: Path) -> None:
    path = _jsonl(tmp_path, {"content": "Use tabs", "id": "m-1", "created": "2026-01-02T03:04:05+01:00",
                             "tags": ["style", None, 3], "type": "preference", "domain": "user",
                             "importance": 0.8, "source": "old-tool"})
    rows, skipped = importer.read_jsonl(path)
    assert skipped == []
    assert rows == [Row(1, "Use tabs", "m-1", "2026-01-02T02:04:05Z", ("style", "3"), "preference", "user",
                        0.8, "old-tool")]


def test_a_minimal_row_leaves_the_rest_to_the_encoder(tmp_path: Path) -> None:
    rows, _ = importer.read_jsonl(_jsonl(tmp_path, {"content": "x"}))
    assert rows == [Row(1, "x")]


def test_numeric_ids_and_single_tags_are_accepted(tmp_path: Path) -> None:
    rows, _ = importer.read_jsonl(_jsonl(tmp_path, {"content": "x", "id": 42, "tags": "one", "importance": 1}))
    assert rows[0].id == "42" and rows[0].tags == ("one",) and rows[0].importance == 1.0


BAD_ROWS: list[tuple[Any, str]] = [
    ([1, 2], "not a JSON object"),
    ("text", "not a JSON object"),
    ({"text": "x"}, "no 'content' text"),
    ({"content": "   "}, "no 'content' text"),
    ({"content": 5}, "no 'content' text"),
    ({"content": "a\u0000b"}, "content holds a NUL character"),
    ({"content": "x", "id": [1]}, "'id' is not a string"),
    ({"content": "x", "type": "rumour"}, "type 'rumour' is not one of " + ", ".join(TYPES)),
    ({"content": "x", "domain": "mars"}, "domain 'mars' is not one of " + ", ".join(DOMAINS)),
    ({"content": "x", "importance": 1.5}, "importance 1.5 is not a number in [0, 1]"),
    ({"content": "x", "importance": -0.1}, "importance -0.1 is not a number in [0, 1]"),
    ({"content": "x", "importance": True}, "importance True is not a number in [0, 1]"),
    ({"content": "x", "importance": "high"}, "importance 'high' is not a number in [0, 1]"),
    ({"content": "x", "created": "last week"}, "created 'last week' is not an ISO 8601 time"),
    ({"content": "x", "tags": {"a": 1}}, "'tags' is not a list"),
]


@pytest.mark.parametrize("obj, reason", BAD_ROWS)
def test_bad_rows_are_skipped_with_their_line_and_reason(tmp_path: Path, obj: Any, reason: str) -> None:
    rows, skipped = importer.read_jsonl(_jsonl(tmp_path, {"content": "good"}, obj, {"content": "also good"}))
    assert [r.line for r in rows] == [1, 3]
    assert skipped == [Skipped(2, reason)]


def test_bad_json_and_bad_utf8_lines_are_skipped_not_fatal(tmp_path: Path) -> None:
    path = _jsonl(tmp_path, b"{not json", {"content": "ok"}, b"\xff\xfe", b"")
    rows, skipped = importer.read_jsonl(path)
    assert [r.content for r in rows] == ["ok"]
    assert skipped[0].line == 1 and skipped[0].reason.startswith("not valid JSON (")
    assert skipped[1] == Skipped(3, "not valid UTF-8")


def test_blank_lines_are_ignored_but_still_counted(tmp_path: Path) -> None:
    path = tmp_path / "in.jsonl"
    path.write_text('\n   \n{"content": "third"}\n\n{"broken"\n')
    rows, skipped = importer.read_jsonl(path)
    assert [r.line for r in rows] == [3]
    assert [s.line for s in skipped] == [5]


def test_windows_line_endings_are_read(tmp_path: Path) -> None:
    path = tmp_path / "in.jsonl"
    path.write_bytes(b'{"content": "one"}\r\n{"content": "two"}\r\n')
    rows, skipped = importer.read_jsonl(path)
    assert [r.content for r in rows] == ["one", "two"] and skipped == []


def test_an_empty_file_has_no_rows(tmp_path: Path) -> None:
    path = tmp_path / "in.jsonl"
    path.write_bytes(b"")
    assert importer.read_jsonl(path) == ([], [])


def test_an_unreadable_file_is_a_usage_error(tmp_path: Path) -> None:
    with pytest.raises(UsageError) as info:
        importer.read_jsonl(tmp_path)   # a folder cannot be read as bytes
    assert str(tmp_path) in info.value.message and info.value.hint == "check the path"


# --- Markdown --------------------------------------------------------------

def test_markdown_list_items_become_rows_tagged_by_their_heading(tmp_path: Path) -> None:
    path = tmp_path / "MEMORY.md"
    path.write_text("# Tools & Habits\n- Use ripgrep\n- Prefer uv\n  - nested detail\n")
    rows = importer.read_markdown(path)
    assert [(r.line, r.content, r.tags) for r in rows] == [
        (2, "Use ripgrep", ("tools-habits",)), (3, "Prefer uv - nested detail", ("tools-habits",))]
    assert all(r.source == f"import:{name_key('MEMORY.md', 'f')}" for r in rows)


def test_markdown_sections_without_lists_become_one_row_with_the_heading(tmp_path: Path) -> None:
    path = tmp_path / "MEMORY.md"
    path.write_text("Intro text.\n\n## Style Guide!\n\nTabs over spaces.\nAlways.\n\n# Empty\n\n")
    rows = importer.read_markdown(path, default_type="preference", source="mine")
    assert [(r.line, r.content, r.tags) for r in rows] == [
        (1, "Intro text.", ()), (3, "Style Guide!: Tabs over spaces.\nAlways.", ("style-guide",))]
    assert all(r.type == "preference" and r.source == "mine" for r in rows)


def test_markdown_tags_are_cut_to_forty_characters(tmp_path: Path) -> None:
    path = tmp_path / "MEMORY.md"
    path.write_text("# " + "Very long heading " * 10 + "\n- item\n")
    (row,) = importer.read_markdown(path)
    assert len(row.tags[0]) <= 40 and not row.tags[0].endswith("-")


def test_an_empty_markdown_file_has_no_rows(tmp_path: Path) -> None:
    path = tmp_path / "MEMORY.md"
    path.write_text("")
    assert importer.read_markdown(path) == []


def test_markdown_item_lines_after_a_blank_line_are_the_file_lines(tmp_path: Path) -> None:
    path = tmp_path / "MEMORY.md"
    path.write_text("# Tools\n\n- Use ripgrep\n")
    assert [r.line for r in importer.read_markdown(path)] == [3]


def test_markdown_item_lines_before_any_heading_are_the_file_lines(tmp_path: Path) -> None:
    path = tmp_path / "MEMORY.md"
    path.write_text("- first\n- second\n")
    assert [r.line for r in importer.read_markdown(path)] == [1, 2]


def test_learnings_folder_types_each_file(tmp_path: Path) -> None:
    folder = tmp_path / ".learnings"
    folder.mkdir()
    (folder / "ERRORS.md").write_text("# Build\n- make fails without cmake\n")
    (folder / "LEARNINGS.md").write_text("# Git\n- rebase before push\n")
    (folder / "FEATURE_REQUESTS.md").write_text("# CLI\n- a --json flag\n")
    (folder / "notes.md").write_text("# Misc\n- free text\n")
    (folder / "ignored.txt").write_text("- not markdown\n")
    rows = importer.read_learnings(folder)
    assert rows, "the folder yields rows"
    by_content = {r.content: r for r in rows}
    assert set(by_content) == {"make fails without cmake", "rebase before push", "a --json flag", "free text"}
    assert by_content["make fails without cmake"].type == "error"
    assert by_content["rebase before push"].type == "skill"
    assert by_content["a --json flag"].type == "decision"
    assert by_content["free text"].type is None
    assert by_content["rebase before push"].source == f"import:.learnings/{name_key('LEARNINGS.md', 'f')}"


def test_an_empty_learnings_folder_has_no_rows(tmp_path: Path) -> None:
    assert importer.read_learnings(tmp_path) == []


@pytest.mark.parametrize("name, kind", [("x.jsonl", "jsonl"), ("x.json", "jsonl"), ("x.txt", "jsonl"),
                                        ("MEMORY.md", "markdown"), ("notes.MARKDOWN", "markdown"),
                                        ("x.Md", "markdown")])
def test_detect_by_suffix(tmp_path: Path, name: str, kind: str) -> None:
    assert importer.detect(tmp_path / name) == kind


def test_detect_a_folder_as_learnings(tmp_path: Path) -> None:
    assert importer.detect(tmp_path) == "learnings"


def test_iter_rows_dispatches_on_the_source(tmp_path: Path) -> None:
    jsonl = _jsonl(tmp_path, {"content": "a"}, b"oops")
    md = tmp_path / "MEMORY.md"
    md.write_text("- b\n")
    folder = tmp_path / "learn"
    folder.mkdir()
    (folder / "errors.md").write_text("# E\n- c\n")
    rows, skipped = importer.iter_rows(jsonl)
    assert [r.content for r in rows] == ["a"] and len(skipped) == 1
    assert [r.content for r in importer.iter_rows(md)[0]] == ["b"]
    assert [(r.content, r.type) for r in importer.iter_rows(folder)[0]] == [("c", "error")]


def test_iter_rows_of_a_missing_path_is_a_usage_error(tmp_path: Path) -> None:
    with pytest.raises(UsageError) as info:
        importer.iter_rows(tmp_path / "nope.jsonl")
    assert info.value.message == f"no such file or folder: {tmp_path / 'nope.jsonl'}"
    assert info.value.hint == "check the path"
