"""Tests for gitmem.engines.merge: memory documents merged field by field and by 3-way text merge."""

from __future__ import annotations

from gitmem.base.gitio import merge_text
from gitmem.engines import merge
from gitmem.store import documents

PATH = "memory/user/ab/m-1.md"


def doc(body: str = "I prefer small pull requests.\n", **meta: object) -> str:
    front = {"id": "m-1", "type": "preference", "importance": 0.5, "reinforced": 1, "keywords": ["small", "pull"],
             "last_accessed": "2026-11-01T00:00:00Z", "tier": "short"}
    front.update(meta)
    return documents.render_document(front, body)


def merged(base: str | None, ours: str, theirs: str) -> tuple[dict[str, object], str, merge.Merged]:
    result = merge.merge_document(PATH, base, ours, theirs, merge_text)
    meta, body = documents.split(PATH, result.text)
    return meta, body, result


def test_weights_merge_by_their_deltas_and_stay_in_range() -> None:
    meta, _, result = merged(doc(), doc(importance=0.6), doc(importance=0.7))
    assert result.clean and meta["importance"] == 0.8
    meta, _, _ = merged(doc(importance=0.9), doc(importance=0.95), doc(importance=0.99))
    assert meta["importance"] == 1.0
    assert merge.merge_field("weight", 0.9, 0.95, 0.97) == (0.99, True)   # a weight never reaches 1.0


def test_counters_add_both_increments() -> None:
    meta, _, _ = merged(doc(reinforced=1), doc(reinforced=3), doc(reinforced=2))
    assert meta["reinforced"] == 4


def test_sets_are_united_in_a_stable_order() -> None:
    meta, _, _ = merged(doc(), doc(keywords=["small", "pull", "review"]), doc(keywords=["small", "pull", "size"]))
    assert meta["keywords"] == ["small", "pull", "review", "size"]


def test_dates_take_the_later_one() -> None:
    meta, _, _ = merged(doc(), doc(last_accessed="2026-11-05T00:00:00Z"), doc(last_accessed="2026-11-03T00:00:00Z"))
    assert meta["last_accessed"] == "2026-11-05T00:00:00Z"


def test_a_field_changed_on_one_side_takes_that_side() -> None:
    meta, _, result = merged(doc(), doc(), doc(tier="long"))
    assert result.clean and meta["tier"] == "long"
    meta, _, _ = merged(doc(), doc(tier="archive"), doc())
    assert meta["tier"] == "archive"


def test_a_field_changed_differently_on_both_sides_is_a_conflict_the_later_value_settles() -> None:
    meta, _, result = merged(doc(), doc(type="decision"), doc(type="fact"))
    assert not result.clean and meta["type"] == "fact"
    assert any("'type'" in c for c in result.conflicts)
    swapped, _, _ = merged(doc(), doc(type="fact"), doc(type="decision"))
    assert swapped["type"] == "fact"   # the same whichever side is ours


def test_tiers_and_stages_take_the_furthest() -> None:
    meta, _, result = merged(doc(), doc(tier="long"), doc(tier="archive"))
    assert result.clean and meta["tier"] == "archive"


def test_two_reinforcements_of_one_memory_both_count() -> None:
    """Both clones reinforce the same memory once (+10 % of 0.5, reinforced +1): the merge keeps both."""
    base = doc(importance=0.5, reinforced=0)
    ours = doc(importance=0.55, reinforced=1, last_accessed="2026-11-02T00:00:00Z")
    theirs = doc(importance=0.55, reinforced=1, last_accessed="2026-11-03T00:00:00Z")
    meta, _, result = merged(base, ours, theirs)
    assert result.clean and meta["importance"] == 0.6 and meta["reinforced"] == 2
    assert meta["last_accessed"] == "2026-11-03T00:00:00Z"


def test_set_removals_on_one_side_are_kept_and_additions_united() -> None:
    base = doc(keywords=["a", "b", "c"])
    meta, _, _ = merged(base, doc(keywords=["a", "c", "z"]), doc(keywords=["a", "b", "c", "y"]))
    assert meta["keywords"] == ["a", "c", "y", "z"]


def test_bodies_merge_three_ways() -> None:
    base = "line one\nline two\nline three\n"
    ours = "line one, edited here\nline two\nline three\n"
    theirs = "line one\nline two\nline three, edited there\n"
    _, body, result = merged(doc(base), doc(ours), doc(theirs))
    assert result.clean and body == "line one, edited here\nline two\nline three, edited there\n"


