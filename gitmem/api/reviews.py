"""Review branches: list, show, accept, reject, push (DESIGN.md section 8).

A review branch holds what gitmem proposed (a weight update, an atrophy
deletion, a promotion, a harvest inbox), but it is untrusted input: it may
come from a remote or a teammate, or be made by hand. What it may change is
its kind's scope (``gitmem.engines.reviewkinds``), judged on its diff against
its base, never on its name: ``show`` lists every path it changes and marks
what is outside the scope, and ``accept`` refuses such a branch and says what.

``accept`` merges it into the checked-out branch with a merge commit carrying
``Gitmem-Approved-By``, merging memory documents both sides changed field by
field; the merged result passes every guard of the writer's chain before it
is committed. A weight update whose base moved is computed again from the
branch as it is now (no session counted twice), shown, and committed only
when the person accepts that recomputed change (``recomputed=DIGEST``).
``reject`` records the veto and its reason in a commit and, once that commit
has landed, keeps the branch under ``refs/gitmem/rejected/``: nothing moves
when either fails. A review merged on a remote as a pull request (its tip
reachable from the remote's branch) is recognised and recorded as accepted by
the merge's author (``merged_reviews``). Accept and reject are a person's
decision (``gitmem.guards.reviewer``).
"""

from __future__ import annotations

import builtins
import os
from dataclasses import dataclass, replace
from datetime import datetime

from gitmem.api import patterns, promotions
from gitmem.api.context import Context
from gitmem.base import clock
from gitmem.base.errors import CheckFailed, ConflictError, NotFoundError, UsageError
from gitmem.store import enginestate, formats, store

TYPE_CHECKING = False
if TYPE_CHECKING:
    from gitmem.engines.review import InboxItem
    from gitmem.engines.hebbian import WeightsPlan
    from gitmem.engines.reviewkinds import Change, Outside

ACCEPTED = "refs/gitmem/accepted/"     # a review merged on a remote, kept for audit
MAX_WALK = 10_000                      # commits of a remote branch walked back to find a review's merge


class StaleReview(ConflictError):
    """A weight update proposed on an older commit: computed again, it is shown and asked for again."""

    def __init__(self, branch: str, semantic: builtins.list[str], digest: str) -> None:
        lines = "\n".join(f"  {line}" for line in semantic) or "  (no pattern changes: every session is counted)"
        super().__init__(f"{branch} was proposed on an older commit; computed again from the branch as it is now, "
                         f"it changes:\n{lines}",
                         hint=f"if that is what you accept: gitmem review accept {branch} --recomputed {digest}")
        self.branch = branch
        self.semantic = tuple(semantic)
        self.digest = digest


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


def _outside(branch: str, changes: builtins.list[Change]) -> builtins.list[Outside]:
    """The changes outside the scope of ``branch``'s kind (all of them for a branch of no kind)."""
    from gitmem.engines import reviewkinds

    kind = reviewkinds.kind_of(branch)
    if kind is None:
        return [reviewkinds.Outside(c, "a branch of no review kind: nothing is in its scope") for c in changes]
    return reviewkinds.judge(kind, branch, changes)


def _refuse_outside(branch: str, outside: builtins.list[Outside]) -> None:
    if outside:
        from gitmem.engines.review import visible

        from gitmem.engines.reviewkinds import kind_of

        kind = kind_of(branch)
        listing = [visible(o.shown()) for o in outside]
        raise CheckFailed(f"{visible(branch)} changes {len(listing)} path(s) outside "
                          f"{f'a {kind.name} review' if kind else 'any review kind'}'s scope; nothing accepted",
                          listing, hint=f"see it with `gitmem review show {visible(branch)}`; reject it with "
                                        f"`gitmem review reject {visible(branch)} --reason 'outside its scope'`")


def review_show(ctx: Context, name: str) -> ReviewShown:
    """What a review changes: in words (weights, stages, deletions with their history; a harvest inbox's items),
    every path it changes with what is outside its kind's scope marked, and the raw diff."""
    from gitmem.base.gitio import diff_text
    from gitmem.engines import review, reviewkinds

    info = _info(ctx, _name(ctx, name))
    base = info.base or info.commit
    found = reviewkinds.kind_of(info.name)
    changes = changes_of(ctx, info.base, info.commit)
    outside = _outside(info.name, changes)
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
        rule = _promoted_rule(ctx, info.base, info.name)
        on_accept = (f"Layer 1 (CORE) of CLAUDE.md gains the rule: {review.visible(rule)!r}",) if rule else ()
    return ReviewShown(info, tuple(semantic), message, diff, (), scope, paths, shown_outside, on_accept)


