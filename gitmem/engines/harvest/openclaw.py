"""OpenClaw transcripts: ``~/.openclaw/agents/<agent>/sessions/<id>.jsonl`` (session header ``version: 3``).

Removed and reset sessions (``*.jsonl.deleted.<ts>``, ``*.jsonl.reset.<ts>``)
read like live ones. OpenClaw prefixes what the user typed with channel
metadata and a clock; both are cut. ``[Subagent Context]`` prompts are
``sidechain``; cron, reset and retry prompts and the gateway's own notices
(provider ``openclaw``) are ``meta``.
"""

from __future__ import annotations

import re
from typing import Any

from gitmem.engines.harvest.content import content_text, iso_time, render_call
from gitmem.engines.harvest.sources import Reading

__all__ = ["read_record"]

# OpenClaw prefixes its channel metadata and a clock to what the user typed.
_OC_UNTRUSTED = re.compile(r"^\s*[A-Z][\w ]{0,40}\(untrusted[^)\n]*\):\s*```[a-z]*\n.*?\n```\s*", re.S)
_OC_STAMP = re.compile(r"^\s*\[[^\]\n]{0,120}\d{1,2}:\d{2}[^\]\n]{0,40}\]\s*")
_OC_MESSAGE_ID = re.compile(r"\s*\[message_id:[^\]\n]*\]\s*$")
_OC_META_PREFIXES = (
    "[cron:", "A new session was started via /new or /reset",
    "Continue where you left off. The previous model attempt failed",
    "[Queued announce messages", "Read HEARTBEAT.md", "An async command ",
)
# Notes the gateway and its memory plugins put before what the person typed, one line each.
_OC_NOTE_LINE = re.compile(r"^\s*(?:Note: The previous agent run was aborted|Note: Reference memory below|"
                           r"\*\*Note\*\*: for memory|Time: \d{4}-\d\d-\d\d)[^\n]*(?:\n|$)")
# The gateway's own event lines ("System: [time] Feishu[default] DM from ...", "System (untrusted): [time]
# Exec completed ...") open a user turn before what the person typed; they are the gateway's words.
_OC_SYSTEM_LINE = re.compile(r"^\s*System(?: \(untrusted\))?: \[[^\]\n]{0,80}\][^\n]*(?:\n|$)")
# A channel message's head: its id on a line of its own, then the sender's id before a colon.
_OC_MESSAGE_HEAD = re.compile(r"^\s*\[message_id:[^\]\n]*\][ \t]*\n?(?:[^\s:\[\]]{1,64}: )?")
# Messages that arrived while the agent was busy come in one turn, each after its own marker.
_OC_QUEUED = re.compile(r"^[ \t]*(?:\[Queued messages while agent was busy\]|-{3,}[ \t]*\n?[ \t]*Queued #\d+)[ \t]*$",
                        re.M)



def read_record(st: Reading, line: int, rec: dict[str, Any]) -> None:
    """Add the events of one OpenClaw record to ``st``."""
    kind = rec.get("type")
    ts = iso_time(rec.get("timestamp"))
    st.stamp(ts)
    if kind == "session":
        if isinstance(rec.get("id"), str):
            st.session_id = rec["id"]
        if isinstance(rec.get("cwd"), str):
            st.cwd = rec["cwd"]
        if rec.get("version") is not None:
            st.version = str(rec["version"])
    elif kind == "message" and isinstance(rec.get("message"), dict):
        _openclaw_message(st, line, rec["message"], ts)
    elif kind in {"compaction", "branch_summary"}:
        if isinstance(rec.get("summary"), str):
            st.add(line, "summary", rec["summary"], ts, meta=True)
    elif kind == "custom_message":
        st.add(line, "system", content_text(rec.get("content")), ts, meta=True)
    elif kind == "session_info":
        if isinstance(rec.get("name"), str):
            st.add(line, "summary", rec["name"], ts)
    elif kind == "custom" and rec.get("customType") == "openclaw:prompt-error":
        found = rec.get("data")
        data: dict[str, Any] = found if isinstance(found, dict) else {}
        st.add(line, "system", f"prompt error: {data.get('error', 'unknown')}", ts, is_error=True, meta=True)
    # model_change, thinking_level_change, label, other custom state: nothing to remember


