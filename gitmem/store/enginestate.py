"""The committed engine state, ``.gitmem/state.yaml``, as one typed value.

Every reader and writer of the file goes through this module: ``read`` turns
the file's bytes into an ``EngineState`` (a hand edit never breaks a count: a
value of the wrong type reads as the field's default), ``write`` turns a new
state back into the file, changing only the keys whose value changed, so the
file's comments and any key this gitmem does not know are kept.

Each field declares how two clones' states merge (``merge``), so that a team
that shares one repository agrees without a text merge of the file:

    counter      a count merged by deltas: base + (ours - base) + (theirs - base),
                 never below 0 (streaks: a reset on one side and a step on the
                 other give the step)
    max          the larger of the two (the format version)
    union        the union of two sets
    last-writer  a value set with a reason and a time (a ``Stamp``): when both
                 sides changed it, the later stamp wins; the stamp travels with
                 the value, so the file says who set it and why

A side that left a field as it was in the base never overrides the other.
Keys the model does not know merge the same way, the later-sorting value
winning when both sides changed one (a documented, symmetric rule).
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field, fields, replace

# The commit hook imports this module to read the drift baseline: typing stays out of its start-up.
TYPE_CHECKING = False
if TYPE_CHECKING:
    from typing import Any, Literal, Mapping

    Rule = Literal["counter", "max", "union", "last-writer"]

STATE_FILE = ".gitmem/state.yaml"
RULES: tuple[Rule, ...] = ("counter", "max", "union", "last-writer")
STAMPS = "stamps"                    # the key under which last-writer fields keep their Stamp


def _rule(rule: Rule) -> dict[str, Rule]:
    return {"merge": rule}


@dataclass(frozen=True)
class Stamp:
    """When and why a last-writer field was set (``at`` an ISO time, so stamps sort by time)."""

    at: str
    reason: str


@dataclass(frozen=True)
class EngineState:
    """``.gitmem/state.yaml``: the format version, the sediment threshold, the review streaks and the
    drift baseline. ``stamps`` holds the Stamp of each last-writer field that has one; ``extra`` the
    keys this gitmem does not know, kept as they were."""

    format: int = field(default=0, metadata=_rule("max"))
    threshold: float | None = field(default=None, metadata=_rule("last-writer"))
    veto_streak: int = field(default=0, metadata=_rule("counter"))
    approve_streak: int = field(default=0, metadata=_rule("counter"))
    auto_streak: int = field(default=0, metadata=_rule("counter"))   # weight commits applied without review
    drift_baseline: str | None = field(default=None, metadata=_rule("last-writer"))
    # a person's review decisions and sedimentation's, "<time> <action> <argument>"; the sedimentation
    # threshold and its streaks replay from them (gitmem.engines.sediment.threshold)
    decisions: tuple[str, ...] = field(default=(), metadata=_rule("union"))
    stamps: tuple[tuple[str, Stamp], ...] = ()
    extra: tuple[tuple[str, object], ...] = ()

    def stamp(self, name: str) -> Stamp | None:
        """The Stamp of last-writer field ``name``, if it has one."""
        return dict(self.stamps).get(name)

    def set(self, name: str, value: object, stamp: Stamp) -> EngineState:
        """This state with last-writer field ``name`` set to ``value``, stamped."""
        if rule_of(name) != "last-writer":
            raise ValueError(f"{name} is not a last-writer field")
        stamps = dict(self.stamps)
        stamps[name] = stamp
        changes: dict[str, Any] = {name: value, "stamps": tuple(sorted(stamps.items()))}
        return replace(self, **changes)


def rule_of(name: str) -> Rule | None:
    """The merge rule field ``name`` of ``EngineState`` declares (None: ``stamps`` and ``extra``)."""
    for f in fields(EngineState):
        if f.name == name:
            rule: Rule | None = f.metadata.get("merge")
            return rule
    raise KeyError(name)


def merged_fields(cls: type[object]) -> list[tuple[str, Rule]]:
    """(name, rule) of every field of dataclass ``cls`` that declares a merge rule."""
    return [(f.name, f.metadata["merge"]) for f in fields(cls) if "merge" in f.metadata]   # type: ignore[arg-type]


# -- reading ---------------------------------------------------------------------------------------

def load_mapping(data: bytes | str | None, *, strict: bool = False) -> dict[str, object]:
    """The file's top-level mapping (empty when missing or not a mapping). Invalid YAML reads as empty,
    or raises ``yamlio.YamlProblem`` when ``strict``."""
    from gitmem.base import yamlio

    if data is None:
        return {}
    text = data.decode("utf-8", errors="replace") if isinstance(data, bytes) else data
    try:
        loaded = yamlio.load_safe(text)
    except yamlio.YamlProblem:
        if strict:
            raise
        return {}
    return {str(k): v for k, v in loaded.items()} if isinstance(loaded, dict) else {}


def _count(value: object) -> int:
    return max(0, value) if isinstance(value, int) and not isinstance(value, bool) else 0


def _number(value: object) -> float | None:
    if isinstance(value, bool) or not isinstance(value, (int, float)):
        return None
    return value


_COMMIT = re.compile(r"[0-9A-Za-z._/-]+")


def _commit(value: object) -> str | None:
    return value if isinstance(value, str) and _COMMIT.fullmatch(value) else None


def _stamps(value: object) -> tuple[tuple[str, Stamp], ...]:
    if not isinstance(value, dict):
        return ()
    out = []
    for name, raw in value.items():
        if isinstance(name, str) and name in _LAST_WRITERS and isinstance(raw, dict):
            at, reason = raw.get("at"), raw.get("reason")
            if isinstance(at, str) and isinstance(reason, str):
                out.append((name, Stamp(at, reason)))
    return tuple(sorted(out))


def _lines(value: object) -> tuple[str, ...]:
    if not isinstance(value, (list, tuple)):
        return ()
    return tuple(sorted({v for v in value if isinstance(v, str) and v and "\n" not in v}))


def _format(value: object) -> int:
    return value if isinstance(value, int) and not isinstance(value, bool) and value >= 0 else 0


_READERS = {"format": _format, "threshold": _number, "veto_streak": _count, "approve_streak": _count,
            "auto_streak": _count, "drift_baseline": _commit,
            "decisions": _lines}
_LAST_WRITERS = frozenset(n for n, r in merged_fields(EngineState) if r == "last-writer")


def from_mapping(data: Mapping[str, object]) -> EngineState:
    """The state a parsed file holds (a value of the wrong type reads as the field's default)."""
    values: dict[str, object] = {name: read(data[name]) for name, read in _READERS.items() if name in data}
    extra = tuple(sorted((k, v) for k, v in data.items() if k not in _READERS and k != STAMPS))
    return EngineState(**values, stamps=_stamps(data.get(STAMPS)), extra=extra)   # type: ignore[arg-type]


def read(data: bytes | str | None) -> EngineState:
    """The state ``.gitmem/state.yaml`` holds (None or an unreadable file: the defaults)."""
    return from_mapping(load_mapping(data))


_PINNED = re.compile(r"^drift_baseline[ \t]*:[ \t]*['\"]?([0-9A-Za-z._/-]+)['\"]?[ \t]*(?:#.*)?$", re.M)


def pinned_baseline(text: str | None) -> str | None:
    """``drift_baseline`` read without a YAML parser: the commit hook checks drift on every commit that
    stages CLAUDE.md, and importing ruamel there costs ~35 ms. ``write`` keeps the key a plain
    top-level scalar, which is all this reads (tests/test_enginestate.py pins it against ``read``)."""
    found = _PINNED.search(text or "")
    return found.group(1) if found else None


# -- writing ---------------------------------------------------------------------------------------

def to_mapping(state: EngineState) -> dict[str, object]:
    """The file's keys for ``state`` (None values left out)."""
    out: dict[str, object] = {name: getattr(state, name) for name in _READERS}
    out["decisions"] = list(state.decisions) or None
    if state.stamps:
        out[STAMPS] = {name: {"at": s.at, "reason": s.reason} for name, s in state.stamps}
    out.update(state.extra)
    return {k: v for k, v in out.items() if v is not None}


def write(old: bytes | str | None, state: EngineState) -> bytes:
    """``.gitmem/state.yaml`` holding ``state``: the old file with only the changed keys set or removed,
    its comments kept."""
    from gitmem.base import yamlio
    from gitmem.base.errors import UsageError

    text = old.decode("utf-8", errors="replace") if isinstance(old, bytes) else (old or "")
    before, after = to_mapping(read(text)), to_mapping(state)
    changes = {k: v for k, v in after.items() if before.get(k) != v}
    gone = [k for k in before if k not in after]
    data = yamlio.load_rt(text) if text.strip() else None
    if data is None:   # no file, or comments only: keep them and add the keys
        head = text.rstrip("\n")
        return ((head + "\n" if head else "") + (yamlio.dump_plain(changes) if changes else "")).encode("utf-8")
    if not isinstance(data, dict):
        raise UsageError(f"{STATE_FILE} is not a mapping", hint=f"restore it with `git checkout HEAD -- {STATE_FILE}`")
    for key, value in changes.items():
        data[key] = value
    for key in gone:
        if key in data:
            del data[key]
    return yamlio.dump_rt(data).encode("utf-8")


def initial(format_version: int) -> bytes:
    """The state file of a new repository (commented: a person reads it in the repository)."""
    return ("# Engine state, committed so every clone agrees.\n"
            f"format: {format_version}  # the repository's format version; newer gitmem reads every older one\n"
            "threshold: 15\nveto_streak: 0\napprove_streak: 0\n").encode("utf-8")


# -- merging ---------------------------------------------------------------------------------------

def _later(a: object, b: object) -> object:
    """The symmetric tie-break of two different values (the one whose repr sorts later)."""
    return a if repr(a) >= repr(b) else b


def merge_value(rule: Rule, base: Any, ours: Any, theirs: Any) -> Any:
    """One field merged by ``rule`` (a last-writer field: pairs of (value, Stamp or None))."""
    if rule == "counter":
        return max(0, ours + theirs - base)
    if rule == "max":
        return max(ours, theirs)
    if rule == "union":
        return frozenset(ours) | frozenset(theirs)
    if ours == theirs or theirs == base:
        return ours
    if ours == base:
        return theirs
    return ours if _stamp_key(ours) >= _stamp_key(theirs) else theirs


def _stamp_key(pair: tuple[object, Stamp | None]) -> tuple[str, str, str]:
    value, stamp = pair
    return (stamp.at, stamp.reason, repr(value)) if stamp else ("", "", repr(value))


def merge(base: EngineState | None, ours: EngineState, theirs: EngineState) -> EngineState:
    """Two clones' states merged by each field's rule, from their common ``base`` (None: the defaults).
    A last-writer field merges as the pair of its value and its stamp."""
    base = base or EngineState()
    values: dict[str, Any] = {}
    stamps: dict[str, Stamp] = {}
    for name, rule in merged_fields(EngineState):
        if rule == "last-writer":
            pairs = [(getattr(s, name), s.stamp(name)) for s in (base, ours, theirs)]
            chosen, stamp = merge_value(rule, *pairs)
            values[name] = chosen
            if stamp is not None:
                stamps[name] = stamp
        else:
            values[name] = merge_value(rule, getattr(base, name), getattr(ours, name), getattr(theirs, name))
            if rule == "union":   # kept as a sorted tuple, so the file and the value agree on every clone
                values[name] = tuple(sorted(values[name]))
    extra_base, extra_ours, extra_theirs = dict(base.extra), dict(ours.extra), dict(theirs.extra)
    extra: dict[str, object] = {}
    for key in sorted(set(extra_ours) | set(extra_theirs)):
        b, o, t = extra_base.get(key), extra_ours.get(key), extra_theirs.get(key)
        value = o if (o == t or t == b) else t if o == b else _later(o, t)
        if value is not None:
            extra[key] = value
    return EngineState(**values, stamps=tuple(sorted(stamps.items())), extra=tuple(sorted(extra.items())))
