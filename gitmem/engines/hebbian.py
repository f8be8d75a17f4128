"""Hebbian weights and stages of patterns (DESIGN.md section 5; seed 000).

For each session newer than a pattern's creation and not yet counted for it,
in time order, the pattern's weight moves by

    w <- clamp(w + learning_rate * a - decay * (1 - a), weight_min, weight_max)

with ``a`` 1 when the session activates the pattern (one of its triggers,
stemmed as recall stems, occurs in the session's stems, or the session cites
the pattern's slug) and 0 otherwise; the result is rounded to 6 decimals and
every comparison uses the rounded value.

Each pattern keeps the set of sessions it counted (``hebbian.counted``, with
the subset that activated it in ``hebbian.activated``) and the state it had
before them (``hebbian.origin``). The weight, streaks, stage and history are
replayed from the origin over the counted set in (time, id) order, so a
session counts once whichever machine counted it and in whatever order the
sessions arrived: two clones' sets merge by their union (``hebbmerge``)
and the replay equals applying every session once. A pattern written before
the set existed (only a ``cursor``: the last session counted) reads with its
current state as the origin and the cursor as the floor below which no
session is counted again. Past ``COUNTED_KEPT`` sessions the oldest are folded
into the origin, which keeps a pattern's front matter bounded.

Stages only move forward: episodic -> emergent after ``emergent_after``
consecutive activated sessions -> strong once the weight has stayed above
``strong_weight`` for ``strong_after`` sessions -> core-candidate when strong
and at ``weight_max``. CORE is a person's decision (review), never reached here.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, replace
from typing import Any, Iterable, Mapping, Sequence

TYPE_CHECKING = False
if TYPE_CHECKING:
    from gitmem.base.config import Hebbian
    from gitmem.store.documents import Pattern

STAGES = ("episodic", "emergent", "strong", "core-candidate", "core")
HISTORY_KEPT = 60          # weight-history entries kept in a pattern's front matter
COUNTED_KEPT = 300         # counted sessions kept by key (~40 KiB of front matter at most); older ones fold into the origin
DIGITS = 6


@dataclass(frozen=True, order=True)
class SessionSignal:
    """What a harvested session keeps for activation: when, which id, its stems, the slugs it cites."""

    at: str                           # ISO 8601 UTC; sessions are counted in (at, id) order
    id: str
    stems: frozenset[str] = frozenset()
    cited: frozenset[str] = frozenset()

    @property
    def key(self) -> str:
        """The cursor value of this session."""
        return f"{self.at}|{self.id}"


@dataclass(frozen=True)
class Origin:
    """A pattern's state before its counted sessions; ``cursor`` the floor (the last session folded in)."""

    weight: float
    stage: str = "episodic"
    cursor: str = ""
    streak: int = 0
    above: int = 0
    last_activated: str = ""


@dataclass(frozen=True)
class HebbState:
    """A pattern's Hebbian state as its front matter keeps it."""

    weight: float
    stage: str = "episodic"
    created: str = ""
    cursor: str = ""                  # the key of the last session counted ("" = none yet)
    streak: int = 0                   # consecutive activated sessions, up to the last one counted
    above: int = 0                    # consecutive sessions ending above strong_weight
    last_activated: str = ""
    history: tuple[tuple[str, float], ...] = ()   # (session time, weight after), newest last
    origin: Origin | None = None      # None: the state itself is the origin (nothing counted by set yet)
    counted: frozenset[str] = frozenset()     # keys of the sessions counted since the origin
    activated: frozenset[str] = frozenset()   # the counted ones that activated the pattern

    def start(self) -> Origin:
        """The origin the counted sessions replay from."""
        if self.origin is not None:
            return self.origin
        return Origin(self.weight, self.stage, self.cursor, self.streak, self.above, self.last_activated)


@dataclass(frozen=True)
class Step:
    """One session counted for one pattern."""

    session: str
    at: str
    activated: bool
    before: float
    after: float
    stage_before: str
    stage_after: str


def rounded(value: float) -> float:
    """The weight as stored and compared."""
    return round(value, DIGITS)


def step(weight: float, activated: bool, cfg: Hebbian) -> float:
    """One application of the update rule, clamped and rounded."""
    a = 1.0 if activated else 0.0
    moved = weight + cfg.learning_rate * a - cfg.decay * (1.0 - a)
    return rounded(min(cfg.weight_max, max(cfg.weight_min, moved)))


