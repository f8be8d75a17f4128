"""Generic JSONL transcripts: one message a line, ``{"role", "content" | "text", "timestamp"?}``.

Roles have common aliases (``human``, ``ai``, ``model``, ``tool``, …);
content may be a string or a list of blocks; OpenAI-style ``tool_calls`` and
Anthropic-style ``tool_use`` blocks both become tool calls. Reasoning blocks
are never read.
"""

from __future__ import annotations

from typing import Any

from gitmem.engines.harvest.content import block_text, content_text, iso_time, render_call
from gitmem.engines.harvest.sources import Reading, Role

__all__ = ["read_record"]

_ROLE_ALIASES: dict[str, Role] = {
    "user": "user", "human": "user", "assistant": "assistant", "ai": "assistant", "model": "assistant",
    "bot": "assistant", "system": "system", "developer": "system", "tool": "tool_result", "function": "tool_result",
    "tool_result": "tool_result", "toolResult": "tool_result", "tool_call": "tool_call", "summary": "summary",
}


def read_record(st: Reading, line: int, rec: dict[str, Any]) -> None:
    """Add the events of one generic JSONL record to ``st``."""
    nested = rec.get("message")
    msg: dict[str, Any] = nested if isinstance(nested, dict) else rec
    role = _ROLE_ALIASES.get(str(msg.get("role", rec.get("role", ""))))
    ts = iso_time(next((rec[k] for k in ("timestamp", "time", "ts", "created_at", "date") if k in rec), None))
    st.stamp(ts)
    for key in ("session_id", "sessionId", "session", "conversation_id"):
        if st.session_id is None and isinstance(rec.get(key), str) and rec[key]:
            st.session_id = rec[key]
    if st.cwd is None and isinstance(rec.get("cwd"), str):
        st.cwd = rec["cwd"]
    if role is None:
        return
    side = bool(rec.get("sidechain") or rec.get("isSidechain"))
    meta = bool(rec.get("meta") or rec.get("isMeta"))
    tool = next((str(msg[k]) for k in ("tool", "name", "tool_name", "toolName") if msg.get(k)), None)
    is_error = bool(msg.get("is_error") or msg.get("isError"))
    content = msg.get("content", msg.get("text"))
    if role == "tool_call":
        st.add(line, "tool_call", render_call(tool or "tool", msg.get("input", msg.get("arguments", content))), ts,
               tool=tool, sidechain=side, meta=meta)
        return
    if isinstance(content, list):
        _generic_blocks(st, line, role, content, ts, tool, is_error, side, meta)
    else:
        text = content if isinstance(content, str) else content_text(content)
        st.add(line, role, text, ts, tool=tool if role == "tool_result" else None, is_error=is_error, sidechain=side, meta=meta)
    for call in msg.get("tool_calls") or []:  # OpenAI chat format
        fn = call.get("function") if isinstance(call, dict) else None
        if isinstance(fn, dict):
            name = str(fn.get("name") or "tool")
            st.add(line, "tool_call", render_call(name, fn.get("arguments")), ts, tool=name, sidechain=side, meta=meta)


def _generic_blocks(st: Reading, line: int, role: Role, blocks: list[Any], ts: str | None, tool: str | None,
                    is_error: bool, side: bool, meta: bool) -> None:
    plain: list[str] = []
    for block in blocks:
        if not isinstance(block, dict):
            plain.append(block if isinstance(block, str) else "")
            continue
        kind = block.get("type")
        if kind in {"thinking", "redacted_thinking", "reasoning"}:
            continue
        if kind in {"tool_use", "toolCall", "tool_call"}:
            name = str(block.get("name") or "tool")
            st.add(line, "tool_call", render_call(name, block.get("input", block.get("arguments"))), ts, tool=name,
                   sidechain=side, meta=meta)
        elif kind in {"tool_result", "toolResult"}:
            st.add(line, "tool_result", content_text(block.get("content")), ts, tool=block.get("name") or tool,
                   is_error=bool(block.get("is_error") or block.get("isError")), sidechain=side, meta=meta)
        elif kind != "image":
            plain.append(block_text(block))
    text = "\n".join(p for p in plain if p)
    st.add(line, role, text, ts, tool=tool if role == "tool_result" else None, is_error=is_error, sidechain=side, meta=meta)
