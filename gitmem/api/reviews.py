"""Review branches: list, show, accept, reject, push (DESIGN.md section 8).

A review branch holds one commit gitmem proposed (a weight update, an atrophy
deletion). ``accept`` merges it into the checked-out branch with a merge commit
carrying ``Gitmem-Approved-By``, merging memory documents both sides changed
field by field; a weight update whose base moved is computed again from the
branch, so no session is counted twice. ``reject`` keeps the branch under
``refs/gitmem/rejected/`` and records the veto and its reason in a commit. Both
are a person's decision.
"""

from __future__ import annotations

import builtins
import os
from dataclasses import dataclass, replace
from datetime import datetime

from gitmem.api import patterns
from gitmem.api.context import Context
from gitmem.base import clock
from gitmem.base.errors import ConflictError, NotFoundError, UsageError
from gitmem.store import enginestate, formats, store

TYPE_CHECKING = False
if TYPE_CHECKING:
    from gitmem.engines.review import InboxItem


@dataclass(frozen=True)
class ReviewInfo:
    """One open review branch."""

    name: str
    kind: str
    commit: str
    base: str | None
    subject: str
    behind: bool          # the checked-out branch moved since the review was made

    def to_json(self) -> dict[str, object]:
        """One entry of ``review list --json``."""
        return {"name": self.name, "kind": self.kind, "commit": self.commit, "base": self.base,
                "subject": self.subject, "behind": self.behind}


@dataclass(frozen=True)
class ReviewShown:
    """What a person reads before deciding: the change in words, then the raw diff."""

    info: ReviewInfo
    semantic: tuple[str, ...]
    message: str
    diff: str
    items: tuple[InboxItem, ...] = ()     # a harvest inbox's memories, numbered

    def to_json(self) -> dict[str, object]:
        """What ``review show --json`` prints."""
        return {**self.info.to_json(), "semantic": list(self.semantic), "message": self.message, "diff": self.diff,
                "items": [i.to_json() for i in self.items]}


@dataclass(frozen=True)
class ReviewDecided:
    """The outcome of accept or reject."""

    name: str
    action: str                 # accepted | rejected
    commit: str | None
    reason: str = ""
    recomputed: bool = False
    kept_at: str | None = None  # where a rejected branch is kept
    kept: int = 0               # of a harvest inbox: the items kept and dropped
    dropped: int = 0

    def to_json(self) -> dict[str, object]:
        """What ``review accept|reject --json`` prints."""
        return {"name": self.name, "action": self.action, "commit": self.commit, "reason": self.reason,
                "recomputed": self.recomputed, "kept_at": self.kept_at, "kept": self.kept, "dropped": self.dropped}


def reviews(ctx: Context) -> builtins.list[ReviewInfo]:
    """Every open review branch, oldest name first."""
    from gitmem.engines import review

    return [_info(ctx, b) for p in review.PREFIXES for b in ctx.git.branches(p)]


def _name(ctx: Context, name: str) -> str:
    from gitmem.engines import review

    for candidate in (name, review.REVIEW + name, review.ATROPHY + name):
        if ctx.git.tip(candidate) is not None and review.is_review(candidate):
            return candidate
    raise NotFoundError(f"no open review {name!r}", hint="list them with `gitmem review list`")


def _info(ctx: Context, branch: str) -> ReviewInfo:
    from gitmem.engines import review

    tip = ctx.git.tip(branch)
    assert tip is not None
    main = ctx.git.tip(ctx.writer.default_branch())
    base = ctx.git.merge_base(tip, main) if main else None
    return ReviewInfo(branch, review.kind(branch), tip, base, ctx.git.commit(tip).subject,
                      main is not None and base != main)


def review_show(ctx: Context, name: str) -> ReviewShown:
    """The semantic diff (weights, stages, deletions with their history, memories moved) and the raw diff."""
    from gitmem.base.gitio import diff_text
    from gitmem.engines import review

    info = _info(ctx, _name(ctx, name))
    base = info.base or info.commit
    if info.kind == "harvest":
        from gitmem.api.inbox import contents

        held = contents(ctx, info.name)
        semantic = [i.shown() for i in held.items] + [f"outside a harvest inbox's scope: {review.visible(p)}"
                                                      for p in held.outside]
        return ReviewShown(info, tuple(semantic), review.visible(ctx.git.commit(info.commit).message),
                           review.visible(diff_text(ctx.root, base, info.commit)), held.items)
    if info.kind == "sediment":
        from gitmem.api.promotions import shown

        return ReviewShown(info, tuple(shown(ctx, info.base, info.commit)),
                           review.visible(ctx.git.commit(info.commit).message),
                           review.visible(diff_text(ctx.root, base, info.commit)))
    before = {p.slug: p for p in store.all_patterns(ctx.git, base)}
    after = {p.slug: p for p in store.all_patterns(ctx.git, info.commit)}
    moved = [c.path for c in ctx.git.diff(base, info.commit) if c.path.startswith(("memory/", "archive/"))]
    semantic = review.semantic_diff(before, after, moved)
    message = review.visible(ctx.git.commit(info.commit).message)
    return ReviewShown(info, tuple(semantic), message, review.visible(diff_text(ctx.root, base, info.commit)))


