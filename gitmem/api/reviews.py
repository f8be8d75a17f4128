"""Review branches: list, show and push them (DESIGN.md section 8).

A review branch holds what gitmem proposed (a weight update, an atrophy
deletion, a promotion, a harvest inbox), but it is untrusted input: it may
come from a remote or a teammate, or be made by hand. What it may change is
its kind's scope (``gitmem.engines.reviewkinds``), judged on its diff against
its base, never on its name: ``show`` lists every path it changes and marks
what is outside the scope. A person's accept and reject are
``gitmem.api.review_decisions``; a review merged on a remote is
``gitmem.api.review_merges``.
"""

from __future__ import annotations

import builtins
from dataclasses import dataclass

from gitmem.api import promotions
from gitmem.api.context import Context
from gitmem.base.errors import NotFoundError
from gitmem.store import store

TYPE_CHECKING = False
if TYPE_CHECKING:
    from gitmem.engines.review import InboxItem
    from gitmem.engines.reviewkinds import Change, Outside


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
    scope: str = ""                       # what the review's kind may change, in words
    paths: tuple[str, ...] = ()           # every path it changes: status, path, what changed in it
    outside: tuple[str, ...] = ()         # the changes outside its kind's scope, and why (accept refuses them)
    on_accept: tuple[str, ...] = ()       # what accept itself writes beyond the branch (a promotion's rule)

    def to_json(self) -> dict[str, object]:
        """What ``review show --json`` prints."""
        return {**self.info.to_json(), "semantic": list(self.semantic), "message": self.message, "diff": self.diff,
                "items": [i.to_json() for i in self.items], "scope": self.scope, "paths": list(self.paths),
                "outside": list(self.outside), "on_accept": list(self.on_accept)}


def reviews(ctx: Context) -> builtins.list[ReviewInfo]:
    """Every open review branch, oldest name first."""
    from gitmem.engines import review

    return [info_of(ctx, b) for p in review.PREFIXES for b in ctx.git.branches(p)]


def branch_named(ctx: Context, name: str) -> str:
    """The open review branch ``name`` names (in full, or without its review or atrophy prefix)."""
    from gitmem.engines import review

    for candidate in (name, review.REVIEW + name, review.ATROPHY + name):
        if ctx.git.tip(candidate) is not None and review.is_review(candidate):
            return candidate
    raise NotFoundError(f"no open review {name!r}", hint="list them with `gitmem review list`")


def info_of(ctx: Context, branch: str) -> ReviewInfo:
    """What ``review list`` says of one open review branch."""
    from gitmem.engines import review

    tip = ctx.git.tip(branch)
    assert tip is not None
    main = ctx.git.tip(ctx.writer.default_branch())
    base = ctx.git.merge_base(tip, main) if main else None
    return ReviewInfo(branch, review.kind(branch), tip, base, ctx.git.commit(tip).subject,
                      main is not None and base != main)


def changes_of(ctx: Context, base: str | None, tip: str) -> builtins.list[Change]:
    """What ``tip`` changes against ``base``, path by path, as the review kinds judge it."""
    from gitmem.engines import reviewkinds

    diff = ctx.git.diff(base, tip)
    both = [c.path for c in diff if c.status == "M"]
    old, new = ctx.git.read_many(both, base), ctx.git.read_many(both, tip)
    out: builtins.list[Change] = []
    for c in diff:
        if c.status == "M":
            fields, values = reviewkinds.document_fields(c.path, old[c.path] or b"", new[c.path] or b"")
            out.append(reviewkinds.Change(c.path, "modified", fields, values))
        else:
            out.append(reviewkinds.Change(c.path, "added" if c.status == "A" else "deleted"))
    return out


def outside_of(branch: str, changes: builtins.list[Change]) -> builtins.list[Outside]:
    """The changes outside the scope of ``branch``'s kind (all of them for a branch of no kind)."""
    from gitmem.engines import reviewkinds

    kind = reviewkinds.kind_of(branch)
    if kind is None:
        return [reviewkinds.Outside(c, "a branch of no review kind: nothing is in its scope") for c in changes]
    return reviewkinds.judge(kind, branch, changes)


def review_show(ctx: Context, name: str) -> ReviewShown:
    """What a review changes: in words (weights, stages, deletions with their history; a harvest inbox's items),
    every path it changes with what is outside its kind's scope marked, and the raw diff."""
    from gitmem.base.gitio import diff_text
    from gitmem.engines import review, reviewkinds

    info = info_of(ctx, branch_named(ctx, name))
    base = info.base or info.commit
    found = reviewkinds.kind_of(info.name)
    changes = changes_of(ctx, info.base, info.commit)
    outside = outside_of(info.name, changes)
    marked = {o.change.path for o in outside}
    paths = tuple(review.visible(c.shown() + ("  [OUTSIDE ITS SCOPE]" if c.path in marked else ""))
                  for c in sorted(changes, key=lambda c: c.path))
    message = review.visible(ctx.git.commit(info.commit).message)
    diff = review.visible(diff_text(ctx.root, base, info.commit))
    scope = found.scope if found else "nothing (a branch of no review kind)"
    shown_outside = tuple(review.visible(o.shown()) for o in outside)
    if info.kind == "harvest":
        from gitmem.api.inbox import contents

        held = contents(ctx, info.name)
        semantic = [i.shown() for i in held.items] + [f"outside a harvest inbox's scope: {review.visible(p)}"
                                                      for p in held.outside]
        return ReviewShown(info, tuple(semantic), message, diff, held.items, scope, paths, shown_outside)
    if found is reviewkinds.SEDIMENT:
        return ReviewShown(info, tuple(promotions.shown(ctx, info.base, info.commit)), message, diff, (), scope,
                           paths, shown_outside)
    before = {p.slug: p for p in store.all_patterns(ctx.git, base)}
    after = {p.slug: p for p in store.all_patterns(ctx.git, info.commit)}
    semantic = review.semantic_diff(before, after)
    on_accept: tuple[str, ...] = ()
    if found is reviewkinds.PROMOTE:
        rule = promoted_rule(ctx, info.base, info.name)
        on_accept = (f"Layer 1 (CORE) of CLAUDE.md gains the rule: {review.visible(rule)!r}",) if rule else ()
    return ReviewShown(info, tuple(semantic), message, diff, (), scope, paths, shown_outside, on_accept)


def promoted_rule(ctx: Context, base: str | None, branch: str) -> str | None:
    """The rule a promotion adds to Layer 1: its pattern's title as it is on the base (never the branch's)."""
    from gitmem.engines import reviewkinds
    from gitmem.store.documents import read_pattern

    slug = branch[len(reviewkinds.PROMOTE.prefix):]
    path = f"patterns/{slug}.md"
    data = ctx.git.read(path, base) if base else None
    return read_pattern(path, data).title if data is not None else None


def review_push(ctx: Context, remote: str = "origin") -> builtins.list[str]:
    """Push every open review branch to ``remote`` through git (never with force); the branches pushed."""
    from gitmem.base.gitio import push

    names = [r.name for r in reviews(ctx)]
    if not names:
        return []
    push(ctx.root, remote, [f"refs/heads/{n}:refs/heads/{n}" for n in names])
    return names

