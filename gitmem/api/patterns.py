"""Patterns and their Hebbian weights: add one, compute a weight update, propose or apply it, analyze
co-activation, open atrophy branches (DESIGN.md sections 5 and 8)."""

from __future__ import annotations

import builtins
from dataclasses import dataclass, field, replace
from datetime import datetime
from typing import TYPE_CHECKING, Iterable

from gitmem.api.context import Context
from gitmem.base import clock
from gitmem.base.errors import ArgumentError, ConflictError, UsageError
from gitmem.guards import redact
from gitmem.store import enginestate, formats, store

if TYPE_CHECKING:
    from gitmem.engines.analyze import Analysis
    from gitmem.engines.hebbian import Row, Uncounted, WeightsPlan
    from gitmem.store.documents import Pattern



@dataclass(frozen=True)
class WeightsReport:
    """A weight update: its rows and unified diff; where it went (branch, commit) when it was written."""

    rows: tuple[Row, ...]
    diff: str
    branch: str | None = None
    commit: str | None = None
    superseded: tuple[str, ...] = ()
    sessions: int = 0
    uncounted: Uncounted | None = None   # with no rows: why the harvested sessions count for no pattern

    def to_json(self) -> dict[str, object]:
        """What ``weights --json`` prints."""
        return {"rows": [r.to_json() for r in self.rows], "branch": self.branch, "commit": self.commit,
                "superseded": list(self.superseded), "sessions": self.sessions, "diff": self.diff,
                "uncounted": self.uncounted.to_json() if self.uncounted else None}


@dataclass(frozen=True)
class PatternAdded:
    """A pattern a person added."""

    slug: str
    path: str
    weight: float
    commit: str | None
    triggers: tuple[str, ...] = field(default=())

    def to_json(self) -> dict[str, object]:
        """What ``pattern add --json`` prints."""
        return {"slug": self.slug, "path": self.path, "weight": self.weight, "commit": self.commit,
                "triggers": list(self.triggers)}


def patterns(ctx: Context, at: str | None = None) -> builtins.list[Pattern]:
    """Every readable pattern, strongest first."""
    return store.all_patterns(ctx.git, ctx.rev(at))


def pattern_add(ctx: Context, text: str, triggers: builtins.list[str], weight: float | None = None,
                now: datetime | None = None) -> PatternAdded:
    """Add a pattern a person wrote (one commit); it starts at ``hebbian.initial_weight`` unless given."""
    from gitmem.base.model import iso
    from gitmem.writer.plan import Plan
    from gitmem.store.documents import PATTERN_DIR, Pattern, render_pattern

    now = now or clock.now()
    text = " ".join(text.split())
    if not text:
        raise UsageError("a pattern needs text", hint='gitmem pattern add "TEXT" --triggers a,b')
    triggers = [" ".join(t.split()) for t in triggers if t.strip()]
    if not triggers:
        raise UsageError("a pattern needs at least one trigger (the words that activate it)",
                         hint='gitmem pattern add "TEXT" --triggers deploy,staging')
    cfg = ctx.cfg.hebbian
    w = cfg.initial_weight if weight is None else weight
    if not (cfg.weight_min <= w <= cfg.weight_max):
        raise UsageError(f"weight {w} is outside [{cfg.weight_min}, {cfg.weight_max}]",
                         hint="no weight reaches 1.0; pick one within hebbian.weight_min and weight_max")
    base = _slug(redact.nameable(text))   # a slug reaches file names, commits and pages
    info: dict[str, str] = {}

    def plan(parent: str | None) -> Plan[None]:
        taken = {p.slug for p in store.all_patterns(ctx.git, parent)}
        slug, n = base, 2
        while slug in taken:
            slug, n = f"{base}-{n}", n + 1
        info["slug"] = slug
        doc = Pattern(slug, text, round(w, 6), "episodic", tuple(triggers), (text,), (), 0, "", iso(now),
                      f"{PATTERN_DIR}/{slug}.md")
        return Plan({doc.path: render_pattern(doc)}, f"gitmem: add pattern {slug}", "pattern.add")

    written = ctx.writer.write(plan, now)
    slug = info["slug"]
    return PatternAdded(slug, f"patterns/{slug}.md", round(w, 6), written.commit, tuple(triggers))

