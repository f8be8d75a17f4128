"""False alarms a person settles: a finding allowed as not a secret, per clone or for every clone.

A harvest refuses a whole session for one secret (DESIGN.md section 7). The
scanner reads words around a value, so now and then a placeholder or an
identifier looks like one. The refused sessions and their findings are kept
by ``gitmem.api.refusals`` (``gitmem pii show ID`` reads a finding again
there, its value masked).

``gitmem pii allow ID`` records a finding as not a secret by a salted hash
of its value, never the value: per clone (``pii-allowed.json`` beside the
refusals, salted with the clone's salt) or, with ``--shared``, in
``.gitmem/pii-allowed.json``, committed through the write path with a salt of
its own so every clone can recognise it. The next harvest of the session
masks the allowed values and accepts it. Only a finding read from the words
around a value may be allowed: a vendor-format key stays a secret whatever
anyone records (``screen.allowable``).
"""

from __future__ import annotations

import json
import os
from dataclasses import dataclass
from datetime import datetime
from pathlib import Path
from typing import TYPE_CHECKING, Sequence

from gitmem.api.refusals import (REFUSED_FILE, Refused, Shown, clear_refusal, finding_id, locate, read_json,
                                 record_refusal, refusal_reason, refused, show, state_dir, transcript, value_at,
                                 value_hash, write_private)
from gitmem.api.sessionfolders import folders_of
from gitmem.base import state
from gitmem.base.errors import UsageError

if TYPE_CHECKING:
    from gitmem.api.context import Context
    from gitmem.api.redaction import Redactor
    from gitmem.base.gitio import Git
    from gitmem.engines.harvest.screen import Judge
    from gitmem.writer.commit import Writer

__all__ = ["REFUSED_FILE", "SHARED_FILE", "Allowed", "Refused", "Shown", "allow", "clear_refusal", "finding_id",
           "folders_of", "judge", "pii_allow", "pii_show", "record_refusal", "refusal_reason", "refused",
           "refused_sessions", "show", "value_hash"]

ALLOWED_FILE = state.PII_ALLOWED_FILE   # per clone, under the state folder
SHARED_FILE = state.SHARED_PII_ALLOWED  # committed: settled for every clone


@dataclass(frozen=True)
class Allowed:
    """A finding recorded as not a secret."""

    id: str
    kind: str
    shared: bool
    commit: str | None   # the commit of a --shared record
    session: str         # the refused session's key: its next harvest accepts it (when nothing else refuses it)

    def to_json(self) -> dict[str, object]:
        """What ``pii allow --json`` prints."""
        return {"id": self.id, "kind": self.kind, "shared": self.shared, "commit": self.commit,
                "session": self.session}


def _rows(data: dict[str, object]) -> list[dict[str, object]]:
    rows = data.get("allowed")
    return [a for a in rows if isinstance(a, dict)] if isinstance(rows, list) else []


def _allowed_hashes(data: dict[str, object]) -> set[str]:
    return {str(a.get("hash")) for a in _rows(data)}


def _shared(git: Git, head: str | None) -> dict[str, object]:
    raw = git.read(SHARED_FILE, head) if head else None
    try:
        data = json.loads(raw) if raw else {}
    except ValueError:
        return {}
    return data if isinstance(data, dict) else {}


def judge(root: Path, git: Git, head: str | None) -> Judge | None:
    """Whether a (kind, value) was settled as not a secret, per clone or in the committed record; None when
    nothing was."""
    from gitmem.base import state

    local = _allowed_hashes(read_json(state_dir(root) / ALLOWED_FILE))
    shared = _shared(git, head)
    shared_hashes = _allowed_hashes(shared)
    if not local and not shared_hashes:
        return None
    salt = state.salt(root)
    shared_salt = str(shared.get("salt") or "").encode()

    def settled(kind: str, value: str) -> bool:
        return value_hash(salt, kind, value) in local or bool(shared_salt) and value_hash(shared_salt, kind, value) in shared_hashes

    return settled


def allow(root: Path, writer: Writer, redactor: Redactor, folders: Sequence[Path], fid: str, reason: str,
          shared: bool, now: datetime, file: Path | None = None) -> Allowed:
    """Record finding ``fid`` as not a secret: per clone, or committed in ``.gitmem/`` with ``shared``.

    Refused for a vendor-format key. The reason is redacted like any text
    gitmem keeps (a secret in it refuses the record). Logged as a
    ``pii.allowed`` event.
    """
    from gitmem.base import state
    from gitmem.base.model import iso
    from gitmem.writer.plan import Plan

    session, flagged, kept = locate(root, fid.strip())
    if not flagged.allowable:
        raise UsageError(f"finding {flagged.id} is a {flagged.kind} in a vendor's key format: a secret, which "
                         "no one can allow", hint="revoke the key, delete it from the transcript, then harvest again")
    _, value = value_at(root, session, flagged, transcript(root, folders, kept, file))
    why = redactor.redact_text(reason.strip(), "reason", "pii.allowed", now)[:300] if reason.strip() else ""
    entry = {"id": flagged.id, "kind": flagged.kind, "at": iso(now), "reason": why}
    commit = None
    if shared:
        git = writer.git

        def plan(parent: str | None) -> Plan[None] | None:
            data = _shared(git, parent)
            salt = str(data.get("salt") or "") or os.urandom(16).hex()
            digest = value_hash(salt.encode(), flagged.kind, value)
            if digest in _allowed_hashes(data):
                return None
            body = {"version": 1, "salt": salt, "allowed": [*_rows(data), {**entry, "hash": digest}]}
            text = json.dumps(body, indent=1, sort_keys=True, ensure_ascii=False) + "\n"
            return Plan({SHARED_FILE: text.encode("utf-8")}, f"gitmem: pii allow {flagged.id} ({flagged.kind} is not a secret)",
                        "pii.allow", body=why)

        commit = writer.write(plan, now).commit
    else:
        path = state_dir(root) / ALLOWED_FILE
        data = read_json(path)
        digest = value_hash(state.salt(root), flagged.kind, value)
        if digest not in _allowed_hashes(data):
            write_private(path, {"version": 1, "allowed": [*_rows(data), {**entry, "hash": digest}]})
    state.log_event(root, "pii.allowed", iso(now), id=flagged.id, kind=flagged.kind, shared=shared, reason=why,
                    session=session, **({"commit": commit} if commit else {}))
    return Allowed(flagged.id, flagged.kind, shared, commit, session)


# --- the use cases over a repository's context (what MemoryRepo delegates to) -------------------------

def refused_sessions(ctx: Context) -> list[Refused]:
    """Every session a secret refused in this clone and not harvested since, with its finding ids."""
    return refused(ctx.root)


def pii_show(ctx: Context, finding: str, file: str | Path | None = None) -> Shown:
    """Where a refused session's finding is (file, line, kind, context), its value masked; ``file`` names a
    transcript outside the session folders."""
    return show(ctx.root, folders_of(ctx.cfg), finding, Path(file) if file else None)


def pii_allow(ctx: Context, finding: str, reason: str = "", shared: bool = False, now: datetime | None = None,
              file: str | Path | None = None) -> Allowed:
    """Record a finding as not a secret (a salted hash of its value): per clone, or committed with ``shared``."""
    from gitmem.base import clock

    return allow(ctx.root, ctx.writer, ctx.redactor, folders_of(ctx.cfg), finding, reason, shared, now or clock.now(),
                 Path(file) if file else None)