def _promoted_rule(ctx: Context, base: str | None, branch: str) -> str | None:
    """The rule a promotion adds to Layer 1: its pattern's title as it is on the base (never the branch's)."""
    from gitmem.engines import reviewkinds
    from gitmem.store.documents import read_pattern

    slug = branch[len(reviewkinds.PROMOTE.prefix):]
    path = f"patterns/{slug}.md"
    data = ctx.git.read(path, base) if base else None
    return read_pattern(path, data).title if data is not None else None


def _digest(update: WeightsPlan) -> str:
    """A short hash of what a recomputed weight update changes: what the person saw is what is committed."""
    import hashlib

    rows = "\n".join(f"{r.slug} {r.before!r} {r.after!r} {r.stage_before} {r.stage_after}" for r in update.rows)
    return hashlib.sha1(rows.encode("utf-8")).hexdigest()[:12]


def review_accept(ctx: Context, name: str, *, only: str | None = None, interactive: bool = False,
                  i_am_the_reviewer: bool = False, now: datetime | None = None,
                  recomputed: str | None = None) -> ReviewDecided:
    """Merge a review into the checked-out branch (a merge commit with ``Gitmem-Approved-By``).

    Refused, with nothing changed, when the branch changes anything outside its kind's scope.
    ``only`` ("1,3"): of a harvest inbox, keep those items and drop the rest. ``recomputed``: of a weights
    review whose base moved, the digest of the recomputed change the person was shown (``StaleReview``).
    """
    from gitmem.base.gitio import person
    from gitmem.engines import review, reviewkinds
    from gitmem.guards.reviewer import require_person
    from gitmem.writer.plan import Plan

    require_person("review accept", interactive, i_am_the_reviewer, os.environ)
    now = now or clock.now()
    branch = _name(ctx, name)
    tip = ctx.git.tip(branch)
    assert tip is not None
    who = person(ctx.root) or "a person"
    kind = reviewkinds.kind_of(branch)
    main = ctx.git.tip(ctx.writer.default_branch())
    if kind is None:
        raise CheckFailed(f"{review.visible(branch)} is a branch of no review kind; nothing is accepted from it", [],
                          hint=f"reject it: gitmem review reject {review.visible(branch)} --reason 'no review kind'")
    if kind is not reviewkinds.HARVEST:   # an inbox's accept refuses the same (what is not a new memory) itself
        _refuse_outside(branch, _outside(branch, changes_of(ctx, ctx.git.merge_base(tip, main) if main else None,
                                                            tip)))
    if kind is reviewkinds.HARVEST:
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
        if kind is reviewkinds.SEDIMENT:   # the rule written into its target as it stands now
            return Plan(promotions.accept_changes(ctx, branch, parent, tip, who, now), f"gitmem: accept review "
                        f"{branch}", "review.accept", approved_by=who, trailers=(("Gitmem-Review", branch),),
                        merge_parents=(tip,))
        if kind is reviewkinds.WEIGHTS and base != parent:
            update = patterns.weights_plan(ctx, parent)   # counted again from what is there now: never twice
            digest = _digest(update)
            if recomputed != digest:
                before = {p.slug: p for p in store.all_patterns(ctx.git, parent)}
                raise StaleReview(branch, review.semantic_diff(before, {p.slug: p for p in update.patterns}),
                                  digest)
            changes = patterns.weights_changes(ctx, parent, update)
            info["recomputed"] = True
        else:
            changes = _three_way(ctx, branch, base, parent, tip)
        if kind is reviewkinds.PROMOTE:
            changes.update(_into_core(ctx, parent, _promoted_rule(ctx, base, branch), changes))
        old = ctx.git.read(formats.STATE_FILE, parent)
        state = enginestate.read(old)
        # approvals and vetoes are counted from sedimentation reviews only (gitmem.api.promotions)
        changes[formats.STATE_FILE] = enginestate.write(old, replace(state, auto_streak=0))
        return Plan(changes, f"gitmem: accept review {branch}", "review.accept", approved_by=who,
                    trailers=(("Gitmem-Review", branch),), merge_parents=(tip,))

    before = promotions.threshold_base(ctx, branch, now)
    written = ctx.writer.write(plan, now)
    ctx.git.delete_ref(f"refs/heads/{branch}")
    if kind is reviewkinds.SEDIMENT:
        promotions.decided(ctx, branch, "accepted", now, before)
    if kind is reviewkinds.WEIGHTS:
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
        from gitmem.engines import render

        if pats or ctx.git.read("patterns.md", main) is not None:   # the patterns' index, as reflect writes it
            changes["patterns.md"] = render.patterns_md(render.pattern_lines(pats.values(), with_core=True)).encode("utf-8")
    return changes


