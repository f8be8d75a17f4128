"""Read agent session transcripts into a flat list of events.

Three formats are understood:

- ``claude-code``: ``~/.claude/projects/<project>/<session>.jsonl`` and its
  ``<session>/subagents/agent-*.jsonl`` files (versions 1.0.x to 2.1.x);
- ``openclaw``: ``~/.openclaw/agents/<agent>/sessions/<id>.jsonl`` (session
  header ``version: 3``), including ``*.jsonl.deleted.<ts>`` and
  ``*.jsonl.reset.<ts>`` archives;
- ``jsonl``: one message a line, ``{"role", "content" | "text", "timestamp"?}``.

The formats are internal to their tools and change between versions, so the
reader is lenient: unknown record types, block types and fields are skipped,
a bad line in the middle is counted in ``skipped``, and a last line still
being written is left for the next read (``end_offset`` is the resume point).

Choices worth knowing:

- Model reasoning (``thinking`` blocks) is never read: it is not what anybody
  said and it must not reach memory.
- Every other piece of text (user words, tool input, tool output, attached
  documents and files) surfaces in some event, so a secret scan over the
  events sees all of it; ``meta`` and ``sidechain`` say which events are not
  the user's own words.
- ``sidechain`` marks sub-agent traffic (Claude Code ``isSidechain``, OpenClaw
  ``[Subagent Context]`` prompts); ``meta`` marks text injected by the tool
  (``isMeta``, compact summaries, slash-command wrappers, command output,
  system reminders, IDE notices, interruption markers, cron and reset prompts).
- A Claude Code sub-agent file shares its ``sessionId`` with the main session;
  its session id is ``<sessionId>-agent-<agentId>`` so the two never collide.
- A last line without its newline that already parses as a whole JSON object
  is read (a file written by hand often lacks the final newline); the next
  read from ``end_offset`` then skips the newline that completes it.
"""

from __future__ import annotations

import json
import os
import re
from dataclasses import dataclass, field, replace
from datetime import datetime, timezone
from pathlib import Path
from typing import Any, BinaryIO, Iterable, Literal, get_args

from gitmem.base.errors import UsageError

__all__ = ["FILE_TOOLS", "SHELL_TOOLS", "Event", "Format", "Role", "Transcript", "detect_format", "discover", "read"]

Format = Literal["claude-code", "openclaw", "jsonl"]
Role = Literal["user", "assistant", "tool_call", "tool_result", "summary", "system"]

_FORMATS: tuple[str, ...] = get_args(Format)


@dataclass(frozen=True, slots=True)
class Event:
    """One thing that happened in a session, with the line it came from."""

    line: int
    role: Role
    text: str
    timestamp: str | None
    tool: str | None = None
    is_error: bool = False
    sidechain: bool = False
    meta: bool = False


@dataclass(frozen=True)
class Transcript:
    """The events of one transcript file (or of the part after a resume point)."""

    session_id: str
    format: Format
    path: str
    cwd: str | None
    version: str | None
    started: str | None
    ended: str | None
    events: tuple[Event, ...]
    end_offset: int
    end_line: int
    skipped: int


# --------------------------------------------------------------------------- discovery

# OpenClaw keeps removed and reset sessions next to live ones under these suffixes.
_ARCHIVE_NAME = re.compile(r"\.jsonl\.(?:deleted|reset)\.[^/\\]+$")
# Claude Code's prompt history sits beside the projects folder and is no session.
_NOT_SESSIONS = frozenset({"history.jsonl"})


def _is_transcript_name(name: str) -> bool:
    if name in _NOT_SESSIONS:
        return False
    return name.endswith(".jsonl") or bool(_ARCHIVE_NAME.search(name))


