"""False alarms a person settles: the sessions a secret refused, a finding shown masked, a finding allowed.

A harvest refuses a whole session for one secret (DESIGN.md section 7). The
scanner reads words around a value, so now and then a placeholder or an
identifier looks like one. Each secret of a refused session gets a short
stable id, derived from the session's key, its kind and a salted hash of the
value; the clone keeps, per refused session, a salted hash of the
transcript's path (the path itself only when it names no one) and where
each finding sits (``refused-sessions.json`` under the clone's state folder,
never committed, dropped once the session is harvested). A transcript of the
session folders is found again by its hash; one elsewhere is named with
``--file``.

``gitmem pii show ID`` reads the finding again from the transcript and shows
its context with the value masked. ``gitmem pii allow ID`` records it as not
a secret by a salted hash of its value, never the value: per clone
(``pii-allowed.json`` beside the refusals, salted with the clone's salt) or,
with ``--shared``, in ``.gitmem/pii-allowed.json``, committed through the
write path with a salt of its own so every clone can recognise it. The next
harvest of the session masks the allowed values and accepts it. Only a
finding read from the words around a value may be allowed: a vendor-format
key stays a secret whatever anyone records (``screen.allowable``).
"""

from __future__ import annotations

import hashlib
import json
import os
from dataclasses import dataclass
from datetime import datetime
from pathlib import Path
from typing import TYPE_CHECKING, Sequence

from gitmem.base.errors import NotFoundError, UsageError

if TYPE_CHECKING:
    from gitmem.api.context import Context
    from gitmem.base.config import Config
    from gitmem.base.gitio import Git
    from gitmem.engines.harvest.screen import Flagged, Found, Judge
    from gitmem.api.redaction import Redactor
    from gitmem.writer.commit import Writer

__all__ = ["SHARED_FILE", "Allowed", "Refused", "Shown", "allow", "clear_refusal", "finding_id", "folders_of", "judge",
           "pii_allow", "pii_show", "record_refusal", "refusal_reason", "refused", "refused_sessions", "show",
           "value_hash"]

REFUSED_FILE = "refused-sessions.json"   # per clone, under the state folder
ALLOWED_FILE = "pii-allowed.json"        # per clone, under the state folder
SHARED_FILE = ".gitmem/pii-allowed.json"  # committed: settled for every clone
CONTEXT = 60   # characters of context shown on each side of a finding


@dataclass(frozen=True)
class Refused:
    """A session a secret refused, as this clone last harvested it."""

    session: str      # the session's key (never its id as given)
    path: str         # the transcript file as this run knows it; "" when the clone keeps only its hash
    at: str
    findings: tuple[Flagged, ...]

    def to_json(self) -> dict[str, object]:
        """The session as ``status --json`` and ``harvest --json`` print it."""
        return {"session": self.session, "path": self.path, "at": self.at,
                "findings": [f.to_json() for f in self.findings]}


@dataclass(frozen=True)
class Shown:
    """Where a finding is, with its value masked."""

    id: str
    kind: str
    file: str
    line: int
    context: str      # the text around it, the value masked and every other finding replaced
    allowable: bool

    def to_json(self) -> dict[str, object]:
        """What ``pii show --json`` prints."""
        return {"id": self.id, "kind": self.kind, "file": self.file, "line": self.line, "context": self.context,
                "allowable": self.allowable}


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


def value_hash(salt: bytes, kind: str, value: str) -> str:
    """The salted hash that records a value as not a secret (never the value itself)."""
    return hashlib.sha256(b"\0".join((salt, kind.encode(), value.encode("utf-8", "surrogatepass")))).hexdigest()


def finding_id(salt: bytes, session: str, kind: str, value: str) -> str:
    """A short id, stable across harvests of one clone: from the session key, the kind and a salted hash."""
    digest = hashlib.sha256(f"{session}\0{kind}\0{value_hash(salt, kind, value)}".encode()).hexdigest()
    return f"f{digest[:10]}"


# --- the refused sessions (per clone) ------------------------------------------------

def _state(root: Path) -> Path:
    from gitmem.base import state

    return state.shared_dir(root)


def _read_json(path: Path) -> dict[str, object]:
    try:
        data = json.loads(path.read_text("utf-8"))
    except (OSError, ValueError):
        return {}
    return data if isinstance(data, dict) else {}


def _write_private(path: Path, data: object) -> None:
    """Write JSON readable by its owner only."""
    from gitmem.base.files import write_atomic

    write_atomic(path, json.dumps(data, sort_keys=True, ensure_ascii=False))
    os.chmod(path, 0o600)


