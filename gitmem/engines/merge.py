"""Merge one memory document that two sides changed (DESIGN.md section 8).

Front matter merges field by field against the common base: weights by their
deltas (clamped to their range), counters by adding both sides' increments,
sets united, dates by the later one; any other field changed on one side takes
that side, changed alike on both is kept, changed differently on both keeps
ours and is reported as a conflict. The body is a 3-way text merge (git's
``merge-file``); a body conflict keeps the diff3 markers and is reported. The
review accept uses it today; a git merge driver can call the same function.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any, Callable, Mapping

WEIGHTS: dict[str, tuple[float, float]] = {"importance": (0.0, 1.0), "weight": (0.0, 0.99)}
COUNTERS = frozenset({"reinforced", "verified"})
SETS = frozenset({"keywords", "tags", "triggers", "sources", "links"})
DATES = frozenset({"last_accessed", "last_verified", "last_activated"})


@dataclass(frozen=True)
class Merged:
    """The merged document and what could not be merged cleanly."""

    text: str
    conflicts: tuple[str, ...]

    @property
    def clean(self) -> bool:
        """True when nothing conflicted."""
        return not self.conflicts


def merge_field(key: str, base: Any, ours: Any, theirs: Any) -> tuple[Any, bool]:
    """The merged value of one front matter field and whether it merged cleanly."""
    if ours == theirs:
        return ours, True
    if key in WEIGHTS and _all_numbers(base, ours, theirs):
        low, high = WEIGHTS[key]
        return round(min(high, max(low, ours + theirs - base)), 6), True
    if key in COUNTERS and _all_numbers(base, ours, theirs):
        return max(0, int(ours) + int(theirs) - int(base)), True
    if key in SETS and isinstance(ours, list) and isinstance(theirs, list):
        return _union(base if isinstance(base, list) else [], ours, theirs), True
    if key in DATES and isinstance(ours, str) and isinstance(theirs, str):
        return max(ours, theirs), True
    if ours == base:
        return theirs, True
    if theirs == base:
        return ours, True
    return ours, False


def merge_front_matter(base: Mapping[str, Any], ours: Mapping[str, Any],
                       theirs: Mapping[str, Any]) -> tuple[dict[str, Any], list[str]]:
    """Field-by-field merge; (merged mapping in ours' key order, conflicting keys)."""
    merged: dict[str, Any] = {}
    conflicts: list[str] = []
    missing = object()
    for key in [*ours, *(k for k in theirs if k not in ours), *(k for k in base if k not in ours and k not in theirs)]:
        b, o, t = base.get(key, missing), ours.get(key, missing), theirs.get(key, missing)
        if o is missing or t is missing:
            # deleted on one side: gone, unless the other side changed (or added) it
            other = t if o is missing else o
            if other is not missing and other != b:
                merged[key] = other
            continue
        value, clean = merge_field(key, None if b is missing else b, o, t)
        merged[key] = value
        if not clean:
            conflicts.append(key)
    return merged, conflicts


def merge_document(path: str, base: str | None, ours: str, theirs: str,
                   merge_text: Callable[[str, str, str], tuple[str, bool]]) -> Merged:
    """Merge two versions of one Markdown + YAML document against their common base (None: added on both)."""
    from gitmem.store import documents

    base_meta, base_body = documents.split(path, base) if base is not None else ({}, "")
    ours_meta, ours_body = documents.split(path, ours)
    theirs_meta, theirs_body = documents.split(path, theirs)
    meta, conflicts = merge_front_matter(base_meta, ours_meta, theirs_meta)
    body, clean = (ours_body, True) if ours_body == theirs_body else merge_text(base_body, ours_body, theirs_body)
    problems = [f"{path}: front matter field {k!r} changed differently on both sides (ours kept)" for k in conflicts]
    if not clean:
        problems.append(f"{path}: the text changed differently on both sides (diff3 markers left in it)")
    return Merged(documents.render_document(meta, body), tuple(problems))


def _all_numbers(*values: Any) -> bool:
    return all(isinstance(v, (int, float)) and not isinstance(v, bool) for v in values)


def _union(base: list[Any], ours: list[Any], theirs: list[Any]) -> list[Any]:
    out = list(ours)
    out.extend(v for v in theirs if v not in out)
    return out