def discover(paths: Iterable[Path]) -> list[Path]:
    """Expand files and folders into a sorted, de-duplicated list of transcript files.

    A file is kept as given, whatever its name. A folder is walked recursively
    (symlinked folders are not followed) for ``*.jsonl``, ``*.jsonl.deleted.<ts>``
    and ``*.jsonl.reset.<ts>``; OpenClaw's ``sessions.json`` index and Claude
    Code's ``history.jsonl`` are left out.
    """
    found: set[Path] = set()
    for raw in paths:
        path = Path(raw)
        if path.is_dir():
            for root, dirs, files in os.walk(path):
                dirs.sort()
                for name in files:
                    if _is_transcript_name(name) and (Path(root) / name).is_file():
                        found.add(Path(root) / name)
        elif path.exists():
            found.add(path)
        else:
            raise UsageError(f"no such transcript file or folder: {path}",
                             hint="check the path; a Claude Code projects folder or an OpenClaw sessions folder works")
    return sorted(found, key=lambda p: str(p))


# --------------------------------------------------------------------------- format detection

# Record types only Claude Code writes (no OpenClaw entry uses these names).
_CLAUDE_TYPES = frozenset({
    "summary", "file-history-snapshot", "queue-operation", "progress", "attachment",
    "pr-link", "permission-mode", "ai-title", "last-prompt",
})
_HEAD_LINES = 40


def _classify(rec: dict[str, Any]) -> Format | None:
    kind = rec.get("type")
    if kind == "session" and ("version" in rec or "id" in rec):
        return "openclaw"
    if "parentId" in rec and (kind == "message" or kind in {"model_change", "thinking_level_change", "custom", "compaction"}):
        return "openclaw"
    if "sessionId" in rec or "parentUuid" in rec or kind in _CLAUDE_TYPES:
        return "claude-code"
    if kind in {"user", "assistant", "system"} and isinstance(rec.get("message"), dict):
        return "claude-code"
    if "role" in rec or isinstance(rec.get("message"), dict):
        return "jsonl"
    return None


def _loads(raw: bytes) -> Any:
    try:
        # Replace undecodable bytes: one broken character must not cost a whole record.
        return json.loads(raw.decode("utf-8", "replace"))
    except ValueError:
        return None


def _open(path: Path) -> BinaryIO:
    try:
        return path.open("rb")
    except OSError as exc:
        raise UsageError(f"cannot read transcript {path}: {exc.strerror or exc}") from exc


def detect_format(path: Path) -> Format:
    """Guess a transcript's format from its first records.

    Raises ``UsageError`` naming the file when none of its first lines is a
    JSON object (the file is not JSONL at all).
    """
    path = Path(path)
    lines = objects = 0
    with _open(path) as fh:
        for _ in range(_HEAD_LINES):
            raw = fh.readline()
            if not raw:
                break
            if not raw.endswith(b"\n"):
                return _classify_partial(path, raw, lines > 0 and objects == 0)
            if not raw.strip():
                continue
            lines += 1
            rec = _loads(raw)
            if isinstance(rec, dict):
                objects += 1
                if fmt := _classify(rec):
                    return fmt
    if lines and not objects:
        raise _not_jsonl(path)
    return "jsonl"  # empty, or JSON objects of no known shape: read as generic messages


def _classify_partial(path: Path, raw: bytes, only_garbage: bool) -> Format:
    """Classify from a last line that has no newline yet (a file being written)."""
    rec = _loads(raw)
    if isinstance(rec, dict):
        return _classify(rec) or "jsonl"
    text = raw.lstrip()
    if text.startswith(b"{"):
        if b'"type":"session"' in text:
            return "openclaw"
        if b'"sessionId"' in text or b'"parentUuid"' in text:
            return "claude-code"
        return "jsonl"
    if only_garbage or text:
        raise _not_jsonl(path)
    return "jsonl"


def _not_jsonl(path: Path) -> UsageError:
    return UsageError(
        f"not a JSONL transcript: {path} (its first lines are not JSON objects)",
        hint="pass a Claude Code or OpenClaw session .jsonl file, or a JSONL file of {\"role\", \"content\"} lines",
    )


# --------------------------------------------------------------------------- text helpers

def _iso(value: Any) -> str | None:
    """An ISO-8601 timestamp from a string or epoch seconds/milliseconds."""
    if isinstance(value, str):
        return value or None
    if isinstance(value, (int, float)) and not isinstance(value, bool) and value > 0:
        seconds = value / 1000 if value > 1e11 else value  # OpenClaw and JS write milliseconds
        try:
            stamp = datetime.fromtimestamp(seconds, tz=timezone.utc)
        except (OverflowError, OSError, ValueError):
            return None
        return stamp.isoformat(timespec="milliseconds").replace("+00:00", "Z")
    return None


