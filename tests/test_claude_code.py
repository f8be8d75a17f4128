"""Tests for gitmem.engines.harvest.claude_code: Claude Code records become events."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from gitmem.engines.harvest.claude_code import read_record
from gitmem.engines.harvest.reader import read
from gitmem.engines.harvest.sources import Event, Reading, Transcript, discover
from tests.conftest import bench_transcripts, corpora

FIXTURES = Path(__file__).parent / "fixtures" / "sessions"


bench_files = bench_transcripts


def texts(t: Transcript, role: str | None = None) -> list[str]:
    return [e.text for e in t.events if role is None or e.role == role]


def test_claude_code_v1_shapes() -> None:
    t = read(FIXTURES / "claude-code" / "v1_session.jsonl")
    assert (t.format, t.session_id, t.version, t.cwd) == ("claude-code", "0a1b2c3d-1111-4222-8333-444455556666", "1.0.98", "/home/dev/shop")
    real = [e for e in t.events if e.role == "user" and not e.meta and not e.sidechain]
    assert [e.text for e in real] == [
        "The checkout page crashes when the cart is empty. Please fix it. We use pytest for tests.",
        "no, don't touch stats.py, it is generated code",
    ]
    assert any(e.meta and e.text == "/init" for e in t.events)
    assert any(e.meta and e.text.startswith("[Request interrupted") for e in t.events)
    # the top summary names a leaf of another session
    assert [(e.text, e.meta) for e in t.events if e.role == "summary"] == [("Earlier chat about the cart page", True)]
    bash = next(e for e in t.events if e.role == "tool_call" and e.tool == "Bash")
    assert bash.text == "python -m pytest tests/test_checkout.py -q"
    failed = next(e for e in t.events if e.role == "tool_result" and e.is_error)
    assert failed.tool == "Bash" and "ZeroDivisionError" in failed.text
    side = [e for e in t.events if e.sidechain]
    assert {e.role for e in side} == {"user", "tool_call", "tool_result", "assistant"}
    assert "SECRET-REASONING-SHOULD-NOT-APPEAR" not in "".join(texts(t))


def test_claude_code_v2_record_and_block_types() -> None:
    t = read(FIXTURES / "claude-code" / "v2_session.jsonl")
    assert t.skipped == 0 and t.version == "2.1.41"
    assert t.started == "2026-03-02T09:00:00.000Z"
    roles = {(e.role, e.text) for e in t.events}
    assert ("summary", "Set up Hugo blog") in roles  # ai-title
    assert ("summary", "Set up a Hugo blog with the PaperMod theme; the build passes.") in roles  # away_summary
    assert ("summary", "Hugo blog setup with PaperMod") in roles  # leaf in this file: not meta
    assert ("system", "Pull request #42: https://git.example.test/dev/blog/pull/42") in roles
    assert ("tool_result", "[tool: WebFetch]") in roles
    assert ("tool_result", "[image]") in roles
    write = next(e for e in t.events if e.tool == "Write" and e.role == "tool_call")
    assert write.text.splitlines()[0] == "/home/dev/blog/content/_index.md"
    multi = next(e for e in t.events if e.tool == "MultiEdit" and e.role == "tool_call")
    assert "title = 'Dev notes'" in multi.text
    notebook = next(e for e in t.events if e.tool == "NotebookEdit" and e.role == "tool_call")
    assert notebook.text.startswith("/home/dev/blog/analysis.ipynb")
    errors = [e.text for e in t.events if e.is_error]
    assert "lint hook failed: exit 1" in errors and "API error 529 (retry 1/10)" in errors
    assert any("issue with the selected model" in x for x in errors)  # synthetic API-error reply
    user = [e for e in t.events if e.role == "user"]
    typed = [e.text for e in user if not e.meta]
    assert typed == ["Let's go with Hugo for the blog. Remember that the site deploys from the gh-pages branch.",
                     "Non, plutôt le thème PaperMod. Je préfère les thèmes sobres."]
    assert any(e.meta and e.text.startswith("<ide_opened_file>") for e in user)
    assert any(e.meta and e.text == "[document: notes.txt]\ntheme notes: dark mode" for e in user)
    assert any(e.meta and e.text == "/model opus" for e in user)
    compact = [e for e in t.events if e.role == "summary" and e.text.startswith("This session is being continued")]
    assert compact and compact[0].meta
    assert "PRIVATE-THOUGHT-2" not in "".join(texts(t))
    assert not any("Building sites" in x for x in texts(t))  # progress records are not events


def test_claude_code_projects_tree_and_subagent() -> None:
    root = FIXTURES / "claude-code" / "projects"
    files = discover([root])
    assert [f.name for f in files] == ["11111111-aaaa-4bbb-8ccc-000000000001.jsonl", "agent-a1b2c3d4e5.jsonl"]
    main, sub = (read(f) for f in files)
    assert main.session_id == "11111111-aaaa-4bbb-8ccc-000000000001"
    assert sub.session_id == "11111111-aaaa-4bbb-8ccc-000000000001-agent-a1b2c3d4e5"
    assert all(e.sidechain for e in sub.events) and not any(e.sidechain for e in main.events)


def test_toolUseResult_fills_an_empty_tool_result() -> None:
    path = FIXTURES / "claude-code" / "v2_session.jsonl"
    t = read(path)
    notebook_result = next(e for e in t.events if e.role == "tool_result" and e.tool == "NotebookEdit")
    assert notebook_result.text == ""  # no toolUseResult on that record: stays empty, but present
    write_result = next(e for e in t.events if e.role == "tool_result" and e.tool == "Write")
    assert write_result.text.startswith("File created successfully")


def test_attachment_and_document_text_surface_as_meta_events() -> None:
    t = read(FIXTURES / "claude-code" / "v2_session.jsonl")
    meta_text = "\n".join(e.text for e in t.events if e.meta)
    assert "baseURL = 'https://blog.test/'" in meta_text
    assert "theme notes: dark mode" in meta_text


def test_bench_subagent_files_get_their_own_session_id() -> None:
    agents = [p for p in bench_files() if "__agent-" in p.name]
    assert len(agents) == sum(c.agents for c in corpora())
    for path in agents:
        t = read(path)
        assert "-agent-" in t.session_id
        assert all(e.sidechain for e in t.events)


def test_bench_thinking_text_never_reaches_events() -> None:
    checked = 0
    for path in bench_files():
        thoughts: set[str] = set()
        for raw in path.read_bytes().split(b"\n"):
            if not raw.strip():
                continue
            rec = json.loads(raw)
            msg = rec.get("message") if isinstance(rec.get("message"), dict) else {}
            for block in msg.get("content") or []:
                if isinstance(block, dict) and block.get("type") == "thinking" and len(block.get("thinking", "")) > 20:
                    thoughts.add(block["thinking"])
        if thoughts:
            surfaced = set(texts(read(path)))
            assert not thoughts & surfaced, path.name
            checked += 1
    assert checked, "no bench transcript holds a thinking block"



# --------------------------------------------------------------------------- one record at a time

def events_of(*records: dict[str, object]) -> tuple[Reading, list[Event]]:
    st = Reading("claude-code")
    for n, rec in enumerate(records, 1):
        read_record(st, n, rec)
    return st, st.events


def user_rec(content: object, **fields: object) -> dict[str, object]:
    return {"type": "user", "sessionId": "s", "message": {"role": "user", "content": content}, **fields}


def test_identity_fields_come_from_the_first_record_that_has_them() -> None:
    st, _ = events_of({"type": "file-history-snapshot"},
                      user_rec("hi", cwd="/w", version="2.1.0", agentId="a1", uuid="u1", timestamp="2026-01-01T00:00:00Z"),
                      user_rec("again", sessionId="other", cwd="/x", version="9", uuid="u2"))
    assert (st.session_id, st.agent_id, st.cwd, st.version) == ("s", "a1", "/w", "2.1.0")
    assert st.uuids == {"u1", "u2"} and st.started == "2026-01-01T00:00:00Z"


def test_memory_shortcut_becomes_a_remember_prompt() -> None:
    _, events = events_of(user_rec("<user-memory-input>deploys go through the staging gate</user-memory-input>"))
    assert [(e.role, e.text, e.meta) for e in events] == [("user", "Remember: deploys go through the staging gate", False)]


def test_slash_command_wrappers_are_meta_and_read_as_the_command() -> None:
    _, events = events_of(user_rec("<command-message>review</command-message>\n<command-name>/review</command-name>\n"
                                   "<command-args>PR 12</command-args>"))
    assert [(e.text, e.meta) for e in events] == [("/review PR 12", True)]


def test_system_reminders_are_split_from_the_prompt() -> None:
    _, events = events_of(user_rec("Fix the login bug.<system-reminder>Files changed: a.py</system-reminder>"))
    assert [(e.text, e.meta) for e in events] == [("<system-reminder>Files changed: a.py</system-reminder>", True),
                                                  ("Fix the login bug.", False)]


def test_injected_prefixes_and_flags_mark_meta() -> None:
    _, events = events_of(user_rec("[Request interrupted by user]"), user_rec("typed", isMeta=True),
                          user_rec([{"type": "text", "text": "summary of before"}], isCompactSummary=True))
    assert [(e.role, e.meta) for e in events] == [("user", True), ("user", True), ("summary", True)]


def test_tool_use_and_result_pair_by_id_and_thinking_is_dropped() -> None:
    _, events = events_of(
        {"type": "assistant", "message": {"content": [
            {"type": "thinking", "thinking": "PRIVATE"}, {"type": "text", "text": "Running it."},
            {"type": "tool_use", "id": "t1", "name": "Bash", "input": {"command": "make"}}]}},
        user_rec([{"type": "tool_result", "tool_use_id": "t1", "content": "ok", "is_error": True}]))
    assert [(e.role, e.tool, e.text, e.is_error) for e in events] == [
        ("assistant", None, "Running it.", False), ("tool_call", "Bash", "make", False), ("tool_result", "Bash", "ok", True)]


def test_synthetic_assistant_replies_are_system_errors() -> None:
    _, events = events_of({"type": "assistant", "isApiErrorMessage": True,
                           "message": {"model": "<synthetic>", "content": "API Error: 400"}})
    assert [(e.role, e.text, e.is_error, e.meta) for e in events] == [("system", "API Error: 400", True, True)]


@pytest.mark.parametrize(("record", "expected"), [
    ({"subtype": "away_summary", "content": "Worked on auth."}, ("summary", "Worked on auth.", False, False)),
    ({"subtype": "api_error", "error": {"status": 529}, "retryAttempt": 2, "maxRetries": 10},
     ("system", "API error 529 (retry 2/10)", True, True)),
    ({"subtype": "stop_hook_summary", "hookErrors": ["hook failed"]}, ("system", "hook failed", True, True)),
    ({"subtype": "local_command", "content": "<local-command-stdout>done</local-command-stdout>"},
     ("system", "done", False, True)),
    ({"subtype": "informational", "content": "careful", "level": "error"}, ("system", "careful", True, True)),
])
def test_system_records(record: dict[str, object], expected: tuple[str, str, bool, bool]) -> None:
    _, events = events_of({"type": "system", **record})
    assert [(e.role, e.text, e.is_error, e.meta) for e in events] == [expected]


def test_titles_pull_requests_and_silent_record_types() -> None:
    _, events = events_of({"type": "ai-title", "aiTitle": "Fix login"},
                          {"type": "pr-link", "prNumber": 7, "prUrl": "https://example.com/pr/7"},
                          {"type": "progress", "data": {"out": "x"}}, {"type": "queue-operation", "content": "q"},
                          {"type": "last-prompt"}, {"type": "permission-mode"}, {"type": "brand-new-type", "text": "t"})
    assert [(e.role, e.text) for e in events] == [("summary", "Fix login"), ("system", "Pull request #7: https://example.com/pr/7")]


def test_a_summary_remembers_its_leaf_for_settling() -> None:
    st, events = events_of({"type": "summary", "summary": "Earlier work", "leafUuid": "u-9"})
    assert st.summary_leaves == {0: "u-9"} and events[0].role == "summary"
