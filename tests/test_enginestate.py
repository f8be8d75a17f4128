"""The committed engine state as a typed value: read leniently, written keeping comments, merged by
each field's declared rule."""

from __future__ import annotations

import ast
from dataclasses import replace
from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from gitmem.store import enginestate
from gitmem.store.enginestate import EngineState, Stamp

PACKAGE = Path(__file__).resolve().parent.parent / "gitmem"


def test_read_takes_every_field_and_keeps_unknown_keys() -> None:
    state = enginestate.read(b"format: 1\nthreshold: 17.5\nveto_streak: 2\napprove_streak: 1\nauto_streak: 3\n"
                             b"drift_baseline: abc123\nstamps: {drift_baseline: {at: '2026-11-01T00:00:00Z', "
                             b"reason: pinned}}\nfuture_key: [1, 2]\n")
    assert state == EngineState(format=1, threshold=17.5, veto_streak=2, approve_streak=1, auto_streak=3,
                                drift_baseline="abc123",
                                stamps=(("drift_baseline", Stamp("2026-11-01T00:00:00Z", "pinned")),),
                                extra=(("future_key", [1, 2]),))
    assert state.stamp("drift_baseline") == Stamp("2026-11-01T00:00:00Z", "pinned")
    assert state.stamp("threshold") is None


@pytest.mark.parametrize("text", [None, b"", b"- a list\n", b"::: not yaml :::\n  - [", b"# a comment only\n"])
def test_a_missing_or_unreadable_file_reads_as_the_defaults(text: bytes | None) -> None:
    assert enginestate.read(text) == EngineState()


def test_a_hand_edit_never_breaks_a_count() -> None:
    state = enginestate.read("auto_streak: 3\nveto_streak: -2\napprove_streak: yes\nthreshold: many\n"
                             "drift_baseline: [not, a, commit]\nformat: true\n")
    assert (state.auto_streak, state.veto_streak, state.approve_streak) == (3, 0, 0)
    assert state.threshold is None and state.drift_baseline is None and state.format == 0


def test_write_changes_only_what_changed_and_keeps_comments() -> None:
    old = b"# Engine state\nformat: 1  # the format\nthreshold: 15\nveto_streak: nonsense  # hand edit\nother: x\n"
    state = enginestate.read(old)
    new = enginestate.write(old, replace(state, auto_streak=2)).decode()
    assert new == ("# Engine state\nformat: 1  # the format\nthreshold: 15\nveto_streak: nonsense  # hand edit\n"
                   "other: x\nauto_streak: 2\n")
    assert enginestate.write(old, state) == old
    gone = enginestate.write(new, replace(enginestate.read(new), extra=())).decode()
    assert "other" not in gone and "# the format" in gone


def test_write_over_no_file_or_comments_only() -> None:
    assert enginestate.write(None, EngineState(drift_baseline="abc")) == b"drift_baseline: abc\n"
    assert enginestate.write("# only a comment\n", EngineState(drift_baseline="abc")) == \
        b"# only a comment\ndrift_baseline: abc\n"
    assert enginestate.write(None, EngineState()) == b""


def test_set_stamps_a_last_writer_field_and_refuses_others() -> None:
    stamp = Stamp("2026-11-01T00:00:00Z", "pinned by gitmem check drift --pin")
    state = EngineState().set("drift_baseline", "c0ffee", stamp)
    assert state.drift_baseline == "c0ffee" and state.stamp("drift_baseline") == stamp
    assert enginestate.read(enginestate.write(None, state)) == state
    with pytest.raises(ValueError):
        EngineState().set("veto_streak", 3, stamp)


def test_the_initial_file_reads_as_the_new_repository_state() -> None:
    text = enginestate.initial(1)
    assert text.startswith(b"# Engine state")
    assert enginestate.read(text) == EngineState(format=1, threshold=15)


