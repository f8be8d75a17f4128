"""The text inside transcript JSON: the one string walker, content blocks, tool calls, timestamps.

Shared by the format modules (what an event's text is) and by the secret
screen (what a scan must see). ``strings`` is the only walker over JSON
values in gitmem: it keeps an explicit stack, so no nesting depth can raise
``RecursionError``, and ``max_depth`` bounds how deep it looks.
"""

from __future__ import annotations

import json
from datetime import datetime, timezone
from typing import Any, Callable, Mapping

__all__ = ["FILE_TOOLS", "SHELL_TOOLS", "UNBOUNDED", "attachment_text", "block_text", "compact_json", "content_text", "document_text",
           "iso_time", "render_call", "strings"]

# Deeper than any JSON the standard parser accepts: a walk with this bound sees every string.
UNBOUNDED = 1 << 30
# Event text looks this deep into an unknown structure; nothing a person typed nests deeper.
EVENT_DEPTH = 12

LeaveOut = Callable[[Mapping[str, Any], str], bool]


def _never(_mapping: Mapping[str, Any], _key: str) -> bool:
    return False


def strings(value: Any, leave_out: LeaveOut = _never, max_depth: int = EVENT_DEPTH) -> list[str]:
    """Every non-empty string inside a JSON value, in document order.

    ``leave_out(mapping, key)`` drops a string that is the value of ``key``
    in ``mapping`` (strings deeper under that key are still collected).
    Values deeper than ``max_depth`` levels below ``value`` are not visited
    (``UNBOUNDED``: all). Keys are not collected, only values.
    """
    out: list[str] = []
    # (value, depth, the mapping and key holding it directly, if a mapping does)
    stack: list[tuple[Any, int, Mapping[str, Any] | None, str]] = [(value, 0, None, "")]
    while stack:
        item, depth, owner, key = stack.pop()
        if depth > max_depth:
            continue
        if isinstance(item, str):
            if item and (owner is None or not leave_out(owner, key)):
                out.append(item)
        elif isinstance(item, dict):
            stack.extend((v, depth + 1, item, str(k)) for k, v in reversed(list(item.items())))
        elif isinstance(item, list):
            stack.extend((v, depth + 1, None, "") for v in reversed(item))
    return out


def _type_key(_mapping: Mapping[str, Any], key: str) -> bool:
    return key == "type"


def iso_time(value: Any) -> str | None:
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


def compact_json(value: Any) -> str:
    """One-line JSON of ``value`` (``str`` of it when it cannot be encoded)."""
    try:
        return json.dumps(value, ensure_ascii=False, separators=(",", ":"), default=str)
    except (TypeError, ValueError, RecursionError):
        return str(value)


def block_text(block: Any) -> str:
    """Plain text of a content block found inside a message, tool result or document."""
    if isinstance(block, str):
        return block
    if not isinstance(block, dict):
        return ""
    kind = block.get("type")
    if kind == "text":
        text = block.get("text")
        return text if isinstance(text, str) else content_text(text) if isinstance(text, list) else ""
    if kind == "image":
        return "[image]"
    if kind == "tool_reference":
        return f"[tool: {block.get('tool_name', '')}]"
    if kind == "document":
        return document_text(block)
    return "\n".join(strings({k: v for k, v in block.items() if k not in {"data", "signature"}}, _type_key))


def content_text(content: Any) -> str:
    """Plain text of a message or tool-result ``content``: a string or a list of blocks."""
    if isinstance(content, str):
        return content
    if isinstance(content, list):
        return "\n".join(t for t in (block_text(b) for b in content) if t)
    if isinstance(content, dict):
        return block_text(content)
    return ""


def document_text(block: dict[str, Any]) -> str:
    """``[document: title]`` and the document's text, when it carries text."""
    source = block.get("source")
    title = block.get("title") or ""
    body = ""
    if isinstance(source, dict) and source.get("type") in {"text", "content"}:
        data = source.get("data") if source.get("type") == "text" else content_text(source.get("content"))
        body = data if isinstance(data, str) else ""
    head = f"[document: {title}]" if title else "[document]"
    return f"{head}\n{body}" if body else head


def attachment_text(value: Any) -> str:
    """Every string of an attachment, one a line (``type`` names left out)."""
    return "\n".join(strings(value, _type_key))


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


def render_call(name: str, args: Any) -> str:
    """A compact rendering of a tool call's input that keeps every string in it.

    Shell tools: the command on the first line(s). File tools: the path on the
    first line, then the text being written. Anything else: compact JSON of the
    input. Other string fields follow (as JSON or one per line), so a secret
    scan over the events sees all of the input.
    """
    if isinstance(args, str):
        text = args
        try:
            args = json.loads(text)  # OpenAI-style tool calls carry their arguments as a JSON string
        except (ValueError, RecursionError):
            return text
    if not isinstance(args, dict):
        return compact_json(args) if args is not None else ""
    lname = name.lower()
    if lname in SHELL_TOOLS:
        command = args.get("command", args.get("cmd"))
        if isinstance(command, list):
            command = " ".join(str(part) for part in command)
        if isinstance(command, str) and command:
            rest = {k: v for k, v in args.items() if k not in _SHELL_PLAIN_KEYS}
            extra = strings(rest, _type_key)
            return "\n".join([command, compact_json(rest)]) if extra else command
    if lname in FILE_TOOLS:
        path = next((args[k] for k in _PATH_KEYS if isinstance(args.get(k), str) and args[k]), None)
        if path:
            parts = [path]
            for key in _BODY_KEYS:
                if isinstance(args.get(key), str) and args[key]:
                    parts.append(args[key])
            parts += strings({k: v for k, v in args.items() if k not in _PATH_KEYS and k not in _BODY_KEYS}, _type_key)
            return "\n".join(parts)
    return compact_json(args)


