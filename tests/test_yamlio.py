"""yamlio: ruamel.yaml behind one module; the event path agrees with ruamel's own loader."""

from __future__ import annotations

import math
from datetime import date, datetime
from typing import Any

import pytest
from hypothesis import example, given, settings
from hypothesis import strategies as st

from gitmem.base import yamlio
from gitmem.base.errors import GitmemError, YamlProblem

TRICKY = ["yes", "no", "on", "off", "null", "Null", "~", "true", "False", "0x1f", "1_000", "012", "0o7", ".5",
          "1e3", "+1", "-7", ".inf", "-.inf", ".nan", "2026-11-29", "2026-11-29T13:40:00Z",
          "2026-11-29 13:40:00", "2026-11-29T13:40:00.5+02:00", "a: b", "a #b", "#c", "- x", "[x]", "{x}",
          "*a", "&a", "'q'", '"d"', "x,y", "  pad", "pad  ", "tab\there", "line\nbreak", "%x", "@x", "`x`",
          "!tag", "?", ":", "-", "---", "...", "=", "<<", "", " ", "é", "\u2028", "\x85", "\ufeff", "\x07"]

scalars = st.one_of(
    st.none(), st.booleans(), st.integers(-10**20, 10**20),
    st.floats(allow_nan=False, width=64),
    st.text(st.characters(codec="utf-8", categories=("L", "M", "N", "P", "S", "Z", "Cc", "Cf", "Co", "Cn")), max_size=30),
    st.sampled_from(TRICKY),
)
values = st.recursive(scalars, lambda inner: st.one_of(st.lists(inner, max_size=4),
                                                       st.dictionaries(st.text(max_size=8), inner, max_size=3)),
                      max_leaves=8)
keys = st.from_regex(r"[A-Za-z_][A-Za-z0-9_]{0,10}", fullmatch=True)


def reference(text: str) -> Any:
    """ruamel's own safe loader, dates as ISO strings: the meaning every path must agree with."""
    return yamlio.normalize(yamlio.load_safe(text))


@pytest.mark.slow
@settings(max_examples=300, deadline=None)
@given(st.dictionaries(keys, values, max_size=6))
def test_dump_then_load_round_trips_and_agrees_with_ruamel(data: dict[str, Any]) -> None:
    text = yamlio.dump_plain(data)
    assert yamlio.load_plain(text) == (data or None)
    assert reference(text) == (data or None)
    assert yamlio.is_canonical(text, data)


@pytest.mark.slow
@settings(max_examples=300, deadline=None)
@given(st.dictionaries(keys, st.sampled_from([t for t in TRICKY if "\n" not in t and t.strip() == t and t]),
                       min_size=1, max_size=5))
def test_plain_text_reads_as_ruamel_reads_it(data: dict[str, str]) -> None:
    text = "".join(f"{k}: {v}\n" for k, v in data.items())
    try:
        expected = reference(text)
    except YamlProblem:
        with pytest.raises(YamlProblem):
            yamlio.load_plain(text)
        return
    assert yamlio.load_plain(text) == expected


def test_dump_is_one_key_a_line_in_the_given_order() -> None:
    text = yamlio.dump_plain({"zeta": 1, "alpha": "x", "keywords": ["a", "b"], "links": [{"to": "m-1"}]})
    assert text == "zeta: 1\nalpha: x\nkeywords: [a, b]\nlinks: [{to: m-1}]\n"


@pytest.mark.parametrize(("value", "written"), [
    ("2026-11-29T13:40:00Z", "2026-11-29T13:40:00Z"),      # a canonical time reads back as written
    ("2026-11-29 13:40:00", '"2026-11-29 13:40:00"'),     # a time that would read back otherwise
    ("", '""'), ("0.5", '"0.5"'), ("true", '"true"'), ("null", '"null"'), ("~", '"~"'),
    ("line\nbreak", '"line\\nbreak"'), ("tab\there", '"tab\\there"'),
    ("plain words", "plain words"), ("héllo", "héllo"),
    (0.5, "0.5"), (3, "3"), (True, "true"), (None, "null"),
])
def test_scalars_are_written_as_they_read_back(value: Any, written: str) -> None:
    text = yamlio.dump_plain({"k": value})
    assert text == f"k: {written}\n"
    assert yamlio.load_plain(text) == {"k": value}


