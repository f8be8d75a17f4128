"""Reviews merged on a remote as a pull request, recorded as accepted (DESIGN.md section 8).

A review whose tip is reachable from the remote's branch was merged there; it
is recorded as accepted by the merge's author, kept under
``refs/gitmem/accepted/`` and leaves the open reviews.
"""

from __future__ import annotations

import builtins
from dataclasses import dataclass
from datetime import datetime

from gitmem.api.context import Context
from gitmem.api.reviews import reviews
from gitmem.base import clock

ACCEPTED = "refs/gitmem/accepted/"     # a review merged on a remote, kept for audit
MAX_WALK = 10_000                      # commits of a remote branch walked back to find a review's merge


@dataclass(frozen=True)
class ReviewMerged:
    """A review branch merged on a remote, recorded as accepted by the merge's author."""

    name: str
    remote_branch: str
    merge: str
    merged_by: str
    kept_at: str

    def to_json(self) -> dict[str, object]:
        return {"name": self.name, "remote_branch": self.remote_branch, "merge": self.merge,
                "merged_by": self.merged_by, "kept_at": self.kept_at}


def merged_reviews(ctx: Context, now: datetime | None = None) -> builtins.list[ReviewMerged]:
    """Open reviews merged on a remote (a real pull request): their tip is reachable from the remote's branch
    of the checked-out name, as the last fetch saw it. Each is recorded as accepted by the merge commit's
    author: the branch is kept under ``refs/gitmem/accepted/``, leaves the open reviews, and
    ``review.merged`` is logged. A squash or rebase merge leaves no such tip and is not recognised."""
    from gitmem.base import state
    from gitmem.base.model import iso

    now = now or clock.now()
    mine = ctx.git.head_branch()
    if mine is None:
        return []
    remotes = [r for r in ctx.git.refs("refs/remotes/") if r[len("refs/remotes/"):].partition("/")[2] == mine]
    found: builtins.list[ReviewMerged] = []
    for info in reviews(ctx):
        for remote in remotes:
            merge = _merge_of(ctx, info.commit, remote)
            if merge is None:
                continue
            author = ctx.redactor.redact_text(str(ctx.git.commit(merge).author), "the author of a merge",
                                              "review.merged", now)
            kept = ACCEPTED + info.name
            ctx.git.set_ref(kept, info.commit, ctx.git.commit(kept).id if kept in ctx.git.refs(kept) else None)
            ctx.git.delete_ref(f"refs/heads/{info.name}")
            name = remote[len("refs/remotes/"):]
            state.log_event(ctx.root, "review.merged", iso(now), branch=info.name, remote=name, merge=merge,
                            merged_by=author, kept_at=kept)
            found.append(ReviewMerged(info.name, name, merge, author, kept))
            break
    return found


def _merge_of(ctx: Context, tip: str, ref: str) -> str | None:
    """The commit on ``ref``'s first-parent line that brought ``tip`` in (None: ``tip`` is not merged there)."""
    current = ctx.git.commit(ref)
    if ctx.git.merge_base(tip, current.id) != tip:
        return None
    for _ in range(MAX_WALK):
        if current.id == tip or not current.parents:
            return str(current.id)   # fast-forwarded: the tip itself is on the line
        first = current.parents[0]
        if ctx.git.merge_base(tip, first) != tip:
            return str(current.id)
        current = ctx.git.commit(first)
    return None
