"""Claude Code transcripts: ``~/.claude/projects/<project>/<session>.jsonl`` (versions 1.0.x to 2.1.x).

Choices worth knowing:

- Model reasoning (``thinking`` blocks) is never read: it is not what anybody
  said and it must not reach memory.
- Every other piece of text (user words, tool input, tool output, attached
  documents and files) surfaces in some event, so a secret scan over the
  events sees all of it.
- ``sidechain`` is ``isSidechain``; ``meta`` marks ``isMeta``, compact
  summaries, slash-command wrappers, command output, system reminders, IDE
  notices and interruption markers.
- A sub-agent file (``<session>/subagents/agent-*.jsonl``) shares its
  ``sessionId`` with the main session; the reader names it
  ``<sessionId>-agent-<agentId>`` so the two never collide when it is read
  alone (``subagents`` harvests it with its session).
"""

from __future__ import annotations

import re
from typing import Any

from gitmem.engines.harvest.content import attachment_text, compact_json, content_text, document_text, iso_time, render_call
from gitmem.engines.harvest.sources import Reading

__all__ = ["read_record"]

# Text Claude Code writes into user records that the user did not type.
_CLAUDE_META_PREFIXES = (
    "<command-name>", "<command-message>", "<command-args>", "<local-command-", "<system-reminder>",
    "<task-notification>", "<ide_opened_file>", "<ide_selection>", "<ide_diagnostics>", "<bash-input>",
    "<bash-stdout>", "<bash-stderr>", "<user-prompt-submit-hook>", "[Request interrupted",
    "Caveat: The messages below were generated", "This session is being continued from a previous conversation",
)
_REMINDER = re.compile(r"\s*<system-reminder>.*?</system-reminder>\s*", re.S)
_TAG = re.compile(r"<(command-name|command-args|user-memory-input)>(.*?)</\1>", re.S)
_ANY_TAG = re.compile(r"</?[a-z][a-z0-9_-]*>")


def _slash_command(text: str) -> str:
    tags = {name: value.strip() for name, value in _TAG.findall(text)}
    command = tags.get("command-name", "")
    args = tags.get("command-args", "")
    rendered = f"{command} {args}".strip()
    return rendered or _ANY_TAG.sub("", text).strip()


def read_record(st: Reading, line: int, rec: dict[str, Any]) -> None:
    """Add the events of one Claude Code record to ``st``."""
    kind = rec.get("type")
    ts = iso_time(rec.get("timestamp"))
    st.stamp(ts)
    if st.session_id is None and isinstance(rec.get("sessionId"), str):
        st.session_id = rec["sessionId"]
    if st.agent_id is None and isinstance(rec.get("agentId"), str):
        st.agent_id = rec["agentId"]
    if st.cwd is None and isinstance(rec.get("cwd"), str):
        st.cwd = rec["cwd"]
    if st.version is None and isinstance(rec.get("version"), str):
        st.version = rec["version"]
    if isinstance(rec.get("uuid"), str):
        st.uuids.add(rec["uuid"])
    side = bool(rec.get("isSidechain"))
    if kind == "user":
        _claude_user(st, line, rec, ts, side)
    elif kind == "assistant":
        _claude_assistant(st, line, rec, ts, side)
    elif kind == "summary":
        if isinstance(rec.get("summary"), str) and rec["summary"]:
            st.summary_leaves[len(st.events)] = str(rec.get("leafUuid") or "")
            st.add(line, "summary", rec["summary"], ts)
    elif kind == "ai-title":
        if isinstance(rec.get("aiTitle"), str):
            st.add(line, "summary", rec["aiTitle"], ts)
    elif kind == "system":
        _claude_system(st, line, rec, ts, side)
    elif kind == "attachment":
        st.add(line, "system", attachment_text(rec.get("attachment")), ts, sidechain=side, meta=True)
    elif kind == "pr-link":
        url = rec.get("prUrl") or rec.get("prRepository") or ""
        st.add(line, "system", f"Pull request #{rec.get('prNumber', '?')}: {url}".strip(), ts)
    # progress (duplicates the final tool result), file-history-snapshot, queue-operation
    # (the queued prompt comes back as a user record), last-prompt, permission-mode and
    # types this reader does not know carry nothing a memory needs.


def _claude_user(st: Reading, line: int, rec: dict[str, Any], ts: str | None, side: bool) -> None:
    msg = rec.get("message")
    content = msg.get("content") if isinstance(msg, dict) else None
    meta = bool(rec.get("isMeta") or rec.get("isVisibleInTranscriptOnly"))
    if rec.get("isCompactSummary"):
        st.add(line, "summary", content_text(content), ts, sidechain=side, meta=True)
        return
    if isinstance(content, str):
        _claude_user_text(st, line, content, ts, side, meta)
        return
    if not isinstance(content, list):
        return
    for block in content:
        if not isinstance(block, dict):
            continue
        kind = block.get("type")
        if kind == "text" and isinstance(block.get("text"), str):
            _claude_user_text(st, line, block["text"], ts, side, meta)
        elif kind == "tool_result":
            text = content_text(block.get("content"))
            if not text:
                text = _tool_use_result_text(rec.get("toolUseResult"))
            tool = st.tools.get(str(block.get("tool_use_id")))
            st.add(line, "tool_result", text, ts, tool=tool, is_error=bool(block.get("is_error")), sidechain=side, meta=meta)
        elif kind == "document":
            st.add(line, "user", document_text(block), ts, sidechain=side, meta=True)
        # image blocks hold pixels, no text


