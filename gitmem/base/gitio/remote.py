"""A remote's refs as it holds them now, and the one forced update gitmem makes (``gitmem purge --remote``).

gitmem never forces a push, except here: after a confirmed purge a person asks
for the remote's refs that still hold the old history to be moved to the
rewritten commits. Every update is leased to the id the remote held when it
was listed (``--force-with-lease=REF:ID``), so anything pushed there meanwhile
makes git refuse that ref instead of losing it.
"""

from __future__ import annotations

import re
from pathlib import Path
from typing import Sequence

from gitmem.base.gitio.command import END, check_ref_name, check_remote, run

_ID = re.compile(r"[0-9a-f]{40}([0-9a-f]{24})?\Z")


def remote_refs(root: Path | str, remote: str) -> list[tuple[str, str]]:
    """(ref name, id) of every ref ``remote`` holds now (``git ls-remote``; peeled tag lines left out)."""
    out = run(root, "ls-remote", END, check_remote(remote)).decode("utf-8", "replace")
    refs = []
    for line in out.splitlines():
        oid, _, name = line.partition("\t")
        if name and not name.endswith("^{}") and name.startswith("refs/") and _ID.match(oid):
            refs.append((name, oid))
    return refs


def force_update(root: Path | str, remote: str, updates: Sequence[tuple[str, str, str]]) -> str:
    """Move each ``(ref, id it holds, new id)`` on ``remote`` (an empty new id deletes the ref), each leased
    to the id it holds; git's report. Raises GitError when the remote refused any of them."""
    leases, specs = [], []
    for ref, old, new in updates:
        check_ref_name(ref)
        if not _ID.match(old) or (new and not _ID.match(new)):
            raise ValueError(f"not an object id: {old!r} / {new!r}")
        leases.append(f"--force-with-lease={ref}:{old}")
        specs.append(f"{new}:{ref}" if new else f":{ref}")
    return run(root, "push", "--porcelain", *leases, END, check_remote(remote), *specs).decode("utf-8", "replace")


__all__ = ["force_update", "remote_refs"]
