"""Tests for gitmem.engines.hebbian: the update rule, activation, stages, cursors, front matter."""

from __future__ import annotations

from dataclasses import replace

import pytest
from hypothesis import given, settings, strategies as st

from gitmem.base.config import Hebbian
from gitmem.engines import hebbian, hebbmerge
from gitmem.engines.hebbian import HebbState, SessionSignal

CFG = Hebbian()


def session(n: int, words: str = "", cited: frozenset[str] = frozenset()) -> SessionSignal:
    from gitmem.base import text

    return SessionSignal(f"2026-11-{1 + n // 24:02d}T{n % 24:02d}:00:00Z", f"s{n:03d}",
                         frozenset(text.content_stems(words)), cited)


def test_step_follows_the_formula_and_rounds() -> None:
    assert hebbian.step(0.3, True, CFG) == 0.35
    assert hebbian.step(0.3, False, CFG) == 0.28
    assert hebbian.step(0.94, True, CFG) == 0.95              # clamped at weight_max
    assert hebbian.step(0.01, False, CFG) == 0.0              # clamped at weight_min
    assert hebbian.step(0.1 + 0.2, True, CFG) == 0.35         # rounding hides float noise


@given(st.floats(0.0, 0.95), st.lists(st.booleans(), max_size=200))
@settings(max_examples=200, deadline=None)
def test_no_weight_ever_leaves_its_range_or_reaches_one(start: float, acts: list[bool]) -> None:
    w = hebbian.rounded(start)
    for a in acts:
        w = hebbian.step(w, a, CFG)
        assert CFG.weight_min <= w <= CFG.weight_max < 1.0
        assert w == round(w, 6)


def test_thirty_activated_sessions_give_the_formulas_weights_and_stages() -> None:
    sessions = [session(n, "we retried the flaky network call with backoff") for n in range(30)]
    state, steps = hebbian.advance(HebbState(0.3, created="2026-10-01T00:00:00Z"), ["backoff"], "retry", sessions, CFG)
    expected = [min(0.95, round(0.3 + 0.05 * (i + 1), 6)) for i in range(30)]
    assert [s.after for s in steps] == expected
    stages = [s.stage_after for s in steps]
    assert stages[3] == "episodic" and stages[4] == "emergent"          # after exactly 5 consecutive
    # weight > 0.8 from session 11 on; 20 sessions above makes session 30 strong, and at 0.95 a candidate
    assert stages[28] == "emergent" and stages[29] == "core-candidate"
    assert state.weight == 0.95 and state.stage == "core-candidate" and state.cursor == sessions[-1].key


def test_an_unactivated_session_breaks_the_streak() -> None:
    acts = [True] * 4 + [False] + [True] * 5
    sessions = [session(n, "kafka partitions" if a else "unrelated chat") for n, a in enumerate(acts)]
    state, steps = hebbian.advance(HebbState(0.3), ["kafka"], "kafka", sessions, CFG)
    assert [s.activated for s in steps] == acts
    assert [s.stage_after for s in steps].index("emergent") == 9
    assert steps[4].after == round(steps[3].after - 0.02, 6)


def test_a_rerun_counts_nothing_twice() -> None:
    sessions = [session(n, "kafka") for n in range(6)]
    state, steps = hebbian.advance(HebbState(0.3), ["kafka"], "k", sessions, CFG)
    again, more = hebbian.advance(state, ["kafka"], "k", sessions, CFG)
    assert more == [] and again == state
    later, added = hebbian.advance(state, ["kafka"], "k", [*sessions, session(7, "kafka")], CFG)
    assert [s.session for s in added] == ["s007"] and later.weight == round(state.weight + 0.05, 6)


def test_sessions_before_the_pattern_was_created_do_not_count() -> None:
    sessions = [session(n, "kafka") for n in range(10)]
    created = sessions[4].at
    _, steps = hebbian.advance(HebbState(0.3, created=created), ["kafka"], "k", sessions, CFG)
    assert [s.session for s in steps] == [s.id for s in sessions[5:]]


def test_sessions_count_in_time_order_whatever_order_they_come_in() -> None:
    sessions = [session(n, "kafka" if n % 2 else "") for n in range(8)]
    a, _ = hebbian.advance(HebbState(0.3), ["kafka"], "k", sessions, CFG)
    b, _ = hebbian.advance(HebbState(0.3), ["kafka"], "k", list(reversed(sessions)), CFG)
    assert a == b


def test_activation_by_stemmed_trigger_multiword_trigger_or_citation() -> None:
    stems = hebbian.trigger_stems(["Deploying", "exponential backoff", "  ", "the"])
    assert len(stems) == 2                                   # empty and stop-word-only triggers dropped
    assert hebbian.activates(stems, "p", session(1, "we deployed it on friday"))
    assert hebbian.activates(stems, "p", session(1, "backoff must be exponential here"))
    assert not hebbian.activates(stems, "p", session(1, "backoff was linear"))
    assert hebbian.activates([], "retry-policy", session(1, "see pattern", frozenset({"retry-policy"})))
    assert not hebbian.activates([], "retry-policy", session(1, "retry policy"))