def _tool_use_result_text(result: Any) -> str:
    """Fallback text from the top-level ``toolUseResult`` when the block content is empty."""
    if isinstance(result, str):
        return result
    if isinstance(result, dict):
        picked = [result[k] for k in ("stdout", "stderr", "content", "error") if isinstance(result.get(k), str) and result[k]]
        return "\n".join(picked)
    if isinstance(result, list):
        return content_text(result)
    return ""


def _claude_user_text(st: Reading, line: int, text: str, ts: str | None, side: bool, meta: bool) -> None:
    head = text.lstrip()
    if head.startswith("<user-memory-input>"):
        # Claude Code's "#" shortcut: the user asked for this to be kept in memory.
        inner = dict(_TAG.findall(text)).get("user-memory-input", "").strip()
        st.add(line, "user", f"Remember: {inner}" if inner else "", ts, sidechain=side, meta=meta)
        return
    if head.startswith(("<command-name>", "<command-message>", "<command-args>")):
        st.add(line, "user", _slash_command(text), ts, sidechain=side, meta=True)
        return
    if head.startswith(_CLAUDE_META_PREFIXES):
        st.add(line, "user", text, ts, sidechain=side, meta=True)
        return
    if "<system-reminder>" in text:
        # Reminders appended to a prompt are the harness talking; keep them apart.
        reminders = "\n".join(m.group(0).strip() for m in _REMINDER.finditer(text))
        text = _REMINDER.sub("\n", text).strip()
        st.add(line, "user", reminders, ts, sidechain=side, meta=True)
    st.add(line, "user", text, ts, sidechain=side, meta=meta)


def _claude_assistant(st: Reading, line: int, rec: dict[str, Any], ts: str | None, side: bool) -> None:
    msg = rec.get("message")
    if not isinstance(msg, dict):
        return
    content = msg.get("content")
    synthetic = bool(rec.get("isApiErrorMessage")) or msg.get("model") == "<synthetic>"
    if isinstance(content, str):
        content = [{"type": "text", "text": content}]
    if not isinstance(content, list):
        return
    for block in content:
        if not isinstance(block, dict):
            continue
        kind = block.get("type")
        if kind == "text" and isinstance(block.get("text"), str):
            if synthetic:
                # Claude Code writes API failures as fake assistant replies.
                st.add(line, "system", block["text"], ts, is_error=bool(rec.get("isApiErrorMessage") or rec.get("error")),
                       sidechain=side, meta=True)
            else:
                st.add(line, "assistant", block["text"], ts, sidechain=side)
        elif kind in {"tool_use", "server_tool_use"}:
            name = str(block.get("name") or "tool")
            if block.get("id"):
                st.tools[str(block["id"])] = name
            st.add(line, "tool_call", render_call(name, block.get("input")), ts, tool=name, sidechain=side)
        elif isinstance(kind, str) and kind.endswith("_tool_result"):
            tool = st.tools.get(str(block.get("tool_use_id")))
            st.add(line, "tool_result", content_text(block.get("content")), ts, tool=tool, sidechain=side)
        # thinking and redacted_thinking: model reasoning stays out of memory


def _claude_system(st: Reading, line: int, rec: dict[str, Any], ts: str | None, side: bool) -> None:
    subtype = rec.get("subtype")
    content = rec.get("content") if isinstance(rec.get("content"), str) else ""
    if subtype == "away_summary" and content:
        st.add(line, "summary", content, ts, sidechain=side)
    elif subtype == "api_error":
        status = rec.get("error", {}).get("status") if isinstance(rec.get("error"), dict) else None
        retry = f" (retry {rec.get('retryAttempt')}/{rec.get('maxRetries')})" if rec.get("retryAttempt") else ""
        st.add(line, "system", f"API error{f' {status}' if status else ''}{retry}", ts, is_error=True, sidechain=side, meta=True)
    elif subtype == "stop_hook_summary":
        errors = [e if isinstance(e, str) else compact_json(e) for e in rec.get("hookErrors") or []]
        st.add(line, "system", "\n".join(errors), ts, is_error=bool(errors), sidechain=side, meta=True)
    elif content:
        if "<command-name>" in content:
            content = _slash_command(content)
        elif content.lstrip().startswith("<local-command-"):
            content = _ANY_TAG.sub("", content).strip()
        st.add(line, "system", content, ts, is_error=rec.get("level") == "error", sidechain=side, meta=True)


