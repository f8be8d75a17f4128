"""Merge what two clones changed in one file (DESIGN.md section 8): the one merge of gitmem.

``merge_file`` serves the git merge driver (``gitmem merge-driver``), ``gitmem
sync``, ``gitmem repair`` and ``review accept``. By path:

- generated files (CLAUDE.md Layers 2 and 3, HIPPOCAMPUS_CORE.md, patterns.md)
  are never merged as text: ours is kept and the caller regenerates them from
  the merged sources (``Merged.regenerate``); CLAUDE.md's Layers 1 and 4 and the
  text around the layers, written by people, merge 3-way;
- ``.gitmem/state.yaml`` merges by the rule each field of ``EngineState``
  declares (counters by deltas, max, union, last writer by stamp);
- memory, pattern and episode documents merge their front matter field by field
  against the common base and their bodies 3-way.

Front matter rules, each the same whichever side is "ours":

    weights     importance: base + both deltas, clamped to [0, 1]; a pattern's
                weight: replayed from its merged session set (below), else by deltas
    counters    reinforced, verified: base + both increments (an integer)
    sets        keywords, tags, triggers, sources, links: base items either side
                removed go, items either side added are kept (added ones sorted)
    dates       last_accessed, last_verified, last_activated, updated: the later
    stages      tier (working < short < long < archive) and a pattern's stage
                (episodic < emergent < strong < core-candidate < core): the furthest
    hebbian     a pattern's counted sessions united, its state replayed from the
                origin in session order (``hebbmerge.merge_states``): every
                machine's sessions applied once
    the rest    a field one side left as in the base takes the other side's value;
                changed differently on both sides: the value that sorts later
                (its YAML text) wins, and the conflict is reported

Bodies merge 3-way (``git merge-file``); standard conflict markers are left
only where both sides changed the same lines, and that is reported.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any, Callable, Mapping

TYPE_CHECKING = False
if TYPE_CHECKING:
    from gitmem.base.config import Hebbian

WEIGHTS: dict[str, tuple[float, float]] = {"importance": (0.0, 1.0), "weight": (0.0, 0.99)}
COUNTERS = frozenset({"reinforced", "verified"})
SETS = frozenset({"keywords", "tags", "triggers", "sources", "links"})
DATES = frozenset({"last_accessed", "last_verified", "last_activated", "updated"})
RANKS: dict[str, tuple[str, ...]] = {"tier": ("working", "short", "long", "archive"),
                                     "stage": ("episodic", "emergent", "strong", "core-candidate", "core")}
GENERATED = frozenset({"CLAUDE.md", "HIPPOCAMPUS_CORE.md", "patterns.md"})
DOCUMENT_DIRS = ("memory/", "archive/", "patterns/", "episodes/")
STATE_FILE = ".gitmem/state.yaml"
MARKERS = ("<<<<<<< ", "=======", ">>>>>>> ", "||||||| ")

MergeText = Callable[[str, str, str], "tuple[str, bool]"]


@dataclass(frozen=True)
class Merged:
    """The merged text, what could not be merged cleanly (with the rule that settled it), whether the
    file is generated (the caller regenerates it from the merged sources) and whether text conflict
    markers were left in it."""

    text: str
    conflicts: tuple[str, ...]
    regenerate: bool = False
    markers: bool = False

    @property
    def clean(self) -> bool:
        """True when nothing conflicted."""
        return not self.conflicts


def is_document(path: str) -> bool:
    """True for a memory, pattern or episode document (merged field by field)."""
    return path.endswith(".md") and path.startswith(DOCUMENT_DIRS)


def merge_file(path: str, base: str | None, ours: str, theirs: str, merge_text: MergeText,
               cfg: Hebbian | None = None) -> Merged:
    """Two sides' versions of the file at ``path`` merged from their common ``base`` (None: added on
    both sides), by the rule of the file's kind (see the module docstring)."""
    if path == "CLAUDE.md":
        return _merge_claude_md(base, ours, theirs, merge_text)
    if path in GENERATED:
        return Merged(ours, (), regenerate=True)
    if path == STATE_FILE:
        return _merge_state(base, ours, theirs)
    if is_document(path):
        return merge_document(path, base, ours, theirs, merge_text, cfg)
    text, clean = merge_text(base or "", ours, theirs)
    return Merged(text, () if clean else (f"{path}: the text changed differently on both sides (conflict markers "
                                          "left in it)",), markers=not clean)


def merge_field(key: str, base: Any, ours: Any, theirs: Any) -> tuple[Any, bool]:
    """The merged value of one front matter field and whether it merged without a conflict."""
    if key in WEIGHTS and _all_numbers(ours, theirs) and (base is None or _all_numbers(base)):
        low, high = WEIGHTS[key]
        value = max(ours, theirs) if base is None else ours + theirs - base
        return round(min(high, max(low, value)), 6), True
    if key in COUNTERS and _all_numbers(ours, theirs) and (base is None or _all_numbers(base)):
        return max(0, max(int(ours), int(theirs)) if base is None else int(ours) + int(theirs) - int(base)), True
    if ours == theirs:
        return ours, True
    if ours == base:
        return theirs, True
    if theirs == base:
        return ours, True
    if key in SETS and isinstance(ours, list) and isinstance(theirs, list):
        return _set_merge(base if isinstance(base, list) else [], ours, theirs), True
    if key in DATES and isinstance(ours, str) and isinstance(theirs, str):
        return max(ours, theirs), True
    if key in RANKS and ours in RANKS[key] and theirs in RANKS[key]:
        return max(ours, theirs, key=RANKS[key].index), True
    return _later(ours, theirs), False


