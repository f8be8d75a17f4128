"""Tests for gitmem.engines.harvest.openclaw: OpenClaw v3 entries become events."""

from __future__ import annotations

from pathlib import Path

import pytest

from gitmem.engines.harvest.reader import read
from gitmem.engines.harvest.sources import Transcript

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