def test_multi_line_strings_stay_on_one_line() -> None:
    text = yamlio.dump_plain({"a": "one\n---\ntwo", "b": "x\u2028y"})
    assert text.count("\n") == 2
    assert yamlio.load_plain(text) == {"a": "one\n---\ntwo", "b": "x\u2028y"}


def test_special_floats_round_trip() -> None:
    data = yamlio.load_plain(yamlio.dump_plain({"a": math.inf, "b": -math.inf, "c": math.nan}))
    assert data["a"] == math.inf and data["b"] == -math.inf and math.isnan(data["c"])


@pytest.mark.parametrize("key", ["", "1abc", "with space", "dash-key", "é"])
def test_keys_must_be_identifiers(key: str) -> None:
    with pytest.raises(ValueError, match="bad front matter key"):
        yamlio.dump_plain({key: 1})


def test_a_non_string_key_is_refused() -> None:
    with pytest.raises(ValueError):
        yamlio.dump_plain({1: "x"})  # type: ignore[dict-item]  # the refusal is what is tested


def test_an_empty_mapping_is_empty_text() -> None:
    assert yamlio.dump_plain({}) == ""
    assert yamlio.load_plain("") is None
    assert yamlio.load_plain("# only a comment\n") is None


@pytest.mark.parametrize(("text", "expected"), [
    ("a: !!str 12\n", {"a": "12"}),                                  # explicit tag
    ("a: |\n  two\n  lines\n", {"a": "two\nlines\n"}),                # block scalar
    ("a:\n  b: [1, {c: d}]\n", {"a": {"b": [1, {"c": "d"}]}}),      # nesting
    ("1: one\nfalse: yes\n", {"1": "one", "False": "yes"}),          # keys as strings
    ("when: 2026-11-29\n", {"when": "2026-11-29"}),                  # a date as ISO text
    ("at: 2026-11-29 13:40:00\n", {"at": "2026-11-29T13:40:00Z"}),   # naive times are UTC
    ("- a\n- b\n", ["a", "b"]),                                      # not a mapping at all
])
def test_unusual_shapes_read_as_ruamel_reads_them(text: str, expected: Any) -> None:
    assert yamlio.load_plain(text) == expected
    assert reference(text) == expected


@pytest.mark.parametrize("text", ["a: ! 12\n", "? [x, y]\n: 1\n", "a: !!binary aGk=\n", "a: !!set {x}\n",
                                  "<<: {x: 1}\ny: 2\n"])
def test_rare_shapes_go_to_ruamels_full_loader(text: str) -> None:
    assert yamlio.load_plain(text) == reference(text)


@pytest.mark.parametrize("text", [
    "a: 1\na: 2\n",                 # duplicate key
    "1: one\ntrue: yes\n",          # 1 and true are the same key to Python
    "a: <<\n",                      # a merge tag where a value belongs
    "a: 1\n---\nb: 2\n",            # two documents
    "a: !!python/object:os.system x\n",
])
def test_what_the_safe_loader_refuses_is_a_yaml_problem(text: str) -> None:
    with pytest.raises(YamlProblem):
        yamlio.load_plain(text)


def test_syntax_errors_carry_their_line() -> None:
    with pytest.raises(YamlProblem) as info:
        yamlio.load_plain("id: x\ntype: [unclosed\nz: 1\n")
    assert info.value.line == 2
    assert isinstance(info.value, GitmemError) and info.value.hint


@pytest.mark.parametrize("loader", [yamlio.load_plain, yamlio.load_safe, yamlio.load_rt])
def test_yaml_bombs_and_anchors_are_refused(loader: Any) -> None:
    bomb = 'a: &a ["x","x","x"]\nb: &b [*a,*a,*a]\nc: [*b,*b,*b]\n'
    with pytest.raises(YamlProblem, match="anchors and aliases") as info:
        loader(bomb)
    assert info.value.line == 1
    with pytest.raises(YamlProblem):
        loader("a: &x 1\n")