def _into_core(ctx: Context, main: str, rule: str | None, changes: dict[str, bytes | None]) -> dict[str, bytes | None]:
    """CLAUDE.md with the promoted pattern's rule added to Layer 1 (this commit carries the approval)."""
    from gitmem.guards import layers

    claude = changes.get("CLAUDE.md") or ctx.git.read("CLAUDE.md", main)
    if claude is None or not rule:
        return {}
    return {"CLAUDE.md": layers.add_to_core(claude.decode("utf-8", "replace"), rule).encode("utf-8")}


def review_reject(ctx: Context, name: str, reason: str = "", *, interactive: bool = False,
                  i_am_the_reviewer: bool = False, now: datetime | None = None) -> ReviewDecided:
    """Record the veto with its reason (one commit), then keep the branch under ``refs/gitmem/rejected/``.

    All or nothing: a reason the guards refuse (a secret) moves no ref and records no veto.
    """
    from gitmem.base.gitio import person
    from gitmem.engines import review
    from gitmem.guards.reviewer import require_person
    from gitmem.writer.plan import Plan

    require_person("review reject", interactive, i_am_the_reviewer, os.environ)
    now = now or clock.now()
    branch = _name(ctx, name)
    tip = ctx.git.tip(branch)
    assert tip is not None
    # redacted before anything is derived from it (commit, event log); a secret refuses the rejection whole
    reason = " ".join(ctx.redactor.redact_text(reason, "the reason of a rejection", "review.reject", now).split())
    reason = reason or "no reason given"
    if review.kind(branch) == "harvest":
        from gitmem.api.inbox import reject

        kept_at, dropped = reject(ctx, branch, reason, now)
        return ReviewDecided(branch, "rejected", None, reason, kept_at=kept_at, dropped=dropped)
    kept = review.rejected_ref(branch)
    who = person(ctx.root) or "a person"

    def plan(parent: str | None) -> Plan[None]:
        old = ctx.git.read(formats.STATE_FILE, parent) if parent else None
        state = enginestate.read(old)
        from gitmem.base.model import iso

        logged = tuple(sorted({*state.decisions, f"{iso(now)} reject {branch}"}))   # the veto, audited
        changes: dict[str, bytes | None] = {formats.STATE_FILE: enginestate.write(old, replace(
            state, auto_streak=0, decisions=logged))}
        if review.kind(branch) == "sediment":   # a person's veto (counted; a default rejection is not)
            changes = promotions.reject_changes(ctx, branch, parent, now)
        return Plan(changes, f"gitmem: reject review {branch}", "review.reject", approved_by=who,
                    body=f"reason: {reason}\nkept at: {kept} ({tip})",
                    trailers=(("Gitmem-Review", branch), ("Gitmem-Veto", reason)))

    before = promotions.threshold_base(ctx, branch, now)
    written = ctx.writer.write(plan, now)
    # the veto has landed: only now does the branch move (kept for audit, then gone from the open reviews)
    existing = ctx.git.refs(kept)
    ctx.git.set_ref(kept, tip, ctx.git.commit(kept).id if kept in existing else None)
    ctx.git.delete_ref(f"refs/heads/{branch}")
    if review.kind(branch) == "sediment":
        promotions.decided(ctx, branch, "rejected", now, before)
    return ReviewDecided(branch, "rejected", written.commit, reason, kept_at=kept)



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


def review_push(ctx: Context, remote: str = "origin") -> builtins.list[str]:
    """Push every open review branch to ``remote`` through git (never with force); the branches pushed."""
    from gitmem.base.gitio import push

    names = [r.name for r in reviews(ctx)]
    if not names:
        return []
    push(ctx.root, remote, [f"refs/heads/{n}:refs/heads/{n}" for n in names])
    return names

