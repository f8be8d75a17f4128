"""The secret screen of a transcript: a secret anywhere rejects the whole session.

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

from gitmem.engines.harvest.content import UNBOUNDED, strings

if TYPE_CHECKING:
    from gitmem.guards.pii import Allowlist

__all__ = ["find_secrets", "scanned_strings"]

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
