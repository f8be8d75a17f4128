"""Reviews decided outside this clone: merged on a remote as a pull request, or decided in another clone
(DESIGN.md section 8).

A review branch pushed to a git server may be accepted there, through a real
pull request, in one of three ways, each recognised from what the last fetch
saw of the remote's branch of the checked-out name:

- merge: the branch's tip is reachable from the remote's branch; the merger is
  the author of the commit on its first-parent line that brought it in;
- squash or rebase: the tip is not there, but its change is, after the
  branch's base (``gitmem.engines.landing`` says when, and never from a key
  alone); the merger is the committer of the commit that brought it.

Each is recorded as accepted by the merger: the branch is kept under
``refs/gitmem/accepted/``, leaves the open reviews, and ``review.merged`` is
logged. A sedimentation promotion accepted there does what a local accept does
(``promotions.record_landed``): its rule in its target, its entry in
``bank/promotions.md``, the approval in the decision log, keyed by the review
and dated by the commit that brought it, so that clones recording the same
merge log one approval between them. One that changed anything outside its
kind's scope (an anchor, another file) was merged there by a person, but counts
nothing here: no entry, no approval, and the event names what was outside.

A decision another clone made (its ``review accept`` or ``reject``, or a
default rejection) reaches this clone through the engine state's decision log;
a review still open here that the log says was decided after it was proposed is
closed the same way: kept under ``refs/gitmem/accepted/`` or
``refs/gitmem/rejected/``, with nothing counted again. A review branch deleted
on the remote without its change landing is not a veto: git cannot tell a
closed pull request from a tidied branch, so the review stays open here.
"""

from __future__ import annotations

import builtins
from collections.abc import Collection, Mapping
from dataclasses import dataclass
from datetime import datetime

from gitmem.api.context import Context
from gitmem.base import clock
from gitmem.engines import landing

ACCEPTED = "refs/gitmem/accepted/"     # a review accepted outside this clone, kept for audit
REJECTED = "refs/gitmem/rejected/"
MAX_WALK = 10_000                      # commits of a remote branch walked back to find a review's merge
LANDING_WALK = 2_000                   # ... and read with their patches to find its squash or rebase
DIFF = ("--no-color", "--no-ext-diff", "--no-textconv", "--no-renames", "-U0", "--full-index")
CLOSING = {"approve": "accepted", "veto": "rejected", "expire": "rejected", "reject": "rejected", "reopen": ""}


@dataclass(frozen=True)
class ReviewMerged:
    """A review decided outside this clone: merged on a remote (``how``: merge, squash, rebase) and recorded as
    accepted by its merger, or decided in another clone (``how``: elsewhere)."""

    name: str
    remote_branch: str
    merge: str
    merged_by: str
    kept_at: str
    how: str = "merge"
    outcome: str = "accepted"              # accepted | rejected
    recorded: str | None = None            # the commit that recorded a sedimentation acceptance
    outside: tuple[str, ...] = ()          # what it changed outside its kind's scope (then nothing is counted)

    def to_json(self) -> dict[str, object]:
        return {"name": self.name, "remote_branch": self.remote_branch, "merge": self.merge,
                "merged_by": self.merged_by, "kept_at": self.kept_at, "how": self.how, "outcome": self.outcome,
                "recorded": self.recorded, "outside": list(self.outside)}


def merged_reviews(ctx: Context, now: datetime | None = None) -> builtins.list[ReviewMerged]:
    """Open reviews merged on a remote (after a fetch: merged, squashed or rebased), recorded as accepted by
    their merger; and those another clone decided, closed here (see the module docstring)."""
    return recognise(ctx, now or clock.now())


def recognise(ctx: Context, now: datetime,
              present: Mapping[str, Collection[str]] | None = None) -> builtins.list[ReviewMerged]:
    """``merged_reviews``; ``present``: of a remote just asked (``git ls-remote``), the branches it has, by
    remote name (a review branch gone from the remote that had it ties a squash to it)."""
    from gitmem.api import reviews

    mine = ctx.git.head_branch()
    if mine is None:
        return []
    remotes = [r for r in ctx.git.refs("refs/remotes/") if r[len("refs/remotes/"):].partition("/")[2] == mine]
    found: builtins.list[ReviewMerged] = []
    lines: dict[tuple[str, str], builtins.list[landing.Landed]] = {}
    for info in reviews.reviews(ctx):
        for remote in remotes:
            name = remote[len("refs/remotes/"):]
            listed = present.get(name.partition("/")[0]) if present is not None else None
            came = _came_in(ctx, info.name, info.commit, remote, listed, lines)
            if came is not None:
                found.append(_record(ctx, info.name, info.commit, name, *came, now))
                break
    return found + decided_elsewhere(ctx, now)


def _came_in(ctx: Context, branch: str, tip: str, remote: str, listed: Collection[str] | None,
             lines: dict[tuple[str, str], builtins.list[landing.Landed]]) -> tuple[str, str, str, str] | None:
    """How ``tip`` came into ``remote``: (how, commit, merger, when) or None."""
    merge = _merge_of(ctx, tip, remote)
    if merge is not None:
        c = ctx.git.commit(merge)
        return "merge", merge, str(c.author), str(c.time)
    head = ctx.git.commit(remote).id
    base = ctx.git.merge_base(tip, head)
    if base is None:
        return None
    if (base, head) not in lines:   # one walk of the remote's line per base
        lines[(base, head)] = _log(ctx, "--first-parent", "--diff-merges=first-parent", f"--max-count={LANDING_WALK}",
                                   f"{base}..{head}")[::-1]
    own = _log(ctx, "--no-merges", "--reverse", f"{base}..{tip}")
    whole = landing.change_key(_git(ctx, "diff", *DIFF, base, tip, "--"))
    tracked = f"refs/remotes/{remote[len('refs/remotes/'):].partition('/')[0]}/{branch}"
    deleted = listed is not None and branch not in listed and bool(ctx.git.refs(tracked))
    found = landing.find(branch, whole, own, lines[(base, head)], deleted)
    if found is None:
        return None
    return found.how, found.commit.id, found.commit.committer, found.commit.committed