def _compact_json(value: Any) -> str:
    try:
        return json.dumps(value, ensure_ascii=False, separators=(",", ":"), default=str)
    except (TypeError, ValueError):
        return str(value)


def _strings(value: Any, out: list[str], depth: int = 0) -> None:
    """Collect every string inside a JSON value (keys named ``type`` left out)."""
    if depth > 12:
        return
    if isinstance(value, str):
        if value:
            out.append(value)
    elif isinstance(value, dict):
        for key, item in value.items():
            if key != "type":
                _strings(item, out, depth + 1)
    elif isinstance(value, list):
        for item in value:
            _strings(item, out, depth + 1)


def _block_text(block: Any) -> str:
    """Plain text of a content block found inside a tool result or document."""
    if isinstance(block, str):
        return block
    if not isinstance(block, dict):
        return ""
    kind = block.get("type")
    if kind == "text":
        return block.get("text") or ""
    if kind == "image":
        return "[image]"
    if kind == "tool_reference":
        return f"[tool: {block.get('tool_name', '')}]"
    if kind == "document":
        return _document_text(block)
    parts: list[str] = []
    _strings({k: v for k, v in block.items() if k not in {"data", "signature"}}, parts)
    return "\n".join(parts)


def _content_text(content: Any) -> str:
    """Plain text of a message or tool-result ``content``: a string or a list of blocks."""
    if isinstance(content, str):
        return content
    if isinstance(content, list):
        return "\n".join(t for t in (_block_text(b) for b in content) if t)
    if isinstance(content, dict):
        return _block_text(content)
    return ""


def _document_text(block: dict[str, Any]) -> str:
    source = block.get("source")
    title = block.get("title") or ""
    body = ""
    if isinstance(source, dict) and source.get("type") in {"text", "content"}:
        data = source.get("data") if source.get("type") == "text" else _content_text(source.get("content"))
        body = data if isinstance(data, str) else ""
    head = f"[document: {title}]" if title else "[document]"
    return f"{head}\n{body}" if body else head


# Tool-name families: what their input means for memory (see ``_render_call``).
SHELL_TOOLS = frozenset({"bash", "exec", "shell", "run_command", "execute_command", "powershell", "terminal", "run_shell_command"})
FILE_TOOLS = frozenset({
    "read", "write", "edit", "multiedit", "notebookedit", "create_file", "view",
    "str_replace_editor", "str_replace_based_edit_tool", "read_file", "write_file", "edit_file",
})
_PATH_KEYS = ("file_path", "path", "file", "notebook_path", "filePath", "filename")
# Shell-call fields that hold no text worth scanning (the agent's own label, places, timings).
_SHELL_PLAIN_KEYS = frozenset({"command", "cmd", "description", "timeout", "timeoutMs", "workdir", "cwd",
                               "run_in_background", "yieldMs", "background"})
_BODY_KEYS = ("content", "new_string", "old_string", "newText", "oldText", "new_source", "new_str", "old_str", "file_text", "insert_text", "text")


def _render_call(name: str, args: Any) -> str:
    """A compact rendering of a tool call's input that keeps every string in it.

    Shell tools: the command on the first line(s). File tools: the path on the
    first line, then the text being written. Anything else: compact JSON of the
    input. Other string fields follow (as JSON or one per line), so a secret
    scan over the events sees all of the input.
    """
    if isinstance(args, str):
        try:
            args = json.loads(args)  # OpenAI-style tool calls carry their arguments as a JSON string
        except ValueError:
            return args
    if not isinstance(args, dict):
        return _compact_json(args) if args is not None else ""
    lname = name.lower()
    if lname in SHELL_TOOLS:
        command = args.get("command", args.get("cmd"))
        if isinstance(command, list):
            command = " ".join(str(part) for part in command)
        if isinstance(command, str) and command:
            rest = {k: v for k, v in args.items() if k not in _SHELL_PLAIN_KEYS}
            extra: list[str] = []
            _strings(rest, extra)
            return "\n".join([command, _compact_json(rest)]) if extra else command
    if lname in FILE_TOOLS:
        path = next((args[k] for k in _PATH_KEYS if isinstance(args.get(k), str) and args[k]), None)
        if path:
            parts = [path]
            for key in _BODY_KEYS:
                if isinstance(args.get(key), str) and args[key]:
                    parts.append(args[key])
            _strings({k: v for k, v in args.items() if k not in _PATH_KEYS and k not in _BODY_KEYS}, parts)
            return "\n".join(parts)
    return _compact_json(args)


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

