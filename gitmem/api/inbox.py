"""The harvest inbox: memories a harvest was unsure of, waiting on one review branch for a person.

There is one open inbox, ``gitmem/review/harvest-<stamp>``. Each harvest that
has unsure memories adds ONE commit to it, built on the current tip of the
checked-out branch (its first parent) with the inbox so far as its second
parent: the branch is always the tip plus the inbox's memories and nothing
else, and keeps one commit per harvest. A memory that duplicates one already
in the inbox or live on the branch is not asked about again. Should two
harvests open an inbox at the same moment, the next addition folds the later
one into the first (its tip becomes a parent, its branch goes).

``accept`` keeps the items a person names (``--only 1,3``; all without it)
and drops the rest, in one merge commit; ``reject`` drops them all and keeps
the branch under ``refs/gitmem/rejected/``. Either is a person's decision,
appended item by item to ``inbox-decisions.jsonl`` in the clone's state
folder (session key, line, kind, decision, the candidate's key and a hash of
the text, never the text), which the corpus tooling reads. Neither moves the review streaks of
``.gitmem/state.yaml``: those count the pattern and weight reviews.
"""

from __future__ import annotations

import os
import threading
from dataclasses import dataclass
from datetime import datetime
from typing import TYPE_CHECKING, Sequence

from gitmem.base import state
from gitmem.base.errors import CasFailed, ConflictError, GitmemError, NotFoundError
from gitmem.base.model import iso
from gitmem.guards import redact

if TYPE_CHECKING:
    from gitmem.api.context import Context
    from gitmem.engines import memorize
    from gitmem.writer.commit import Writer
    from gitmem.base.model import Memory
    from gitmem.engines.review import Decision, InboxItem

DECISIONS_FILE = "inbox-decisions.jsonl"
EVENT = "harvest.inbox"            # the Gitmem-Event of an inbox commit
BUILD = "gitmem/inbox-build-"      # where a new inbox commit is made before the inbox moves to it
MAX_ATTEMPTS = 20
MAX_CHAIN = 10_000                 # harvest commits an inbox is walked back through to number its items


@dataclass(frozen=True)
class InboxAdded:
    """What one harvest put into the inbox."""

    branch: str
    commit: str
    added: int


@dataclass(frozen=True)
class InboxContents:
    """The inbox as a person decides on it: its items in order, and any path it changes beyond its scope."""

    branch: str
    tip: str
    base: str | None
    items: tuple[InboxItem, ...]
    outside: tuple[str, ...]


# What the inbox asks of the use-case context: the write path and the reinforce-or-create rule.
def _writer(ctx: Context) -> Writer:
    return ctx.writer


def _lookup(ctx: Context, rev: str | None) -> memorize.Lookup | None:
    from gitmem.api import duplicates

    return duplicates.duplicate_lookup(ctx, rev)


def _threshold(ctx: Context) -> float:
    from gitmem.api import duplicates

    return duplicates.threshold(ctx)


def _changes(ctx: Context, batch: memorize.Batch, parent: str | None) -> dict[str, bytes | None]:
    from gitmem.api import duplicates

    return duplicates.batch_changes(ctx, batch, parent)


def open_inboxes(ctx: Context) -> list[str]:
    """The open harvest inboxes, oldest first: one, or more when two harvests opened one at once (the next
    addition folds the later ones into the first)."""
    from gitmem.engines import review

    return [b for b in ctx.git.branches(review.REVIEW) if review.kind(b) == "harvest"]


def _added(ctx: Context, base: str | None, tip: str) -> tuple[list[str], list[str]]:
    """(memory documents ``tip`` adds over ``base``, every other path it changes)."""
    from gitmem.engines import review

    items: list[str] = []
    outside: list[str] = []
    for change in ctx.git.diff(base, tip):
        (items if change.status == "A" and review.is_inbox_path(change.path) else outside).append(change.path)
    return items, outside


def _chain(ctx: Context, tip: str) -> list[str]:
    """The inbox's harvest commits, oldest first: each one's second parent is the inbox before it."""
    chain: list[str] = []
    commit = tip
    while len(chain) < MAX_CHAIN:
        chain.append(commit)
        parents = ctx.git.commit(commit).parents
        if len(parents) < 2 or f"Gitmem-Event: {EVENT}\n" not in ctx.git.commit(parents[1]).message:
            break   # the first harvest (only the order of the items comes from the messages)
        commit = parents[1]
    return chain[::-1]