def test_load_safe_keeps_ruamels_types() -> None:
    data = yamlio.load_safe("at: 2026-11-29T13:40:00Z\nday: 2026-11-29\n")
    assert isinstance(data["at"], datetime) and isinstance(data["day"], date)


def test_normalize_turns_dates_into_iso_text_recursively() -> None:
    value = {"a": [date(2026, 1, 2), datetime(2026, 1, 2, 3, 4, 5)], 7: {"b": None}}
    assert yamlio.normalize(value) == {"a": ["2026-01-02", "2026-01-02T03:04:05Z"], "7": {"b": None}}


def test_round_trip_keeps_comments_order_and_quotes() -> None:
    text = "# head\nb: 'quoted'  # why\na: 1\n"
    doc = yamlio.load_rt(text)
    doc["a"] = 2
    out = yamlio.dump_rt(doc)
    assert out == "# head\nb: 'quoted'  # why\na: 2\n"


def test_is_canonical_only_for_the_dumped_text() -> None:
    data = {"a": 1, "b": "x"}
    assert yamlio.is_canonical("a: 1\nb: x\n", data)
    assert not yamlio.is_canonical("a: 1  # note\nb: x\n", data)
    assert not yamlio.is_canonical("b: x\na: 1\n", data)
    assert not yamlio.is_canonical("", {"bad key": 1})


@pytest.mark.slow
@settings(max_examples=200, deadline=None)
@given(st.dictionaries(keys, values, max_size=6))
def test_every_dumped_line_starts_with_its_key_so_no_line_can_close_a_fence(data: dict[str, Any]) -> None:
    text = yamlio.dump_plain(data)
    lines = text.splitlines()
    assert len(lines) == len(data)
    assert [line.split(":", 1)[0] for line in lines] == list(data)
    assert yamlio.dump_plain(yamlio.load_plain(text) or {}) == text   # canonical text is a fixed point


def test_loaded_collections_are_fresh_objects_each_time() -> None:
    first = yamlio.load_plain("a: [1, 2]\nb: {c: d}\n")
    first["a"].append(3)
    first["b"]["c"] = "changed"
    assert yamlio.load_plain("a: [1, 2]\nb: {c: d}\n") == {"a": [1, 2], "b": {"c": "d"}}


def test_tuples_and_nested_values_are_written_in_flow_style() -> None:
    text = yamlio.dump_plain({"t": ("x", 1), "m": {"key with space": ["a b", None], "2": True}})
    assert text == 't: [x, 1]\nm: {key with space: [a b, null], "2": true}\n'
    assert yamlio.load_plain(text) == {"t": ["x", 1], "m": {"key with space": ["a b", None], "2": True}}


def test_a_datetime_value_reads_back_as_its_iso_text() -> None:
    text = yamlio.dump_plain({"at": datetime(2026, 11, 29, 12, 0, 0), "day": date(2026, 11, 29)})
    assert yamlio.load_plain(text) == {"at": "2026-11-29T12:00:00Z", "day": "2026-11-29"}


@pytest.mark.parametrize("value", ["0E0", "1e3", "0o17", "0b101", "-0.0", "1_0.5", "+.inf", "2026-02-30"])
def test_odd_plain_numbers_and_dates_read_as_ruamel_reads_them(value: str) -> None:
    text = f"k: {value}\n"
    try:
        expected = reference(text)
    except YamlProblem:
        with pytest.raises(YamlProblem):
            yamlio.load_plain(text)
        return
    assert yamlio.load_plain(text) == expected
    assert yamlio.load_plain(yamlio.dump_plain({"k": value})) == {"k": value}   # the string survives


@pytest.mark.parametrize(("text", "line"), [
    ("a: 1\nb: [x\n", 2), ("a: 1\n  b: 2\n", 2), ("a: 1\nb: 2\nc: *d\n", 3), ("a:\n  - &n x\n", 2),
    ("a: {b: 1\n", 1), ("a: 'x\n", 1), ("\ta: 1\n", 1),
])
def test_problems_point_at_their_line(text: str, line: int) -> None:
    with pytest.raises(YamlProblem) as info:
        yamlio.load_plain(text)
    assert info.value.line == line


