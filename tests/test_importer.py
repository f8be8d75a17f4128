"""Import sources: JSONL rows (bad lines reported with their numbers), MEMORY.md and .learnings/."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from gitmem.api import MemoryRepo
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


# --- one bad row never costs the others (issue 9 items 5 and 7) --------------------------

BIG = "1" + "0" * 5000
HOSTILE_LINES: dict[str, tuple[str, str]] = {   # line text, words of the reason
    "Infinity": ('{"content": "x", "importance": Infinity}', "not a finite number"),
    "-Infinity": ('{"content": "x", "importance": -Infinity}', "not a finite number"),
    "NaN": ('{"content": "x", "importance": NaN}', "not a finite number"),
    "1e400": ('{"content": "x", "importance": 1e400}', "not a finite number"),
    "thousands of digits": ('{"content": "x", "importance": %s}' % BIG, "too large"),
    "digits in an unused key": ('{"content": "x", "extra": %s}' % BIG, "too large"),
    "id of 5000 digits": ('{"content": "x", "id": %s}' % BIG, "too large"),
    "year 1": ('{"content": "x", "created": "0001-01-01T00:00:00Z"}', "out of range"),
    "year 9999": ('{"content": "x", "created": "9999-12-31T23:59:59Z"}', "out of range"),
    "offset off the range": ('{"content": "x", "created": "0001-01-01T00:00:00+05:00"}', "created"),
    "created as a number": ('{"content": "x", "created": 1700000000}', "not an ISO 8601 time"),
    "deep content": ('{"content": ' + "[" * 50_000 + "]" * 50_000 + "}", "nested too deep"),
    "deep unused key": ('{"content": "x", "meta": ' + '{"a": ' * 3000 + "1" + "}" * 3000 + "}", "nested too deep"),
    "nested tags": ('{"content": "x", "tags": [["a", ["b"]]]}', "'tags' holds"),
    "tag object": ('{"content": "x", "tags": [{"a": 1}]}', "'tags' holds"),
    "source object": ('{"content": "x", "source": {"a": 1}}', "'source' is not a string"),
    "id true": ('{"content": "x", "id": true}', "'id' is not a string"),
    "lone surrogate": ('{"content": "a \\ud800 b"}', "lone surrogate"),
    "only invisible": ('{"content": "\\u200b\\u2060\\u3164\\ufeff"}', "is empty"),
}


def _bad_then_good(tmp_path: Path, line: str) -> Path:
    path = tmp_path / "in.jsonl"
    path.write_text('{"content": "first good row"}\n' + line + '\n{"content": "last good row"}\n', encoding="utf-8")
    return path


@pytest.mark.parametrize("name", sorted(HOSTILE_LINES))
def test_a_hostile_row_is_skipped_with_its_line_and_the_rest_kept(tmp_path: Path, name: str) -> None:
    from gitmem.base.config import Config

    line, reason = HOSTILE_LINES[name]
    rows, skipped = importer.read_jsonl(_bad_then_good(tmp_path, line))
    good, refused = importer.to_memories(rows, "in.jsonl", clock_now(), Config())
    every = [*skipped, *refused]
    assert [s.line for s in every] == [2], every
    assert reason in every[0].reason
    assert [m.content for m in good] == ["first good row", "last good row"]


def clock_now() -> Any:
    from gitmem.base.clock import parse_time

    return parse_time("2026-11-29T12:00:00Z")


def test_control_and_bidi_characters_never_reach_tags_or_sources(tmp_path: Path) -> None:
    path = _jsonl(tmp_path, {"content": "x", "tags": ["ab\u202ecd", "e\x07f", "\u200b"], "source": "s\u2066rc\nx"})
    rows, _ = importer.read_jsonl(path)
    assert rows[0].tags == ("abcd", "e f") and rows[0].source == "src x"


def test_a_row_at_the_content_cap_is_imported_one_over_is_skipped(tmp_path: Path) -> None:
    import dataclasses

    from gitmem.base.config import Config

    cfg = Config()
    cfg = dataclasses.replace(cfg, sediment=dataclasses.replace(cfg.sediment, max_content_bytes=1000))
    words = ("word " * 400)[:999] + "."
    path = _jsonl(tmp_path, {"content": "é" + words[2:]}, {"content": words + "x"}, {"content": words[:-1]})
    rows, skipped = importer.read_jsonl(path, 1000)
    good, refused = importer.to_memories(rows, "in.jsonl", clock_now(), cfg)
    assert [len(m.content.encode()) for m in good] == [1000, 999]   # the given text is measured, not its file
    assert refused == [Skipped(2, "line 2 content is 1001 bytes, over the limit of 1000 bytes")]


def test_a_line_over_the_line_cap_names_the_cap(tmp_path: Path) -> None:
    from gitmem.base.errors import ValidationError

    path = tmp_path / "in.jsonl"
    path.write_bytes(b'{"content": "ok"}\n{"content": "' + b"a" * (importer.line_cap(10) + 1) + b'"}\n')
    with pytest.raises(ValidationError, match=f"line 2 is over the line cap of {importer.line_cap(10)} bytes"):
        importer.read_jsonl(path, 10)


def test_an_endless_line_through_a_pipe_ends_with_the_line_cap(tmp_path: Path) -> None:
    """An endless generator piped into `gitmem import /dev/stdin` in a real subprocess."""
    import subprocess
    import sys

    from gitmem.api import MemoryRepo

    MemoryRepo.init(tmp_path / "mem", clock_now(), install_hooks=False)
    (tmp_path / "mem" / "gitmem.yaml").write_text(
        (tmp_path / "mem" / "gitmem.yaml").read_text().replace("max_content_bytes: 1048576", "max_content_bytes: 1000"))
    subprocess.run(["git", "commit", "-qam", "small cap"], cwd=tmp_path / "mem", check=True)
    endless = "import sys\nsys.stdout.write('{\"content\": \"')\nwhile True:\n    sys.stdout.write('a' * 65536)\n"
    feeder = subprocess.Popen([sys.executable, "-c", endless], stdout=subprocess.PIPE)
    done = subprocess.run([sys.executable, "-m", "gitmem", "--repo", str(tmp_path / "mem"), "import", "/dev/stdin"],
                          stdin=feeder.stdout, capture_output=True, text=True, timeout=120)
    feeder.kill()
    feeder.wait()
    assert done.returncode == 1, done.stderr
    assert f"line 1 is over the line cap of {importer.line_cap(1000)} bytes" in done.stderr


def test_hostile_rows_are_skipped_and_the_rest_imported_in_one_commit(repo: MemoryRepo, repo_dir: Path,
                                                                      tmp_path: Path,
                                                                      capsys: pytest.CaptureFixture[str]) -> None:
    from tests.conftest import run_cli

    lines = ['{"content": "row %d is fine"}' % i for i in range(3)]
    for name in sorted(HOSTILE_LINES):
        lines.append(HOSTILE_LINES[name][0])
    lines.append('{"content": "' + "wide " * 209_715 + '"}')   # 1,048,575 bytes: at the cap once stripped
    src = tmp_path / "rows.jsonl"
    src.write_text("\n".join(lines) + "\n", encoding="utf-8")
    before = _commits(repo_dir)
    code, out, err = run_cli(["--repo", str(repo_dir), "--now", "2026-11-29T12:00:00Z", "import", str(src)], capsys)
    assert code == 0, err
    assert "4 created" in out and f"{len(HOSTILE_LINES)} skipped" in out
    for n in range(4, 4 + len(HOSTILE_LINES)):
        assert f"{src}:{n}: skipped: " in err
    assert _commits(repo_dir) == before + 1
    code, out, err = run_cli(["--repo", str(repo_dir), "list"], capsys)
    assert code == 0 and "warning" not in err   # what an import writes, every reader reads


def _commits(repo_dir: Path) -> int:
    import subprocess

    return int(subprocess.run(["git", "rev-list", "--count", "HEAD"], cwd=repo_dir, capture_output=True,
                              text=True, check=True).stdout)


def test_import_without_dedupe_reinforces_an_exact_duplicate(repo: MemoryRepo, tmp_path: Path) -> None:
    kept = repo.remember("Deploys happen on Tuesdays", now=clock_now()).id
    src = _jsonl(tmp_path, {"content": "deploys  happen on tuesdays"}, {"content": "Deploys happen on Tuesdays"},
                 {"content": "Deploys happen on Thursdays"}, {"content": "a new fact"}, {"content": "A NEW fact"})
    r = repo.import_file(src, now=clock_now())
    assert (r.created, r.reinforced) == (2, 3)
    assert repo.show(kept).reinforced == 2
    assert sorted(m.content for m in repo.list().memories) == ["Deploys happen on Thursdays", "Deploys happen on Tuesdays",
                                                               "a new fact"]


def test_an_import_refused_for_a_secret_names_the_input_file_and_line(repo: MemoryRepo, repo_dir: Path,
                                                                    tmp_path: Path) -> None:
    from gitmem.base.errors import SecretError

    key = "AKIA" + "Q3EGRMX7T2LBN5VW"
    src = _jsonl(tmp_path, {"content": "fine"}, {"content": "fine too"}, {"content": f"aws_access_key_id = {key}"},
                 name="notes.jsonl")
    before = _commits(repo_dir)
    with pytest.raises(SecretError) as caught:
        repo.import_file(src, now=clock_now())
    assert "notes.jsonl:3" in caught.value.message and "memory/" not in caught.value.message
    assert key not in caught.value.message
    assert _commits(repo_dir) == before


@pytest.mark.parametrize("files", [{}, {"README.txt": "hello"}, {"errors.md": "\n\n"}])
def test_importing_a_folder_with_nothing_to_import_says_so(repo: MemoryRepo, repo_dir: Path, tmp_path: Path,
                                                          files: dict[str, str],
                                                          capsys: pytest.CaptureFixture[str]) -> None:
    from tests.conftest import run_cli

    folder = tmp_path / ".learnings"
    folder.mkdir()
    for name, text in files.items():
        (folder / name).write_text(text)
    code, out, err = run_cli(["--repo", str(repo_dir), "import", str(folder)], capsys)
    assert code == 1
    assert f"gitmem: error: nothing to import in {folder}" in err


@pytest.mark.parametrize("rid", ["a\ud83db", "\u202eid", "x\ny", "tab\tid"])
def test_an_id_with_invisible_or_broken_characters_skips_its_row(tmp_path: Path, rid: str) -> None:
    path = tmp_path / "in.jsonl"
    path.write_text('{"content": "ok"}\n' + json.dumps({"content": "x", "id": rid}) + "\n", encoding="utf-8")
    rows, skipped = importer.read_jsonl(path)
    assert [r.content for r in rows] == ["ok"] and [s.line for s in skipped] == [2]