def contents(ctx: Context, branch: str) -> InboxContents:
    """The items of inbox ``branch``, numbered in the order the harvests added them."""
    from gitmem.engines import review
    from gitmem.store import documents

    tip = ctx.git.tip(branch)
    if tip is None:
        raise NotFoundError(f"no open review {branch!r}", hint="list them with `gitmem review list`")
    main = ctx.git.tip(_writer(ctx).default_branch())
    base = ctx.git.merge_base(tip, main) if main else None
    paths, outside = _added(ctx, base, tip)
    data = ctx.git.read_many(paths, tip)
    held: dict[str, Memory] = {}
    for path in paths:
        try:
            held[path] = documents.read_memory(path, data[path] or b"")
        except GitmemError:
            outside.append(path)   # not a memory document gitmem can read: never kept

    def order(found: list[str]) -> list[str]:   # within one harvest, as the session said them
        return sorted(found, key=lambda p: (review.inbox_item(0, held[p]).line, p))

    ordered: list[str] = []
    for commit in _chain(ctx, tip):
        first = ctx.git.commit(commit).parents[:1]
        seen = set(ordered)
        ordered += order([p for p in _added(ctx, first[0] if first else None, commit)[0] if p in held and p not in seen])
    seen = set(ordered)
    ordered += order([p for p in held if p not in seen])
    items = [review.inbox_item(n, held[p]) for n, p in enumerate(ordered, 1)]
    return InboxContents(branch, tip, base, tuple(items), tuple(outside))


def add(ctx: Context, memories: Sequence[Memory], now: datetime, session: str = "") -> InboxAdded | None:
    """Add ``memories`` to the open inbox (opening one at ``now`` when none is), as ONE commit on the current
    tip; None when each of them is already in the inbox or on the branch."""
    from gitmem.engines import review, similarity

    main = _writer(ctx).default_branch()
    for attempt in range(MAX_ATTEMPTS):
        base = ctx.git.tip(main)
        if base is None or not memories:
            return None
        [branch, *later] = open_inboxes(ctx) or [review.harvest_branch(now)]
        old = ctx.git.tip(branch)
        held = _held(ctx, old, base)
        known = [(path, text) for path, (_, text) in held.items()]
        folded = [(b, tip) for b in later if (tip := ctx.git.tip(b)) is not None]
        for _, tip in folded:
            for path, (data, text) in _held(ctx, tip, base).items():
                if path not in held and similarity.find_duplicate(text, known, _threshold(ctx)) is None:
                    held[path] = (data, text)
                    known.append((path, text))
        lookup = _lookup(ctx, base)
        fresh: list[Memory] = []
        for mem in memories:
            if (similarity.find_duplicate(mem.content, known, _threshold(ctx)) is None
                    and (lookup is None or lookup(mem) is None)):
                fresh.append(mem)
                known.append((mem.path, mem.content))
        if not fresh:
            return None
        commit = _build(ctx, branch, base, [t for t in (old, *(tip for _, tip in folded)) if t], held, fresh,
                        session, now, attempt)
        try:
            ctx.git.set_ref(f"refs/heads/{branch}", commit, old)
        except CasFailed:
            continue   # another harvest moved the inbox meanwhile: built again on what it holds now
        for b, tip in folded:   # their items are in this one now, their commits its parents
            if ctx.git.tip(b) == tip:
                ctx.git.delete_ref(f"refs/heads/{b}")
        state.log_event(ctx.root, "harvest.inbox", iso(now), branch=redact.for_log(branch), commit=commit, added=len(fresh),
                        session=session)
        return InboxAdded(branch, commit, len(fresh))
    raise ConflictError("the harvest inbox kept moving; gave up", hint="harvest again when other harvests end")


def _held(ctx: Context, tip: str | None, main: str) -> dict[str, tuple[bytes, str]]:
    """What inbox ``tip`` holds that the branch at ``main`` does not: path -> (the document as it is, its text).

    Carried forward byte for byte (the write path checks them again); only the text is read, for the dedupe.
    """
    from gitmem.store import documents

    if tip is None:
        return {}
    paths, _ = _added(ctx, ctx.git.merge_base(tip, main), tip)
    at_tip, at_main = ctx.git.read_many(paths, tip), ctx.git.read_many(paths, main)
    held = {}
    for path in paths:
        data = at_tip[path]
        if at_main[path] is None and data is not None:
            try:
                body = documents.split_front_matter(documents.decode(path, data), path)[1]
            except GitmemError:
                continue   # never carried forward: only documents gitmem can read are asked about
            held[path] = (data, body.strip())
    return held