def test_the_hook_reader_of_the_baseline_agrees_with_the_model() -> None:
    for text in ["format: 1\n", "format: 1\ndrift_baseline: abc123\n", "drift_baseline: 'abc'  # pinned\n",
                 "drift_baseline: [not, a, string]\n", "::: not yaml :::\n  - ["]:
        assert enginestate.pinned_baseline(text) == enginestate.read(text).drift_baseline, text
    written = enginestate.write("# c\nformat: 1\n", EngineState(format=1).set("drift_baseline", "beef",
                                                                             Stamp("2026-11-01T00:00:00Z", "x")))
    assert enginestate.pinned_baseline(written.decode()) == "beef"


def test_every_field_but_stamps_and_extra_declares_a_rule() -> None:
    declared = dict(enginestate.merged_fields(EngineState))
    assert set(declared.values()) <= set(enginestate.RULES)
    assert declared == {"format": "max", "threshold": "last-writer", "veto_streak": "counter",
                        "approve_streak": "counter", "auto_streak": "counter", "drift_baseline": "last-writer",
                        "decisions": "union"}


def _mentions_the_file(tree: ast.AST) -> bool:
    for node in ast.walk(tree):
        if isinstance(node, ast.Attribute) and node.attr == "STATE_FILE" and isinstance(node.value, ast.Name) \
                and node.value.id in ("formats", "enginestate"):
            return True
        if isinstance(node, ast.Constant) and isinstance(node.value, str) and node.value.endswith("state.yaml") \
                and "\n" not in node.value:
            return True
    return False


def test_the_file_is_read_and_written_only_through_the_model() -> None:
    """Every module that names .gitmem/state.yaml in code also imports the model; none calls the YAML
    wrapper on it but the model itself."""
    offenders = []
    for path in sorted(PACKAGE.rglob("*.py")):
        if path.name in ("enginestate.py", "formats.py"):
            continue
        text = path.read_text(encoding="utf-8")
        tree = ast.parse(text)
        if _mentions_the_file(tree) and "enginestate." not in text and "formats.check(" not in text:
            offenders.append(str(path.relative_to(PACKAGE)))
    assert offenders == []
    found = [p for p in (PACKAGE / "store").glob("*.py") if "STATE_FILE" in p.read_text() and "yamlio" in p.read_text()]
    assert sorted(p.name for p in found) == ["enginestate.py", "formats.py"]


# -- merging ---------------------------------------------------------------------------------------

T1, T2 = "2026-11-01T00:00:00Z", "2026-11-02T00:00:00Z"


def test_counters_merge_by_deltas() -> None:
    base = EngineState(veto_streak=2, approve_streak=1, auto_streak=1)
    ours = replace(base, veto_streak=3, auto_streak=2)
    theirs = replace(base, veto_streak=4, approve_streak=0, auto_streak=0)
    done = enginestate.merge(base, ours, theirs)
    assert (done.veto_streak, done.approve_streak, done.auto_streak) == (5, 0, 1)


def test_a_reset_on_one_side_and_a_step_on_the_other_give_the_step() -> None:
    base = EngineState(auto_streak=3)
    assert enginestate.merge(base, replace(base, auto_streak=0), replace(base, auto_streak=4)).auto_streak == 1
    assert enginestate.merge(base, replace(base, auto_streak=0), replace(base, auto_streak=0)).auto_streak == 0


def test_the_format_merges_by_max() -> None:
    assert enginestate.merge(EngineState(), EngineState(format=1), EngineState(format=0)).format == 1


def test_last_writer_takes_the_later_stamp_and_its_reason() -> None:
    base = EngineState(drift_baseline="aaa")
    ours = base.set("drift_baseline", "bbb", Stamp(T2, "pinned by Ann"))
    theirs = base.set("drift_baseline", "ccc", Stamp(T1, "pinned by Bo"))
    for done in (enginestate.merge(base, ours, theirs), enginestate.merge(base, theirs, ours)):
        assert done.drift_baseline == "bbb" and done.stamp("drift_baseline") == Stamp(T2, "pinned by Ann")