def test_round_trip_of_nothing_and_of_plain_data() -> None:
    assert yamlio.load_rt("") is None
    assert yamlio.dump_rt({"a": [1, 2]}) == "a:\n  - 1\n  - 2\n"


def test_crlf_text_is_not_canonical_but_reads_the_same() -> None:
    data = yamlio.load_plain("a: 1\r\nb: x\r\n")
    assert data == {"a": 1, "b": "x"}
    assert not yamlio.is_canonical("a: 1\r\nb: x\r\n", data)


def test_unicode_is_written_as_is_and_unprintables_escaped() -> None:
    text = yamlio.dump_plain({"a": "café ☕", "b": "bell\x07", "c": "zero\u200bwidth"})
    assert "a: café ☕\n" in text and "\x07" not in text
    assert 'c: "zero' in text   # an invisible character is quoted, never left in a plain scalar
    assert yamlio.load_plain(text) == {"a": "café ☕", "b": "bell\x07", "c": "zero\u200bwidth"}


def ruamel_block_text(data: dict[str, Any]) -> str:
    """The same data as ruamel's own safe dumper writes it: block style, single quotes, other spellings."""
    import io

    from ruamel.yaml import YAML

    y = YAML(typ="safe", pure=True)
    y.default_flow_style = False
    out = io.StringIO()
    y.dump(data, out)
    return out.getvalue()


@pytest.mark.slow
@settings(max_examples=200, deadline=None)
@given(st.dictionaries(keys, values, min_size=1, max_size=5))
def test_other_spellings_of_the_same_data_read_the_same(data: dict[str, Any]) -> None:
    text = ruamel_block_text(data)
    assert yamlio.load_plain(text) == reference(text)


@pytest.mark.parametrize("text", [
    "null: 1\n", "~: 1\n", "1.5: x\n", "2026-01-01: x\n", "'quoted': 1\n", '"a b": 2\n', "? simple\n: 3\n",
    "{a: 1}\n", "{}\n", "[]\n", "a: 1\n...\n", "--- \na: 1\n", "a: []\nb: {}\n", "a: [[1], [2, [3]]]\n",
    "a: {b: {c: {d: 1}}}\n", "a: >\n  folded\n  text\n", "a: 'it''s'\n", 'a: "tab\\there"\n', "a: !!float 1\n",
    "a: -\n", "a: - x\n", "\ufeffa: 1\n",
])
def test_edge_shapes_read_as_ruamel_reads_them(text: str) -> None:
    try:
        expected = reference(text)
    except YamlProblem:
        with pytest.raises(YamlProblem):
            yamlio.load_plain(text)
        return
    assert yamlio.load_plain(text) == expected


def test_a_large_mapping_round_trips() -> None:
    data = {f"k{i}": [f"v{i}", i, i / 7, i % 2 == 0, None] for i in range(1000)}
    text = yamlio.dump_plain(data)
    assert text.count("\n") == 1000
    assert yamlio.load_plain(text) == data


def test_values_cached_for_one_key_do_not_leak_into_another() -> None:
    assert yamlio.load_plain("a: 0x10\nb: '0x10'\nc: \"0x10\"\n") == {"a": 16, "b": "0x10", "c": "0x10"}
    assert yamlio.load_plain("0x10: a\n") == {"16": "a"}


def test_round_trip_edits_keep_nested_comments() -> None:
    text = "top: 1  # one\nnested:\n  # inner note\n  a: [1, 2]\n  b: x   # bee\n"
    doc = yamlio.load_rt(text)
    doc["nested"]["b"] = "y"
    del doc["top"]
    out = yamlio.dump_rt(doc)
    assert "# inner note" in out and "# bee" in out and "b: y" in out and "top" not in out


