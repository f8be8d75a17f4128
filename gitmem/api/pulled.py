"""After a plain ``git pull`` (or ``git merge``): the generated files follow the merged sources.

git's merge driver keeps our side of CLAUDE.md Layers 2 and 3, patterns.md
and HIPPOCAMPUS_CORE.md (they are never merged as text), so after a merge
they may miss what the other side brought. ``gitmem sync`` regenerates them
itself; after a person's own ``git pull`` the post-merge hook only marks the
clone (a hook makes no commit of its own) and says so, and the next gitmem
command that opens the repository regenerates them in one commit
(``gitmem: regenerate the generated files after a merge``). A fast-forward
needs nothing: it brings files generated from the sources it brings.
"""

from __future__ import annotations

from pathlib import Path

from gitmem.api.context import Context

MARK = "regenerate-after-merge"   # under the clone's state folder: the merge commit that needs it


def merged(root: Path, squash: bool = False) -> str | None:
    """The post-merge hook: mark the clone when HEAD is a merge commit (or a squash merge was staged);
    returns what to tell the person (None: nothing to do)."""
    from gitmem.base import state
    from gitmem.base.gitio import attempt

    head = attempt(root, "rev-parse", "--verify", "--quiet", "HEAD")
    if head is None:
        return None
    if not squash and attempt(root, "rev-parse", "--verify", "--quiet", "HEAD^2") is None:
        return None   # a fast-forward: its generated files came with their sources
    path = state.shared_dir(root) / MARK
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(head.decode().strip() + "\n", encoding="utf-8")
    return ("gitmem: the merge kept this clone's CLAUDE.md Layers 2-3, patterns.md and HIPPOCAMPUS_CORE.md; "
            "gitmem's next command regenerates them from the merged memory in one commit "
            "(now: `gitmem sync-core`)")


def pending(root: Path) -> bool:
    """True when a merge left the generated files to regenerate."""
    from gitmem.base import state

    return (state.shared_dir(root) / MARK).exists()


def finish(ctx: Context) -> str | None:
    """Regenerate the generated files a marked merge left behind, as one commit (None: nothing was
    marked, or they were current); the mark goes once they are. Never while a merge is unresolved."""
    from gitmem.api import syncing
    from gitmem.base import state
    from gitmem.base.errors import GitmemError
    from gitmem.base.notice import warn

    path = state.shared_dir(ctx.root) / MARK
    if not path.exists() or syncing.merging(ctx.root) or ctx.git.head_branch() is None:
        return None
    try:
        commit = syncing.regenerate(ctx)
    except GitmemError as exc:
        warn(f"the generated files were not regenerated after the merge: {exc.message}"
             + (f" ({exc.hint})" if exc.hint else ""))
        return None
    path.unlink(missing_ok=True)
    return commit
