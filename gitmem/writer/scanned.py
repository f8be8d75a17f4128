"""The per-clone record of document bodies the write path scanned clean, for large writes.

A large write (``LARGE`` documents or more: a decay archiving many memories,
an import) hands the PII guard the bodies this clone scanned clean before
(``gitmem.guards.cleanbodies``) and, once its commit is made, records the ones
it scanned clean itself. The record is one file of raw blob ids under the
clone's state folder, named by a key of everything a verdict depends on: the
scanner's code, ``gitmem.yaml``'s ``pii`` settings, this clone's ``pii allow``
records and the shared ones at the parent. When any of them changes the key
changes, nothing recorded before counts, and the old file is removed at the
next save. A one-memory write scans its body as before (loading the record
would cost more than the scan).
"""

from __future__ import annotations

import hashlib
from collections.abc import Mapping
from functools import lru_cache
from pathlib import Path

from gitmem.base import state
from gitmem.base.config import Config
from gitmem.base.files import write_atomic
from gitmem.base.gitio import Git
from gitmem.guards.cleanbodies import CleanBodies

LARGE = 128   # documents in one write from which the record is used
RECORD_DIR = "scanned-clean"
_ID = 20


@lru_cache(maxsize=1)
def scanner_version() -> str:
    """A digest of the scanner's own code: a change to any of it makes every record stale."""
    import gitmem
    from gitmem.guards import pii, redact

    digest = hashlib.sha256(gitmem.__version__.encode())
    files = sorted(Path(pii.__file__).parent.glob("*.py")) + [Path(redact.__file__)]
    for path in files:
        digest.update(path.name.encode() + b"\0" + path.read_bytes())
    return digest.hexdigest()


def record_path(git: Git, cfg: Config, parent: str | None) -> Path:
    """The record's file for the scanner, settings and allow records in force at ``parent``."""
    folder = state.shared_dir(git.root)
    try:
        local = (folder / state.PII_ALLOWED_FILE).read_bytes()
    except OSError:
        local = b""
    shared = (git.read(state.SHARED_PII_ALLOWED, parent) if parent is not None else None) or b""
    key = hashlib.sha256("\0".join((scanner_version(), repr(cfg.pii))).encode()
                         + b"\0" + hashlib.sha256(local).digest() + hashlib.sha256(shared).digest())
    return folder / RECORD_DIR / f"{key.hexdigest()[:40]}.ids"


def worth(changes: Mapping[str, bytes | None]) -> bool:
    """A write large enough for the record."""
    return sum(1 for p, d in changes.items() if d is not None and p.endswith(".md")) >= LARGE


def load(path: Path) -> CleanBodies:
    """The bodies recorded clean in ``path`` (none when it is missing or unreadable)."""
    try:
        data = path.read_bytes()
    except OSError:
        return CleanBodies()
    usable = len(data) - len(data) % _ID
    return CleanBodies(frozenset(data[i:i + _ID] for i in range(0, usable, _ID)))


def save(path: Path, bodies: CleanBodies) -> None:
    """Add the bodies scanned clean in this write to the record; records under other keys go."""
    if not bodies.fresh:
        return
    write_atomic(path, b"".join(sorted(bodies.known | bodies.fresh)), make_folders=True)
    for other in path.parent.glob("*.ids"):
        if other != path:
            other.unlink(missing_ok=True)
