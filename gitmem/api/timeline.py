"""Snapshots, rollback and drift: a memory repository through time (DESIGN.md sections 5 and 8)."""

from __future__ import annotations

from typing import TYPE_CHECKING

import os
from dataclasses import dataclass
from datetime import datetime

from gitmem.api.context import Context
from gitmem.base import clock
from gitmem.base.errors import CheckFailed, ConflictError, UsageError

if TYPE_CHECKING:
    from gitmem.engines.drift import Drift
    from gitmem.store.snapshots import Snapshot

CLAUDE_MD = "CLAUDE.md"


@dataclass(frozen=True)
class RolledBack:
    """A rollback: the tag, the commit it made (None: the tree was already the tag's), the paths changed."""

    tag: str
    target: str
    commit: str | None
    paths: tuple[str, ...]
    protected: tuple[str, ...]   # the Layer 1 and 4 changes it reverted

    def to_json(self) -> dict[str, object]:
        """What ``rollback --json`` prints."""
        return {"tag": self.tag, "target": self.target, "commit": self.commit, "paths": list(self.paths),
                "protected": list(self.protected)}


def snapshot(ctx: Context, now: datetime | None = None) -> Snapshot:
    """Tag HEAD as this UTC month's snapshot (``gitmem/snapshot/YYYY-MM``), or report the existing tag.

    The one place snapshots are made (``gitmem snapshot`` and the snapshot job): each earlier
    month with commits and no tag is tagged first, on its last commit. In a clone with a git
    remote, only ``gitmem sync`` tags (one tag per month for the whole team), and this refuses.
    """
    from gitmem.api.syncing import remotes
    from gitmem.store import snapshots

    if remotes(ctx.root):
        raise UsageError("this memory repository has a git remote: only `gitmem sync` makes the monthly snapshot, "
                         "after a push, so every clone shares one tag per month", hint="gitmem sync")
    head = ctx.head
    if head is None:
        raise UsageError("the repository has no commit to tag yet", hint="remember something first")
    now = now or clock.now()
    snapshots.catch_up(ctx.git, head, now)   # earlier months left untagged get their last commit
    return snapshots.take(ctx.git, head, now)


def snapshots(ctx: Context) -> list[str]:
    """Every snapshot tag, oldest first."""
    from gitmem.store import snapshots

    return snapshots.existing(ctx.git)


def rollback(ctx: Context, tag: str, *, yes: bool = False, interactive: bool = False, i_am_the_reviewer: bool = False,
             now: datetime | None = None) -> RolledBack:
    """A new commit whose tree is ``tag``'s; no history is rewritten. A person's decision:
    refused under an agent or without a terminal, and Layer 1/4 changes need ``yes``."""
    from gitmem.base.gitio import person, uncommitted
    from gitmem.guards import layers
    from gitmem.guards.reviewer import require_person
    from gitmem.writer.plan import Plan

    require_person("rollback", interactive, i_am_the_reviewer, os.environ)
    target = resolve_tag(ctx, tag)
    dirty = uncommitted(ctx.root)
    if dirty:
        raise ConflictError(f"uncommitted edits in {', '.join(dirty[:5])}{' …' if len(dirty) > 5 else ''}",
                            hint="commit or stash them (git stash), then roll back")
    head = ctx.head
    changes: dict[str, bytes | None] = {}
    if head is not None:
        for change in ctx.git.diff(head, target):
            changes[change.path] = None if change.status == "D" else ctx.git.read(change.path, target)
    protected: list[str] = []
    if CLAUDE_MD in changes:
        old, new = ctx.git.read(CLAUDE_MD, head) if head else None, changes[CLAUDE_MD]
        if old is not None:
            found = layers.protected_changes(old.decode("utf-8", "replace"),
                                             (new or b"").decode("utf-8", "replace"))
            protected = [f"CLAUDE.md{f':{line}' if line else ''}: {msg.replace(' by an automated commit without Gitmem-Approved-By', '')}"
                         for line, msg in found]
    if protected and not yes:
        raise CheckFailed(f"rolling back to {tag} reverts Layer 1 or 4 of CLAUDE.md: " + "; ".join(protected),
                          protected, hint=f"look at `git diff HEAD {tag} -- CLAUDE.md`, then add --yes")
    who = person(ctx.root) or "a person"
    plan: Plan[None] = Plan(changes, f"gitmem: rollback to {tag}", "rollback", approved_by=who,
                            trailers=(("Gitmem-Rollback-To", target),))
    written = ctx.writer.write(lambda parent: plan if parent == head else None, now or clock.now())
    if written.commit is None and head != ctx.head:
        raise ConflictError("the branch moved while rolling back", hint="run the rollback again")
    return RolledBack(tag, target, written.commit, tuple(sorted(changes)), tuple(protected))


def resolve_tag(ctx: Context, tag: str) -> str:
    """The commit a tag (or any name git knows) points to; a usage error with a hint when there is none."""
    from gitmem.base.errors import NotFoundError

    try:
        found: str = ctx.git.commit(tag).id
    except (NotFoundError, ValueError, KeyError):
        raise UsageError(f"no tag or commit {tag!r}",
                         hint="list snapshots with `git tag -l 'gitmem/snapshot/*'`") from None
    return found


def drift(ctx: Context, now_text: str | None = None) -> Drift:
    """Layers 1+2 of CLAUDE.md (the work tree's, or ``now_text``) against the baseline."""
    from gitmem.engines import drift
    from gitmem.store import enginestate, snapshots

    head = ctx.head
    pinned = enginestate.read(ctx.git.read(enginestate.STATE_FILE, head)).drift_baseline if head else None
    found = drift.baseline(pinned, snapshots.existing(ctx.git))
    if now_text is None:
        path = ctx.root / CLAUDE_MD
        now_text = path.read_text("utf-8", "replace") if path.is_file() else (
            _text(ctx.git.read(CLAUDE_MD, head)) if head else "")
    if found is None:
        return drift.measure(now_text, None, None, "none", ctx.cfg.drift.min_cosine)
    commit = resolve_tag(ctx, found[0])
    from gitmem.api import embedding

    return drift.measure(now_text, _text(ctx.git.read(CLAUDE_MD, commit)), commit, found[1],
                         ctx.cfg.drift.min_cosine, embedding.meaning(ctx.root))


def pin_drift_baseline(ctx: Context, now: datetime | None = None) -> str | None:
    """Pin HEAD as the drift baseline in ``.gitmem/state.yaml`` (one commit; None when already pinned)."""
    from gitmem.base import model
    from gitmem.engines import drift
    from gitmem.writer.plan import Plan
    from gitmem.store import enginestate

    head = ctx.head
    if head is None:
        raise UsageError("the repository has no commit to pin yet", hint="remember something first")
    now = now or clock.now()

    def plan(parent: str | None) -> Plan[None] | None:
        old = ctx.git.read(enginestate.STATE_FILE, parent) if parent else None
        state, commit = enginestate.read(old), parent or head
        if state.drift_baseline == commit:
            return None
        stamp = enginestate.Stamp(model.iso(now), f"pinned by {drift.PIN_COMMAND}")
        return Plan({enginestate.STATE_FILE: enginestate.write(old, state.set("drift_baseline", commit, stamp))},
                    "gitmem: pin the drift baseline", "drift-pin")

    return ctx.writer.write(plan, now).commit


def _text(data: bytes | None) -> str | None:
    return data.decode("utf-8", "replace") if data is not None else None
