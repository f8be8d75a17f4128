"""Tests for gitmem.engines.harvest.content: the one JSON string walker, blocks, tool calls, timestamps."""

from __future__ import annotations

import json
from typing import Any, Mapping

import pytest

from gitmem.engines.harvest.content import (SHELL_TOOLS, UNBOUNDED, attachment_text, block_text, compact_json, content_text,
                                            document_text, iso_time, render_call, strings)


def nested(depth: int, leaf: Any) -> Any:
    value = leaf
    for n in range(depth):
        value = {"k": value} if n % 2 else [value]
    return value


# --------------------------------------------------------------------------- strings: the walker

def test_strings_in_document_order_values_only() -> None:
    value = {"a": "one", "b": ["two", {"c": "three", "d": ["four"]}], "e": "five", "f": 6, "g": None, "h": True}
    assert strings(value) == ["one", "two", "three", "four", "five"]


def test_strings_skip_empty_strings_and_keep_duplicates() -> None:
    assert strings(["", "x", "", "x"]) == ["x", "x"]


def test_strings_of_a_bare_string_and_of_scalars() -> None:
    assert strings("alone") == ["alone"]
    assert strings(3) == [] and strings(None) == [] and strings(2.5) == []


def test_strings_depth_bound_counts_levels_below_the_value() -> None:
    value = nested(12, "deep")
    assert strings(value, max_depth=12) == ["deep"]
    assert strings(value, max_depth=11) == []
    assert strings(nested(13, "deeper")) == []  # the default bound is the event bound, 12


def test_strings_never_raise_recursion_error_at_any_depth() -> None:
    value = nested(200_000, "bottom")
    assert strings(value, max_depth=UNBOUNDED) == ["bottom"]
    assert strings(value) == []


def test_strings_leave_out_applies_to_direct_values_of_a_mapping() -> None:
    def no_secret_key(owner: Mapping[str, Any], key: str) -> bool:
        return key == "secret"

    value = {"secret": "dropped", "other": "kept", "inner": {"secret": "dropped too"},
             "list": {"secret": ["in a list: kept"]}, "deeper": {"secret": {"x": "under a mapping: kept"}}}
    assert strings(value, no_secret_key) == ["kept", "in a list: kept", "under a mapping: kept"]


def test_strings_leave_out_sees_the_owner_mapping() -> None:
    def media_data(owner: Mapping[str, Any], key: str) -> bool:
        return key == "data" and owner.get("type") == "image"

    value = [{"type": "image", "data": "AAAA"}, {"type": "json", "data": "visible"}]
    assert strings(value, media_data) == ["image", "json", "visible"]


def test_strings_do_not_collect_keys() -> None:
    assert strings({"a key": {"another key": 1}}) == []


# --------------------------------------------------------------------------- timestamps and JSON

@pytest.mark.parametrize(("value", "expected"), [
    ("2026-03-02T03:31:40Z", "2026-03-02T03:31:40Z"),
    ("", None),
    (1772422300, "2026-03-02T03:31:40.000Z"),          # epoch seconds
    (1772422300123, "2026-03-02T03:31:40.123Z"),       # epoch milliseconds
    (1772422300.5, "2026-03-02T03:31:40.500Z"),
    (0, None), (-5, None), (True, None), (None, None), ([1], None),
    (10 ** 30, None),                                   # out of any calendar
])
def test_iso_time(value: Any, expected: str | None) -> None:
    assert iso_time(value) == expected


def test_compact_json_is_one_line_keeps_unicode_and_never_raises() -> None:
    assert compact_json({"a": [1, "é"]}) == '{"a":[1,"é"]}'
    assert compact_json({"when": object}) .startswith('{"when":"<class')  # default=str
    loop: list[Any] = []
    loop.append(loop)
    assert compact_json(loop) == "[[...]]"  # a cycle falls back to str()


# --------------------------------------------------------------------------- blocks

def test_block_text_by_kind() -> None:
    assert block_text("plain") == "plain"
    assert block_text(5) == ""
    assert block_text({"type": "text", "text": "hi"}) == "hi"
    assert block_text({"type": "text"}) == ""
    assert block_text({"type": "image", "source": {"data": "AAAA"}}) == "[image]"
    assert block_text({"type": "tool_reference", "tool_name": "Grep"}) == "[tool: Grep]"