def trigger_stems(triggers: Iterable[str]) -> list[frozenset[str]]:
    """Each trigger as the set of stems that must all occur for it to fire (empty triggers dropped)."""
    from gitmem.base import text

    found = [frozenset(text.content_stems(t)) for t in triggers]
    return [f for f in found if f]


def activates(triggers: Sequence[frozenset[str]], slug: str, session: SessionSignal) -> bool:
    """True when the session cites ``slug`` or holds every stem of one of the triggers."""
    return slug in session.cited or any(t <= session.stems for t in triggers)


def next_stage(stage: str, streak: int, above: int, weight: float, cfg: Hebbian) -> str:
    """The stage after a session; stages only move forward, and never to ``core``."""
    if stage == "episodic" and streak >= cfg.emergent_after:
        stage = "emergent"
    if stage == "emergent" and above >= cfg.strong_after:
        stage = "strong"
    if stage == "strong" and weight >= rounded(cfg.weight_max):
        stage = "core-candidate"
    return stage


def stage_rank(stage: str) -> int:
    """The position of ``stage`` in the forward order of stages (-1: not a stage)."""
    return STAGES.index(stage) if stage in STAGES else -1


def replay(origin: Origin, created: str, counted: Iterable[str], activated: frozenset[str], cfg: Hebbian,
           before: Sequence[tuple[str, float]] = (), stage_floor: str = "episodic") -> tuple[HebbState, list[Step]]:
    """The state after counting the sessions ``counted`` (keys) from ``origin`` in (time, id) order.

    ``before``: history entries from before the origin, kept ahead of the replayed ones; the stage never
    ends below ``stage_floor`` (a person's review may have moved it)."""
    state = HebbState(origin.weight, origin.stage, created, origin.cursor, origin.streak, origin.above,
                      origin.last_activated, tuple(before)[-HISTORY_KEPT:], origin)
    keys = sorted(k for k in set(counted) if not origin.cursor or k > origin.cursor)
    steps: list[Step] = []
    history = list(state.history)
    for key in keys:
        at, _, sid = key.partition("|")
        on = key in activated
        weight = step(state.weight, on, cfg)
        streak = state.streak + 1 if on else 0
        above = state.above + 1 if weight > rounded(cfg.strong_weight) else 0
        stage = next_stage(state.stage, streak, above, weight, cfg)
        steps.append(Step(sid, at, on, state.weight, weight, state.stage, stage))
        history.append((at, weight))
        state = replace(state, weight=weight, stage=stage, cursor=key, streak=streak, above=above,
                        last_activated=at if on else state.last_activated)
    if stage_rank(stage_floor) > stage_rank(state.stage):
        state = replace(state, stage=stage_floor)
    state = replace(state, history=tuple(history[-HISTORY_KEPT:]), counted=frozenset(keys),
                    activated=frozenset(k for k in keys if k in activated))
    return _folded(state, steps, cfg), steps


def _folded(state: HebbState, steps: Sequence[Step], cfg: Hebbian) -> HebbState:
    """``state`` with the counted sessions past ``COUNTED_KEPT`` folded into its origin, oldest first
    (``steps``: the replay of every counted session, in order)."""
    n = len(state.counted) - COUNTED_KEPT
    if n <= 0:
        return state
    keys = sorted(state.counted)
    origin = state.start()
    streak, above, last = origin.streak, origin.above, origin.last_activated
    for s in steps[:n]:
        streak = streak + 1 if s.activated else 0
        above = above + 1 if s.after > rounded(cfg.strong_weight) else 0
        last = s.at if s.activated else last
    cut = steps[n - 1]
    kept = frozenset(keys[n:])
    return replace(state, origin=Origin(cut.after, cut.stage_after, keys[n - 1], streak, above, last),
                   counted=kept, activated=state.activated & kept)


def advance(state: HebbState, triggers: Sequence[str], slug: str, sessions: Iterable[SessionSignal],
            cfg: Hebbian) -> tuple[HebbState, list[Step]]:
    """Count every session newer than the pattern's creation and its floor and not counted yet; the
    state is replayed over the whole counted set in (time, id) order. The steps are the new sessions'."""
    stems = trigger_stems(triggers)
    origin = state.start()
    fresh: dict[str, bool] = {}
    for s in sessions:
        if (state.created and s.at <= state.created) or (origin.cursor and s.key <= origin.cursor) \
                or s.key in state.counted:
            continue
        fresh[s.key] = activates(stems, slug, s)
    if not fresh:
        return state, []
    activated = state.activated | {k for k, on in fresh.items() if on}
    after, steps = replay(origin, state.created, state.counted | fresh.keys(), activated, cfg,
                          history_before(state, origin), state.stage)
    return after, [s for s in steps if f"{s.at}|{s.session}" in fresh]


