"""Working memory: notes for the current session only, outside git.

They live in the per-clone log ``working.jsonl``. At session end the notes
that matter (importance at or above ``memory.working_keep``) become short-term
memories in ONE commit and the rest are dropped; the log is cleared only after
the commit (the use-case layer composes that).
"""

from __future__ import annotations

import secrets
from collections.abc import Iterable, Mapping
from typing import Any
from dataclasses import dataclass
from datetime import datetime

from gitmem.base.config import Memory as MemoryConfig
from gitmem.engines import memorize
from gitmem.guards import guard
from gitmem.base.kinds import check_choice
from gitmem.base.model import DOMAINS, TYPES, Memory, iso, new_id

WORKING_LOG = "working.jsonl"


@dataclass(frozen=True)
class Note:
    id: str
    text: str
    importance: float
    type: str
    domain: str
    at: str

    def to_json(self) -> dict[str, object]:
        """The note as ``remember --working --json`` prints it."""
        return {"id": self.id, "action": "working", "importance": self.importance}


@dataclass(frozen=True)
class SessionEnd:
    kept: tuple[str, ...]            # memory ids created or reinforced
    dropped: int
    commit: str | None

    def to_json(self) -> dict[str, object]:
        """What ``session end --json`` prints."""
        return {"kept": list(self.kept), "dropped": self.dropped, "commit": self.commit}


def note(text: str, importance: float | None, type: str | None, domain: str | None, now: datetime,
         max_bytes: int) -> Note:
    """A working note for ``text``, checked and encoded (nothing stored)."""
    from gitmem.engines import encode

    text = guard.check_text(text, "note", max_bytes).strip()
    if importance is not None:
        guard.check_range("importance", importance, 0.0, 1.0)
    enc = encode.encode(text)
    check_choice("type", type, TYPES)
    check_choice("domain", domain, DOMAINS)
    return Note(f"w-{secrets.token_hex(4)}", text, enc.importance if importance is None else float(importance),
                type or enc.type, domain or enc.domain, iso(now))


def kept(notes: list[Note], cfg: MemoryConfig) -> list[Note]:
    """The notes that matter enough to become memories at session end."""
    return [n for n in notes if n.importance >= cfg.working_keep]


def to_memory(n: Note, now: datetime, cfg: MemoryConfig, session: str | None) -> Memory:
    """The short-term memory a kept note becomes."""
    from gitmem.engines import encode

    mid = new_id(now, seed=f"{n.id}:{n.text}")
    return memorize.new_memory(mid, n.text, n.type, n.domain, n.importance, n.at, now, cfg,
                               keywords=encode.keywords(n.text), source=f"working:{session or 'session'}")


def notes_of(records: Iterable[Mapping[str, Any]]) -> list[Note]:
    """The notes of a working log's records (the use case reads the file); an incomplete record is skipped."""
    out = []
    for rec in records:
        try:
            out.append(Note(str(rec["id"]), str(rec["text"]), float(rec["importance"]), str(rec["type"]),
                            str(rec["domain"]), str(rec["at"])))
        except (KeyError, TypeError, ValueError):
            continue
    return out
