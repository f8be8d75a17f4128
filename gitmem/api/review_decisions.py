"""A person's decision on a review branch: accept or reject (DESIGN.md section 8).

``accept`` merges it into the checked-out branch with a merge commit carrying
``Gitmem-Approved-By``, merging memory documents both sides changed field by
field; the merged result passes every guard of the writer's chain before it
is committed. A branch that changes anything outside its kind's scope
(``gitmem.api.reviews.outside_of``) is refused, and nothing is accepted. A
weight update whose base moved is computed again from the branch as it is now
(no session counted twice), shown, and committed only when the person accepts
that recomputed change (``recomputed=DIGEST``). ``reject`` records the veto and
its reason in a commit and, once that commit has landed, keeps the branch
under ``refs/gitmem/rejected/``: nothing moves when either fails. Accept and
reject are a person's decision (``gitmem.guards.reviewer``).
"""

from __future__ import annotations

import builtins
import os
from dataclasses import dataclass, replace
from datetime import datetime

from gitmem.api import patterns, promotions
from gitmem.api.context import Context
from gitmem.api.reviews import branch_named, changes_of, outside_of, promoted_rule
from gitmem.base import clock
from gitmem.base.errors import CheckFailed, ConflictError, UsageError
from gitmem.store import enginestate, formats, store

TYPE_CHECKING = False
if TYPE_CHECKING:
    from gitmem.engines.hebbian import WeightsPlan
    from gitmem.engines.reviewkinds import Outside


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
    branch = branch_named(ctx, name)
    tip = ctx.git.tip(branch)
    assert tip is not None
    who = person(ctx.root) or "a person"
    kind = reviewkinds.kind_of(branch)
    main = ctx.git.tip(ctx.writer.default_branch())
    if kind is None:
        raise CheckFailed(f"{review.visible(branch)} is a branch of no review kind; nothing is accepted from it", [],
                          hint=f"reject it: gitmem review reject {review.visible(branch)} --reason 'no review kind'")
    if kind is not reviewkinds.HARVEST:   # an inbox's accept refuses the same (what is not a new memory) itself
        _refuse_outside(branch, outside_of(branch, changes_of(ctx, ctx.git.merge_base(tip, main) if main else None,
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
            changes.update(_into_core(ctx, parent, promoted_rule(ctx, base, branch), changes))
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
    branch = branch_named(ctx, name)
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