def history_before(state: HebbState, origin: Origin) -> tuple[tuple[str, float], ...]:
    """The history entries from before the origin (those of the sessions folded into it)."""
    floor = origin.cursor.partition("|")[0]
    return tuple(h for h in state.history if floor and h[0] <= floor)


# -- front matter ------------------------------------------------------------------

def state_of(weight: float, stage: str, created: str, meta: Mapping[str, Any]) -> HebbState:
    """A pattern's state from its document (weight, stage, created, and the ``hebbian`` mapping)."""
    raw = meta.get("hebbian")
    data: Mapping[str, Any] = raw if isinstance(raw, Mapping) else {}
    history: list[tuple[str, float]] = []
    for entry in data.get("history") or ():
        if isinstance(entry, (list, tuple)) and len(entry) == 2:
            try:
                history.append((str(entry[0]), rounded(float(entry[1]))))
            except (TypeError, ValueError):
                continue
    counted = frozenset(_keys(data.get("counted")))
    return HebbState(rounded(weight), stage if stage in STAGES else "episodic", created,
                     str(data.get("cursor") or ""), _count(data.get("streak")), _count(data.get("above")),
                     str(data.get("last_activated") or ""), tuple(history[-HISTORY_KEPT:]),
                     _origin(data.get("origin")), counted, frozenset(_keys(data.get("activated"))) & counted)


def is_legacy(meta: Mapping[str, Any]) -> bool:
    """True for a pattern counted by a cursor only (format 1): no set of counted sessions yet."""
    raw = meta.get("hebbian")
    return isinstance(raw, Mapping) and bool(raw.get("cursor")) and "origin" not in raw


def _keys(value: Any) -> list[str]:
    return [str(v) for v in value if isinstance(v, str) and "|" in v] if isinstance(value, list) else []


def _origin(value: Any) -> Origin | None:
    if not isinstance(value, Mapping):
        return None
    raw = value.get("weight")
    if isinstance(raw, bool) or not isinstance(raw, (int, float)):
        return None
    weight = rounded(float(raw))
    stage = str(value.get("stage") or "episodic")
    return Origin(weight, stage if stage in STAGES else "episodic", str(value.get("cursor") or ""),
                  _count(value.get("streak")), _count(value.get("above")), str(value.get("last_activated") or ""))


def meta_of(state: HebbState) -> dict[str, Any]:
    """The ``hebbian`` mapping of a pattern's front matter."""
    o = state.start()
    return {"cursor": state.cursor, "streak": state.streak, "above": state.above,
            "last_activated": state.last_activated, "history": [[at, w] for at, w in state.history],
            "origin": {"weight": o.weight, "stage": o.stage, "cursor": o.cursor, "streak": o.streak,
                       "above": o.above, "last_activated": o.last_activated},
            "counted": sorted(state.counted), "activated": sorted(state.activated)}


def _count(value: Any) -> int:
    try:
        n = int(value)
    except (TypeError, ValueError, OverflowError):
        return 0
    return max(0, n)


# -- one weight update over every pattern -------------------------------------------

@dataclass(frozen=True)
class Row:
    """One pattern in a weight update: weight and stage before and after, sessions counted."""

    slug: str
    path: str
    before: float
    after: float
    stage_before: str
    stage_after: str
    counted: int
    activated: int

    def to_json(self) -> dict[str, object]:
        """One row of ``weights --json``."""
        return {"pattern": self.slug, "before": self.before, "after": self.after, "stage_before": self.stage_before,
                "stage_after": self.stage_after, "sessions": self.counted, "activated": self.activated}


@dataclass(frozen=True)
class Uncounted:
    """Why harvested sessions count for no pattern: ``older`` started before every pattern that has not
    counted them was created (a session older than a pattern never counts for it), ``counted`` were
    counted already; out of ``harvested`` sessions and ``patterns`` patterns."""

    harvested: int = 0
    patterns: int = 0
    older: int = 0
    counted: int = 0

    def to_json(self) -> dict[str, int]:
        return {"harvested": self.harvested, "patterns": self.patterns, "older": self.older, "counted": self.counted}