def test_load_safe_reports_syntax_and_refuses_several_documents() -> None:
    with pytest.raises(YamlProblem) as info:
        yamlio.load_safe("a: [1\n")
    assert info.value.line == 1
    with pytest.raises(YamlProblem):
        yamlio.load_safe("a: 1\n---\nb: 2\n")


@pytest.mark.parametrize("key", ["null", "Null", "true", "False", "on", "yes", "y", "No", "nan", "inf", "_"])
def test_keys_that_are_yaml_words_stay_strings(key: str) -> None:
    text = yamlio.dump_plain({key: key})
    assert yamlio.load_plain(text) == {key: key}
    assert reference(text) == {key: key}


@settings(max_examples=200, deadline=None)
@given(st.datetimes(timezones=st.none()), st.sampled_from(["%Y-%m-%dT%H:%M:%SZ", "%Y-%m-%d %H:%M:%S", "%Y-%m-%d",
                                                             "%Y-%m-%dT%H:%M:%S", "%Y-%m-%dT%H:%M:%S+01:00"]))
def test_time_like_strings_survive_as_written(moment: datetime, fmt: str) -> None:
    value = moment.strftime(fmt)
    text = yamlio.dump_plain({"at": value})
    assert yamlio.load_plain(text) == {"at": value}
    if fmt == "%Y-%m-%dT%H:%M:%SZ":
        assert text == f"at: {value}\n"   # gitmem's own stamps stay plain, as people read them


def test_dumping_the_same_values_twice_gives_the_same_text() -> None:
    data = {"a": "x", "b": 1, "c": [True, None, 0.5], "d": {"e": "2026-11-29T12:00:00Z"}}
    assert yamlio.dump_plain(data) == yamlio.dump_plain(dict(data)) == yamlio.dump_plain(data)


def test_a_mapping_type_other_than_dict_is_written_like_a_dict() -> None:
    from types import MappingProxyType

    assert yamlio.dump_plain({"m": MappingProxyType({"a": 1})}) == "m: {a: 1}\n"


def test_normalize_moves_other_time_zones_to_utc() -> None:
    from datetime import timedelta, timezone

    paris = datetime(2026, 11, 29, 13, 40, tzinfo=timezone(timedelta(hours=1)))
    assert yamlio.normalize(paris) == "2026-11-29T12:40:00Z"
    assert yamlio.load_plain("at: 2026-11-29T13:40:00+01:00\n") == {"at": "2026-11-29T12:40:00Z"}


@settings(max_examples=200, deadline=None)
@given(st.floats(allow_nan=False), st.integers())
def test_numbers_round_trip_exactly(number: float, whole: int) -> None:
    back = yamlio.load_plain(yamlio.dump_plain({"f": number, "i": whole}))
    assert back == {"f": number, "i": whole}
    assert type(back["f"]) is float and type(back["i"]) is int


@pytest.mark.parametrize("text", ["a: 1  # &x is only a comment\n", "a: '*not an alias'\n", "a: \"&b\"\n"])
def test_anchor_characters_in_comments_and_quotes_are_fine(text: str) -> None:
    assert yamlio.load_plain(text) == reference(text)
    assert yamlio.load_rt(text) is not None


def test_a_yaml_problem_says_what_and_what_to_do() -> None:
    problem = YamlProblem("found character '\\t' that cannot start any token", 3)
    assert str(problem) == "found character '\\t' that cannot start any token"
    assert (problem.line, problem.hint) == (3, "fix the YAML syntax")
    assert YamlProblem("x", None, hint="look at gitmem.yaml").hint == "look at gitmem.yaml"


@pytest.mark.parametrize("value", ["0001-01-01T00:00:00+01:00", "9999-12-31T23:59:59-01:00", "0001-01-01 00:00:00+05"])
def test_a_string_that_looks_like_a_time_off_the_range_is_written_and_read_back(value: str) -> None:
    text = yamlio.dump_plain({"tag": value})
    assert yamlio.load_plain(text) == {"tag": value}


@pytest.mark.parametrize("text", ["a: " + "[" * 65 + "]" * 65, "a: " + "{b: " * 65 + "1" + "}" * 65,
                                  "a:\n" + "".join("  " * i + f"k{i}:\n" for i in range(1, 66)) + "  " * 66 + "v: 1"])
