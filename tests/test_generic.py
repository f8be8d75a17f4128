"""Tests for gitmem.engines.harvest.generic: generic JSONL messages become events."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from gitmem.engines.harvest.generic import read_record
from gitmem.engines.harvest.reader import read
from gitmem.engines.harvest.sources import Event, Reading

FIXTURES = Path(__file__).parent / "fixtures" / "sessions"


def test_generic_jsonl_messages() -> None:
    t = read(FIXTURES / "jsonl" / "generic.jsonl")
    assert t.format == "jsonl" and t.session_id == "chat-2026-03-02-a"
    assert t.started == "2026-03-02T03:31:40.000Z"  # epoch seconds
    assert t.ended == "2026-03-02T03:31:45.123Z"  # epoch milliseconds
    pairs = [(e.role, e.tool, e.text) for e in t.events]
    assert ("assistant", None, "Noted, tabs it is.") in pairs  # "text" instead of "content"
    assert ("tool_call", "bash", "gofmt -l .") in pairs
    assert ("tool_result", "bash", "main.go") in pairs
    assert ("tool_call", "write_file", "main.go\npackage main") in pairs  # OpenAI tool_calls, JSON-string arguments
    assert ("user", None, "Let's use Go 1.22 for this project.") in pairs  # role "human", blocks
    assert next(e for e in t.events if e.tool == "write_file" and e.role == "tool_result").is_error
    assert t.skipped == 0  # a line without a role is not a message, and not bad


def test_tool_input_strings_beyond_the_command_are_kept(tmp_path: Path) -> None:
    path = tmp_path / "s.jsonl"
    calls = [
        {"role": "tool_call", "name": "exec", "input": {"command": "deploy.sh", "workdir": "/srv", "env": {"TOKEN": "tok-123-secret"}}},
        {"role": "tool_call", "name": "Bash", "input": {"command": "ls", "description": "List files", "timeout": 5}},
        {"role": "tool_call", "name": "Edit", "input": {"file_path": "a.py", "old_string": "x = 1", "new_string": "x = 2", "replace_all": True}},
    ]
    path.write_text("".join(json.dumps(c) + "\n" for c in calls))
    assert [e.text for e in read(path).events] == [
        'deploy.sh\n{"env":{"TOKEN":"tok-123-secret"}}',
        "ls",
        "a.py\nx = 2\nx = 1",  # path, then the new text, then the old
    ]


def test_undecodable_bytes_do_not_cost_the_record(tmp_path: Path) -> None:
    path = tmp_path / "s.jsonl"
    path.write_bytes(b'{"role": "user", "content": "caf\xe9 ol\xe9 is fine"}\n')
    assert read(path).events[0].text == "caf\ufffd ol\ufffd is fine"


def test_crlf_line_endings(tmp_path: Path) -> None:
    path = tmp_path / "s.jsonl"
    path.write_bytes(b'{"role": "user", "content": "one"}\r\n{"role": "user", "content": "two"}\r\n')
    t = read(path)
    assert [e.text for e in t.events] == ["one", "two"] and t.skipped == 0



# --------------------------------------------------------------------------- one line at a time

def events_of(*records: dict[str, object]) -> tuple[Reading, list[Event]]:
    st = Reading("jsonl")
    for n, rec in enumerate(records, 1):
        read_record(st, n, rec)
    return st, st.events


@pytest.mark.parametrize(("role", "expected"), [
    ("human", "user"), ("ai", "assistant"), ("model", "assistant"), ("bot", "assistant"), ("developer", "system"),
    ("function", "tool_result"), ("toolResult", "tool_result"), ("summary", "summary"),
])
def test_role_aliases(role: str, expected: str) -> None:
    _, events = events_of({"role": role, "content": "text"})
    assert [e.role for e in events] == [expected]


def test_unknown_roles_are_not_messages_but_still_give_identity() -> None:
    st, events = events_of({"role": "narrator", "content": "x", "conversation_id": "c-1", "cwd": "/w", "ts": 1772422300})
    assert events == [] and (st.session_id, st.cwd, st.started) == ("c-1", "/w", "2026-03-02T03:31:40.000Z")


def test_first_session_key_wins() -> None:
    st, _ = events_of({"role": "user", "content": "a", "session": "first"}, {"role": "user", "content": "b", "session_id": "second"})
    assert st.session_id == "first"


def test_flags_and_nested_message_shape() -> None:
    _, events = events_of({"message": {"role": "tool", "name": "grep", "content": "no match", "isError": True},
                           "isSidechain": True, "isMeta": True})
    assert [(e.role, e.tool, e.is_error, e.sidechain, e.meta) for e in events] == [("tool_result", "grep", True, True, True)]


def test_tool_call_role_renders_its_input() -> None:
    _, events = events_of({"role": "tool_call", "tool": "bash", "arguments": {"command": "make test"}})
    assert [(e.role, e.tool, e.text) for e in events] == [("tool_call", "bash", "make test")]


def test_blocks_skip_reasoning_and_images_and_split_tool_traffic() -> None:
    _, events = events_of({"role": "assistant", "content": [
        {"type": "reasoning", "text": "PRIVATE"}, {"type": "image", "data": "AAAA"}, "loose text",
        {"type": "text", "text": "Done."}, {"type": "tool_use", "name": "Read", "input": {"path": "a.md"}},
        {"type": "tool_result", "content": "body", "is_error": True}, 7]})
    assert [(e.role, e.text) for e in events] == [("tool_call", "a.md"), ("tool_result", "body"),
                                                  ("assistant", "loose text\nDone.")]