# OpenClaw prefixes its channel metadata and a clock to what the user typed.
_OC_UNTRUSTED = re.compile(r"^\s*[A-Z][\w ]{0,40}\(untrusted[^)\n]*\):\s*```[a-z]*\n.*?\n```\s*", re.S)
_OC_STAMP = re.compile(r"^\s*\[[^\]\n]{0,120}\d{1,2}:\d{2}[^\]\n]{0,40}\]\s*")
_OC_MESSAGE_ID = re.compile(r"\s*\[message_id:[^\]\n]*\]\s*$")
_OC_META_PREFIXES = (
    "[cron:", "A new session was started via /new or /reset",
    "Continue where you left off. The previous model attempt failed",
    "[Queued announce messages", "Read HEARTBEAT.md",
)


def _slash_command(text: str) -> str:
    tags = {name: value.strip() for name, value in _TAG.findall(text)}
    command = tags.get("command-name", "")
    args = tags.get("command-args", "")
    rendered = f"{command} {args}".strip()
    return rendered or _ANY_TAG.sub("", text).strip()


# --------------------------------------------------------------------------- reading state

@dataclass
class _State:
    """What one pass over the records accumulates (private, mutable)."""

    fmt: Format
    events: list[Event] = field(default_factory=list)
    session_id: str | None = None
    agent_id: str | None = None
    cwd: str | None = None
    version: str | None = None
    started: str | None = None
    ended: str | None = None
    tools: dict[str, str] = field(default_factory=dict)
    uuids: set[str] = field(default_factory=set)
    summary_leaves: dict[int, str] = field(default_factory=dict)

    def add(self, line: int, role: Role, text: str, ts: str | None, *, tool: str | None = None,
            is_error: bool = False, sidechain: bool = False, meta: bool = False) -> None:
        if text or role in {"tool_call", "tool_result"}:
            self.events.append(Event(line, role, text, ts, tool, is_error, sidechain, meta))

    def stamp(self, ts: str | None) -> None:
        if ts:
            if self.started is None or ts < self.started:
                self.started = ts
            if self.ended is None or ts > self.ended:
                self.ended = ts


# --------------------------------------------------------------------------- Claude Code

def _claude_record(st: _State, line: int, rec: dict[str, Any]) -> None:
    kind = rec.get("type")
    ts = _iso(rec.get("timestamp"))
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
        parts: list[str] = []
        _strings(rec.get("attachment"), parts)
        st.add(line, "system", "\n".join(parts), ts, sidechain=side, meta=True)
    elif kind == "pr-link":
        url = rec.get("prUrl") or rec.get("prRepository") or ""
        st.add(line, "system", f"Pull request #{rec.get('prNumber', '?')}: {url}".strip(), ts)
    # progress (duplicates the final tool result), file-history-snapshot, queue-operation
    # (the queued prompt comes back as a user record), last-prompt, permission-mode and
    # types this reader does not know carry nothing a memory needs.


def _claude_user(st: _State, line: int, rec: dict[str, Any], ts: str | None, side: bool) -> None:
    msg = rec.get("message")
    content = msg.get("content") if isinstance(msg, dict) else None
    meta = bool(rec.get("isMeta") or rec.get("isVisibleInTranscriptOnly"))
    if rec.get("isCompactSummary"):
        st.add(line, "summary", _content_text(content), ts, sidechain=side, meta=True)
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
            text = _content_text(block.get("content"))
            if not text:
                text = _tool_use_result_text(rec.get("toolUseResult"))
            tool = st.tools.get(str(block.get("tool_use_id")))
            st.add(line, "tool_result", text, ts, tool=tool, is_error=bool(block.get("is_error")), sidechain=side, meta=meta)
        elif kind == "document":
            st.add(line, "user", _document_text(block), ts, sidechain=side, meta=True)
        # image blocks hold pixels, no text