def _record(ctx: Context, branch: str, tip: str, remote: str, how: str, commit: str, merger: str, when: str,
            now: datetime) -> ReviewMerged:
    """Record ``branch`` as accepted by ``merger`` (a sedimentation promotion's effects first: nothing moves
    unless they land)."""
    from gitmem.api import promotions
    from gitmem.base import state
    from gitmem.base.model import iso

    merger = ctx.redactor.redact_text(merger, "the author of a merge", "review.merged", now)
    recorded = None
    outside: builtins.list[str] = []
    if branch.startswith(promotions.PREFIX):
        outside = _outside(ctx, branch, tip, commit, how)
        if not outside:   # what reached beyond its target was merged by a person there, but counts nothing here
            recorded = promotions.record_landed(ctx, branch, tip, merger, clock.parse_time(when), commit, now)
    kept = _keep(ctx, ACCEPTED + branch, branch, tip)
    state.log_event(ctx.root, "review.merged", iso(now), branch=branch, remote=remote, merge=commit, how=how,
                    merged_by=merger, kept_at=kept, **({"outside_its_scope": outside} if outside else {}))
    return ReviewMerged(branch, remote, commit, merger, kept, how, "accepted", recorded, tuple(outside))


def _outside(ctx: Context, branch: str, tip: str, commit: str, how: str) -> builtins.list[str]:
    """What ``commit`` brought in of review ``branch`` outside its kind's scope: of a merge, the whole branch
    it merged (a pull request may carry more than this clone proposed); of a squash, its own change; of a
    rebase (the same change as the review's, commit by commit), the review's."""
    from gitmem.api import reviews

    landed = ctx.git.commit(commit)
    base: str | None
    if how == "squash" and landed.parents:
        base, top = landed.parents[0], commit
    elif how == "merge" and len(landed.parents) > 1:
        top = next((p for p in landed.parents[1:] if ctx.git.merge_base(tip, p) == tip), landed.parents[-1])
        base = ctx.git.merge_base(landed.parents[0], top)
    else:
        top = tip
        base = ctx.git.merge_base(tip, landed.parents[0]) if landed.parents and commit != tip else (
            (ctx.git.commit(tip).parents or (None,))[0])
    return [o.shown() for o in reviews.outside_of(branch, reviews.changes_of(ctx, base, top))]


def decided_elsewhere(ctx: Context, now: datetime) -> builtins.list[ReviewMerged]:
    """Open reviews that the decision log at the head says were decided after they were proposed (in another
    clone): closed here as accepted or rejected, nothing counted again."""
    from gitmem.api import experience, reviews
    from gitmem.base import state
    from gitmem.base.model import iso

    _, current = experience.state_at(ctx, ctx.head)
    if not current.decisions:
        return []
    last: dict[str, tuple[datetime, str, str]] = {}
    for line in current.decisions:
        at, action, argument = _decision(line)
        if at is not None and action in CLOSING and (argument not in last or (at, line) > last[argument][:2]):
            last[argument] = (at, line, action)
    out: builtins.list[ReviewMerged] = []
    for info in reviews.reviews(ctx):
        decided = last.get(info.name)
        proposed = clock.parse_time(ctx.git.commit(info.commit).time)
        if decided is None or not CLOSING[decided[2]] or decided[0] < proposed:
            continue
        outcome = CLOSING[decided[2]]
        kept = _keep(ctx, (ACCEPTED if outcome == "accepted" else REJECTED) + info.name, info.name, info.commit)
        state.log_event(ctx.root, "review.decided_elsewhere", iso(now), branch=info.name, outcome=outcome,
                        decided_at=iso(decided[0]), kept_at=kept)
        out.append(ReviewMerged(info.name, "", "", "", kept, "elsewhere", outcome))
    return out


def _decision(line: str) -> tuple[datetime | None, str, str]:
    parts = line.split(" ", 2)
    if len(parts) != 3:
        return None, "", ""
    try:
        return clock.parse_time(parts[0]), parts[1], parts[2]
    except ValueError:
        return None, "", ""


def _keep(ctx: Context, kept: str, branch: str, tip: str) -> str:
    """``branch`` kept at ``kept`` and gone from the open reviews."""
    ctx.git.set_ref(kept, tip, ctx.git.commit(kept).id if kept in ctx.git.refs(kept) else None)
    ctx.git.delete_ref(f"refs/heads/{branch}")
    return kept


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


def _log(ctx: Context, *args: str) -> builtins.list[landing.Landed]:
    return landing.parse_log(_git(ctx, "log", f"--format={landing.FORMAT}", "-p", *DIFF, *args, "--"))


def _git(ctx: Context, *args: str) -> str:
    from gitmem.base.gitio import run

    return run(ctx.root, "-c", "core.quotepath=false", *args).decode("utf-8", "surrogateescape")
