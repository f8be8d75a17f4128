"""Tests for gitmem.engines.harvest.openclaw: OpenClaw v3 entries become events."""

from __future__ import annotations

from pathlib import Path

import pytest

from gitmem.engines.harvest.openclaw import read_record
from gitmem.engines.harvest.reader import read
from gitmem.engines.harvest.sources import Event, Reading, Transcript

FIXTURES = Path(__file__).parent / "fixtures" / "sessions"


def texts(t: Transcript, role: str | None = None) -> list[str]:
    return [e.text for e in t.events if role is None or e.role == role]


def test_openclaw_v3_entries() -> None:
    path = FIXTURES / "openclaw" / "sessions" / "22222222-3333-4444-8555-666677778888.jsonl"
    t = read(path)
    assert (t.format, t.session_id, t.version, t.cwd) == ("openclaw", "22222222-3333-4444-8555-666677778888", "3", "/home/dev/.openclaw/workspace")
    typed = [e.text for e in t.events if e.role == "user" and not e.meta]
    # channel metadata, clock prefix and message id are stripped
    assert typed == ["Call me Lin. Please always reply in English.", "不对，备份时间是凌晨三点。记住：服务器在上海机房。"]
    calls = [(e.tool, e.text) for e in t.events if e.role == "tool_call"]
    assert calls == [("read", "/home/dev/.openclaw/workspace/NOTES.md"), ("exec", "crontab -l"),
                     ("write", "/home/dev/.openclaw/workspace/USER.md\nName: Lin")]
    results = [e for e in t.events if e.role == "tool_result"]
    assert results[0].text.endswith("[image]") and results[1].is_error and results[1].tool == "exec"
    assert any(e.role == "summary" and e.meta and "Backups at 03:00" in e.text for e in t.events)  # compaction
    assert "prompt error: aborted" in [e.text for e in t.events if e.is_error]
    assert "429 quota exceeded" in [e.text for e in t.events if e.is_error]
    assert any(e.meta and e.text.startswith("Continue where you left off") for e in t.events)
    assert any(e.meta and e.role == "assistant" and "gateway restarted" in e.text for e in t.events)
    assert "OPENCLAW-PRIVATE-THOUGHT" not in "".join(texts(t))
    assert t.skipped == 0  # label and unknown entries are skipped, not bad


def test_openclaw_subagent_prompt_is_sidechain_and_deleted_archive_is_read() -> None:
    path = FIXTURES / "openclaw" / "sessions" / "33333333-4444-4555-8666-777788889999.jsonl.deleted.2026-03-14T13-36-43.934Z"
    t = read(path)
    assert t.format == "openclaw" and t.session_id == "33333333-4444-4555-8666-777788889999"
    first_user = next(e for e in t.events if e.role == "user")
    assert first_user.sidechain and first_user.text.startswith("[Subagent Context]")



# --------------------------------------------------------------------------- one entry at a time

def events_of(*records: dict[str, object]) -> tuple[Reading, list[Event]]:
    st = Reading("openclaw")
    for n, rec in enumerate(records, 1):
        read_record(st, n, rec)
    return st, st.events


def message(role: str, content: object, **fields: object) -> dict[str, object]:
    return {"type": "message", "timestamp": 1772422300123, "message": {"role": role, "content": content, **fields}}


def test_session_header_sets_identity_and_epoch_millis_set_the_clock() -> None:
    st, events = events_of({"type": "session", "id": "oc-1", "cwd": "/w", "version": 3}, message("user", "hello there"))
    assert (st.session_id, st.cwd, st.version) == ("oc-1", "/w", "3")
    assert st.started == st.ended == "2026-03-02T03:31:40.123Z"
    assert [e.text for e in events] == ["hello there"]


def test_channel_metadata_clock_and_message_id_are_cut_from_user_text() -> None:
    text = ("Conversation info (untrusted metadata):\n```json\n{\"chat\": 1}\n```\n"
            "[Mon 2026-03-02 11:31 GMT+8] Please check the backups [message_id: 42]")
    _, events = events_of(message("user", [{"type": "text", "text": text}]))
    assert [(e.text, e.meta, e.sidechain) for e in events] == [("Please check the backups", False, False)]


def test_the_gateways_event_lines_and_a_channel_message_head_are_cut_from_user_text() -> None:
    text = ("System: [2026-03-04 01:11:18 GMT+8] Feishu[default] DM from ou_f0a0e1: keep the backups at 3am\n\n"
            "Conversation info (untrusted metadata):\n```json\n{\"timestamp\": \"Wed 01:11\"}\n```\n\n"
            "[message_id: om_x100b55452d4f70a4]\nou_f0a0e1: keep the backups at 3am")
    _, events = events_of(message("user", [{"type": "text", "text": text}]))
    assert [(e.text, e.meta) for e in events] == [("keep the backups at 3am", False)]
    _, events = events_of(message("user", "System (untrusted): [2026-04-14 12:48:59 GMT+8] Exec completed (code 0)\n"
                                          "the deploy script lives in ops/deploy.sh"))
    assert [(e.text, e.meta) for e in events] == [("the deploy script lives in ops/deploy.sh", False)]