def _tool_use_result_text(result: Any) -> str:
    """Fallback text from the top-level ``toolUseResult`` when the block content is empty."""
    if isinstance(result, str):
        return result
    if isinstance(result, dict):
        picked = [result[k] for k in ("stdout", "stderr", "content", "error") if isinstance(result.get(k), str) and result[k]]
        return "\n".join(picked)
    if isinstance(result, list):
        return _content_text(result)
    return ""


def _claude_user_text(st: _State, line: int, text: str, ts: str | None, side: bool, meta: bool) -> None:
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


def _claude_assistant(st: _State, line: int, rec: dict[str, Any], ts: str | None, side: bool) -> None:
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
            st.add(line, "tool_call", _render_call(name, block.get("input")), ts, tool=name, sidechain=side)
        elif isinstance(kind, str) and kind.endswith("_tool_result"):
            tool = st.tools.get(str(block.get("tool_use_id")))
            st.add(line, "tool_result", _content_text(block.get("content")), ts, tool=tool, sidechain=side)
        # thinking and redacted_thinking: model reasoning stays out of memory


def _claude_system(st: _State, line: int, rec: dict[str, Any], ts: str | None, side: bool) -> None:
    subtype = rec.get("subtype")
    content = rec.get("content") if isinstance(rec.get("content"), str) else ""
    if subtype == "away_summary" and content:
        st.add(line, "summary", content, ts, sidechain=side)
    elif subtype == "api_error":
        status = rec.get("error", {}).get("status") if isinstance(rec.get("error"), dict) else None
        retry = f" (retry {rec.get('retryAttempt')}/{rec.get('maxRetries')})" if rec.get("retryAttempt") else ""
        st.add(line, "system", f"API error{f' {status}' if status else ''}{retry}", ts, is_error=True, sidechain=side, meta=True)
    elif subtype == "stop_hook_summary":
        errors = [e if isinstance(e, str) else _compact_json(e) for e in rec.get("hookErrors") or []]
        st.add(line, "system", "\n".join(errors), ts, is_error=bool(errors), sidechain=side, meta=True)
    elif content:
        if "<command-name>" in content:
            content = _slash_command(content)
        elif content.lstrip().startswith("<local-command-"):
            content = _ANY_TAG.sub("", content).strip()
        st.add(line, "system", content, ts, is_error=rec.get("level") == "error", sidechain=side, meta=True)


# --------------------------------------------------------------------------- OpenClaw

def _openclaw_record(st: _State, line: int, rec: dict[str, Any]) -> None:
    kind = rec.get("type")
    ts = _iso(rec.get("timestamp"))
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
        st.add(line, "system", _content_text(rec.get("content")), ts, meta=True)
    elif kind == "session_info":
        if isinstance(rec.get("name"), str):
            st.add(line, "summary", rec["name"], ts)
    elif kind == "custom" and rec.get("customType") == "openclaw:prompt-error":
        data = rec.get("data") if isinstance(rec.get("data"), dict) else {}
        st.add(line, "system", f"prompt error: {data.get('error', 'unknown')}", ts, is_error=True, meta=True)
    # model_change, thinking_level_change, label, other custom state: nothing to remember


def _openclaw_message(st: _State, line: int, msg: dict[str, Any], ts: str | None) -> None:
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
                st.add(line, "tool_call", _render_call(name, block.get("arguments", block.get("input"))), ts, tool=name)
        if msg.get("errorMessage") and msg.get("stopReason") in {"error", "aborted"}:
            st.add(line, "system", str(msg["errorMessage"]), ts, is_error=msg.get("stopReason") == "error", meta=True)
    elif role == "toolResult":
        tool = msg.get("toolName") or st.tools.get(str(msg.get("toolCallId")))
        st.add(line, "tool_result", _content_text(blocks), ts, tool=tool, is_error=bool(msg.get("isError")))
    elif role == "bashExecution":
        # The user's own "!" shell escape in the pi agent.
        st.add(line, "tool_call", str(msg.get("command") or ""), ts, tool="bash")
        st.add(line, "tool_result", str(msg.get("output") or ""), ts, tool="bash", is_error=bool(msg.get("exitCode")))
    elif blocks:
        st.add(line, "system", _content_text(blocks), ts, meta=True)


