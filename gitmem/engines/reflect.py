"""Reflect (DNA): group similar recent memories into pattern drafts.

Pure functions, no I/O, no LLM. ``group`` clusters memories that share a
topic (average-linkage clustering over lexical similarity and shared
keywords) and turns each cluster into a ``PatternDraft`` in the DNA pattern
shape: trigger words, lessons, source memory ids. ``reflection_prompt``
the self-reflection prompt an agent answers with ``gitmem remember`` is in ``reflectprompt``.
"""

from __future__ import annotations

import hashlib
import re
from collections import Counter
from collections.abc import Sequence
from dataclasses import dataclass
from datetime import datetime
from typing import TYPE_CHECKING, NamedTuple

from gitmem.engines.encode import keywords
from gitmem.engines.grouping import GROUP_THRESHOLD, Near, clusters
from gitmem.engines.grouping import link as _link
from gitmem.engines.grouping import topic_words
from gitmem.engines.similarity import contradiction, is_duplicate

if TYPE_CHECKING:  # pragma: no cover
    from gitmem.base.model import Memory
    from gitmem.store.documents import Pattern

__all__ = ["GROUP_THRESHOLD", "Item", "PatternDraft", "ReflectPlan", "STATE_FILE", "group", "plan_reflect",
           "ordered", "read_state", "state_file"]

# A new memory confirms an existing pattern when it is at least this close to one of its lessons
# (closer than the grouping threshold: verifying a pattern is a stronger claim than a shared topic).
CONFIRM_THRESHOLD = 0.35
_MAX_TRIGGERS = 5
_MAX_LESSONS = 5
_LESSON_CHARS = 160


@dataclass(frozen=True)
class Item:
    """A memory as reflect sees it."""

    id: str
    text: str
    type: str
    created: str


@dataclass(frozen=True)
class PatternDraft:
    """A pattern proposed from a group of memories (DNA pattern format)."""

    slug: str
    title: str
    trigger: tuple[str, ...]
    lessons: tuple[str, ...]
    sources: tuple[str, ...]


_REMEMBER_PREFIX = re.compile(
    r"^\s*(?:please\s+)?(?:remember(?:\s+(?:that|this))?|don'?t forget(?:\s+that)?|note(?:\s+that)?|lesson"
    r"|n'oublie(?:z)? pas(?:\s+que)?|retiens(?:\s+que)?|souviens-toi(?:\s+que)?|请?记住|别忘了|记得)\s*[:：,，-]?\s*",
    re.IGNORECASE,
)
_SENTENCE_END = re.compile(r"(?<=[.!?])\s+|(?<=[。！？])|\n")