def test_the_gateways_notices_after_the_persons_words_are_cut() -> None:
    text = ("ou_5d: make it a ppt, not a txt\n\n[System: The bot encountered a Feishu API permission error. Please "
            "inform the user about this issue.]\n\nRead HEARTBEAT.md if it exists. Do not infer or repeat old tasks.")
    _, events = events_of(message("user", text))
    assert [(e.text, e.meta) for e in events] == [("ou_5d: make it a ppt, not a txt", False)]
    _, events = events_of(message("user", "[System: The bot encountered a Feishu API permission error.]"))
    assert [e.meta for e in events] == [True]


def test_the_gateways_notes_before_the_persons_words_are_cut_not_made_meta() -> None:
    text = ("Note: The previous agent run was aborted by the user. Resume carefully or ask for clarification.\n\n"
            "Conversation info (untrusted metadata):\n```json\n{\"sender\": \"dig fog\"}\n```\n\n"
            "记住，以后都用语音回复我")
    _, events = events_of(message("user", text))
    assert [(e.text, e.meta) for e in events] == [("记住，以后都用语音回复我", False)]
    _, events = events_of(message("user", "[message_id: om_x100b55d1b7] Roger: 记住本次操作，以后直接推送"))
    assert [(e.text, e.meta) for e in events] == [("记住本次操作，以后直接推送", False)]
    memory = "Note: Reference memory below. Build on past successes.\nTime: 2026-03-22 09:13\nuse pnpm here"
    _, events = events_of(message("user", memory))
    assert [(e.text, e.meta) for e in events] == [("use pnpm here", False)]


def test_a_turn_of_only_gateway_events_is_meta() -> None:
    text = "System: [2026-02-05 08:47:39 GMT+9] Cron: Exec failed: unexpected argument get"
    _, events = events_of(message("user", text))
    assert [(e.text, e.meta) for e in events] == [(text, True)]


def test_messages_queued_while_the_agent_was_busy_are_one_event_each() -> None:
    text = ("[Queued messages while agent was busy]\n\n---\nQueued #1\n"
            "System: [2026-03-02 22:50:23 GMT+8] Feishu[main] DM from ou_5d: hi\n\nuse pnpm in this repo\n\n"
            "---\nQueued #2\nand never push to main")
    _, events = events_of(message("user", text))
    assert [(e.text, e.meta) for e in events] == [("use pnpm in this repo", False), ("and never push to main", False)]


@pytest.mark.parametrize("text", ["[cron:daily] run the report", "Read HEARTBEAT.md if it exists.",
                                  "An async command you ran earlier has completed. Handle the result internally.",

                                  "A new session was started via /new or /reset. Say hi."])
def test_tool_prompts_are_meta_and_kept_whole(text: str) -> None:
    _, events = events_of(message("user", text))
    assert [(e.text, e.meta) for e in events] == [(text, True)]


def test_tool_calls_results_and_shell_escapes() -> None:
    _, events = events_of(
        message("assistant", [{"type": "toolCall", "id": "c1", "name": "exec", "arguments": {"command": "uptime"}},
                              {"type": "thinking", "thinking": "PRIVATE"}]),
        message("toolResult", [{"type": "text", "text": "up 3 days"}], toolCallId="c1"),
        {"type": "message", "message": {"role": "bashExecution", "command": "ls", "output": "a b", "exitCode": 2}})
    assert [(e.role, e.tool, e.text, e.is_error) for e in events] == [
        ("tool_call", "exec", "uptime", False), ("tool_result", "exec", "up 3 days", False),
        ("tool_call", "bash", "ls", False), ("tool_result", "bash", "a b", True)]


def test_gateway_notices_and_aborted_replies_are_meta() -> None:
    _, events = events_of(message("assistant", "gateway restarted", provider="openclaw"),
                          message("assistant", [], errorMessage="user aborted", stopReason="aborted"),
                          message("assistant", [], errorMessage="boom", stopReason="error"))
    assert [(e.role, e.text, e.meta, e.is_error) for e in events] == [
        ("assistant", "gateway restarted", True, False), ("system", "user aborted", True, False),
        ("system", "boom", True, True)]


def test_other_entries() -> None:
    _, events = events_of({"type": "compaction", "summary": "Backups moved."},
                          {"type": "custom_message", "content": [{"type": "text", "text": "note"}]},
                          {"type": "session_info", "name": "Backup chat"},
                          {"type": "custom", "customType": "openclaw:prompt-error", "data": "not a mapping"},
                          {"type": "model_change", "model": "x"}, {"type": "label", "label": "y"},
                          message("custom-role", "odd"))
    assert [(e.role, e.text, e.meta) for e in events] == [
        ("summary", "Backups moved.", True), ("system", "note", True), ("summary", "Backup chat", False),
        ("system", "prompt error: unknown", True), ("system", "odd", True)]