def folders_of(cfg: Config) -> list[Path]:
    """The session folders of the configuration (``daemon.session_folders``), expanded."""
    return [Path(os.path.expandvars(os.path.expanduser(f))) for f in cfg.daemon.session_folders]


def _path_hash(salt: bytes, path: Path) -> str:
    return hashlib.sha256(salt + b"\0path\0" + os.fsencode(os.path.realpath(path))).hexdigest()[:32]


def _inside(path: Path, folders: Sequence[Path]) -> bool:
    from gitmem.base.files import confined

    return confined(path, folders)


def _keepable(root: Path, path: Path) -> bool:
    """A path the clone may keep in clear: nothing in it the scanner flags, no user name it learned."""
    from gitmem.base import state
    from gitmem.guards import pii

    text = str(path)
    names = pii.Names(state.salt(root), state.known_names(root))
    return not pii.scan(text) and not pii.find_names(text, names) and not pii.find_names(
        text, names.plus(pii.names_in([text])))


def record_refusal(root: Path, folders: Sequence[Path], session: str, path: Path, parts: Sequence[Path],
                   found: Sequence[Found], at: str) -> Refused:
    """Keep a refused session's findings (ids, kinds, lines; never values) for ``status`` and ``pii show``.

    A transcript's path is kept as a salted hash, in clear only when it names
    no one; one outside the session folders is found again through ``--file``.
    """
    from gitmem.base import state
    from gitmem.engines.harvest.screen import Flagged, allowable

    salt = state.salt(root)
    files = [path, *parts]
    outside = [not _inside(f, folders) for f in files]
    flagged: dict[str, Flagged] = {}
    rows: dict[str, dict[str, object]] = {}
    for f in found:
        fid = finding_id(salt, session, f.kind, f.value)
        if fid not in flagged:
            flagged[fid] = Flagged(fid, f.kind, str(files[f.part]), f.line, allowable(f.kind, f.value), outside[f.part])
            rows[fid] = {"id": fid, "kind": f.kind, "part": f.part, "line": f.line, "allowable": flagged[fid].allowable}
    refusal = Refused(session, str(path), at, tuple(flagged.values()))
    kept = [{"hash": _path_hash(salt, p), "outside": out, **({"path": str(p)} if _keepable(root, p) else {})}
            for p, out in zip(files, outside)]
    store = _state(root) / REFUSED_FILE
    data = _read_json(store)
    data[session] = {"at": at, "files": kept, "findings": list(rows.values())}
    _write_private(store, data)
    return refusal


def refusal_reason(secrets: Sequence[str], refusal: Refused) -> str:
    """The message of a refused session: what was found where, and the exact commands to settle each finding."""
    listing = "; ".join(
        f"{f.id}: {f.kind} at line {f.line}, " + (
            " then ".join(f"`{c}`" for c in f.commands()) + " if it is not a secret"
            if f.allowable else f"`{f.commands()[0]}` (a vendor key: revoke it)")
        for f in refusal.findings[:10])
    more = f"; and {len(refusal.findings) - 10} more (`gitmem status`)" if len(refusal.findings) > 10 else ""
    return f"secret in session ({', '.join(secrets[:5])}); nothing written; findings: {listing}{more}"


def clear_refusal(root: Path, session: str) -> None:
    """Forget a session's refusal: it was harvested."""
    store = _state(root) / REFUSED_FILE
    data = _read_json(store)
    if data.pop(session, None) is not None:
        _write_private(store, data)


def _entries(root: Path) -> list[tuple[str, dict[str, object]]]:
    return [(k, v) for k, v in _read_json(_state(root) / REFUSED_FILE).items() if isinstance(v, dict)]


def _list(value: object) -> list[dict[str, object]]:
    return [x for x in value if isinstance(x, dict)] if isinstance(value, list) else []


def _int(value: object) -> int:
    return value if isinstance(value, int) else 0


def _flagged(entry: dict[str, object]) -> list[tuple[Flagged, dict[str, object]]]:
    """Each finding of a kept refusal, with the record of its file (hash, whether outside, a clear path)."""
    from gitmem.engines.harvest.screen import Flagged

    files = _list(entry.get("files"))
    out = []
    for f in _list(entry.get("findings")):
        part = _int(f.get("part"))
        file = files[part] if 0 <= part < len(files) else {}
        out.append((Flagged(str(f.get("id")), str(f.get("kind")), str(file.get("path") or ""), _int(f.get("line")),
                            bool(f.get("allowable")), bool(file.get("outside"))), file))
    return out


def refused(root: Path) -> list[Refused]:
    """Every session a secret refused in this clone and not harvested since, oldest first."""
    out = []
    for session, entry in _entries(root):
        files = _list(entry.get("files"))
        path = str(files[0].get("path") or "") if files else ""
        out.append(Refused(session, path, str(entry.get("at")), tuple(f for f, _ in _flagged(entry))))
    return sorted(out, key=lambda r: r.at)