def review_accept(ctx: Context, name: str, *, only: str | None = None, interactive: bool = False,
                  i_am_the_reviewer: bool = False, now: datetime | None = None) -> ReviewDecided:
    """Merge a review into the checked-out branch (a merge commit with ``Gitmem-Approved-By``).

    ``only`` ("1,3"): of a harvest inbox, keep those items and drop the rest.
    """
    from gitmem.base.gitio import person
    from gitmem.engines import review
    from gitmem.guards.reviewer import require_person
    from gitmem.writer.plan import Plan

    require_person("review accept", interactive, i_am_the_reviewer, os.environ)
    now = now or clock.now()
    branch = _name(ctx, name)
    tip = ctx.git.tip(branch)
    assert tip is not None
    who = person(ctx.root) or "a person"
    if review.kind(branch) == "harvest":
        from gitmem.api.inbox import accept

        commit, kept, dropped = accept(ctx, branch, only, who, now)
        return ReviewDecided(branch, "accepted", commit, kept=kept, dropped=dropped)
    if only is not None:
        raise UsageError(f"--only picks items of a harvest inbox; {branch} is a {review.kind(branch)} review",
                         hint=f"gitmem review accept {branch}")
    info: dict[str, bool] = {}

    def plan(parent: str | None) -> Plan[None]:
        if parent is None:
            raise UsageError("the repository has no commit yet", hint="nothing to merge into")
        base = ctx.git.merge_base(tip, parent)
        if review.kind(branch) == "sediment":   # the rule written into its target as it stands now
            from gitmem.api.promotions import accept_changes

            return Plan(accept_changes(ctx, branch, parent, tip, who, now), f"gitmem: accept review {branch}",
                        "review.accept", approved_by=who, trailers=(("Gitmem-Review", branch),), merge_parents=(tip,))
        if review.kind(branch) == "weights" and base != parent:
            update = patterns.weights_plan(ctx, parent)   # counted again from what is there now: never twice
            changes = patterns.weights_changes(ctx, parent, update)
            info["recomputed"] = True
        else:
            changes = _three_way(ctx, branch, base, parent, tip)
        if review.kind(branch) == "promote":
            changes.update(_into_core(ctx, parent, tip, changes))
        old = ctx.git.read(formats.STATE_FILE, parent)
        state = enginestate.read(old)
        # approvals and vetoes are counted from sedimentation reviews only (gitmem.api.promotions)
        changes[formats.STATE_FILE] = enginestate.write(old, replace(state, auto_streak=0))
        return Plan(changes, f"gitmem: accept review {branch}", "review.accept", approved_by=who,
                    trailers=(("Gitmem-Review", branch),), merge_parents=(tip,))

    before = _threshold_base(ctx, branch, now)
    written = ctx.writer.write(plan, now)
    ctx.git.delete_ref(f"refs/heads/{branch}")
    if review.kind(branch) == "sediment":
        from gitmem.api.promotions import decided

        decided(ctx, branch, "accepted", now, before)
    if review.kind(branch) == "weights":
        patterns.promote(ctx, now)
    return ReviewDecided(branch, "accepted", written.commit, recomputed=info.get("recomputed", False))


def _three_way(ctx: Context, branch: str, base: str | None, main: str, tip: str) -> dict[str, bytes | None]:
    """The branch's changes applied onto ``main``; documents both changed merge field by field."""
    from gitmem.base.gitio import merge_text
    from gitmem.engines import merge
    from gitmem.store.documents import read_pattern

    changes: dict[str, bytes | None] = {}
    problems: builtins.list[str] = []
    # regenerated below / counters set by the accept itself
    paths = [c.path for c in ctx.git.diff(base, tip) if c.path not in ("CLAUDE.md", formats.STATE_FILE)]
    at_main, at_tip = ctx.git.read_many(paths, main), ctx.git.read_many(paths, tip)
    at_base = ctx.git.read_many(paths, base)
    for path in paths:
        ours, theirs, old = at_main[path], at_tip[path], at_base[path]
        if ours == old or ours == theirs:
            changes[path] = theirs
        elif ours is not None and theirs is not None and path.endswith(".md"):
            done = merge.merge_document(path, old.decode("utf-8", "replace") if old is not None else None,
                                        ours.decode("utf-8", "replace"), theirs.decode("utf-8", "replace"),
                                        merge_text)
            problems.extend(done.conflicts)
            changes[path] = done.text.encode("utf-8")
        else:
            problems.append(f"{path}: {'deleted' if theirs is None else 'changed'} by the review but "
                            f"{'deleted' if ours is None else 'changed'} on the branch since")
    if problems:
        raise ConflictError(f"{branch} no longer applies: " + "; ".join(problems[:5]),
                            hint=f"reject it (gitmem review reject {branch} --reason stale); gitmem proposes again")
    pattern_paths = [p for p in changes if p.startswith("patterns/") and p.endswith(".md")]
    if pattern_paths:
        pats = {p.slug: p for p in store.all_patterns(ctx.git, main)}
        for path in pattern_paths:
            slug = path.rsplit("/", 1)[-1][:-3]
            data = changes[path]
            if data is None:
                pats.pop(slug, None)
            else:
                pats[slug] = read_pattern(path, data)
        changes.update(patterns.layer2(ctx, main, builtins.list(pats.values())))
    return changes