def _openclaw_user_text(st: _State, line: int, text: str, ts: str | None) -> None:
    clean = text
    while (m := _OC_UNTRUSTED.match(clean)):
        clean = clean[m.end():]
    clean = _OC_MESSAGE_ID.sub("", _OC_STAMP.sub("", clean, count=1)).strip()
    sidechain = clean.startswith("[Subagent Context]")
    meta = clean.startswith(_OC_META_PREFIXES) or text.lstrip().startswith("[cron:")
    st.add(line, "user", clean if not meta else text.strip(), ts, sidechain=sidechain, meta=meta)


# --------------------------------------------------------------------------- generic JSONL

_ROLE_ALIASES: dict[str, Role] = {
    "user": "user", "human": "user", "assistant": "assistant", "ai": "assistant", "model": "assistant",
    "bot": "assistant", "system": "system", "developer": "system", "tool": "tool_result", "function": "tool_result",
    "tool_result": "tool_result", "toolResult": "tool_result", "tool_call": "tool_call", "summary": "summary",
}


def _generic_record(st: _State, line: int, rec: dict[str, Any]) -> None:
    msg = rec.get("message") if isinstance(rec.get("message"), dict) else rec
    role = _ROLE_ALIASES.get(str(msg.get("role", rec.get("role", ""))))
    ts = _iso(next((rec[k] for k in ("timestamp", "time", "ts", "created_at", "date") if k in rec), None))
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
        st.add(line, "tool_call", _render_call(tool or "tool", msg.get("input", msg.get("arguments", content))), ts,
               tool=tool, sidechain=side, meta=meta)
        return
    if isinstance(content, list):
        _generic_blocks(st, line, role, content, ts, tool, is_error, side, meta)
    else:
        text = content if isinstance(content, str) else _content_text(content)
        st.add(line, role, text, ts, tool=tool if role == "tool_result" else None, is_error=is_error, sidechain=side, meta=meta)
    for call in msg.get("tool_calls") or []:  # OpenAI chat format
        fn = call.get("function") if isinstance(call, dict) else None
        if isinstance(fn, dict):
            name = str(fn.get("name") or "tool")
            st.add(line, "tool_call", _render_call(name, fn.get("arguments")), ts, tool=name, sidechain=side, meta=meta)


