"""Memorize: the one reinforce-or-create rule that every writer follows (DESIGN.md section 5, Encode).

A new memory that duplicates a live one of its domain reinforces it instead
(importance +``reinforce_boost``, counted once more, last accessed now); a
duplicate of a memory planned earlier in the same commit reinforces that one.
Everything else is created. The rule knows nothing of git: the caller passes a
``lookup`` that finds the stored duplicate at the tip it plans against.
"""

from __future__ import annotations

from datetime import datetime
from typing import Callable, Literal, NamedTuple

from gitmem.base.config import Memory as MemoryConfig
from gitmem.base.model import Memory, as_domain, as_type, iso, memory_path
from gitmem.base.text import printable_label
from gitmem.engines.decay import band

Lookup = Callable[[Memory], "Memory | None"]
Action = Literal["created", "reinforced"]


def new_memory(memory_id: str, content: str, type: str, domain: str, importance: float, created: str,
               now: datetime, cfg: MemoryConfig, **fields: object) -> Memory:
    """A new short-term memory at its canonical path, band from its importance, last accessed now.

    ``fields`` sets the rest (keywords, tags, source, source_id). Labels are
    stored printable: control and bidirectional-override characters never
    reach a tag, a source or a source id.
    """
    tags = fields.get("tags")
    if isinstance(tags, (tuple, list)):
        fields["tags"] = tuple(label for t in tags if (label := printable_label(str(t))))
    for key in ("source", "source_id"):
        if isinstance(fields.get(key), str):
            fields[key] = printable_label(str(fields[key]))
    return Memory(id=memory_id, content=content, type=as_type(type), domain=as_domain(domain), tier="short",
                  band=band(importance, cfg), importance=round(importance, 4), created=created,
                  last_accessed=iso(now), path=memory_path(domain, memory_id), **fields)  # type: ignore[arg-type]  # fields are Memory's own keywords


def exact_key(text: str) -> str:
    """What two texts share when one is an exact duplicate of the other: words, spacing and case aside."""
    return " ".join(text.split()).casefold()


def reinforce(memory: Memory, now: datetime, cfg: MemoryConfig) -> Memory:
    """``memory`` reinforced instead of duplicated: importance +reinforce_boost (relative,
    capped at 1), counted once more, last accessed now, band to match."""
    imp = min(1.0, round(memory.importance * (1.0 + cfg.reinforce_boost), 4))
    return memory.with_(importance=imp, reinforced=memory.reinforced + 1, last_accessed=iso(now),
                        band=band(imp, cfg))


class Planned(NamedTuple):
    """One memory of a batch: its value now, and the stored memory it rewrites (None: a new file)."""

    memory: Memory
    stored: Memory | None


class Outcome(NamedTuple):
    """What adding one memory to a batch did."""

    action: Action
    memory: Memory


class Batch:
    """The memories one commit writes, each either created or a reinforcement.

    ``add`` applies the rule to one new memory: a duplicate planned earlier in
    this batch is reinforced first, then a stored duplicate found by ``lookup``,
    else the memory is created.
    """

    def __init__(self, lookup: Lookup | None, now: datetime, cfg: MemoryConfig, exact: bool = False) -> None:
        self.lookup = lookup
        self.now = now
        self.cfg = cfg
        self.exact = exact   # only the same text is a duplicate (an import without --dedupe)
        self.planned: dict[str, Planned] = {}
        # (domain, exact key) -> the first planned memory holding that text: an exact check
        # is one look-up, not a pass over the batch (an import of 1,000 rows)
        self._exact: dict[tuple[str, str], str] = {}

    def add(self, mem: Memory, dedupe: bool = True, cap: float | None = None, given: float | None = None) -> Outcome:
        """Create ``mem``, or reinforce the memory it duplicates.

        ``cap``: a reinforcement never lifts the memory above it (nor lowers one already higher).
        ``given``: an importance the person stated; a reinforcement keeps the larger of it and its own.
        """
        target = self._duplicate(mem) if dedupe else None
        if target is None:
            self._plan(Planned(mem, None))
            return Outcome("created", mem)
        stored = self.planned[target.id].stored if target.id in self.planned else target
        new = reinforce(target, self.now, self.cfg)
        if cap is not None and new.importance > max(cap, target.importance):
            kept = max(cap, target.importance)
            new = new.with_(importance=kept, band=band(kept, self.cfg))
        if given is not None and given > new.importance:
            kept = round(min(1.0, given), 4)
            new = new.with_(importance=kept, band=band(kept, self.cfg))
        self._plan(Planned(new, stored))
        return Outcome("reinforced", new)

    def _plan(self, planned: Planned) -> None:
        mem = planned.memory
        self.planned[mem.id] = planned
        if self.exact:
            self._exact.setdefault((mem.domain, exact_key(mem.content)), mem.id)

    def _duplicate(self, mem: Memory) -> Memory | None:
        from gitmem.engines import similarity

        if self.exact:
            found = self._exact.get((mem.domain, exact_key(mem.content)))
        else:
            local = [(p.memory.id, p.memory.content) for p in self.planned.values() if p.memory.domain == mem.domain]
            found = similarity.find_duplicate(mem.content, local) if local else None
        if found is not None:
            return self.planned[found].memory
        existing = self.lookup(mem) if self.lookup is not None else None
        if existing is not None and existing.id in self.planned:
            return self.planned[existing.id].memory
        return existing