def _locate(root: Path, fid: str) -> tuple[str, Flagged, dict[str, object]]:
    for session, entry in _entries(root):
        for f, file in _flagged(entry):
            if f.id == fid:
                return session, f, file
    raise NotFoundError(f"no finding {fid[:40]!r} in a refused session of this clone",
                        hint="`gitmem status` lists the refused sessions and their finding ids")


def _transcript(root: Path, folders: Sequence[Path], file: dict[str, object], given: Path | None) -> Path:
    """The transcript file a kept finding lies in: ``--file``, the path kept in clear, or the one of the
    session folders with the same salted hash."""
    from gitmem.base import state

    salt = state.salt(root)
    want = str(file.get("hash"))
    if given is not None:
        if _path_hash(salt, given) != want:
            raise UsageError(f"{str(given)[:200]} is not the transcript this finding was found in",
                             hint="pass the file that harvest refused (its path is in harvest's message)")
        return given
    kept = file.get("path")
    if isinstance(kept, str) and _path_hash(salt, Path(kept)) == want:
        return Path(kept)
    for folder in folders:
        for top, _dirs, names in os.walk(folder):
            for name in names:
                candidate = Path(top, name)
                if ".jsonl" in name and _path_hash(salt, candidate) == want:
                    return candidate
    raise NotFoundError("the transcript of this finding is not in the session folders",
                        hint="name it: add --file PATH (the file harvest refused)")


def _value(root: Path, session: str, flagged: Flagged, path: Path) -> tuple[str, str]:
    """(the string of the record holding the finding, the value found), read again from the transcript."""
    from gitmem.base import state
    from gitmem.engines.harvest import screen
    from gitmem.guards import pii

    salt = state.salt(root)
    record = None
    try:
        with path.open("rb") as fh:
            for n, raw in enumerate(fh, 1):
                if n == flagged.line:
                    record = json.loads(raw)
                    break
    except (OSError, ValueError, RecursionError):
        record = None
    for text in screen.scanned_strings(record) if record is not None else ():
        for f in pii.scan(text):
            value = text[f.start : f.end]
            if f.secret and f.kind == flagged.kind and finding_id(salt, session, f.kind, value) == flagged.id:
                return text, value
    raise NotFoundError(f"finding {flagged.id} is no longer at line {flagged.line} of its transcript",
                        hint="harvest the session again: `gitmem harvest FILE` records its findings anew")


def show(root: Path, folders: Sequence[Path], fid: str, file: Path | None = None) -> Shown:
    """Where finding ``fid`` is: file, line, kind and its context, the value masked."""
    session, flagged, kept = _locate(root, fid.strip())
    path = _transcript(root, folders, kept, file)
    text, value = _value(root, session, flagged, path)
    return Shown(flagged.id, flagged.kind, str(path), flagged.line, _context(text, value, flagged.kind),
                 flagged.allowable)


def _context(text: str, value: str, kind: str) -> str:
    """The finding's surroundings on one line: its value as a shape (``aaaa-aaa-9999``), everything else redacted."""
    from gitmem.guards import pii, redact

    at = text.find(value)
    # each side redacted whole, then cut: a cut could leave part of another secret unrecognised
    before, after = (redact.replace(part, pii.scan(part)) for part in (text[:at], text[at + len(value) :]))
    shape = "".join("9" if ch.isdigit() else ("A" if ch.isupper() else "a") if ch.isalpha() else ch
                    for ch in value[:48]) + ("…" if len(value) > 48 else "")
    line = f"{before[-CONTEXT:]}«{pii.placeholder(kind)} {len(value)} characters: {shape}»{after[:CONTEXT]}"
    return " ".join(line.split())   # one line: newlines and tabs of the record as blanks


# --- what is settled -------------------------------------------------------------------

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

    local = _allowed_hashes(_read_json(_state(root) / ALLOWED_FILE))
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

    session, flagged, kept = _locate(root, fid.strip())
    if not flagged.allowable:
        raise UsageError(f"finding {flagged.id} is a {flagged.kind} in a vendor's key format: a secret, which "
                         "no one can allow", hint="revoke the key, delete it from the transcript, then harvest again")
    _, value = _value(root, session, flagged, _transcript(root, folders, kept, file))
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
        path = _state(root) / ALLOWED_FILE
        data = _read_json(path)
        digest = value_hash(state.salt(root), flagged.kind, value)
        if digest not in _allowed_hashes(data):
            _write_private(path, {"version": 1, "allowed": [*_rows(data), {**entry, "hash": digest}]})
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