def test_nesting_deeper_than_the_limit_is_a_problem_for_every_loader(text: str) -> None:
    for load in (yamlio.load_plain, yamlio.load_safe, yamlio.load_rt):
        with pytest.raises(yamlio.YamlProblem, match="nesting deeper than 64 levels"):
            load(text)
    assert yamlio.load_plain("a: " + "[" * 63 + "]" * 63) is not None


def test_a_time_off_the_range_beside_an_unusual_node_is_a_problem() -> None:
    with pytest.raises(YamlProblem, match="out of range"):
        yamlio.load_plain("a: 0001-01-01T00:00:00+01:00\nb: !!str tagged\n")


# --- gitmem's own shape read back without the parser ------------------------------

def _either(fn: Any, text: str) -> Any:
    """What ``fn(text)`` gives, or the problem it raises (type, message, line)."""
    try:
        return ("value", fn(text))
    except YamlProblem as exc:
        return ("problem", str(exc), exc.line)


@pytest.mark.slow
@settings(max_examples=400, deadline=None)
@given(st.dictionaries(keys, values, min_size=1, max_size=8))
def test_the_canonical_reading_agrees_with_the_parser_or_declines(data: dict[str, Any]) -> None:
    text = yamlio.dump_plain(data)
    fast = yamlio.plain.read_canonical(text)
    assert fast is None or fast == yamlio.plain.load_events(text)
    assert yamlio.load_plain(text) == yamlio.plain.load_events(text)


def test_a_memory_front_matter_takes_the_canonical_reading() -> None:
    data = {"id": "m-2026-11-29-3f9a12", "type": "fact", "importance": 0.5, "created": "2026-11-29T12:00:00Z",
            "reinforced": 0, "keywords": ["kafka", "retry", "été"], "tags": [], "source": "", "flag": True,
            "none": None, "count": -3}
    assert yamlio.plain.read_canonical(yamlio.dump_plain(data)) == data


BASE = 'id: m-1\ntype: fact\nimportance: 0.5\ncreated: 2026-11-29T12:00:00Z\nkeywords: [a, b]\nsource: ""\n'
# one text in four is kept aside: the mutation kinds are tuned on the others
MUTATIONS = [
    BASE + "# a comment\n", BASE.replace("\n", "\r\n"), BASE[:-1], BASE + "id: m-2\n", BASE.replace("a, b", "a, b,"),
    BASE.replace("[a, b]", "[a,\n  b]"), BASE.replace("0.5", "0.5 # why"), BASE + "<<: {x: 1}\n",
    BASE.replace("fact", "&x fact") + "other: *x\n", "%YAML 1.2\n---\n" + BASE, BASE + "--- x\n",
    BASE.replace("source: \"\"", "source: 'q'"), BASE.replace("type: fact", "type:  fact"),
    BASE.replace("type: fact", "type: fact "), BASE.replace("type: fact", "type:fact"), BASE + "  more\n",
    BASE + "\tx: 1\n", BASE + "- item\n", BASE + "{a: 1}\n", BASE + "? k\n", BASE + "x: |\n", BASE + "x: >\n",
    BASE.replace("0.5", "1_000"), BASE.replace("0.5", "0o17"), BASE.replace("0.5", ".inf"),
    BASE.replace("[a, b]", "[a, [b]]"), BASE.replace("[a, b]", "[{to: x}]"), BASE.replace("[a, b]", "[]"),
    BASE.replace("[a, b]", "[ ]"), BASE.replace("[a, b]", "[a,b]"), BASE + "x: y: z\n", BASE + "x: \"a\\nb\"\n",
    BASE + "x: !!str 1\n", BASE + "x: 2026-11-29\n", BASE + "x: yes\n", BASE + "x: ~\n", BASE + "x: \u2028\n",
    BASE + "x: \ufeffy\n", BASE + "x: a\x85b\n", BASE + ": x\n", BASE + "x:\n", BASE + "x: -\n", BASE + "x: #\n",
    BASE + "\n", "\n" + BASE, BASE + "x: " + "[" * 70 + "]" * 70 + "\n", BASE + "é: 1\n", BASE + "\"q\": 1\n",
]
HELD_OUT = MUTATIONS[3::4]


