"""The source protocol: what a transcript reader yields, where transcripts are, which format each is.

Three formats are understood, one module each:

- ``claude-code`` (``claude_code``): ``~/.claude/projects/<project>/<session>.jsonl``
  and its ``<session>/subagents/agent-*.jsonl`` files (versions 1.0.x to 2.1.x);
- ``openclaw`` (``openclaw``): ``~/.openclaw/agents/<agent>/sessions/<id>.jsonl``
  (session header ``version: 3``), including ``*.jsonl.deleted.<ts>`` and
  ``*.jsonl.reset.<ts>`` archives;
- ``jsonl`` (``generic``): one message a line, ``{"role", "content" | "text", "timestamp"?}``.

A format module turns one JSON record into events with ``read_record(reading,
line, record)``; ``reader.read`` drives it over a file. This module holds what
they share: the ``Event`` and ``Transcript`` values, the mutable ``Reading`` a
pass accumulates, the split of bytes into records, discovery and detection.

The formats are internal to their tools and change between versions, so
reading is lenient: unknown record types, block types and fields are skipped,
a bad line in the middle is counted in ``skipped``, and a last line still
being written is left for the next read (``end_offset`` is the resume point).
A last line without its newline that already parses as a whole JSON object
is read (a file written by hand often lacks the final newline); the next
read from ``end_offset`` then skips the newline that completes it.
"""

from __future__ import annotations

import json
import os
import re
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, BinaryIO, Callable, Iterable, Iterator, Literal, get_args

from gitmem.base.errors import UsageError

__all__ = ["FORMATS", "Event", "Format", "Reading", "RecordReader", "Role", "Transcript", "check_format", "detect_format", "format_of",
           "discover", "loads", "not_jsonl", "open_transcript", "split_records"]

Format = Literal["claude-code", "openclaw", "jsonl"]
Role = Literal["user", "assistant", "tool_call", "tool_result", "summary", "system"]

FORMATS: tuple[str, ...] = get_args(Format)


@dataclass(frozen=True, slots=True)
class Event:
    """One thing that happened in a session, with the line it came from.

    ``sidechain`` marks sub-agent traffic; ``meta`` marks text the tool injected
    (not the user's own words). Model reasoning never becomes an event.
    """

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


@dataclass
class Reading:
    """What one pass over a file's records accumulates (mutable, owned by the reader)."""

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
        """Append an event; an empty text is kept only for tool calls and results."""
        if text or role in {"tool_call", "tool_result"}:
            self.events.append(Event(line, role, text, ts, tool, is_error, sidechain, meta))

    def stamp(self, ts: str | None) -> None:
        """Widen the session's start and end to include ``ts``."""
        if ts:
            if self.started is None or ts < self.started:
                self.started = ts
            if self.ended is None or ts > self.ended:
                self.ended = ts


# What a format module provides: add the events of one JSON record (numbered by its line) to a Reading.
RecordReader = Callable[[Reading, int, dict[str, Any]], None]


def check_format(fmt: str) -> Format | Literal["auto"]:
    """``fmt`` as a format name, or a ``UsageError`` listing the ones there are."""
    if fmt == "auto":
        return "auto"
    for known in get_args(Format):
        if fmt == known:
            return known  # type: ignore[no-any-return]  # get_args yields the Literal's own strings
    raise UsageError(f"unknown transcript format: {fmt}", hint=f"use one of: auto, {', '.join(FORMATS)}")


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


# --------------------------------------------------------------------------- records

def loads(raw: bytes) -> Any:
    """The JSON value of one line, or None when it is not JSON (or nests too deep to parse)."""
    try:
        # Replace undecodable bytes: one broken character must not cost a whole record.
        return json.loads(raw.decode("utf-8", "replace"))
    except (ValueError, RecursionError):
        return None


LINE_CAP = 64 << 20   # one transcript record; a pasted image or a long tool output stays far below


def open_transcript(path: Path) -> BinaryIO:
    """The file opened for binary reading, or a ``UsageError`` naming it."""
    try:
        return path.open("rb")
    except OSError as exc:
        raise UsageError(f"cannot read transcript {path}: {exc.strerror or exc}") from exc


def not_jsonl(path: Path) -> UsageError:
    """The error for a file whose lines are not JSON objects."""
    return UsageError(
        f"not a JSONL transcript: {path} (its first lines are not JSON objects)",
        hint="pass a Claude Code or OpenClaw session .jsonl file, or a JSONL file of {\"role\", \"content\"} lines",
    )


def split_records(data: bytes, pos: int, first_line: int) -> tuple[list[tuple[int, dict[str, Any]]], int, int, int]:
    """Split ``data`` from ``pos`` into records: (records with line numbers, end position, last line, bad lines)."""
    records: list[tuple[int, dict[str, Any]]] = []
    line = first_line
    bad = 0
    size = len(data)
    while pos < size:
        nl = data.find(b"\n", pos)
        if nl == -1:
            rec = loads(data[pos:])
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
        rec = loads(raw)
        if isinstance(rec, dict):
            records.append((line, rec))
        else:
            bad += 1
    return records, pos, line, bad


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


def detect_format(path: Path) -> Format:
    """Guess a transcript's format from its first records.

    Raises ``UsageError`` naming the file when none of its first lines is a
    JSON object (the file is not JSONL at all).
    """
    path = Path(path)
    with open_transcript(path) as fh:
        return _detect(path, (fh.readline(LINE_CAP + 1) for _ in range(_HEAD_LINES)))


def format_of(path: Path, data: bytes) -> Format:
    """``detect_format`` of a file whose bytes from its start are ``data`` (already read): not read again."""
    def head() -> Iterator[bytes]:
        pos = 0
        for _ in range(_HEAD_LINES):
            nl = data.find(b"\n", pos)
            yield data[pos:] if nl < 0 else data[pos : nl + 1]
            pos = len(data) if nl < 0 else nl + 1

    return _detect(Path(path), head())


def _detect(path: Path, head: Iterable[bytes]) -> Format:
    """The format the first lines ``head`` imply (each with its newline; ``b""`` at the end of the file)."""
    lines = objects = 0
    for raw in head:
        if not raw:
            break
        if not raw.endswith(b"\n"):
            return _classify_partial(path, raw, lines > 0 and objects == 0)
        if not raw.strip():
            continue
        lines += 1
        rec = loads(raw)
        if isinstance(rec, dict):
            objects += 1
            if fmt := _classify(rec):
                return fmt
    if lines and not objects:
        raise not_jsonl(path)
    return "jsonl"  # empty, or JSON objects of no known shape: read as generic messages


def _classify_partial(path: Path, raw: bytes, only_garbage: bool) -> Format:
    """Classify from a last line that has no newline yet (a file being written)."""
    rec = loads(raw)
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
        raise not_jsonl(path)
    return "jsonl"