def test_a_body_conflict_is_reported_with_markers() -> None:
    _, body, result = merged(doc("one\n"), doc("ours\n"), doc("theirs\n"))
    assert not result.clean and "<<<<<<< ours" in body and ">>>>>>> theirs" in body
    assert any("text changed differently" in c for c in result.conflicts)


def test_fields_added_or_deleted_on_one_side() -> None:
    meta, _, _ = merged(doc(), doc(source="session:abc"), doc())
    assert meta["source"] == "session:abc"
    base = doc(source="x")
    meta, _, _ = merged(base, doc(), doc(source="x"))          # deleted by ours, untouched by theirs
    assert "source" not in meta
    meta, _, _ = merged(base, doc(), doc(source="y"))          # deleted by ours, changed by theirs
    assert meta["source"] == "y"


def test_added_on_both_sides_without_a_base() -> None:
    meta, body, result = merged(None, doc(importance=0.4), doc(importance=0.4))
    assert result.clean and meta["importance"] == 0.4 and body == "I prefer small pull requests.\n"


def test_identical_sides_give_that_side() -> None:
    text = doc(importance=0.66)
    result = merge.merge_document(PATH, doc(), text, text, merge_text)
    assert result.clean and documents.split(PATH, result.text) == documents.split(PATH, text)


def test_merge_text_handles_unicode_and_missing_final_newlines() -> None:
    out, clean = merge_text("α\nβ", "α\nβ\nγ", "α\nβ")
    assert clean and out == "α\nβ\nγ"


# -- property: random edits on both sides ------------------------------------------------------------

from hypothesis import given, settings, strategies as st  # noqa: E402

WORDS = st.sampled_from(["alpha", "beta", "gamma", "delta", "eps", "zeta"])
EDIT = st.one_of(
    st.tuples(st.just("reinforce"), st.integers(1, 3)),
    st.tuples(st.just("add_keyword"), WORDS),
    st.tuples(st.just("drop_keyword"), WORDS),
    st.tuples(st.just("tier"), st.sampled_from(["short", "long", "archive"])),
    st.tuples(st.just("seen"), st.integers(1, 28)),
    st.tuples(st.just("field"), st.sampled_from(["note", "source", "project"])),
    st.tuples(st.just("line"), st.integers(0, 3)),
)


def _edited(edits: list[tuple[str, object]], side: str) -> tuple[str, dict[str, object]]:
    meta: dict[str, object] = {"id": "m-1", "type": "fact", "importance": 0.5, "reinforced": 1,
                               "keywords": ["alpha", "beta"], "last_accessed": "2026-11-01T00:00:00Z", "tier": "short"}
    lines = ["one", "two", "three", "four"]
    for kind, value in edits:
        if kind == "reinforce":
            assert isinstance(value, int)
            meta["reinforced"] = int(str(meta["reinforced"])) + value
            meta["importance"] = round(float(str(meta["importance"])) + 0.01 * value, 6)
        elif kind == "add_keyword" and value not in meta["keywords"]:   # type: ignore[operator]
            meta["keywords"] = [*meta["keywords"], value]                # type: ignore[misc]
        elif kind == "drop_keyword":
            meta["keywords"] = [k for k in meta["keywords"] if k != value]   # type: ignore[attr-defined]
        elif kind == "tier":
            meta["tier"] = value
        elif kind == "seen":
            meta["last_accessed"] = f"2026-11-{value:02d}T00:00:00Z"
        elif kind == "field":
            meta[f"{value}_{side}"] = f"set by {side}"
        elif kind == "line":
            assert isinstance(value, int)
            lines[value] = f"{lines[value]} edited by {side}"
    return documents.render_document(meta, "\n".join(lines) + "\n"), meta


