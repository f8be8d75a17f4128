"""Front matter: the fast path agrees with ruamel.yaml wherever it answers."""

from __future__ import annotations

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from gitmem.store import frontmatter
from gitmem.base import yamlio
from gitmem.base.errors import DocumentError

scalars = st.one_of(
    st.none(), st.booleans(), st.integers(-10**6, 10**6),
    st.floats(allow_nan=False, allow_infinity=False, width=32),
    st.text(st.characters(codec="utf-8", exclude_categories=("Cs",)), max_size=30),
    st.sampled_from(["yes", "no", "on", "off", "null", "~", "true", "0x1f", "1_000", "012", ".5", "1e3",
                     "2026-11-29", "2026-11-29T13:40:00Z", "a: b", "a #b", "#c", "- x", "[x]", "*a", "&a",
                     "'q'", '"d"', "x,y", "  pad", "tab\there", "line\nbreak", "%x", "@x", "`x`", "!tag"]),
)
values = st.one_of(scalars, st.lists(scalars, max_size=4))
keys = st.from_regex(r"[a-z_][a-z0-9_]{0,10}", fullmatch=True)


@settings(max_examples=400, deadline=None)
@given(st.dictionaries(keys, values, max_size=6))
def test_emit_then_parse_round_trips_and_matches_ruamel(data: dict) -> None:
    text = frontmatter.emit(data) if data else ""
    parsed = frontmatter.parse(text) if data else {}
    assert parsed == data
    reference = frontmatter.normalize(yamlio.load_safe(text)) if data else None
    assert (reference or {}) == data


@settings(max_examples=300, deadline=None)
@given(st.dictionaries(keys, st.sampled_from(["yes", "012", "0x10", "1_0", "2026-11-29", "a b", "3.5", "-7",
                                              "null", "True", "x: y", "~", "+1", ".inf", "1e5", "0o7"]), max_size=5))
def test_fast_path_never_disagrees_with_ruamel_on_plain_text(data: dict) -> None:
    text = "".join(f"{k}: {v}\n" for k, v in data.items())
    try:
        fast = frontmatter.parse_fast(text)
    except frontmatter._Bail:
        return
    assert fast == (frontmatter.normalize(yamlio.load_safe(text)) or {})


def test_split_finds_fences_and_body_line() -> None:
    fm, body, line = frontmatter.split("---\na: 1\nb: 2\n---\nhello\n")
    assert fm == "a: 1\nb: 2\n" and body == "hello\n" and line == 4


def test_unclosed_front_matter_is_an_error() -> None:
    with pytest.raises(ValueError):
        frontmatter.split("---\na: 1\nno end\n")


def test_bad_yaml_names_file_and_line() -> None:
    with pytest.raises(DocumentError) as info:
        frontmatter.parse("id: x\ntype: [unclosed\nz: 1\n", "memory/user/x.md")
    assert "memory/user/x.md:" in str(info.value)


def test_yaml_bomb_is_refused() -> None:
    bomb = 'a: &a ["x","x","x","x","x","x","x","x","x"]\nb: &b [*a,*a,*a,*a,*a,*a,*a,*a,*a]\nc: [*b,*b,*b,*b,*b,*b,*b,*b,*b]\n'
    with pytest.raises(DocumentError) as info:
        frontmatter.parse(bomb, "memory/user/bomb.md")
    assert "alias" in str(info.value).lower() or "anchor" in str(info.value).lower()


def test_update_keeps_a_persons_comments_and_order() -> None:
    fm = "id: m-1  # my note\n# a comment line\ntype: fact\nimportance: 0.5\nzeta: keep\n"
    new = frontmatter.update(fm, {"importance": 0.55, "reinforced": 1})
    assert "# my note" in new and "# a comment line" in new
    assert new.index("id:") < new.index("type:") < new.index("importance:") < new.index("zeta:")
    assert frontmatter.parse(new)["importance"] == 0.55


def test_update_of_flat_text_is_canonical_and_removes_keys() -> None:
    fm = frontmatter.emit({"id": "m-1", "band": "core", "x": 1})
    new = frontmatter.update(fm, {"band": "active", "x": ...})
    assert new == "id: m-1\nband: active\n"