def _into_core(ctx: Context, main: str, tip: str, changes: dict[str, bytes | None]) -> dict[str, bytes | None]:
    """CLAUDE.md with the promoted pattern's rule added to Layer 1 (this commit carries the approval)."""
    from gitmem.guards import layers
    from gitmem.store.documents import read_pattern

    promoted = [read_pattern(path, data) for path, data in changes.items()
                if path.startswith("patterns/") and data is not None]
    claude = changes.get("CLAUDE.md") or ctx.git.read("CLAUDE.md", main)
    if claude is None:
        return {}
    text = claude.decode("utf-8", "replace")
    for p in promoted:
        if p.stage == "core":
            text = layers.add_to_core(text, p.title)
    return {"CLAUDE.md": text.encode("utf-8")}


def review_reject(ctx: Context, name: str, reason: str = "", *, interactive: bool = False,
                  i_am_the_reviewer: bool = False, now: datetime | None = None) -> ReviewDecided:
    """Keep the branch under ``refs/gitmem/rejected/`` and record the veto with its reason (one commit)."""
    from gitmem.base.gitio import person
    from gitmem.engines import review
    from gitmem.writer.plan import Plan

    from gitmem.guards.reviewer import require_person

    require_person("review reject", interactive, i_am_the_reviewer, os.environ)
    now = now or clock.now()
    branch = _name(ctx, name)
    tip = ctx.git.tip(branch)
    assert tip is not None
    if review.kind(branch) == "harvest":
        from gitmem.api.inbox import reject

        kept_at, dropped = reject(ctx, branch, " ".join(reason.split()) or "no reason given", now)
        return ReviewDecided(branch, "rejected", None, " ".join(reason.split()) or "no reason given",
                             kept_at=kept_at, dropped=dropped)
    kept = review.rejected_ref(branch)
    existing = ctx.git.refs(kept)
    ctx.git.set_ref(kept, tip, ctx.git.commit(kept).id if kept in existing else None)
    ctx.git.delete_ref(f"refs/heads/{branch}")
    reason = " ".join(reason.split()) or "no reason given"
    who = person(ctx.root) or "a person"

    def plan(parent: str | None) -> Plan[None]:
        old = ctx.git.read(formats.STATE_FILE, parent) if parent else None
        state = enginestate.read(old)
        from gitmem.base.model import iso

        logged = tuple(sorted({*state.decisions, f"{iso(now)} reject {branch}"}))   # the veto, audited
        changes: dict[str, bytes | None] = {formats.STATE_FILE: enginestate.write(old, replace(
            state, auto_streak=0, decisions=logged))}
        if review.kind(branch) == "sediment":   # a person's veto (counted; a default rejection is not)
            from gitmem.api.promotions import reject_changes

            changes = reject_changes(ctx, branch, parent, now)
        return Plan(changes, f"gitmem: reject review {branch}", "review.reject", approved_by=who,
                    body=f"reason: {reason}\nkept at: {kept} ({tip})",
                    trailers=(("Gitmem-Review", branch), ("Gitmem-Veto", reason)))

    before = _threshold_base(ctx, branch, now)
    written = ctx.writer.write(plan, now)
    if review.kind(branch) == "sediment":
        from gitmem.api.promotions import decided

        decided(ctx, branch, "rejected", now, before)
    return ReviewDecided(branch, "rejected", written.commit, reason, kept_at=kept)


def _threshold_base(ctx: Context, branch: str, now: datetime) -> float | None:
    """The permanent sedimentation threshold before a decision on ``branch`` (None: not a sediment review)."""
    from gitmem.engines import review

    if review.kind(branch) != "sediment":
        return None
    from gitmem.api.experience import current_threshold

    return current_threshold(ctx, now).base


def review_push(ctx: Context, remote: str = "origin") -> builtins.list[str]:
    """Push every open review branch to ``remote`` through git (never with force); the branches pushed."""
    from gitmem.base.gitio import push

    names = [r.name for r in reviews(ctx)]
    if not names:
        return []
    push(ctx.root, remote, [f"refs/heads/{n}:refs/heads/{n}" for n in names])
    return names