def claude_md(ctx: Context, rev: str, patterns: Iterable[Pattern]) -> tuple[bytes | None, bytes | None]:
    """(CLAUDE.md at ``rev``, the same with Layers 2 and 3 regenerated from ``patterns`` and the
    episodes at ``rev``); (None, None) when there is no CLAUDE.md."""
    from gitmem.engines import render

    claude = ctx.git.read("CLAUDE.md", rev)
    if claude is None:
        return None, None
    episodes = [render.EpisodeLine(*row) for row in store.episode_rows(ctx.git, rev)]
    text = render.claude_md(claude.decode("utf-8", "replace"), render.pattern_lines(patterns), episodes,
                            ctx.cfg.budgets.claude_md_lines)
    return claude, text.encode("utf-8")


def weights_plan(ctx: Context, rev: str | None) -> WeightsPlan:
    """The next Hebbian weight update at ``rev``: every pattern against the sessions harvested since."""
    from gitmem.engines import hebbian

    sessions = hebbian.signals_of(store.episodes(ctx.git, rev))
    return hebbian.plan_weights(store.all_patterns(ctx.git, rev), sessions, ctx.cfg.hebbian)


def weights_changes(ctx: Context, rev: str | None, update: WeightsPlan) -> dict[str, bytes | None]:
    """The pattern documents of ``update`` plus CLAUDE.md with Layer 2 regenerated from them."""
    changes: dict[str, bytes | None] = dict(update.changes)
    if rev is None or not changes:
        return changes
    changes.update(layer2(ctx, rev, builtins.list(update.patterns)))
    return changes


def layer2(ctx: Context, rev: str, patterns: builtins.list[Pattern]) -> dict[str, bytes | None]:
    """CLAUDE.md at ``rev`` with Layer 2 regenerated from ``patterns`` (nothing when it would not change)."""
    old, new = claude_md(ctx, rev, patterns)
    return {"CLAUDE.md": new} if new is not None and new != old else {}


def _diff(ctx: Context, rev: str | None, changes: dict[str, bytes | None]) -> str:
    import difflib

    before = ctx.git.read_many(changes, rev)
    out: list[str] = []
    for path in sorted(changes):
        old, new = before[path], changes[path]
        out.extend(difflib.unified_diff((old or b"").decode("utf-8", "replace").splitlines(keepends=True),
                                        (new or b"").decode("utf-8", "replace").splitlines(keepends=True),
                                        f"a/{path}", f"b/{path}"))
    return "".join(out)


def weights(ctx: Context, now: datetime | None = None) -> WeightsReport:
    """The next weight update, computed on the checked-out branch; a dry run that writes nothing."""
    head = ctx.head
    update = weights_plan(ctx, head)
    changes = weights_changes(ctx, head, update)
    return WeightsReport(update.rows, _diff(ctx, head, changes), sessions=update.sessions,
                         uncounted=update.uncounted if not update.rows else None)


def open_weights_review(ctx: Context) -> str | None:
    """The open weights review branch, if any."""
    from gitmem.engines import review

    found = [b for b in ctx.git.branches(review.REVIEW) if review.kind(b) == "weights"]
    return found[-1] if found else None


def propose_weights(ctx: Context, now: datetime | None = None) -> WeightsReport:
    """Commit the weight update as ONE commit on a new review branch; it supersedes the open one."""
    from gitmem.engines import review

    now = now or clock.now()
    main = ctx.writer.default_branch()
    base = ctx.git.tip(main)
    if base is None:
        raise UsageError("the repository has no commit yet", hint="remember something first")
    update = weights_plan(ctx, base)
    changes = weights_changes(ctx, base, update)
    if not changes:
        return WeightsReport((), "", sessions=0, uncounted=update.uncounted)
    superseded = tuple(_supersede(ctx, b, now) for b in ctx.git.branches(review.REVIEW)
                       if review.kind(b) == "weights")
    branch = review.weights_branch(now)
    commit = open_review(ctx, branch, base, changes, _subject(update, "propose"), "hebbian.weights.propose",
                               _table(update.rows), now)
    return WeightsReport(update.rows, _diff(ctx, base, changes), branch, commit, superseded, update.sessions)