@settings(max_examples=60, deadline=None)
@given(st.lists(EDIT, max_size=6), st.lists(EDIT, max_size=6))
def test_random_edits_merge_to_a_document_that_parses_keeps_every_addition_and_is_symmetric(
        ours_edits: list[tuple[str, object]], theirs_edits: list[tuple[str, object]]) -> None:
    base, base_meta = _edited([], "base")
    ours, ours_meta = _edited(ours_edits, "ours")
    theirs, theirs_meta = _edited(theirs_edits, "theirs")
    one = merge.merge_document(PATH, base, ours, theirs, merge_text)
    other = merge.merge_document(PATH, base, theirs, ours, merge_text)
    meta, body = documents.split(PATH, one.text)            # always parses
    if ours == theirs:   # git merges identical texts without a driver: one change, made once
        assert one.text == ours
        return
    for side in (ours_meta, theirs_meta):
        for key in side:
            if key not in base_meta:
                assert meta[key] == side[key]                  # a field either side added is kept
    gained = (int(str(ours_meta["reinforced"])) - 1) + (int(str(theirs_meta["reinforced"])) - 1)
    assert meta["reinforced"] == 1 + gained                    # counters by deltas
    base_keywords = list(base_meta["keywords"])   # type: ignore[call-overload]
    added = {k for s in (ours_meta, theirs_meta) for k in s["keywords"] if k not in base_keywords}  # type: ignore[attr-defined]
    assert added <= set(meta["keywords"])                      # a set member either side added is kept
    assert meta["last_accessed"] == max(str(ours_meta["last_accessed"]), str(theirs_meta["last_accessed"]))
    assert documents.split(PATH, other.text)[0] == meta        # the same whichever side is "ours"
    if one.clean:
        assert documents.split(PATH, other.text)[1] == body and "<<<<<<<" not in body


# -- merge_file: by the kind of file ----------------------------------------------------------------

def _claude(layer1: str, layer2: str) -> str:
    return (f"# CLAUDE.md\n\n<!-- gitmem:layer 1 core -->\n{layer1}\n<!-- /gitmem:layer -->\n\n"
            f"<!-- gitmem:layer 2 patterns -->\n{layer2}\n<!-- /gitmem:layer -->\n\n"
            "<!-- gitmem:layer 3 episodic -->\n- none\n<!-- /gitmem:layer -->\n\n"
            "<!-- gitmem:layer 4 meta -->\n- be brief\n<!-- /gitmem:layer -->\n")


def test_claude_md_merges_the_person_s_layers_and_leaves_the_generated_ones_to_regenerate() -> None:
    base = _claude("- rule one", "- p 0.30")
    ours = _claude("- rule one\n- rule from ours", "- p 0.35")
    theirs = _claude("- rule one", "- p 0.40")
    done = merge.merge_file("CLAUDE.md", base, ours, theirs, merge_text)
    assert done.clean and done.regenerate and "- rule from ours" in done.text and "- p 0.35" in done.text
    assert "<<<<<<<" not in done.text


def test_generated_files_keep_ours_and_ask_to_be_regenerated() -> None:
    done = merge.merge_file("patterns.md", "a\n", "b\n", "c\n", merge_text)
    assert done.clean and done.regenerate and done.text == "b\n"


def test_the_engine_state_merges_by_its_field_rules() -> None:
    base = "format: 1\nthreshold: 15\nveto_streak: 0\napprove_streak: 0\nauto_streak: 1\n"
    ours = "format: 1\nthreshold: 15\nveto_streak: 0\napprove_streak: 0\nauto_streak: 2\n"
    theirs = "format: 2\nthreshold: 15\nveto_streak: 0\napprove_streak: 0\nauto_streak: 3\n"
    done = merge.merge_file(".gitmem/state.yaml", base, ours, theirs, merge_text)
    from gitmem.store import enginestate

    state = enginestate.read(done.text)
    assert done.clean and state.auto_streak == 4 and state.format == 2


def test_two_clones_weight_updates_of_one_pattern_replay_every_session_once() -> None:
    from gitmem.base.config import Hebbian
    from gitmem.engines import hebbian
    from gitmem.store.documents import read_pattern, render_pattern

    cfg = Hebbian()
    path = "patterns/retry.md"
    created = read_pattern(path, render_pattern(documents.Pattern(
        "retry", "Retry", 0.3, "episodic", ("backoff",), ("back off",), (), 0, "", "2026-10-01T00:00:00Z", path)))
    sessions = [hebbian.SessionSignal(f"2026-11-{d:02d}T10:00:00Z", f"s{d}",
                                      frozenset({"backoff"}) if d % 2 else frozenset()) for d in range(1, 9)]

    def after(signals: list[hebbian.SessionSignal]) -> str:
        return hebbian.plan_weights([created], signals, cfg).changes[path].decode()

    base = render_pattern(created).decode()
    done = merge.merge_file(path, base, after(sessions[:5]), after(sessions[3:]), merge_text, cfg)
    meta, _ = documents.split(path, done.text)
    alone, _ = documents.split(path, after(sessions))
    assert done.clean and meta["weight"] == alone["weight"] and meta["hebbian"] == alone["hebbian"]