def _build(ctx: Context, branch: str, base: str, inboxes: Sequence[str], held: dict[str, tuple[bytes, str]],
           fresh: Sequence[Memory], session: str, now: datetime, attempt: int) -> str:
    """One commit on ``base`` adding ``held`` and ``fresh``, with the tips of ``inboxes`` as its other parents
    (the inbox it continues first; every guard runs)."""
    from gitmem.writer.plan import Plan
    from gitmem.store import store

    work = f"{BUILD}{os.getpid()}-{threading.get_ident()}-{attempt}"   # one per writer: never shared
    ctx.git.delete_ref(f"refs/heads/{work}")   # one a killed harvest left behind
    ctx.git.set_ref(f"refs/heads/{work}", base, None)
    changes: dict[str, bytes | None] = {path: data for path, (data, _) in held.items()}
    changes.update((m.path, store.render(m)) for m in fresh)
    try:
        plan: Plan[None] = Plan(changes, f"gitmem: harvest inbox: {len(changes)} items to review ({len(fresh)} new)",
                                EVENT, auto=True, session=session or None,
                                body="keep or drop them: gitmem review show " + branch,
                                trailers=(("Gitmem-Review", branch),), merge_parents=tuple(inboxes))
        written = _writer(ctx).write(lambda parent: plan if parent == base else None, now, branch=work)
    finally:
        ctx.git.delete_ref(f"refs/heads/{work}")
    if written.commit is None:
        raise ConflictError(f"{branch}: the inbox commit could not be made", hint="harvest again")
    return written.commit


def accept(ctx: Context, branch: str, only: str | None, who: str, now: datetime) -> tuple[str | None, int, int]:
    """Keep the items ``only`` names (all without it) in one merge commit onto the checked-out branch; drop the
    rest. (commit, kept, dropped); a bad ``only`` is a usage error and changes nothing."""
    from gitmem.engines import memorize, review
    from gitmem.engines.decay import band
    from gitmem.engines.harvest import placement
    from gitmem.writer.plan import Plan
    from gitmem.store import documents

    inbox = contents(ctx, branch)
    if inbox.outside:
        raise ConflictError(f"{branch} changes paths a harvest inbox may not: " + ", ".join(inbox.outside[:5]),
                            hint=f"reject it: gitmem review reject {branch} --reason 'outside its scope'")
    numbers = review.parse_only(only, len(inbox.items)) if only is not None else None
    keep = [i for i in inbox.items if numbers is None or i.number in numbers]
    drop = [i for i in inbox.items if i not in keep]
    data = ctx.git.read_many([i.path for i in keep], inbox.tip)

    def plan(parent: str | None) -> Plan[None]:
        batch = memorize.Batch(_lookup(ctx, parent), now, ctx.cfg.memory)
        for item in keep:
            mem = documents.read_memory(item.path, data[item.path] or b"")
            rule = placement.is_user_rule(item.kind, mem.domain)
            # the branch may come from anywhere: what it says a memory weighs is placed again
            weight = placement.importance(item.kind, mem.domain, mem.importance, ctx.cfg.memory)
            mem = mem.with_(importance=weight, band=band(weight, ctx.cfg.memory))
            batch.add(mem, cap=None if rule else placement.below_core(ctx.cfg.memory))
        listing = "\n".join(f"{'kept' if i in keep else 'dropped'}: {i.number}. {i.path}" for i in inbox.items)
        return Plan(_changes(ctx, batch, parent), f"gitmem: accept harvest inbox {branch} "
                    f"({len(keep)} kept, {len(drop)} dropped)", "review.accept", approved_by=who, body=listing,
                    trailers=(("Gitmem-Review", branch),), merge_parents=(inbox.tip,))

    written = _writer(ctx).write(plan, now)
    ctx.git.delete_ref(f"refs/heads/{branch}")
    _record(ctx, branch, [(i, "keep" if i in keep else "drop") for i in inbox.items], now)
    return written.commit, len(keep), len(drop)


def reject(ctx: Context, branch: str, reason: str, now: datetime) -> tuple[str, int]:
    """Drop every item: the branch moves under ``refs/gitmem/rejected/``; (where it is kept, items dropped)."""
    from gitmem.engines import review

    inbox = contents(ctx, branch)
    kept = review.rejected_ref(branch)
    ctx.git.set_ref(kept, inbox.tip, ctx.git.commit(kept).id if kept in ctx.git.refs(kept) else None)
    ctx.git.delete_ref(f"refs/heads/{branch}")
    state.log_event(ctx.root, "review.rejected", iso(now), branch=redact.for_log(branch), kept_at=redact.for_log(kept),
                    reason=redact.for_log(reason), items=len(inbox.items))
    _record(ctx, branch, [(i, "drop") for i in inbox.items], now)
    return kept, len(inbox.items)


def _record(ctx: Context, branch: str, decided: Sequence[tuple[InboxItem, Decision]], now: datetime) -> None:
    from gitmem.engines import review

    path = _writer(ctx).state / DECISIONS_FILE
    for item, decision in decided:
        state.append(path, review.decision_record(item, decision, branch, iso(now)))