def test_a_side_that_left_a_field_alone_never_overrides_the_other() -> None:
    base = EngineState(threshold=15).set("drift_baseline", "aaa", Stamp(T2, "old pin"))
    theirs = base.set("drift_baseline", "bbb", Stamp(T1, "new pin, older clock"))
    done = enginestate.merge(base, base, theirs)
    assert done.drift_baseline == "bbb" and done.stamp("drift_baseline") == Stamp(T1, "new pin, older clock")
    assert done.threshold == 15


def test_unknown_keys_merge_three_way() -> None:
    base = EngineState(extra=(("a", 1), ("b", 1)))
    ours = EngineState(extra=(("a", 2), ("b", 1), ("c", 1)))
    theirs = EngineState(extra=(("a", 1),))
    assert enginestate.merge(base, ours, theirs).extra == (("a", 2), ("c", 1))


def test_the_decisions_merges_by_union_into_a_sorted_tuple() -> None:
    base = EngineState(decisions=("2026-12-01T00:00:00Z veto a",))
    ours = EngineState(decisions=("2026-12-01T00:00:00Z veto a", "2026-12-01T01:00:00Z veto b"))
    theirs = EngineState(decisions=("2026-12-01T00:00:00Z veto a", "2026-12-01T00:30:00Z veto c"))
    merged = enginestate.merge(base, ours, theirs)
    assert merged.decisions == ("2026-12-01T00:00:00Z veto a", "2026-12-01T00:30:00Z veto c",
                                   "2026-12-01T01:00:00Z veto b")
    assert enginestate.read(enginestate.write(b"format: 1\n", merged)).decisions == merged.decisions


def test_union_merges_sets() -> None:
    value = enginestate.merge_value("union", frozenset({"s1"}), frozenset({"s1", "s2"}), frozenset({"s3"}))
    assert value == frozenset({"s1", "s2", "s3"})


_stamps = st.one_of(st.none(), st.builds(Stamp, st.sampled_from([T1, T2, "2026-11-03T00:00:00Z"]),
                                         st.sampled_from(["a", "b"])))


@st.composite
def _states(draw: st.DrawFn) -> EngineState:
    state = EngineState(format=draw(st.integers(0, 3)), threshold=draw(st.sampled_from([None, 10, 15, 20.5])),
                        veto_streak=draw(st.integers(0, 9)), approve_streak=draw(st.integers(0, 9)),
                        auto_streak=draw(st.integers(0, 9)),
                        extra=tuple(sorted(draw(st.dictionaries(st.sampled_from(["x", "y"]), st.integers(0, 2)))
                                           .items())))
    for name in ("threshold", "drift_baseline"):
        stamp = draw(_stamps)
        if stamp is not None:
            value = draw(st.sampled_from(["aaa", "bbb"])) if name == "drift_baseline" else draw(
                st.sampled_from([10, 25]))
            state = state.set(name, value, stamp)
    return state


@pytest.mark.slow
@settings(max_examples=300, deadline=None)
@given(_states(), _states(), _states())
def test_merge_follows_the_rules(base: EngineState, ours: EngineState, theirs: EngineState) -> None:
    done = enginestate.merge(base, ours, theirs)
    assert done == enginestate.merge(base, theirs, ours)                       # symmetric
    assert enginestate.merge(base, ours, base) == replace(ours, format=max(ours.format, base.format))
    assert enginestate.merge(ours, ours, ours) == ours                         # idempotent
    for name in ("veto_streak", "approve_streak", "auto_streak"):
        b, o, t = getattr(base, name), getattr(ours, name), getattr(theirs, name)
        assert getattr(done, name) == max(0, o + t - b)
    assert done.format == max(ours.format, theirs.format)
    for name in ("threshold", "drift_baseline"):
        pairs = [(getattr(s, name), s.stamp(name)) for s in (base, ours, theirs, done)]
        assert pairs[3] in pairs[1:3]                                           # a value keeps its own stamp
        if pairs[1] == pairs[0]:
            assert pairs[3] == pairs[2]                                         # a side left alone never wins
    assert enginestate.read(enginestate.write(None, done)) == done             # what merges, writes and reads back
