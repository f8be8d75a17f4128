"""Purge: a leaked value rewritten out of every branch, tag and reflog of the memory repository
(the only history rewrite gitmem offers, and only when a person confirms it)."""

from __future__ import annotations

from typing import TYPE_CHECKING

from datetime import datetime
from pathlib import Path

from gitmem.api.context import Context
from gitmem.base import clock

if TYPE_CHECKING:
    from gitmem.engines.purge import Purged


def purge(ctx: Context, value: str | None = None, finding: str | None = None, confirm: bool = False,
          now: datetime | None = None) -> "Purged":
    """Rewrite every branch and tag holding a leaked value (or the value of finding ``finding``)
    with its placeholder; without ``confirm`` only say what would be rewritten.

    Refuses with uncommitted edits. Applied, it rebuilds the per-clone index and
    records a ``purge`` event (never the value); pushing is left to a person.
    """
    from gitmem.base import state
    from gitmem.base.model import iso
    from gitmem.base.errors import ConflictError
    from gitmem.base.gitio import Git, history, rewrite
    from gitmem.engines import purge as purging
    from gitmem.guards.redact import allowlist
    from gitmem.store.refresh import rebuild_file

    dirty = rewrite.uncommitted(ctx.root)
    if dirty:
        raise ConflictError("uncommitted edits in " + ", ".join(dirty[:5]) + (" …" if len(dirty) > 5 else "")
                            + "; nothing was purged", hint="commit or stash them first (`git status`)")
    allow = allowlist(ctx.cfg)
    goal = purging.target(value, finding, history.texts(ctx.root), allow)
    done = rewrite.rewrite(ctx.root, goal.value, goal.placeholder, apply=confirm)
    result = purging.Purged(goal.kind, goal.placeholder, goal.id, confirm, done.commits, done.refs,
                            purging.remote_updates(done.refs, rewrite.remotes(ctx.root)))
    if confirm:
        git = Git(ctx.root)  # a fresh handle: the old one may hold pruned packs
        branch = git.head_branch()
        _scrub_state(ctx.root, goal.value, goal.placeholder)
        rebuild_file(git, git.tip(branch) if branch else None).close()
        from gitmem.api import purge_remote

        purge_remote.record(ctx.root, goal.value, goal.kind, goal.id, done, iso(now or clock.now()))
        state.log_event(ctx.root, "purge", iso(now or clock.now()), kind=goal.kind, id=goal.id,
                        placeholder=goal.placeholder, commits=[list(pair) for pair in done.commits],
                        refs=[[r.name, r.old, r.new] for r in done.refs],
                        remotes=[r.remote for r in result.remotes])
    return result


_STATE_TEXTS = (".json", ".jsonl", ".md", ".txt", ".yaml", ".yml")


def _scrub_state(root: Path, value: str, placeholder: str) -> None:
    """The value replaced in the clone's own text files (working memory, logs); every index of the
    clone (this work tree's, the per-commit caches, other work trees') removed: they are rebuilt from git."""
    from gitmem.base import state

    shared = state.shared_dir(root)
    folders = {shared, state.worktree_dir(root), *shared.parent.glob(f"worktrees/*/{state.STATE_DIR}")}
    for folder in folders:
        for path in folder.rglob("*"):
            if not path.is_file():
                continue
            if ".sqlite" in path.name:
                path.unlink(missing_ok=True)
            elif path.suffix in _STATE_TEXTS:
                data = path.read_bytes()
                if value.encode("utf-8") in data:
                    path.write_bytes(data.replace(value.encode("utf-8"), placeholder.encode("utf-8")))