def open_review(ctx: Context, branch: str, base: str, changes: dict[str, bytes | None], subject: str, event: str,
                body: str, now: datetime) -> str | None:
    """A new review branch at ``base`` holding ONE commit of ``changes`` (automated, never on main);
    the commit, or None (and no branch) when ``base`` moved before it was written."""
    from gitmem.writer.plan import Plan

    ctx.git.set_ref(f"refs/heads/{branch}", base, None)
    plan: Plan[None] = Plan(changes, subject, event, auto=True, body=body, trailers=(("Gitmem-Review", branch),))
    written = ctx.writer.write(lambda parent: plan if parent == base else None, now, branch=branch)
    if written.commit is None:
        ctx.git.delete_ref(f"refs/heads/{branch}")
    return written.commit


def proposed(ctx: Context, prefix: str) -> set[str]:
    """Names under ``prefix`` with an open review branch or a rejected one: never proposed again."""
    from gitmem.engines import review

    return ({b[len(prefix):] for b in ctx.git.branches(prefix)}
            | {r[len(review.REJECTED + prefix):] for r in ctx.git.refs(review.REJECTED + prefix)})


def _supersede(ctx: Context, branch: str, now: datetime) -> str:
    from gitmem.base import state
    from gitmem.base.model import iso
    from gitmem.engines import review

    tip = ctx.git.tip(branch)
    if tip is not None:
        ctx.git.set_ref(review.rejected_ref(branch), tip, None)
    ctx.git.delete_ref(f"refs/heads/{branch}")
    state.log_event(ctx.root, "review.superseded", iso(now), branch=redact.for_log(branch), reason="superseded")
    return branch


def apply_weights(ctx: Context, now: datetime | None = None) -> WeightsReport:
    """Commit the weight update on the branch itself, while automatic changes are allowed."""
    from gitmem.writer.plan import Plan

    now = now or clock.now()
    open_review = open_weights_review(ctx)
    if open_review:
        raise ConflictError(f"a weights review is open: {open_review}",
                            hint=f"accept or reject it first (gitmem review show {open_review})")
    limit = ctx.cfg.hebbian.forced_review_after
    info: dict[str, WeightsPlan] = {}

    def plan(parent: str | None) -> Plan[None] | None:
        old = ctx.git.read(formats.STATE_FILE, parent) if parent else None
        state = enginestate.read(old)
        streak = state.auto_streak
        update = weights_plan(ctx, parent)
        info["update"] = update
        changes = weights_changes(ctx, parent, update)
        if not changes:
            return None
        if streak >= limit:
            raise ConflictError(f"{streak} weight updates were applied without review; this one must be reviewed",
                                hint="propose it: gitmem weights --propose (hebbian.forced_review_after)")
        changes[formats.STATE_FILE] = enginestate.write(old, replace(state, auto_streak=streak + 1))
        return Plan(changes, _subject(update, "apply"), "hebbian.weights.apply", auto=True,
                    body=_table(update.rows))

    written = ctx.writer.write(plan, now)
    update = info.get("update")
    if written.commit and update is not None and any(r.stage_after == "core-candidate" for r in update.rows):
        promote(ctx, now)   # reads every pattern again: only when this update made or kept a candidate
    return WeightsReport(update.rows if update else (), "", ctx.writer.default_branch(), written.commit,
                         sessions=update.sessions if update else 0)