@pytest.mark.parametrize("text", [t for t in MUTATIONS if t not in HELD_OUT])
def test_text_a_person_shaped_reads_as_the_parser_reads_it(text: str) -> None:
    assert _either(yamlio.load_plain, text) == _either(yamlio.plain.load_events, text)


@pytest.mark.parametrize("text", HELD_OUT)
def test_held_out_shapes_read_as_the_parser_reads_them(text: str) -> None:
    assert _either(yamlio.load_plain, text) == _either(yamlio.plain.load_events, text)


@settings(max_examples=300, deadline=None)
@given(st.lists(st.sampled_from(BASE.splitlines(keepends=True) + [
    "# c\n", "x: [a, \n", "y: \"\n", "  z: 1\n", "id: m-9\n", "k: [p, q]\n", "k2: \"quoted\"\n", "\n", "- i\n",
    "n: 0x1f\n", "t: 2026-11-29 13:40:00\n", "e: ''\n"]), max_size=8))
def test_any_mix_of_lines_reads_as_the_parser_reads_it(lines: list[str]) -> None:
    text = "".join(lines)
    assert _either(yamlio.load_plain, text) == _either(yamlio.plain.load_events, text)


# --- the quick reading of gitmem's own lines, against ruamel -----------------------

_CHARS = "aZ09_./+:-#, []{}'\"!&*?|>%@`~=\t\\é"
_raw = st.one_of(st.text(alphabet="a0_.:-+# ,'", max_size=4), st.text(alphabet="a0 :#\\", max_size=4).map(lambda t: f'"{t}"'),
                 st.text(alphabet=_CHARS, max_size=12),
                 st.sampled_from(TRICKY + ["2026-11-29T12:00:00Z", "0.50"]))
_short = st.text(alphabet="a0_.:-+# ,'", min_size=1, max_size=3)
_line_value = st.one_of(_raw, st.lists(st.one_of(_short, _raw), max_size=4).map(lambda items: "[" + ", ".join(items) + "]"))


@settings(max_examples=1500, deadline=None)
@given(st.lists(st.tuples(st.one_of(keys, st.sampled_from(["true", "null", "on", "y", "~", "a b", "-k"])), _line_value),
                min_size=1, max_size=6))
@example([("k", "a:")])
@example([("k", "[a:b]")])
@example([("k", "a #b")])
@example([("true", "x")])
@example([("k", '"12"')])
@example([("k", '["a b", "2"]')])
def test_text_the_quick_reading_accepts_reads_as_ruamel_reads_it_and_is_dumped_back(lines: list[tuple[str, str]]) -> None:
    text = "".join(f"{k}: {v}\n" for k, v in lines)
    fast = yamlio.plain.read_canonical(text)
    if fast is None:
        return
    assert fast == reference(text)
    assert yamlio.dump_plain(fast) == text


_word = st.from_regex(r"[a-z0-9][a-z0-9_.+-]{0,14}", fullmatch=True)   # "12" is written quoted


@settings(max_examples=300, deadline=None)
@given(st.fixed_dictionaries({
    "id": _word.map(lambda w: f"m-2026-11-29-{w}"), "type": st.sampled_from(["fact", "rule", "event"]),
    "domain": st.sampled_from(["user", "project", "world"]), "tier": st.sampled_from(["short", "long", "archived"]),
    "importance": st.integers(0, 100).map(lambda i: i / 100), "created": st.just("2026-11-29T12:00:00Z"),
    "reinforced": st.integers(0, 10**6), "keywords": st.lists(_word, max_size=5), "source": st.sampled_from(["", "import"]),
    "flag": st.booleans()}))
def test_every_front_matter_gitmem_writes_of_plain_words_takes_the_quick_reading(data: dict[str, Any]) -> None:
    text = yamlio.dump_plain(data)
    assert yamlio.plain.read_canonical(text) == data == reference(text)