def _generic_blocks(st: _State, line: int, role: Role, blocks: list[Any], ts: str | None, tool: str | None,
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
            st.add(line, "tool_call", _render_call(name, block.get("input", block.get("arguments"))), ts, tool=name,
                   sidechain=side, meta=meta)
        elif kind in {"tool_result", "toolResult"}:
            st.add(line, "tool_result", _content_text(block.get("content")), ts, tool=block.get("name") or tool,
                   is_error=bool(block.get("is_error") or block.get("isError")), sidechain=side, meta=meta)
        elif kind != "image":
            plain.append(_block_text(block))
    text = "\n".join(p for p in plain if p)
    st.add(line, role, text, ts, tool=tool if role == "tool_result" else None, is_error=is_error, sidechain=side, meta=meta)


_PROCESSORS = {"claude-code": _claude_record, "openclaw": _openclaw_record, "jsonl": _generic_record}


# --------------------------------------------------------------------------- reading

def _file_stem(path: Path) -> str:
    """The session id a file name implies: ``abc.jsonl.deleted.<ts>`` → ``abc``."""
    name = path.name
    cut = name.find(".jsonl")
    return name[:cut] if cut > 0 else path.stem or name


def _scan(data: bytes, pos: int, first_line: int) -> tuple[list[tuple[int, dict[str, Any]]], int, int, int]:
    """Split ``data`` into records: (records, end position, last line number, bad lines)."""
    records: list[tuple[int, dict[str, Any]]] = []
    line = first_line
    bad = 0
    size = len(data)
    while pos < size:
        nl = data.find(b"\n", pos)
        if nl == -1:
            rec = _loads(data[pos:])
            # A whole object without its newline: complete, only the newline is missing.
            if isinstance(rec, dict):
                line += 1
                records.append((line, rec))
                pos = size
            break  # anything else is a line still being written: left for the next read
        raw = data[pos:nl]
        pos = nl + 1
        line += 1
        if not raw.strip():
            continue
        rec = _loads(raw)
        if isinstance(rec, dict):
            records.append((line, rec))
        else:
            bad += 1
    return records, pos, line, bad


def _read_from(path: Path, start_offset: int) -> tuple[bytes, bool]:
    """Bytes from ``start_offset``, and whether the previous read stopped on a line without newline."""
    if start_offset < 0:
        raise UsageError(f"negative resume offset for {path}: {start_offset}")
    with _open(path) as fh:
        size = os.fstat(fh.fileno()).st_size
        if start_offset > size:
            raise UsageError(f"transcript {path} is shorter ({size} bytes) than its resume offset {start_offset}",
                             hint="it was truncated or replaced; harvest it again from the start")
        if start_offset == 0:
            return fh.read(), False
        fh.seek(start_offset - 1)
        data = fh.read()
    return data[1:], data[:1] != b"\n"


def _head_identity(path: Path, fmt: Format) -> _State:
    """Identity fields (session id, cwd, version) from the first records of the file."""
    st = _State(fmt)
    with _open(path) as fh:
        data = fh.read(1 << 20)
    cut = data.rfind(b"\n")
    records, _, _, _ = _scan(data[: cut + 1] if cut >= 0 else b"", 0, 0)
    for line, rec in records[:200]:
        _PROCESSORS[fmt](st, line, rec)
        if st.session_id:  # a Claude Code record carries sessionId and agentId together
            break
    return st


def read(path: Path, fmt: Format | Literal["auto"] = "auto", start_offset: int = 0, start_line: int = 0) -> Transcript:
    """Read a transcript file, or the part of it after ``start_offset`` / ``start_line``.

    ``start_offset`` and ``start_line`` are the ``end_offset`` and ``end_line``
    of an earlier read of the same file: the result then holds only the events
    of lines appended since, numbered as lines of the whole file. Raises
    ``UsageError`` when the file cannot be read or is not JSONL at all.
    """
    path = Path(path)
    if fmt == "auto":
        fmt = detect_format(path)
    elif fmt not in _FORMATS:
        raise UsageError(f"unknown transcript format: {fmt}", hint=f"use one of: auto, {', '.join(_FORMATS)}")
    data, after_open_line = _read_from(path, start_offset)
    pos = 1 if after_open_line and data.startswith(b"\n") else 0
    records, end, last_line, bad = _scan(data, pos, start_line)
    if start_offset == 0 and bad and not records:
        raise _not_jsonl(path)
    st = _State(fmt)
    process = _PROCESSORS[fmt]
    for line, rec in records:
        process(st, line, rec)
    if start_offset > 0:
        head = _head_identity(path, fmt)
        st.session_id = head.session_id or st.session_id
        st.agent_id = head.agent_id or st.agent_id
        st.cwd = head.cwd or st.cwd
        st.version = head.version or st.version
        st.uuids |= head.uuids
    events = _settle_summaries(st)
    session_id = st.session_id or _file_stem(path)
    if st.agent_id:
        session_id = f"{session_id}-agent-{st.agent_id}"
    return Transcript(
        session_id=session_id, format=fmt, path=str(path), cwd=st.cwd, version=st.version,
        started=st.started, ended=st.ended, events=tuple(events),
        end_offset=start_offset + end, end_line=last_line, skipped=bad,
    )


def _settle_summaries(st: _State) -> list[Event]:
    """Mark Claude Code summaries that describe another session's leaf as meta.

    A ``summary`` record names the last message it covers (``leafUuid``); when that
    message is not in this file the summary belongs to an earlier session that
    this one continued.
    """
    events = st.events
    for index, leaf in st.summary_leaves.items():
        if leaf and leaf not in st.uuids and index < len(events):
            events[index] = replace(events[index], meta=True)
    return events