def _openclaw_message(st: Reading, line: int, msg: dict[str, Any], ts: str | None) -> None:
    role = msg.get("role")
    content = msg.get("content")
    blocks = [{"type": "text", "text": content}] if isinstance(content, str) else content if isinstance(content, list) else []
    if role == "user":
        for block in blocks:
            if isinstance(block, dict) and block.get("type") == "text" and isinstance(block.get("text"), str):
                _openclaw_user_text(st, line, block["text"], ts)
    elif role == "assistant":
        # The gateway injects its own notices (provider "openclaw"); the model did not say them.
        injected = msg.get("provider") == "openclaw"
        for block in blocks:
            if not isinstance(block, dict):
                continue
            kind = block.get("type")
            if kind == "text" and isinstance(block.get("text"), str):
                st.add(line, "assistant", block["text"], ts, meta=injected)
            elif kind in {"toolCall", "tool_use"}:
                name = str(block.get("name") or "tool")
                if block.get("id"):
                    st.tools[str(block["id"])] = name
                st.add(line, "tool_call", render_call(name, block.get("arguments", block.get("input"))), ts, tool=name)
        if msg.get("errorMessage") and msg.get("stopReason") in {"error", "aborted"}:
            st.add(line, "system", str(msg["errorMessage"]), ts, is_error=msg.get("stopReason") == "error", meta=True)
    elif role == "toolResult":
        tool = msg.get("toolName") or st.tools.get(str(msg.get("toolCallId")))
        st.add(line, "tool_result", content_text(blocks), ts, tool=tool, is_error=bool(msg.get("isError")))
    elif role == "bashExecution":
        # The user's own "!" shell escape in the pi agent.
        st.add(line, "tool_call", str(msg.get("command") or ""), ts, tool="bash")
        st.add(line, "tool_result", str(msg.get("output") or ""), ts, tool="bash", is_error=bool(msg.get("exitCode")))
    elif blocks:
        st.add(line, "system", content_text(blocks), ts, meta=True)


def _openclaw_user_text(st: Reading, line: int, text: str, ts: str | None) -> None:
    parts = [p for p in _OC_QUEUED.split(text) if p.strip()] if "Queued" in text else [text]
    for part in parts or [text]:
        _openclaw_user_part(st, line, part, ts)


def _openclaw_user_part(st: Reading, line: int, text: str, ts: str | None) -> None:
    clean = text
    while (m := _OC_UNTRUSTED.match(clean) or _OC_SYSTEM_LINE.match(clean) or _OC_MESSAGE_HEAD.match(clean)
           or _OC_NOTE_LINE.match(clean)):
        clean = clean[m.end():]
    clean = _OC_MESSAGE_ID.sub("", _OC_STAMP.sub("", clean, count=1)).strip()
    if not clean.startswith(_OC_META_PREFIXES) and ("\n\n" in clean or "[System:" in clean):
        # the gateway's notices appended after what the person typed ("[System: The bot encountered ...]",
        # a heartbeat or async-completion prompt): paragraphs of their own, not the person's words
        kept = [p for p in clean.split("\n\n") if not p.lstrip().startswith((*_OC_META_PREFIXES, "[System:"))]
        clean = "\n\n".join(kept).strip()
    sidechain = clean.startswith("[Subagent Context]")
    # nothing left but the gateway's envelope: its words, not the person's
    meta = not clean or clean.startswith(_OC_META_PREFIXES) or text.lstrip().startswith("[cron:")
    st.add(line, "user", clean if not meta else text.strip(), ts, sidechain=sidechain, meta=meta)