def test_stages_only_move_forward_and_never_to_core() -> None:
    assert hebbian.next_stage("strong", 0, 0, 0.1, CFG) == "strong"
    assert hebbian.next_stage("core-candidate", 0, 0, 0.1, CFG) == "core-candidate"
    assert hebbian.next_stage("episodic", 100, 100, 0.95, CFG) == "core-candidate"
    assert "core" not in {hebbian.next_stage(s, 99, 99, 0.95, CFG) for s in hebbian.STAGES[:-1]}


def test_config_changes_the_thresholds() -> None:
    cfg = replace(CFG, emergent_after=2, learning_rate=0.1)
    _, steps = hebbian.advance(HebbState(0.3), ["kafka"], "k", [session(n, "kafka") for n in range(2)], cfg)
    assert [s.after for s in steps] == [0.4, 0.5] and steps[1].stage_after == "emergent"


def test_front_matter_round_trip_and_hostile_values() -> None:
    state = HebbState(0.42, "emergent", "2026-10-01T00:00:00Z", "2026-11-02T00:00:00Z|s1", 3, 0,
                      "2026-11-02T00:00:00Z", (("2026-11-01T00:00:00Z", 0.4), ("2026-11-02T00:00:00Z", 0.42)))
    meta = {"hebbian": hebbian.meta_of(state)}
    # a state counted by a cursor alone reads back with that state as the origin of its (empty) session set
    assert hebbian.state_of(0.42, "emergent", "2026-10-01T00:00:00Z", meta) == replace(state, origin=state.start())
    odd = hebbian.state_of(0.5, "nonsense", "", {"hebbian": {"streak": float("inf"), "above": "x",
                                                              "history": [["a"], ["t", "nan?"], 7, ["t", 0.5]]}})
    assert odd.stage == "episodic" and odd.streak == 0 and odd.above == 0 and odd.history == (("t", 0.5),)
    assert hebbian.state_of(0.5, "strong", "", {"hebbian": "not a mapping"}).cursor == ""


def test_history_is_bounded() -> None:
    sessions = [session(n, "kafka") for n in range(hebbian.HISTORY_KEPT + 15)]
    state, _ = hebbian.advance(HebbState(0.3), ["kafka"], "k", sessions, CFG)
    assert len(state.history) == hebbian.HISTORY_KEPT and state.history[-1][0] == sessions[-1].at


@pytest.mark.parametrize("weight", [0.0, 0.95])
def test_limits_hold_at_the_edges(weight: float) -> None:
    state, steps = hebbian.advance(HebbState(weight), ["x"], "k", [session(1, "x"), session(2, "y")], CFG)
    assert all(CFG.weight_min <= s.after <= CFG.weight_max for s in steps)


# -- counted sessions as a set ----------------------------------------------------------------------

def _signals(n: int, start: int = 0, hot: frozenset[int] = frozenset()) -> list[SessionSignal]:
    return [SessionSignal(f"2026-11-{1 + (start + i) // 24:02d}T{(start + i) % 24:02d}:00:00Z", f"s{start + i:03d}",
                          frozenset({"backoff"}) if (start + i) in hot else frozenset()) for i in range(n)]


def _once(sessions: list[SessionSignal]) -> float:
    cfg = Hebbian()
    w = cfg.initial_weight
    for s in sorted(sessions):
        w = hebbian.step(w, "backoff" in s.stems, cfg)
    return w


def test_a_session_older_than_the_last_counted_one_still_counts_once_in_its_place() -> None:
    cfg = Hebbian()
    hot = frozenset({0, 1, 3})
    all_sessions = _signals(6, hot=hot)
    start = HebbState(cfg.initial_weight, created="2026-10-01T00:00:00Z")
    late, early = all_sessions[4:], all_sessions[:4]
    state, _ = hebbian.advance(start, ["backoff"], "p", late, cfg)
    state, steps = hebbian.advance(state, ["backoff"], "p", early, cfg)    # arrived later from another machine
    assert len(steps) == 4 and state.weight == _once(all_sessions)
    again, none = hebbian.advance(state, ["backoff"], "p", all_sessions, cfg)
    assert none == [] and again == state