def uncounted(patterns: Sequence[Pattern], sessions: Sequence[SessionSignal]) -> Uncounted:
    """For each session no pattern would count, whether it is older than the patterns or counted already."""
    states = [state_of(p.weight, p.stage, p.created, dict(p.meta)) for p in patterns]
    older = counted = 0
    for s in sessions:
        seen = [bool(st.cursor and s.key <= st.cursor) for st in states]
        young = [bool(st.created and s.at <= st.created) for st in states]
        if not states or not all(a or b for a, b in zip(seen, young)):
            continue   # some pattern counts it: not uncounted
        if any(y and not c for y, c in zip(young, seen)):
            older += 1
        else:
            counted += 1
    return Uncounted(len(sessions), len(patterns), older, counted)


@dataclass(frozen=True)
class WeightsPlan:
    """The pattern documents a weight update rewrites, a row per pattern it moved, and every pattern after it."""

    changes: dict[str, bytes]
    rows: tuple[Row, ...]
    patterns: tuple[Pattern, ...] = ()
    uncounted: Uncounted = Uncounted()

    @property
    def sessions(self) -> int:
        """The most sessions counted for one pattern: how many new sessions this update takes in."""
        return max((r.counted for r in self.rows), default=0)

    @property
    def stage_moves(self) -> tuple[Row, ...]:
        """The rows whose stage changed."""
        return tuple(r for r in self.rows if r.stage_before != r.stage_after)


def plan_weights(patterns: Sequence[Pattern], sessions: Sequence[SessionSignal], cfg: Hebbian) -> WeightsPlan:
    """Count every new session for every pattern; the rewritten documents and their rows."""
    from gitmem.store.documents import render_pattern

    changes: dict[str, bytes] = {}
    rows: list[Row] = []
    after: list[Pattern] = []
    for p in sorted(patterns, key=lambda p: p.slug):
        meta = dict(p.meta)
        state, steps = advance(state_of(p.weight, p.stage, p.created, meta), p.triggers, p.slug, sessions, cfg)
        if not steps:
            after.append(p)
            continue
        meta["hebbian"] = meta_of(state)
        moved = replace(p, weight=state.weight, stage=state.stage, meta=tuple(meta.items()))
        after.append(moved)
        changes[p.path] = render_pattern(moved)
        rows.append(Row(p.slug, p.path, rounded(p.weight), state.weight, p.stage, state.stage, len(steps),
                        sum(1 for s in steps if s.activated)))
    return WeightsPlan(changes, tuple(rows), tuple(after), uncounted(patterns, sessions) if not rows else Uncounted())


_CITED = re.compile(r"\b[a-z0-9]+(?:-[a-z0-9]+)+\b")


def session_terms(texts: Iterable[str]) -> tuple[str, str]:
    """What an episode keeps for activation from its user and assistant text (already redacted):
    the sorted set of stems and the sorted set of slug-like words it may cite, space-separated."""
    from gitmem.base import text as textmod

    stems: set[str] = set()
    cited: set[str] = set()
    for t in texts:
        stems.update(textmod.content_stems(t))
        cited.update(_CITED.findall(t.lower()))
    return " ".join(sorted(stems)), " ".join(sorted(cited))


def signals_of(episodes: Iterable[tuple[str, Mapping[str, Any]]]) -> list[SessionSignal]:
    """Each episode's activation signal, from its ``stems`` and ``cited`` fields; an episode made before
    they existed falls back to the stems of its title, summary and tags."""
    from gitmem.base import text as textmod

    out: list[SessionSignal] = []
    for path, meta in episodes:
        at = str(meta.get("started") or meta.get("date") or "")
        if not at:
            continue
        stems = meta.get("stems")
        if isinstance(stems, str):
            found = frozenset(stems.split())
        else:
            tags = meta.get("tags")
            words = " ".join([str(meta.get("title") or ""), str(meta.get("summary") or ""),
                              *(str(t) for t in (tags if isinstance(tags, list) else []))])
            found = frozenset(textmod.content_stems(words))
        cited = meta.get("cited")
        out.append(SessionSignal(at, str(meta.get("session") or path), found,
                                 frozenset(cited.split()) if isinstance(cited, str) else frozenset()))
    return sorted(out)
