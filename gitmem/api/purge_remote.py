"""A purge reaching a remote: what this clone purged is recorded, ``sync`` refuses a remote that still
holds it, and ``gitmem purge --remote REMOTE`` force-updates that remote's refs after a person confirms.

The record (``.git/gitmem/purged.json``, per clone, never committed) keeps no
value: a salted hash of it, the old -> new id of every commit and ref target the
rewrite moved, and salted hashes of the ref names that held the value. A remote
holds the purged history when one of its refs names an old id (or a hashed
name); that is read with one ``git ls-remote``, before anything is fetched, so
the value is never brought back into the clone.
"""

from __future__ import annotations

import hashlib
import json
import secrets
from dataclasses import dataclass
from datetime import datetime
from pathlib import Path
from typing import TYPE_CHECKING, Any

from gitmem.api.context import Context
from gitmem.base.errors import ConflictError

if TYPE_CHECKING:
    from gitmem.base.gitio.rewrite import Rewrite

RECORD = "purged.json"


@dataclass(frozen=True)
class RemoteFix:
    """One ref on a remote that holds purged history: its name, the id it holds, the id it must get
    (empty: delete it, its name held the value). ``named``: the name itself held the value (never shown)."""

    ref: str
    old: str
    new: str
    named: bool = False

    def shown(self) -> str:
        """The ref as it may be printed."""
        what = "a ref named after the purged value" if self.named else self.ref
        return f"{what}: {self.old[:12]} -> {self.new[:12] if self.new else 'deleted'}"


@dataclass(frozen=True)
class RemotePurged:
    """What ``purge --remote`` found (and, ``applied``, force-updated) on ``remote``."""

    remote: str
    fixes: tuple[RemoteFix, ...]
    applied: bool

    def to_json(self) -> dict[str, object]:
        return {"remote": self.remote, "applied": self.applied,
                "refs": [{"ref": None if f.named else f.ref, "old": f.old, "new": f.new or None} for f in self.fixes]}


def _path(root: Path) -> Path:
    from gitmem.base import state

    return state.shared_dir(root) / RECORD


def _read(root: Path) -> list[dict[str, Any]]:
    try:
        data = json.loads(_path(root).read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return []
    return [r for r in data if isinstance(r, dict)] if isinstance(data, list) else []


def _write(root: Path, records: list[dict[str, Any]]) -> None:
    path = _path(root)
    path.parent.mkdir(parents=True, exist_ok=True)
    tmp = path.with_suffix(".tmp")
    tmp.write_text(json.dumps(records, indent=1), encoding="utf-8")
    tmp.replace(path)


def _hash(salt: str, text: str) -> str:
    return hashlib.sha256((salt + text).encode("utf-8", "surrogateescape")).hexdigest()


def _remote_name(ref: str) -> str:
    """A local ref as the remote names it: ``refs/remotes/R/x`` and ``refs/heads/x`` are ``refs/heads/x``."""
    if ref.startswith("refs/remotes/"):
        return "refs/heads/" + ref.split("/", 3)[3] if ref.count("/") >= 3 else ref
    return ref


def record(root: Path, value: str, kind: str, finding: str, done: Rewrite, at: str) -> None:
    """Remember a purge that was applied (see the module docstring); nothing when it moved nothing."""
    if not done.refs and not done.commits:
        return
    salt = secrets.token_hex(16)
    ids = {old: new for old, new in done.commits}
    ids.update({r.old: r.new for r in done.refs})
    names = {_hash(salt, _remote_name(r.source)): _remote_name(r.name) for r in done.refs if r.source}
    records = _read(root)
    records.append({"at": at, "kind": kind, "id": finding, "salt": salt, "value": _hash(salt, value),
                    "ids": ids, "names": names, "cleaned": {}})
    _write(root, records)


def fixes(root: Path, remote: str) -> tuple[RemoteFix, ...]:
    """The refs ``remote`` holds now that hold history this clone purged ("" when none was purged)."""
    records = _read(root)
    if not records:
        return ()
    from gitmem.base.gitio.remote import remote_refs

    found: dict[str, RemoteFix] = {}
    for ref, oid in remote_refs(root, remote):
        for rec in records:
            ids, names, salt = rec.get("ids") or {}, rec.get("names") or {}, str(rec.get("salt") or "")
            new = ids.get(oid)
            renamed = names.get(_hash(salt, ref))
            if renamed:
                found[ref] = RemoteFix(ref, oid, "", named=True)
                if new and renamed not in found:
                    found[renamed] = RemoteFix(renamed, "0" * 40, new)
            elif new:
                found[ref] = RemoteFix(ref, oid, new)
    return tuple(found[k] for k in sorted(found))


def refuse_if_held(root: Path, remote: str) -> None:
    """``sync``'s check: refuse a remote that still holds purged history (before anything is fetched)."""
    held = fixes(root, remote)
    if held:
        shown = ", ".join(f.shown().split(":")[0] for f in held[:4]) + (" …" if len(held) > 4 else "")
        raise ConflictError(f"{remote} still holds history this clone purged ({len(held)} ref(s): {shown}); "
                            "fetching or pushing would bring the purged value back",
                            hint=f"run `gitmem purge --remote {remote}`: it shows what it force-updates there "
                                 "and asks first; every other clone then re-clones")


def purge_remote(ctx: Context, remote: str, confirm: bool = False, now: datetime | None = None) -> RemotePurged:
    """The refs of ``remote`` holding purged history; with ``confirm`` force-updated to the rewritten
    commits (each leased to the id it was listed at), recorded as cleaned."""
    from gitmem.base import clock, state
    from gitmem.base.errors import UsageError
    from gitmem.base.gitio.remote import force_update
    from gitmem.base.model import iso

    from gitmem.base.gitio import attempt

    if remote not in (attempt(ctx.root, "remote") or b"").decode("utf-8", "replace").split():
        raise UsageError(f"no remote called {remote!r} in this clone", hint="list them with `git remote -v`")
    if not _read(ctx.root):
        raise UsageError("this clone has purged nothing, so there is nothing to force-update",
                         hint="gitmem purge --value VALUE --confirm, first")
    found = fixes(ctx.root, remote)
    if not confirm or not found:
        return RemotePurged(remote, found, False)
    creates = [(f.ref, f.old, f.new) for f in found if f.old == "0" * 40]
    moves = [(f.ref, f.old, f.new) for f in found if f.old != "0" * 40]
    if creates:   # a branch renamed away from the value: pushed without force under its new name
        from gitmem.base.gitio import push

        push(ctx.root, remote, [f"{new}:{ref}" for ref, _, new in creates])
    if moves:
        force_update(ctx.root, remote, moves)
    stamp = iso(now or clock.now())
    records = _read(ctx.root)
    for rec in records:
        if isinstance(rec.get("cleaned"), dict):
            rec["cleaned"][remote] = stamp
    _write(ctx.root, records)
    state.log_event(ctx.root, "purge.remote", stamp, remote=remote, refs=len(found))
    return RemotePurged(remote, found, True)