def test_two_machines_states_merge_to_every_session_applied_once() -> None:
    cfg = Hebbian()
    hot = frozenset(range(0, 40, 3))
    sessions = _signals(40, hot=hot)
    start = HebbState(cfg.initial_weight, created="2026-10-01T00:00:00Z")
    ours, _ = hebbian.advance(start, ["backoff"], "p", sessions[::2], cfg)
    theirs, _ = hebbian.advance(start, ["backoff"], "p", sessions[1::2], cfg)
    merged = hebbmerge.merge_states(ours, theirs, cfg)
    assert merged == hebbmerge.merge_states(theirs, ours, cfg)
    alone, _ = hebbian.advance(start, ["backoff"], "p", sessions, cfg)
    assert merged.weight == alone.weight == _once(sessions)
    assert (merged.streak, merged.above, merged.counted) == (alone.streak, alone.above, alone.counted)


def test_a_legacy_cursor_reads_as_the_floor_of_an_empty_set() -> None:
    cfg = Hebbian()
    meta = {"hebbian": {"cursor": "2026-11-01T05:00:00Z|s005", "streak": 2, "above": 0, "last_activated": ""}}
    state = hebbian.state_of(0.4, "episodic", "2026-10-01T00:00:00Z", meta)
    assert hebbian.is_legacy(meta) and state.counted == frozenset() and state.start().cursor.endswith("s005")
    after, steps = hebbian.advance(state, ["backoff"], "p", _signals(8, hot=frozenset({6})), cfg)
    assert [s.session for s in steps] == ["s006", "s007"] and after.weight == hebbian.step(hebbian.step(0.4, True, cfg), False, cfg)
    assert not hebbian.is_legacy({"hebbian": hebbian.meta_of(after)})


def test_past_the_kept_count_the_oldest_sessions_fold_into_the_origin() -> None:
    cfg = Hebbian()
    sessions = _signals(hebbian.COUNTED_KEPT + 30, hot=frozenset(range(0, 400, 2)))
    start = HebbState(cfg.initial_weight, created="2026-10-01T00:00:00Z")
    state, _ = hebbian.advance(start, ["backoff"], "p", sessions, cfg)
    assert len(state.counted) == hebbian.COUNTED_KEPT and state.weight == _once(sessions)
    again, none = hebbian.advance(state, ["backoff"], "p", sessions, cfg)
    assert none == [] and again.weight == state.weight
    replayed, _ = hebbian.replay(state.start(), state.created, state.counted, state.activated, cfg)
    assert (replayed.weight, replayed.streak, replayed.above) == (state.weight, state.streak, state.above)


def test_a_pattern_holding_the_most_counted_sessions_stays_a_readable_document() -> None:
    from gitmem.store.documents import Pattern, read_pattern, render_pattern

    cfg = Hebbian()
    path = "patterns/p.md"
    p = read_pattern(path, render_pattern(Pattern("p", "P", 0.3, "episodic", ("backoff",), (), (), 0, "",
                                                  "2026-10-01T00:00:00Z", path)))
    long_ids = [SessionSignal(s.at, f"00000000-0000-4000-8000-{i:012d}", s.stems)
                for i, s in enumerate(_signals(hebbian.COUNTED_KEPT + 50, hot=frozenset(range(0, 400))))]
    data = hebbian.plan_weights([p], long_ids, cfg).changes[path]
    again = read_pattern(path, data)
    state = hebbian.state_of(again.weight, again.stage, again.created, dict(again.meta))
    assert len(state.counted) == len(state.activated) == hebbian.COUNTED_KEPT


def test_a_session_below_the_other_sides_fold_is_counted_once_not_dropped() -> None:
    # past COUNTED_KEPT sessions one clone folds its oldest into the origin; a session the other clone
    # alone harvested, older than that fold, used to be neither in the origin nor replayed
    cfg = Hebbian()
    hot = frozenset(i for i in range(400) if i % 7 in (0, 3))   # the weight stays clear of its bounds
    sessions = _signals(hebbian.COUNTED_KEPT + 20, hot=hot)
    start = HebbState(cfg.initial_weight, created="2026-10-01T00:00:00Z")
    base, _ = hebbian.advance(start, ["backoff"], "p", sessions[:10], cfg)
    theirs, _ = hebbian.advance(base, ["backoff"], "p", sessions[10:], cfg)
    assert theirs.origin is not None and theirs.origin.cursor >= sessions[15].key   # theirs folded past it
    late = SessionSignal(sessions[15].at, sessions[15].id + "x", frozenset({"backoff"}))
    ours, _ = hebbian.advance(base, ["backoff"], "p", [late], cfg)
    merged = hebbmerge.merge_states(ours, theirs, cfg, base)
    assert merged == hebbmerge.merge_states(theirs, ours, cfg, base)
    assert merged.weight == pytest.approx(_once([*sessions, late]), abs=1e-9)
    assert merged.weight != pytest.approx(theirs.weight, abs=1e-9)
    # merged again with either side as the ancestor, nothing is counted twice
    assert hebbmerge.merge_states(merged, theirs, cfg, theirs).weight == pytest.approx(merged.weight, abs=1e-9)
    assert hebbmerge.merge_states(merged, ours, cfg, ours).weight == pytest.approx(merged.weight, abs=1e-9)