def analyze(ctx: Context, cluster_threshold: float | None = None, merge_threshold: float | None = None) -> Analysis:
    """Co-activation of patterns: Jaccard over the sessions that activate them, clusters, merge candidates."""
    import math

    from gitmem.engines import analyze, hebbian

    for name, value in (("cluster threshold", cluster_threshold), ("merge threshold", merge_threshold)):
        if value is not None and not (math.isfinite(value) and 0.0 <= value <= 1.0):
            raise ArgumentError(f"the {name} {value} is no Jaccard similarity: give a number from 0 to 1",
                                hint="gitmem analyze --merge-threshold 0.8")
    head = ctx.head
    sessions = hebbian.signals_of(store.episodes(ctx.git, head))
    return analyze.analyze(store.all_patterns(ctx.git, head), sessions,
                           analyze.CLUSTER_THRESHOLD if cluster_threshold is None else cluster_threshold,
                           analyze.MERGE_THRESHOLD if merge_threshold is None else merge_threshold,
                           ctx.cfg.analyze.min_sessions)


def atrophy(ctx: Context, now: datetime | None = None) -> builtins.list[str]:
    """Open one branch ``gitmem/atrophy/<slug>`` per pattern long under ``delete_below``; never twice."""
    from gitmem.engines import review

    now = now or clock.now()
    base = ctx.git.tip(ctx.writer.default_branch())
    if base is None:
        return []
    opened = []
    patterns = store.all_patterns(ctx.git, base)
    for cand in review.atrophy_candidates(patterns, now, ctx.cfg.hebbian, proposed(ctx, review.ATROPHY)):
        gone = cand.pattern
        changes: dict[str, bytes | None] = {gone.path: None}
        changes.update(layer2(ctx, base, [p for p in patterns if p.slug != gone.slug]))
        branch = review.atrophy_branch(gone.slug)
        if open_review(ctx, branch, base, changes, f"gitmem: atrophy: delete pattern {gone.slug}",
                             "hebbian.atrophy", cand.evidence, now):
            opened.append(branch)
    return opened


def promote(ctx: Context, now: datetime | None = None) -> builtins.list[str]:
    """Open one branch ``gitmem/review/promote-<slug>`` per core-candidate pattern; accepting it moves the
    rule into Layer 1. Never twice for a pattern while its branch is open or after a rejection."""
    from gitmem.engines import review
    from gitmem.store.documents import render_pattern

    now = now or clock.now()
    base = ctx.git.tip(ctx.writer.default_branch())
    if base is None:
        return []
    blocked = proposed(ctx, review.promote_branch(""))
    opened = []
    patterns = store.all_patterns(ctx.git, base)
    for p in patterns:
        if p.stage != "core-candidate" or p.slug in blocked:
            continue
        promoted = replace(p, stage="core")
        changes: dict[str, bytes | None] = {p.path: render_pattern(promoted)}
        changes.update(layer2(ctx, base, [promoted if q.slug == p.slug else q for q in patterns]))
        branch = review.promote_branch(p.slug)
        if open_review(ctx, branch, base, changes, f"gitmem: promote pattern {p.slug} to CORE (Layer 1)",
                             "hebbian.promote", f"rule: {p.title}\nweight {p.weight:.6g}, stage {p.stage}", now):
            opened.append(branch)
    return opened


def _subject(update: WeightsPlan, how: str) -> str:
    moves = len(update.stage_moves)
    return (f"gitmem: {'propose' if how == 'propose' else 'apply'} weight update ({len(update.rows)} patterns"
            f"{f', {moves} stage moves' if moves else ''})")


def _table(rows: tuple[Row, ...]) -> str:
    lines = [f"{r.slug}: {r.before:.6g} -> {r.after:.6g}"
             + (f", {r.stage_before} -> {r.stage_after}" if r.stage_before != r.stage_after else "")
             + f" ({r.counted} sessions, {r.activated} activated)" for r in rows[:200]]
    return "\n".join(lines)


def _slug(text: str, limit: int = 48) -> str:
    """A file name from the first whole words of ``text``, as gitmem's tokenizer cuts and folds them
    ("Réunion" is "reunion"), in ASCII letters and digits."""
    from gitmem.base.text import words

    slug = ""
    for w in (a for w in words(text) if (a := w.encode("ascii", "ignore").decode())):
        if slug and len(slug) + 1 + len(w) > limit:
            break
        slug = f"{slug}-{w}" if slug else w[:limit]
    return slug or "pattern"

