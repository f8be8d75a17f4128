"""mdio: Markdown structure as markdown-it reads it."""

from __future__ import annotations

import pytest

from gitmem.base import mdio

DOC = """\
intro line

# Title

text under the title

## Lessons

- first lesson
  continued
- second lesson
  - nested detail
1. numbered

Setext
------

> # quoted heading

```
# not a heading
<!-- not html -->
```

<!-- a comment -->
    indented code
"""


def test_sections_split_at_every_top_level_heading_with_lines() -> None:
    found = mdio.sections(DOC)
    assert [(s.heading, s.level, s.line) for s in found] == [
        ("", 0, 1), ("Title", 1, 3), ("Lessons", 2, 7), ("Setext", 2, 15)]
    assert found[3].text.startswith("> # quoted heading")  # a nested heading stays in its section
    assert found[0].text == "intro line"
    assert found[1].text == "text under the title"
    assert found[2].text.startswith("- first lesson")


def test_sections_of_text_without_headings_is_one_section() -> None:
    assert mdio.sections("just prose\n") == [mdio.Section("", 0, "just prose", 1)]
    assert mdio.sections("") == []
    assert mdio.sections("   \n\n") == []


def test_list_items_fold_nested_items_and_continuations() -> None:
    lessons = next(s for s in mdio.sections(DOC) if s.heading == "Lessons")
    items = mdio.list_items(lessons.text)
    assert items == [("first lesson continued", 1), ("second lesson - nested detail", 3), ("numbered", 5)]


@pytest.mark.parametrize(("text", "expected"), [
    ("* star\n+ plus\n", ["star", "plus"]),
    ("1) paren\n2) next\n", ["paren", "next"]),
    ("no list here\n", []),
    ("```\n- in code\n```\n", []),
])
def test_list_items_of_each_marker(text: str, expected: list[str]) -> None:
    assert [t for t, _ in mdio.list_items(text)] == expected


def test_blocks_give_kind_lines_and_depth() -> None:
    found = [(b.kind, b.start, b.end, b.depth) for b in mdio.blocks(DOC)]
    assert ("heading", 2, 3, 0) in found                 # ATX
    assert ("heading", 14, 16, 0) in found               # setext: text line and underline
    assert ("heading", 17, 18, 1) in found               # inside a block quote
    assert ("code", 19, 23, 0) in found                  # fenced
    assert ("html", 24, 25, 0) in found
    assert ("code", 25, 26, 0) in found                  # indented
    assert all(b.text != "not a heading" for b in mdio.blocks(DOC) if b.kind == "heading")


def test_block_text_is_heading_text_or_raw_content() -> None:
    by_kind = {b.kind: b.text for b in mdio.blocks("# Head *em*\n\n<!-- c -->\n")}
    assert by_kind == {"heading": "Head *em*", "html": "<!-- c -->\n"}


def test_html_markers_in_lists_are_nested() -> None:
    found = mdio.blocks("- item\n\n  <!-- inside -->\n")
    assert [(b.kind, b.depth > 0) for b in found] == [("html", True)]


@pytest.mark.parametrize(("text", "heading"), [
    ("# CORE", "CORE"), ("### x ###", "x"), ("CORE\n====", "CORE"), ("CORE\n---", "CORE"),
    ("#nospace", None), ("plain", None), ("---", None), ("- # in a list", None), ("    # code", None),
    ("# one\n# two", None),
])
def test_heading_text_reads_a_line_on_its_own(text: str, heading: str | None) -> None:
    assert mdio.heading_text(text) == heading


def test_sections_keep_lines_after_front_matter_like_text() -> None:
    text = "# A\n\n---\n\n# B\nb text\n"
    found = mdio.sections(text)
    assert [(s.heading, s.line, s.text) for s in found] == [("A", 1, "---"), ("B", 5, "b text")]


def test_crlf_lines_count_like_lf_lines() -> None:
    lf = [(b.kind, b.start, b.end) for b in mdio.blocks("# A\n\n<!-- c -->\n")]
    crlf = [(b.kind, b.start, b.end) for b in mdio.blocks("# A\r\n\r\n<!-- c -->\r\n")]
    assert lf == crlf == [("heading", 0, 1), ("html", 2, 3)]


def test_an_unclosed_fence_runs_to_the_end() -> None:
    found = mdio.blocks("```\n# hidden\n<!-- hidden -->\n")
    assert [(b.kind, b.start, b.end) for b in found] == [("code", 0, 3)]


# -- the one escaper -------------------------------------------------------------

from hypothesis import given, settings  # noqa: E402
from hypothesis import strategies as st  # noqa: E402

STRUCTURE = frozenset({"heading_open", "hr", "html_block", "fence"})  # an indented code block is inert
# Characters that make Markdown structure, every line break splitlines knows, and a few letters.
MD_ALPHABET = "#=-*_+>~`<!|\\&;.)19 \t\n\r\x0b\x0c\x1c\x1d\x1e\x85\u2028\u2029\u00a0abCOREh"
md_text = st.text(alphabet=MD_ALPHABET, max_size=40)
# Where generated text lands: top level, after a paragraph line (setext, lazy
# continuation), in list items and block quotes at any depth, 0-3 space indents.
CONTEXTS = ["", "   ", "- ", "> ", "1. ", "- > ", "> - ", "1) > - ", "  - > > ", "> 2. - "]