def merge_front_matter(base: Mapping[str, Any], ours: Mapping[str, Any], theirs: Mapping[str, Any],
                       cfg: Hebbian | None = None) -> tuple[dict[str, Any], list[str]]:
    """Field-by-field merge; (merged mapping in ours' key order, the keys that conflicted)."""
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
    if isinstance(ours.get("hebbian"), Mapping) and isinstance(theirs.get("hebbian"), Mapping):
        _merge_hebbian(merged, base, ours, theirs, cfg)
        conflicts = [k for k in conflicts if k not in ("hebbian", "weight", "stage")]
    return merged, conflicts


def _merge_hebbian(merged: dict[str, Any], base: Mapping[str, Any], ours: Mapping[str, Any],
                   theirs: Mapping[str, Any], cfg: Hebbian | None) -> None:
    """A pattern's weight, stage and ``hebbian`` state from both sides' counted sessions, replayed."""
    from gitmem.base.config import Hebbian
    from gitmem.engines import hebbian, hebbmerge

    def state(meta: Mapping[str, Any]) -> hebbian.HebbState:
        weight = meta.get("weight")
        return hebbian.state_of(float(weight) if isinstance(weight, (int, float)) else 0.0, str(meta.get("stage") or ""),
                                str(meta.get("created") or ""), meta)

    common = state(base) if isinstance(base.get("hebbian"), Mapping) else None
    done = hebbmerge.merge_states(state(ours), state(theirs), cfg or Hebbian(), common)
    merged["weight"] = done.weight
    merged["stage"] = max((done.stage, str(merged.get("stage") or "")), key=hebbian.stage_rank)
    merged["hebbian"] = hebbian.meta_of(done)


def merge_document(path: str, base: str | None, ours: str, theirs: str, merge_text: MergeText,
                   cfg: Hebbian | None = None) -> Merged:
    """Merge two versions of one Markdown + YAML document against their common base (None: added on both)."""
    from gitmem.store import documents

    if ours == theirs:   # as git does: the same text on both sides is that text
        return Merged(ours, ())
    base_meta, base_body = documents.split(path, base) if base is not None else ({}, "")
    ours_meta, ours_body = documents.split(path, ours)
    theirs_meta, theirs_body = documents.split(path, theirs)
    meta, conflicts = merge_front_matter(base_meta, ours_meta, theirs_meta, cfg)
    body, clean = (ours_body, True) if ours_body == theirs_body else merge_text(base_body, ours_body, theirs_body)
    problems = [f"{path}: front matter field {k!r} changed differently on both sides (the later-sorting value "
                "kept)" for k in conflicts]
    if not clean:
        problems.append(f"{path}: the text changed differently on both sides (conflict markers left in it)")
    return Merged(documents.render_document(meta, body), tuple(problems), markers=not clean)


def has_markers(text: str) -> bool:
    """True when ``text`` holds a line git's text merge leaves where both sides changed the same lines."""
    lines = text.split("\n")
    opened = any(line.startswith(MARKERS[0]) for line in lines)
    closed = any(line.startswith(MARKERS[2]) for line in lines)
    return opened and closed and any(line.rstrip() == MARKERS[1] for line in lines)


def _merge_state(base: str | None, ours: str, theirs: str) -> Merged:
    from gitmem.store import enginestate

    merged = enginestate.merge(enginestate.read(base) if base is not None else None,
                               enginestate.read(ours), enginestate.read(theirs))
    return Merged(enginestate.write(ours, merged).decode("utf-8"), ())


def _merge_claude_md(base: str | None, ours: str, theirs: str, merge_text: MergeText) -> Merged:
    """Layers 2 and 3 taken from ours (regenerated by the caller), the rest merged 3-way."""
    from gitmem.guards import layers

    def with_ours(text: str) -> str:
        for number in layers.GENERATED:
            text = layers.replace_layer(text, number, generated[number])
        return text

    try:
        found = {layer.number: layer.content for layer in layers.parse(ours)}
        generated = {n: found[n] for n in layers.GENERATED}
        sides = [with_ours(base) if base is not None else "", with_ours(theirs)]
    except (KeyError, ValueError):
        sides = [base or "", theirs]
    text, clean = merge_text(sides[0], ours, sides[1])
    return Merged(text, () if clean else ("CLAUDE.md: Layer 1, Layer 4 or the text around the layers changed "
                                          "differently on both sides (conflict markers left in it)",),
                  regenerate=True, markers=not clean)


def _all_numbers(*values: Any) -> bool:
    return all(isinstance(v, (int, float)) and not isinstance(v, bool) for v in values)


def _later(a: Any, b: Any) -> Any:
    """The symmetric rule for a scalar both sides changed differently: the value whose YAML text sorts later."""
    from gitmem.base import yamlio

    return a if yamlio.dump_plain({"v": a}) >= yamlio.dump_plain({"v": b}) else b


def _set_merge(base: list[Any], ours: list[Any], theirs: list[Any]) -> list[Any]:
    """Base items neither side removed, in base order, then every item either side added, sorted."""
    kept = [v for v in base if v in ours and v in theirs]
    added = [v for v in ours if v not in base] + [v for v in theirs if v not in base]
    unique: list[Any] = []
    for v in added:
        if v not in unique and v not in kept:
            unique.append(v)
    return kept + sorted(unique, key=repr)
