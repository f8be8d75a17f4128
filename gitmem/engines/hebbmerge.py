"""Two clones' Hebbian states of one pattern merged (the merge driver's rule for ``hebbian``).

The counted sessions are united and the state replayed from the origin
(``hebbian.replay``), so the merged weight equals applying every session
once. When the two sides folded their oldest sessions into their origins
differently (past ``hebbian.COUNTED_KEPT``), the later origin is taken and the
sessions only the other side counted below its floor are folded into it first.
"""

from __future__ import annotations

from typing import Sequence

from gitmem.engines.hebbian import HebbState, Origin, history_before, next_stage, replay, rounded, stage_rank, step

TYPE_CHECKING = False
if TYPE_CHECKING:
    from gitmem.base.config import Hebbian


def merge_states(ours: HebbState, theirs: HebbState, cfg: Hebbian, base: HebbState | None = None) -> HebbState:
    """Two clones' states of one pattern merged: the counted sessions united and replayed from the
    origin (the later one when the two sides folded differently), the stage the furthest of both sides.

    When the sides folded differently, the side with the earlier origin may hold sessions below the
    later origin's floor that the other side never counted (harvested on its machine alone): those
    not in ``base`` (the common ancestor, which both sides had) are folded into the origin first, in
    session order, so each is counted once and none is dropped."""
    a, b = ours.start(), theirs.start()
    (origin, first), other = ((a, ours), theirs) if (a.cursor, repr(a)) >= (b.cursor, repr(b)) else ((b, theirs), ours)
    stage = max((ours.stage, theirs.stage), key=stage_rank)
    counted = ours.counted | theirs.counted
    known, floor = (base.counted, base.start().cursor) if base is not None else (frozenset(), "")
    late = sorted(k for k in other.counted - first.counted - known
                  if origin.cursor and floor < k <= origin.cursor)
    if late:
        origin = _fold_late(origin, late, other.activated, cfg)
        counted = frozenset(k for k in counted if k > origin.cursor)
    state, _ = replay(origin, first.created, counted, ours.activated | theirs.activated, cfg,
                      history_before(first, origin), stage)
    return state


def _fold_late(origin: Origin, late: Sequence[str], activated: frozenset[str], cfg: Hebbian) -> Origin:
    """``origin`` with the sessions ``late`` (keys below its floor, counted by one side only) applied
    in session order; the floor stays where it is."""
    weight, stage, streak, above, last = origin.weight, origin.stage, origin.streak, origin.above, origin.last_activated
    for key in late:
        on = key in activated
        weight = step(weight, on, cfg)
        streak = streak + 1 if on else 0
        above = above + 1 if weight > rounded(cfg.strong_weight) else 0
        stage = next_stage(stage, streak, above, weight, cfg)
        last = max(last, key.partition("|")[0]) if on else last
    return Origin(weight, stage, origin.cursor, streak, above, last)