def _structure(doc: str) -> list[str]:
    return [t.type for t in mdio._md().parse(doc) if t.type in STRUCTURE]


def _placed(escaped: str, prefix: str, lead: str) -> str:
    return lead + "\n".join(prefix + line for line in escaped.split("\n"))


@settings(max_examples=400, deadline=None)
@given(md_text, st.sampled_from(CONTEXTS), st.sampled_from(["", "A paragraph line\n"]))
def test_escaped_text_opens_no_block_in_any_context(text: str, prefix: str, lead: str) -> None:
    escaped = mdio.escape(text)
    doc = _placed(escaped, prefix, lead + prefix if lead else "")
    assert _structure(doc) == []
    assert escaped.splitlines() == escaped.split("\n")[: len(escaped.splitlines())]  # no hidden break
    assert mdio.escape(escaped) == escaped


@pytest.mark.parametrize("text", [
    "- > # CORE", "- - # CORE", "1. > ## Layer 1", "*   > # META", "> CORE\n> ===", "> CORE\n> -",
    "- x\n  > Layer 1\n  > ---", "***", "* * *", "_ _ _", "- - -", "> ***", "foo\r# CORE", "foo\r<!-- x -->",
    "foo\u2028# CORE", "foo\x85# CORE", "foo\x0b# CORE", "foo\x0c# CORE", "foo\x1c# CORE", "- <div>",
    "> ```", "CORE\n-   ", "2) <!-- gitmem:layer 1 core -->",
])
def test_escape_neutralizes_nested_setext_breaks_and_rules(text: str) -> None:
    escaped = mdio.escape(text)
    for prefix in CONTEXTS:
        assert _structure(_placed(escaped, prefix, "")) == [], (prefix, escaped)
    for line in escaped.splitlines():
        assert mdio.heading_text(line.strip()) is None


@settings(max_examples=400, deadline=None)
@given(md_text)
def test_escape_item_round_trips_and_opens_no_block(text: str) -> None:
    item = mdio.escape_item(text)
    assert "\n" not in item and len(item.splitlines()) <= 1
    assert mdio.unescape_item(item) == " ".join(mdio.normalize_breaks(text).split())
    for lead in ("", "- ", "  - ", "1. ", "> ", "# ", "## Summary\n\n", "Paragraph\n"):
        assert [t for t in _structure(lead + item) if t != "heading_open" or not lead.startswith("#")] == []


@pytest.mark.parametrize("text", ["1. x", "1\\. x", "\\# x", "&lt;!-- x --&gt;", "a <!-- b --> c", "<!-->",
                                  "--&amp;gt;", "12) y", "# x", "=", "-", "|a|b|", "~~~", "`x`"])
def test_escape_item_is_reversible(text: str) -> None:
    assert mdio.unescape_item(mdio.escape_item(text)) == text


def test_lines_count_a_bare_cr_as_markdown_it_does() -> None:
    assert mdio.lines("a\rb\r\nc\nd") == ["a", "b", "c", "d"]
    assert [s.heading for s in mdio.sections("x\r# Head\rbody")] == ["", "Head"]


def test_sections_keep_nested_headings_and_setext_underlines_in_their_section() -> None:
    found = mdio.sections("# Top\n\n- item\n  # nested\n> ## quoted\n\nUnder\n=====\ntext\n")
    assert [(s.heading, s.level) for s in found] == [("Top", 1), ("Under", 1)]
    assert found[1].text == "text"


def _items_by_two_parses(text: str, heading: str) -> list[tuple[str, int]] | None:
    for section in mdio.sections(text):
        if section.heading.lower() == heading:
            return mdio.list_items(section.text)
    return None


_PIECES = st.sampled_from(["# Lessons", "## lessons", "Lessons", "=====", "---", "## Sources", "# T", "- a",
                           "- b c", "  - nested", "    code", "1. one", "2) two", "* star", "> - quoted",
                           "```", "~~~", "", " ", "\t", "\xa0", "\x1c- x", "-\xa0", "text", "<div>", "  lazy",
                           "- # inner", "\\- esc", "+ plus", "\r", "-"])


@given(st.lists(_PIECES, max_size=14))
@settings(max_examples=400, deadline=None)
def test_section_items_from_one_parse_equal_list_items_of_the_section(pieces: list[str]) -> None:
    text = "\n".join(pieces)
    assert mdio.section_items(text, "lessons") == _items_by_two_parses(text, "lessons")


@given(st.text(alphabet=st.sampled_from("#-*> \t\n=`~1.)ab\xa0\x1c\\L"), max_size=80))
@settings(max_examples=400, deadline=None)
def test_section_items_equal_list_items_of_the_section_on_any_text(text: str) -> None:
    text = "## Lessons\n" + text
    assert mdio.section_items(text, "lessons") == _items_by_two_parses(text, "lessons")


def test_section_items_of_a_pattern_body() -> None:
    body = "# T\n\n## Trigger\n\n- t\n\n## Lessons\n\n- one\n- two\n  more\n\n## Sources\n\n- s\n"
    assert mdio.section_items(body, "lessons") == [("one", 1), ("two more", 2)]
    assert mdio.section_items(body, "missing") is None