def test_block_text_of_an_unknown_block_keeps_its_strings_but_not_data_signature_or_type() -> None:
    block = {"type": "json", "data": "base64stuff", "signature": "sig", "value": {"env": "X=1", "type": "inner"}}
    assert block_text(block) == "X=1"


def test_content_text_of_strings_lists_and_mappings() -> None:
    assert content_text("s") == "s"
    assert content_text([{"type": "text", "text": "a"}, {"type": "image"}, "", "b"]) == "a\n[image]\nb"
    assert content_text({"type": "text", "text": "one"}) == "one"
    assert content_text(None) == "" and content_text(3) == ""


def test_document_text_with_and_without_a_body() -> None:
    assert document_text({"type": "document", "title": "notes", "source": {"type": "text", "data": "body"}}) == \
        "[document: notes]\nbody"
    content = {"type": "content", "content": [{"type": "text", "text": "para"}]}
    assert document_text({"type": "document", "source": content}) == "[document]\npara"
    assert document_text({"type": "document", "source": {"type": "base64", "data": "JVBER"}}) == "[document]"


def test_attachment_text_one_string_a_line() -> None:
    assert attachment_text({"type": "file", "filename": "a.py", "content": {"lines": ["x = 1", "y = 2"]}}) == \
        "a.py\nx = 1\ny = 2"


# --------------------------------------------------------------------------- tool calls

def test_render_call_shell_command_alone_or_with_the_rest() -> None:
    assert render_call("Bash", {"command": "ls -la", "description": "list", "timeout": 5}) == "ls -la"
    assert render_call("exec", {"cmd": ["git", "status"]}) == "git status"
    rendered = render_call("bash", {"command": "deploy", "env": {"TOKEN": "t"}})
    assert rendered.splitlines() == ["deploy", '{"env":{"TOKEN":"t"}}']


def test_render_call_shell_without_a_command_is_json() -> None:
    assert render_call("Bash", {"description": "nothing"}) == '{"description":"nothing"}'


def test_render_call_file_tools_put_the_path_first() -> None:
    assert render_call("Write", {"file_path": "a.md", "content": "# A"}) == "a.md\n# A"
    assert render_call("str_replace_based_edit_tool", {"path": "b.py", "old_str": "x", "new_str": "y",
                                                       "command": "str_replace"}) == "b.py\ny\nx\nstr_replace"
    assert render_call("Read", {"limit": 10}) == '{"limit":10}'  # no path: JSON


def test_render_call_json_string_arguments_and_odd_inputs() -> None:
    assert render_call("write_file", json.dumps({"path": "m.go", "content": "package main"})) == "m.go\npackage main"
    assert render_call("tool", "not json at all") == "not json at all"
    assert render_call("tool", "[" * 100_000) == "[" * 100_000  # too deep to parse: kept as given
    assert render_call("tool", None) == ""
    assert render_call("tool", [1, "two"]) == '[1,"two"]'
    assert render_call("Search", {"query": "q", "limit": 3}) == '{"query":"q","limit":3}'


@pytest.mark.parametrize("tool", sorted(SHELL_TOOLS))
def test_every_shell_tool_name_renders_its_command_case_blind(tool: str) -> None:
    assert render_call(tool.upper(), {"command": "whoami", "timeout": 3}) == "whoami"


@pytest.mark.parametrize("key", ["file_path", "path", "file", "notebook_path", "filePath", "filename"])
def test_every_path_key_of_a_file_tool_leads(key: str) -> None:
    assert render_call("write_file", {key: "notes.md", "content": "body"}) == "notes.md\nbody"


def test_file_tool_bodies_come_in_a_fixed_order_then_the_other_strings() -> None:
    args = {"text": "t", "insert_text": "i", "content": "c", "file_path": "p", "mode": "append", "n": 2}
    assert render_call("Edit", args).splitlines() == ["p", "c", "i", "t", "append"]
    assert render_call("Edit", {"file_path": "", "path": "q.txt"}) == "q.txt"   # an empty path is no path


def test_iso_time_passes_any_string_through_untouched() -> None:
    assert iso_time("yesterday") == "yesterday"   # a tool's own clock format is kept, not guessed
    assert iso_time(" ") == " "


def test_strings_of_an_attachment_list_keep_order_across_levels() -> None:
    assert attachment_text([{"a": "1"}, "2", [{"b": ["3", {"c": "4"}]}], "5"]) == "1\n2\n3\n4\n5"
