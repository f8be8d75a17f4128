"""Read a transcript file, whole or from a resume point, into a ``Transcript``.

The format (given, or detected from the first records) picks the module that
turns each record into events; this module handles the bytes: where a
previous read stopped, lines still being written, the identity fields a
resumed read takes from the head of the file. ``load`` reads a whole file
once for everything harvest derives from it: the transcript, the records the
secret screen scans, the bytes the redaction learns user names from.
"""

from __future__ import annotations

import os
from dataclasses import replace
from pathlib import Path
from typing import Any, NamedTuple

from gitmem.base.errors import UsageError
from gitmem.base.streams import read_lines
from gitmem.engines.harvest import claude_code, generic, openclaw
from gitmem.engines.harvest.sources import (LINE_CAP, Event, Format, Reading, RecordReader, Transcript, check_format, detect_format,
                                            format_of, not_jsonl, open_transcript, split_records)

__all__ = ["Loaded", "load", "read", "session_of"]

_READERS: dict[Format, RecordReader] = {
    "claude-code": claude_code.read_record, "openclaw": openclaw.read_record, "jsonl": generic.read_record,
}


def _file_stem(path: Path) -> str:
    """The session id a file name implies: ``abc.jsonl.deleted.<ts>`` → ``abc``."""
    name = path.name
    cut = name.find(".jsonl")
    return name[:cut] if cut > 0 else path.stem or name


def _read_from(path: Path, start_offset: int, start_line: int = 0) -> tuple[bytes, bool]:
    """Bytes from ``start_offset``, and whether the previous read stopped on a line without newline.

    Lines are read under ``LINE_CAP``: an endless or binary file ends with an error naming the cap.
    """
    if start_offset < 0:
        raise UsageError(f"negative resume offset for {path}: {start_offset}")
    with open_transcript(path) as fh:
        size = os.fstat(fh.fileno()).st_size
        if start_offset > size and os.path.isfile(path):
            raise UsageError(f"transcript {path} is shorter ({size} bytes) than its resume offset {start_offset}",
                             hint="it was truncated or replaced; harvest it again from the start")
        if start_offset == 0:
            return read_lines(fh, LINE_CAP, f"transcript {path}"), False
        fh.seek(start_offset - 1)
        data = read_lines(fh, LINE_CAP, f"transcript {path}", start_line)
    return data[1:], data[:1] != b"\n"


def _head_identity(path: Path, fmt: Format) -> Reading:
    """Identity fields (session id, cwd, version) from the first records of the file."""
    st = Reading(fmt)
    with open_transcript(path) as fh:
        data = fh.read(1 << 20)
    cut = data.rfind(b"\n")
    records, _, _, _ = split_records(data[: cut + 1] if cut >= 0 else b"", 0, 0)
    for line, rec in records[:200]:
        _READERS[fmt](st, line, rec)
        if st.session_id:  # a Claude Code record carries sessionId and agentId together
            break
    return st


def _file_time(path: Path) -> str | None:
    from datetime import datetime, timezone

    try:
        return datetime.fromtimestamp(path.stat().st_mtime, timezone.utc).strftime("%Y-%m-%dT%H:%M:%SZ")
    except (OSError, ValueError, OverflowError):
        return None


def session_of(path: Path, fmt: str = "auto") -> str | None:
    """The ``sessionId`` a Claude Code transcript's first records carry (None for other formats)."""
    given = check_format(fmt)
    form: Format = detect_format(path) if given == "auto" else given
    return _head_identity(path, form).session_id if form == "claude-code" else None


class Loaded(NamedTuple):
    """A transcript file read once: its transcript, its records by line, its bytes, and the format its
    first records show (``detect_format``, taken from the same bytes; None for a resumed read of a
    format given)."""

    transcript: Transcript
    records: list[tuple[int, dict[str, Any]]]
    data: bytes
    detected: Format | None = None


def load(path: Path, fmt: str = "auto") -> Loaded:
    """Read a whole transcript file once: its transcript with the records and bytes it came from."""
    return _load(Path(path), fmt, 0, 0)


def read(path: Path, fmt: str = "auto", start_offset: int = 0, start_line: int = 0) -> Transcript:
    """Read a transcript file, or the part of it after ``start_offset`` / ``start_line``.

    ``start_offset`` and ``start_line`` are the ``end_offset`` and ``end_line``
    of an earlier read of the same file: the result then holds only the events
    of lines appended since, numbered as lines of the whole file. Raises
    ``UsageError`` when the file cannot be read or is not JSONL at all.
    """
    return _load(Path(path), fmt, start_offset, start_line).transcript


def _load(path: Path, fmt: str, start_offset: int, start_line: int) -> Loaded:
    given = check_format(fmt)
    detected: Format | None = None
    if start_offset > 0:
        form: Format = detect_format(path) if given == "auto" else given
        detected = form if given == "auto" else None
        data, after_open_line = _read_from(path, start_offset, start_line)
    else:   # the whole file: its format from the bytes read, not from a second read of its head
        data, after_open_line = _read_from(path, 0)
        detected = format_of(path, data)
        form = detected if given == "auto" else given
    pos = 1 if after_open_line and data.startswith(b"\n") else 0
    records, end, last_line, bad = split_records(data, pos, start_line)
    if start_offset == 0 and bad and not records:
        raise not_jsonl(path)
    st = Reading(form)
    process = _READERS[form]
    for line, rec in records:
        process(st, line, rec)
    if start_offset > 0:
        head = _head_identity(path, form)
        st.session_id = head.session_id or st.session_id
        st.agent_id = head.agent_id or st.agent_id
        st.cwd = head.cwd or st.cwd
        st.version = head.version or st.version
        st.uuids |= head.uuids
    events = _settle_summaries(st)
    session_id = st.session_id or _file_stem(path)
    if st.agent_id:
        session_id = f"{session_id}-agent-{st.agent_id}"
    return Loaded(Transcript(
        session_id=session_id, format=form, path=str(path), cwd=st.cwd, version=st.version,
        # records without a timestamp date the episode by the file's own (first read only)
        started=st.started or (_file_time(path) if start_offset == 0 else None), ended=st.ended, events=tuple(events),
        end_offset=start_offset + end, end_line=last_line, skipped=bad,
    ), records, data, detected)


def _settle_summaries(st: Reading) -> list[Event]:
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