def _lesson(text: str) -> str:
    """The first sentence of a memory, without "remember that", cut at a word."""
    first = _SENTENCE_END.split(_REMEMBER_PREFIX.sub("", text.strip()), maxsplit=1)[0].strip()
    first = " ".join(first.split())
    if len(first) > _LESSON_CHARS:
        cut = first[:_LESSON_CHARS].rsplit(" ", 1)[0]
        first = (cut if len(cut) > _LESSON_CHARS // 2 else first[:_LESSON_CHARS]) + "…"
    return first[:1].upper() + first[1:]


def _triggers(members: Sequence[Item]) -> tuple[str, ...]:
    counts: Counter[str] = Counter()
    order: dict[str, int] = {}
    for item in members:
        for word in keywords(item.text):
            counts[word] += 1
            order.setdefault(word, len(order))
    shared = [w for w in counts if counts[w] >= 2]
    chosen = shared or list(keywords(members[0].text))[:3]
    return tuple(sorted(chosen, key=lambda w: (-counts[w], order[w]))[:_MAX_TRIGGERS])


def _surface(word: str, members: Sequence[Item]) -> str:
    """A trigger word as first written in the memories ("GitHub", not "github")."""
    for item in members:
        found = re.search(rf"(?<!\w){re.escape(word)}(?!\w)", item.text, re.IGNORECASE)
        if found:
            return found.group()
    return word


def _slug(trigger: Sequence[str], sources: Sequence[str], taken: set[str]) -> str:
    parts = [re.sub(r"[^a-z0-9]+", "-", w.lower()).strip("-") for w in trigger if w.isascii()]
    base = "-".join(p for p in parts[:3] if p)[:48].strip("-")
    if not base:  # all-Chinese triggers: name it by its sources, stably
        base = "pattern-" + hashlib.sha1(",".join(sources).encode()).hexdigest()[:8]
    slug, n = base, 2
    while slug in taken:
        slug, n = f"{base}-{n}", n + 1
    taken.add(slug)
    return slug


def _draft(members: Sequence[Item], taken: set[str]) -> PatternDraft:
    trigger = _triggers(members)
    lessons: list[str] = []
    for item in members:
        lesson = _lesson(item.text)
        if lesson and not any(is_duplicate(lesson, kept) for kept in lessons):
            lessons.append(lesson)
    sources = tuple(item.id for item in members)
    title = " ".join(_surface(w, members) for w in trigger[:3])
    return PatternDraft(_slug(trigger, sources, taken), title, trigger, tuple(lessons[:_MAX_LESSONS]), sources)


def ordered(items: Sequence[Item]) -> list[Item]:
    seen: set[str] = set()
    unique = []
    for item in sorted(items, key=lambda i: (i.created, i.id)):
        if item.id not in seen:
            seen.add(item.id)
            unique.append(item)
    return unique


def _clusters(items: Sequence[Item], threshold: float, near: Near | None = None) -> list[list[int]]:
    return clusters([item.text for item in items], threshold, near)


def group(items: Sequence[Item], min_size: int = 2, threshold: float = GROUP_THRESHOLD,
          near: Near | None = None) -> list[PatternDraft]:
    """Group similar memories into pattern drafts, oldest group first.

    Items are ordered by (created, id) first, so the result does not depend on
    the input order. An item joins at most one group; groups smaller than
    ``min_size`` are dropped. ``near`` (the embedding model's close pairs) links paraphrases too.
    """
    items = ordered(items)
    taken: set[str] = set()
    drafts = []
    for cluster in _clusters(items, threshold, near):
        if len(cluster) >= max(1, min_size):
            draft = _draft([items[i] for i in sorted(cluster)], taken)
            if any(topic_words(word) for word in draft.trigger):
                drafts.append(draft)  # a pattern named by an id or a name alone is no topic
    return drafts


# -- planning: drafts folded into pattern documents ---------------------------

STATE_FILE = ".gitmem/reflect.yaml"


@dataclass(frozen=True)
class ReflectPlan:
    """File changes of one reflect run and what it created, updated and consumed."""

    changes: dict[str, bytes | None]
    created: tuple[str, ...]
    updated: tuple[str, ...]
    consumed: tuple[str, ...]


def read_state(data: bytes | None) -> tuple[str, int]:
    """(time of the last reflect, number of runs) from the bytes of .gitmem/reflect.yaml."""
    from gitmem.base.errors import GitmemError
    from gitmem.store import documents

    if not data:
        return "", 0
    try:
        state = documents.parse_front_matter(data.decode("utf-8"), STATE_FILE)
        return str(state.get("last_run") or ""), int(state.get("runs") or 0)
    except (GitmemError, UnicodeDecodeError, TypeError, ValueError):
        return "", 0


def state_file(now: datetime, runs: int) -> bytes:
    """The bytes of .gitmem/reflect.yaml after a run."""
    from gitmem.base.model import iso
    from gitmem.store import documents

    return documents.emit_front_matter({"last_run": iso(now), "runs": runs}).encode("utf-8")


def confirmations(existing: Sequence[Pattern], items: Sequence[Item],
                  threshold: float = CONFIRM_THRESHOLD) -> tuple[list[PatternDraft], list[Item]]:
    """(a draft per existing pattern that new memories confirm, the items that confirm none).

    A memory confirms the pattern whose lesson it is closest to, at ``threshold`` or more,
    when it contradicts none of its lessons; the pattern is then verified again (its count
    and date raised, the memory added to its sources) instead of a near copy being made."""
    lessons = [(p, lesson, topic_words(lesson)) for p in existing for lesson in p.lessons]
    found: dict[str, list[Item]] = {}
    rest: list[Item] = []
    for item in ordered(items):
        words = topic_words(item.text)
        if not words:
            rest.append(item)
            continue
        best: tuple[float, str] | None = None
        for pattern, lesson, lesson_words in lessons:
            if not lesson_words:
                continue
            score = _link(item.text, lesson, words, lesson_words)
            if score >= threshold and (best is None or score > best[0]):
                best = (score, pattern.slug)
        chosen = next((p for p in existing if best and p.slug == best[1]), None)
        if chosen is None or _contradicts(chosen.lessons, (item.text,)):
            rest.append(item)
            continue
        found.setdefault(chosen.slug, []).append(item)
    drafts = []
    for pattern in existing:
        members = found.get(pattern.slug)
        if not members:
            continue
        new: list[str] = []
        for item in members:
            lesson = _lesson(item.text)
            if lesson and not any(is_duplicate(lesson, kept) for kept in (*pattern.lessons, *new)):
                new.append(lesson)
        drafts.append(PatternDraft(pattern.slug, pattern.title, (), tuple(new), tuple(i.id for i in members)))
    return drafts, rest


def plan_reflect(existing: Sequence[Pattern], drafts: Sequence[PatternDraft], now: datetime,
                 initial_weight: float | None = None) -> ReflectPlan:
    """File changes that fold ``drafts`` (from ``group``) into patterns; new ones start at ``initial_weight``."""
    from gitmem.base.model import iso
    from gitmem.store.documents import INITIAL_WEIGHT, PATTERN_DIR, Pattern, render_pattern

    by_slug = {p.slug: p for p in existing}
    changes: dict[str, bytes | None] = {}
    created: list[str] = []
    updated: list[str] = []
    consumed: list[str] = []
    stamp = iso(now)
    for d in drafts:
        old = by_slug.get(d.slug)
        if old is not None and _contradicts(old.lessons, d.lessons):
            d = _renamed(d, set(by_slug))  # a contradicting draft starts a pattern of its own
            old = None
        consumed.extend(d.sources)
        if old is None:
            p = Pattern(d.slug, d.title, INITIAL_WEIGHT if initial_weight is None else initial_weight, "episodic", tuple(d.trigger), tuple(d.lessons),
                        tuple(d.sources), 1, stamp, stamp, f"{PATTERN_DIR}/{d.slug}.md")
            created.append(d.slug)
        else:
            lessons = old.lessons + tuple(x for x in d.lessons if x not in old.lessons)
            triggers = old.triggers + tuple(t for t in d.trigger if t not in old.triggers)
            sources = old.sources + tuple(s for s in d.sources if s not in old.sources)
            p = Pattern(old.slug, old.title, old.weight, old.stage, triggers, lessons, sources,
                        old.verified + 1, stamp, old.created, old.path, old.meta)
            updated.append(d.slug)
        by_slug[p.slug] = p
        changes[p.path] = render_pattern(p)
    return ReflectPlan(changes, tuple(created), tuple(updated), tuple(consumed))


def _contradicts(kept: Sequence[str], new: Sequence[str]) -> bool:
    return any(contradiction(a, b) is not None for a in kept for b in new)


def _renamed(draft: PatternDraft, taken: set[str]) -> PatternDraft:
    slug, n = f"{draft.slug}-2", 3
    while slug in taken:
        slug, n = f"{draft.slug}-{n}", n + 1
    return PatternDraft(slug, draft.title, draft.trigger, draft.lessons, draft.sources)


class Run(NamedTuple):
    """One reflect run: the plan (None: nothing to do) and how many memories were pending."""

    plan: ReflectPlan | None
    pending: int


WINDOW = 2000
"""How many of the newest memories no pattern holds reflect groups: grouping is quadratic in them
(2,000 take seconds, 10,000 minutes, all under the write lock), and reflect is about recent ones."""


def plan_run(existing: Sequence[Pattern], live: Sequence[Memory], state: bytes | None, now: datetime,
             auto: bool, trigger: int, initial_weight: float | None = None, window: int = WINDOW,
             near: Near | None = None) -> Run:
    """Reflect over ``live`` memories no pattern holds yet: new and verified patterns, patterns.md, the state file.

    Only memories created since the last run are pending; a person's run
    (``auto`` False) with none pending looks at every fresh memory again; an
    automatic run waits for ``trigger`` pending memories. The newest ``window``
    fresh memories are grouped (with ``near``, the embedding model's close pairs, when one is configured).
    """
    from gitmem.engines import render
    from gitmem.store.documents import read_pattern

    consumed = {s for p in existing for s in p.sources}
    fresh = [m for m in live if m.id not in consumed and m.type not in ("pattern", "reflection")]
    last, runs = read_state(state)
    pending = [m for m in fresh if m.created > last]
    count = len(pending)
    if not pending and not auto:
        pending = fresh
    if not pending or (auto and len(pending) < trigger):
        return Run(None, count)
    recent = sorted(fresh, key=lambda m: (m.created, m.id))[-window:]
    confirmed, rest = confirmations(existing, [Item(m.id, m.content, m.type, m.created) for m in recent])
    drafts = [d for d in group(rest, near=near) if d.slug not in {c.slug for c in confirmed}]
    result = plan_reflect(existing, [*confirmed, *drafts], now, initial_weight)
    changes = dict(result.changes)
    if not changes:
        return Run(None, count)   # nothing folded: no commit just to count a run
    by_slug = {p.slug: p for p in existing}
    for path, data in result.changes.items():
        by_slug[path.rsplit("/", 1)[-1][:-3]] = read_pattern(path, data or b"")
    changes["patterns.md"] = render.patterns_md(render.pattern_lines(by_slug.values(), with_core=True)).encode("utf-8")
    changes[STATE_FILE] = state_file(now, runs + 1)
    return Run(ReflectPlan(changes, result.created, result.updated, result.consumed), count)


class FoldReview(NamedTuple):
    """A reflect run held for review: its pattern documents (the generated files and the state are
    written by accept, never a review) and what the review lists."""

    changes: dict[str, bytes | None]
    body: str


def fold_review(existing: Sequence[Pattern], plan: ReflectPlan, live: int, limit: int) -> FoldReview:
    """The fold review of ``plan``: each pattern it creates or verifies again, and the memories it takes."""
    from gitmem.store.documents import read_pattern

    before = {p.slug: set(p.sources) for p in existing}
    docs = {p: v for p, v in plan.changes.items() if p.startswith("patterns/") and p.endswith(".md") and v is not None}
    lines = []
    for path, data in sorted(docs.items()):
        pattern = read_pattern(path, data)
        taken = [s for s in pattern.sources if s not in before.get(pattern.slug, set())]
        how = "verified again" if pattern.slug in before else "new"
        lines.append(f"{path} ({how}): {', '.join(taken)}")
    head = (f"{len(plan.consumed)} of {live} live memories would be folded into patterns at once, more than "
            f"{limit} (memory.max_change_share, at least 50): accept to fold them, reject to keep them apart.")
    return FoldReview(dict(docs), head + "\n\n" + "\n".join(lines))
