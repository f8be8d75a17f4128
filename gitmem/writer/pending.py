"""The growth the amplitude guard queued in ``.gitmem/pending/``, applied by later writes.

An automated write of a file takes that file's queue first; :func:`planner`
makes the write that only drains: it writes each queued file as it is, and
the amplitude guard turns that into the next batch (the rest stays queued).
Nothing queued is ever dropped. Every background job drains one batch before
its own work (``gitmem.api.jobs``), so what one run queues is applied by the
next run of any job, at least one session later.
"""

from __future__ import annotations

from gitmem.base.gitio import Git
from gitmem.guards.amplitude import PENDING_DIR
from gitmem.writer.plan import Plan, Planner

EVENT = "amplitude.pending"


def queued(git: Git, rev: str | None) -> list[str]:
    """The files at ``rev`` whose growth waits in the queue, by path."""
    if rev is None:
        return []
    return sorted(path[len(PENDING_DIR):] for path, _ in git.files(PENDING_DIR.rstrip("/"), rev))


def planner(git: Git) -> Planner[tuple[str, ...]]:
    """A planner that applies the next batch of every queue (its result: the files it touched)."""

    def plan(parent: str | None) -> Plan[tuple[str, ...]] | None:
        paths = [p for p in queued(git, parent) if parent is not None and git.read(p, parent) is not None]
        if parent is None or not paths:
            return None
        changes: dict[str, bytes | None] = {p: git.read(p, parent) for p in paths}
        return Plan(changes, "gitmem: apply queued growth of " + ", ".join(paths[:3]) + (" …" if len(paths) > 3 else ""),
                    EVENT, auto=True, defer=True, result=tuple(paths))
    return plan
