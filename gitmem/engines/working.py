"""Working memory: notes for the current session only, outside git.

They live in ``.git/gitmem/working.jsonl``. ``end`` moves the notes that
matter (importance at or above ``memory.working_keep``) into short-term memory
in ONE commit and drops the rest; the file is cleared only after the commit.
"""

from __future__ import annotations

import secrets
from dataclasses import dataclass
from datetime import datetime
from typing import Any

from gitmem.engines import bands
from gitmem.base import events
from gitmem.guards import guard
from gitmem.base.errors import UsageError
from gitmem.base.model import DOMAINS, TYPES, iso, new_id

WORKING_LOG = "working.jsonl"


@dataclass(frozen=True)
class Note:
    id: str
    text: str
    importance: float
    type: str
    domain: str
    at: str


@dataclass(frozen=True)
class SessionEnd:
    kept: tuple[str, ...]            # memory ids created or reinforced
    dropped: int
    commit: str | None


def _path(repo: Any) -> Any:
    return events.state_dir(repo.git.git_dir) / WORKING_LOG


def notes(repo: Any) -> list[Note]:
    """The working notes of the current session, oldest first."""
    return notes_from(_path(repo))


def add(repo: Any, text: str, importance: float | None, type: str | None, domain: str | None, now: datetime) -> Note:
    """Keep ``text`` for this session only (no commit)."""
    from gitmem.engines import encode

    text = guard.check_text(text, "note", repo.cfg.sediment.max_content_bytes).strip()
    if importance is not None:
        guard.check_range("importance", importance, 0.0, 1.0)
    enc = encode.encode(text)
    for name, value, allowed in (("type", type, TYPES), ("domain", domain, DOMAINS)):
        if value is not None and value not in allowed:
            raise UsageError(f"{name} {value!r} is not one of: {', '.join(allowed)}")
    note = Note(f"w-{secrets.token_hex(4)}", text, enc.importance if importance is None else float(importance),
                type or enc.type, domain or enc.domain, iso(now))
    events.append(_path(repo), note.__dict__)
    return note


def end(repo: Any, now: datetime, session: str | None = None) -> SessionEnd:
    """Move the notes that matter into short-term memory (one commit), drop the rest."""
    from gitmem.engines import encode
    from gitmem.store import store
    from gitmem.guards.writepath import Plan

    path = _path(repo)
    pending = path.with_suffix(".ending")
    events.set_aside(path, pending)
    all_notes = notes_from(pending)
    keep = [n for n in all_notes if n.importance >= repo.cfg.memory.working_keep]
    kept_ids: list[str] = []

    def plan(parent: str | None) -> Plan | None:
        kept_ids.clear()
        changes: dict[str, bytes | None] = {}
        for n in keep:
            dup = repo.similar_memory(n.text, n.domain, parent, encode.keywords(n.text)) if parent else None
            if dup is not None and dup.path not in changes:
                changes[dup.path] = store.rewrite(repo.git, parent, dup, bands.reinforce(dup, now, repo.cfg.memory))
                kept_ids.append(dup.id)
                continue
            mid = new_id(now, seed=f"{n.id}:{n.text}")
            mem = bands.new_memory(mid, n.text, n.type, n.domain, n.importance, n.at, now, repo.cfg.memory,
                                   keywords=encode.keywords(n.text), source=f"working:{session or 'session'}")
            changes[mem.path] = store.render(mem)
            kept_ids.append(mid)
        if not changes:
            return None
        return Plan(changes, f"gitmem: session end, {len(keep)} working notes kept", "memory.session_end",
                    session=session, body=f"{len(all_notes) - len(keep)} notes dropped")

    written = repo.store.write(plan, now)
    pending.unlink(missing_ok=True)
    return SessionEnd(tuple(kept_ids), len(all_notes) - len(keep), written.commit)


def notes_from(path: Any) -> list[Note]:
    """Notes stored in a working log file (a torn line is skipped)."""
    out = []
    for rec in events.read(path):
        try:
            out.append(Note(str(rec["id"]), str(rec["text"]), float(rec["importance"]), str(rec["type"]),
                            str(rec["domain"]), str(rec["at"])))
        except (KeyError, TypeError, ValueError):
            continue
    return out
