"""The screens of a transcript: a secret anywhere rejects the whole session; a file
that is not a transcript of the format asked for is refused; a session with
no conversation writes nothing.

Every string of every complete record is scanned (user text, tool input,
tool output, attachments, any field of any record), not only the text that
becomes events, so nothing the reader leaves out can hide a key. Two kinds
of string carry no typed text and are skipped: a thinking block's
``signature`` and the base64 ``data`` of an image or other binary payload.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import TYPE_CHECKING, Any, Mapping

from gitmem.base.errors import UsageError
from gitmem.engines.harvest.content import UNBOUNDED, strings
from gitmem.engines.harvest.sources import Transcript, detect_format

if TYPE_CHECKING:
    from gitmem.guards.pii import Allowlist

__all__ = ["check_transcript", "find_secrets", "has_conversation", "scanned_strings"]

# Shorter strings cannot hold a secret of any kind the scanner knows.
_MIN_LEN = 8


def _is_media(record: Mapping[str, Any]) -> bool:
    """An image or other binary payload block: its base64 ``data`` holds no typed text."""
    return record.get("type") in ("image", "base64", "document") or "mimeType" in record or "media_type" in record


def _no_text(owner: Mapping[str, Any], key: str) -> bool:
    return key == "signature" or (key == "data" and _is_media(owner))


def scanned_strings(record: Any) -> list[str]:
    """The strings of one JSON record that the secret scan reads, in document order."""
    return [s for s in strings(record, _no_text, UNBOUNDED) if len(s) >= _MIN_LEN]


def find_secrets(path: Path, allow: Allowlist | None = None) -> list[str]:
    """``"<kind> at line N"`` for each secret kind in each complete record of the file.

    A line that is not JSON is not scanned: the reader skips it too, so
    nothing of it can reach memory.
    """
    from gitmem.guards import pii

    found: list[str] = []
    with path.open("rb") as fh:
        for n, raw in enumerate(fh, 1):
            try:
                record = json.loads(raw)
            except (ValueError, RecursionError):
                continue
            kinds = {f.kind for t in scanned_strings(record) for f in pii.scan(t, allow) if f.secret}
            found.extend(f"{k} at line {n}" for k in sorted(kinds))
    return found


# The roles of a conversation: what a person and an agent said and did.
_TURNS = frozenset({"user", "assistant", "tool_call", "tool_result"})


def has_conversation(t: Transcript) -> bool:
    """Whether the session holds anything said or done (not only summaries, snapshots or injected text)."""
    return any(e.role in _TURNS and not e.meta for e in t.events)


def check_transcript(path: Path, fmt: str, t: Transcript) -> None:
    """Refuse a file that is not a transcript of the format asked for (``UsageError``; the caller names the file).

    A file another format's reader should read (``--format openclaw`` on a
    Claude Code session), or one whose records none of the readers knows (any
    JSONL that is not a transcript), is refused before anything is written,
    so nothing marks it as harvested.
    """
    detected = detect_format(path)
    if fmt != "auto" and detected != fmt and (detected != "jsonl" or not t.events):
        raise UsageError(f"not a transcript of format {fmt} (it reads as {detected}); nothing written; "
                         f"harvest it with --format {detected if detected != 'jsonl' else 'auto'}")
    if detected == "jsonl" and not t.events and t.end_line > 0:
        raise UsageError("not a transcript (none of its records is a message of a known format); nothing written; "
                         "pass a Claude Code or OpenClaw session .jsonl file, or a JSONL file of {\"role\", \"content\"} lines")
