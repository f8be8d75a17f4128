"""The sessions a secret refused, as this clone keeps them, and a finding read again from its transcript.

Each secret of a refused session gets a short stable id, derived from the
session's key, its kind and a salted hash of the value (``finding_id``); the
clone keeps, per refused session, a salted hash of the transcript's path (the
path itself only when it names no one) and where each finding sits
(``refused-sessions.json`` under the clone's state folder, never committed,
dropped once the session is harvested). ``show`` reads a finding again from
its transcript (found again by its hash in the session folders, or named) and
gives its context with the value masked. Settling a finding is
``gitmem.api.findings``.
"""

from __future__ import annotations

import hashlib
import json
import os
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Sequence

from gitmem.api.sessionfolders import inside
from gitmem.base.errors import NotFoundError, UsageError

if TYPE_CHECKING:
    from gitmem.engines.harvest.screen import Flagged, Found

__all__ = ["REFUSED_FILE", "Refused", "Shown", "clear_refusal", "finding_id", "locate", "read_json", "record_refusal",
           "refusal_reason", "refused", "show", "state_dir", "transcript", "value_at", "value_hash", "write_private"]

REFUSED_FILE = "refused-sessions.json"   # per clone, under the state folder
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


def value_hash(salt: bytes, kind: str, value: str) -> str:
    """The salted hash that records a value as not a secret (never the value itself)."""
    return hashlib.sha256(b"\0".join((salt, kind.encode(), value.encode("utf-8", "surrogatepass")))).hexdigest()


def finding_id(salt: bytes, session: str, kind: str, value: str) -> str:
    """A short id, stable across harvests of one clone: from the session key, the kind and a salted hash."""
    digest = hashlib.sha256(f"{session}\0{kind}\0{value_hash(salt, kind, value)}".encode()).hexdigest()
    return f"f{digest[:10]}"


def state_dir(root: Path) -> Path:
    from gitmem.base import state

    return state.shared_dir(root)


def read_json(path: Path) -> dict[str, object]:
    try:
        data = json.loads(path.read_text("utf-8"))
    except (OSError, ValueError):
        return {}
    return data if isinstance(data, dict) else {}


def write_private(path: Path, data: object) -> None:
    """Write JSON readable by its owner only."""
    from gitmem.base.files import write_atomic

    write_atomic(path, json.dumps(data, sort_keys=True, ensure_ascii=False))
    os.chmod(path, 0o600)


def _path_hash(salt: bytes, path: Path) -> str:
    return hashlib.sha256(salt + b"\0path\0" + os.fsencode(os.path.realpath(path))).hexdigest()[:32]


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
    outside = [not inside(f, folders) for f in files]
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
    store = state_dir(root) / REFUSED_FILE
    data = read_json(store)
    data[session] = {"at": at, "files": kept, "findings": list(rows.values())}
    write_private(store, data)
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
    store = state_dir(root) / REFUSED_FILE
    data = read_json(store)
    if data.pop(session, None) is not None:
        write_private(store, data)


def _entries(root: Path) -> list[tuple[str, dict[str, object]]]:
    return [(k, v) for k, v in read_json(state_dir(root) / REFUSED_FILE).items() if isinstance(v, dict)]


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


def locate(root: Path, fid: str) -> tuple[str, Flagged, dict[str, object]]:
    for session, entry in _entries(root):
        for f, file in _flagged(entry):
            if f.id == fid:
                return session, f, file
    raise NotFoundError(f"no finding {fid[:40]!r} in a refused session of this clone",
                        hint="`gitmem status` lists the refused sessions and their finding ids")


def transcript(root: Path, folders: Sequence[Path], file: dict[str, object], given: Path | None) -> Path:
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


def value_at(root: Path, session: str, flagged: Flagged, path: Path) -> tuple[str, str]:
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
    session, flagged, kept = locate(root, fid.strip())
    path = transcript(root, folders, kept, file)
    text, value = value_at(root, session, flagged, path)
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
