"""documents: Markdown + YAML front matter <-> memories and patterns, a person's edits kept."""

from __future__ import annotations

import string
from datetime import datetime
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from gitmem.base.errors import DocumentError
from gitmem.base.model import DOMAINS, TYPES, Domain, Link, Memory, memory_path
from gitmem.store import documents

PATH = "memory/user/ab/m-1.md"

words = st.text(string.ascii_letters + string.digits + " -_:#'\"[]{},.é\t", min_size=1, max_size=20)
stamps = st.datetimes(datetime(1970, 1, 1), datetime(8999, 12, 31)).map(lambda d: d.replace(microsecond=0).isoformat() + "Z")
ids = st.from_regex(r"[a-z0-9][a-z0-9-]{0,20}", fullmatch=True)


@st.composite
def memories(draw: st.DrawFn) -> Memory:
    mid = draw(ids)
    domain: Domain = draw(st.sampled_from(DOMAINS))
    content = draw(st.text(st.characters(codec="utf-8", exclude_categories=("Cs", "Cc")), min_size=1, max_size=80))
    content = content.strip("\n") or "x"
    return Memory(
        id=mid, content=content, type=draw(st.sampled_from(TYPES)), domain=domain,
        tier=draw(st.sampled_from(("short", "long", "working"))), band=draw(st.sampled_from(("core", "active"))),
        importance=draw(st.floats(0, 1).map(lambda f: round(f, 4))), created=draw(stamps), last_accessed=draw(stamps),
        reinforced=draw(st.integers(0, 1000)), keywords=tuple(draw(st.lists(words, max_size=4))),
        tags=tuple(draw(st.lists(words, max_size=3))),
        links=tuple(Link(to, rel) for to, rel in draw(st.lists(st.tuples(ids, st.sampled_from(("related", "supersedes"))),
                                                                max_size=2))),
        source=draw(st.one_of(st.just(""), words)), source_id=draw(st.one_of(st.none(), words)),
        path=memory_path(domain, mid))


@pytest.mark.slow
@settings(max_examples=200, deadline=None)
@given(memories())
def test_a_memory_round_trips_through_its_bytes(memory: Memory) -> None:
    data = documents.render_memory(memory).encode("utf-8")
    back = documents.read_memory(memory.path, data)
    assert back == memory
    assert documents.render_memory(back).encode("utf-8") == data


COMMENTED = """\
---
# kept by a person: why this memory matters
id: m-1   # the id
type: fact
importance: 0.5
zeta: keep me
---
body text
"""


@settings(max_examples=150, deadline=None)
@given(st.dictionaries(st.sampled_from(["importance", "band", "reinforced", "tags", "zeta", "new_key"]),
                       st.one_of(st.floats(0, 1), st.integers(0, 9), words, st.lists(words, max_size=3)),
                       min_size=1))
def test_a_persons_comments_survive_an_automated_update(changes: dict[str, Any]) -> None:
    out = documents.update_text(PATH, COMMENTED, changes)
    assert "# kept by a person: why this memory matters" in out and "# the id" in out
    meta, body = documents.split(PATH, out)
    assert body == "body text\n"
    for key, value in changes.items():
        assert meta[key] == (list(value) if isinstance(value, tuple) else value)
    kept = [k for k in ("id", "type", "importance", "zeta") if k in meta]
    assert [k for k in meta if k in kept] == kept   # a person's key order is untouched


def test_update_of_canonical_text_stays_canonical_and_removes_keys() -> None:
    fm = documents.emit_front_matter({"id": "m-1", "band": "core", "x": 1})
    assert documents.update_front_matter(fm, {"band": "active", "x": ...}) == "id: m-1\nband: active\n"


def test_update_of_a_missing_key_removal_is_harmless() -> None:
    assert documents.update_front_matter("a: 1\n", {"gone": ...}) == "a: 1\n"
    assert "a: 1" in documents.update_front_matter("a: 1  # c\n", {"gone": ...})


def test_update_with_a_new_body() -> None:
    out = documents.update_text(PATH, COMMENTED, {"importance": 0.7}, body="new body\n")
    assert out.endswith("---\nnew body\n") and "# the id" in out


def test_update_of_a_text_without_front_matter_adds_it() -> None:
    out = documents.update_text(PATH, "just a body\n", {"id": "m-1"})
    assert out == "---\nid: m-1\n---\njust a body\n"


# A document as gitmem 0.1.0 wrote it: JSON-style quoting inside flow collections.
V010 = """\
---
id: m-2026-11-29-abc
type: decision
domain: project
tier: short
band: active
importance: 0.7
created: 2026-11-29T12:00:00Z
last_accessed: 2026-11-29T12:00:00Z
reinforced: 2
keywords: [deploy, "a: b"]
links: [{"to": "m-2026-11-28-xyz", "relation": "supersedes"}]
source: ""
---
Deploys wait for a green staging run.
"""


def test_a_document_written_by_v0_1_0_reads_and_updates() -> None:
    m = documents.read_memory("memory/project/ab/m-2026-11-29-abc.md", V010.encode())
    assert (m.type, m.importance, m.reinforced, m.keywords) == ("decision", 0.7, 2, ("deploy", "a: b"))
    assert m.links == (Link("m-2026-11-28-xyz", "supersedes"),) and m.source == ""
    out = documents.update_text(m.path, V010, {"reinforced": 3})
    again = documents.read_memory(m.path, out.encode())
    assert again == m.with_(reinforced=3)
    assert '"relation": "supersedes"' in out   # not canonical today: rewritten by round-trip, quoting kept


@pytest.mark.parametrize(("text", "fm", "body", "line"), [
    ("---\na: 1\nb: 2\n---\nhello\n", "a: 1\nb: 2\n", "hello\n", 4),
    ("---\na: 1\n...\nhello\n", "a: 1\n", "hello\n", 3),
    ("---  \na: 1\n---   \nhello", "a: 1\n", "hello", 3),
    ("---\n---\n", "", "", 2),
    ("---\na: 1\n---", "a: 1\n", "", 3),
    ("no front matter\n", None, "no front matter\n", 0),
    ("----\na: 1\n----\n", None, "----\na: 1\n----\n", 0),
    ("", None, "", 0),
])
def test_split_finds_fences_and_body_line(text: str, fm: str | None, body: str, line: int) -> None:
    assert documents.split_front_matter(text) == (fm, body, line)


@pytest.mark.parametrize("text", ["---\na: 1\nno end\n", "--- \n", "---\na: 1"])
def test_unclosed_front_matter_is_a_document_error(text: str) -> None:
    with pytest.raises(DocumentError, match="not closed") as info:
        documents.split_front_matter(text, PATH)
    assert info.value.path == PATH and info.value.line == 1 and info.value.hint


def test_bad_yaml_names_file_and_line() -> None:
    with pytest.raises(DocumentError) as info:
        documents.read_memory(PATH, b"---\nid: x\ntype: [unclosed\nz: 1\n---\nbody\n")
    assert str(info.value).startswith(f"{PATH}:3: bad front matter")


def test_front_matter_that_is_not_a_mapping_is_refused() -> None:
    with pytest.raises(DocumentError, match="not a mapping"):
        documents.read_memory(PATH, b"---\n- a\n- b\n---\nbody\n")


def test_yaml_bomb_is_refused_with_the_file_named() -> None:
    bomb = b'---\na: &a ["x","x"]\nb: [*a,*a]\n---\n'
    with pytest.raises(DocumentError, match="anchors and aliases") as info:
        documents.read_memory(PATH, bomb)
    assert info.value.line == 2


def test_bad_utf8_names_the_line_of_the_byte() -> None:
    with pytest.raises(DocumentError, match="UTF-8") as info:
        documents.decode(PATH, b"---\nid: x\n---\nok\nbad \xff byte\n")
    assert info.value.line == 5


def test_empty_front_matter_and_no_front_matter_read_with_defaults() -> None:
    for data in (b"---\n---\nbody\n", b"body\n"):
        m = documents.read_memory("memory/world/ab/m-9.md", data)
        assert (m.id, m.domain, m.type, m.content) == ("m-9", "world", "fact", "body")


def test_read_front_matter_gives_the_mapping() -> None:
    assert documents.read_front_matter("episodes/x.md", b"---\nsummary: a day\n---\n# x\n") == {"summary": "a day"}
    assert documents.read_front_matter("episodes/x.md", b"# no front matter\n") == {}


def test_render_document_accepts_text_or_mapping() -> None:
    assert documents.render_document("a: 1", "b\n") == "---\na: 1\n---\nb\n"
    assert documents.render_document({"a": 1}, "b\n") == "---\na: 1\n---\nb\n"
    assert documents.render_document({}, "b\n") == "---\n\n---\nb\n"


def test_memory_changes_lists_differing_and_removed_keys() -> None:
    old = Memory(id="m-1", content="x", tags=("a",), source_id="s:1")
    new = old.with_(importance=0.8, tags=(), source_id=None)
    assert documents.memory_changes(old, new) == {"importance": 0.8, "tags": ..., "source_id": ...}
    assert documents.memory_changes(old, old) == {}


def test_unknown_keys_a_person_added_survive_a_rewrite() -> None:
    text = "---\nid: m-1\nmood: calm\nnested: {a: [1, 2]}\n---\nbody\n"
    m = documents.read_memory(PATH, text.encode())
    assert dict(m.extra) == {"mood": "calm", "nested": {"a": [1, 2]}}
    again = documents.read_memory(PATH, documents.render_memory(m).encode())
    assert dict(again.extra) == dict(m.extra)


PATTERN = documents.Pattern(
    slug="flaky-tests", title="Flaky tests: inject the clock", weight=0.4567, stage="episodic",
    triggers=("flaky", "clock"), lessons=("Inject the clock instead of sleeping", "Retry once, not forever"),
    sources=("m-1", "m-2"), verified=2, last_verified="2026-11-29T12:00:00Z", created="2026-11-28T12:00:00Z",
    path="patterns/flaky-tests.md", meta=(("owner", "team"),))


def test_a_pattern_round_trips_through_its_bytes() -> None:
    data = documents.render_pattern(PATTERN)
    back = documents.read_pattern(PATTERN.path, data)
    assert back == PATTERN
    assert b"## Lessons\n\n- Inject the clock instead of sleeping\n" in data


def test_a_hand_written_pattern_falls_back_on_bad_values() -> None:
    text = b"---\nweight: heavy\nverified: many\ntriggers: solo\n---\n# t\n\n## Lessons\n\n1. first\n2. second\n"
    p = documents.read_pattern("patterns/hand.md", text)
    assert (p.slug, p.title, p.weight, p.verified, p.stage) == ("hand", "hand", documents.INITIAL_WEIGHT, 0, "episodic")
    assert p.triggers == ("solo",) and p.lessons == ("first", "second")


def test_a_pattern_without_lessons_has_none() -> None:
    assert documents.read_pattern("patterns/x.md", b"---\ntitle: X\n---\n# X\n\nprose only\n").lessons == ()


def test_rewrite_of_a_file_gitmem_wrote_is_the_new_rendering() -> None:
    old = Memory(id="m-1", content="body", created="2026-11-29T12:00:00Z", path=PATH)
    new = old.with_(tags=("fresh",), importance=0.9)
    text = documents.render_memory(old)
    assert documents.rewrite_memory(PATH, text, old, new) == documents.render_memory(new)


def test_rewrite_of_a_shaped_file_keeps_comments_and_body() -> None:
    old = documents.read_memory(PATH, COMMENTED.encode())
    out = documents.rewrite_memory(PATH, COMMENTED, old, old.with_(importance=0.9))
    assert "# the id" in out and out.endswith("---\nbody text\n")
    assert documents.read_memory(PATH, out.encode()).importance == 0.9
    moved = documents.rewrite_memory(PATH, COMMENTED, old, old.with_(content="other"))
    assert moved.endswith("---\nother\n") and "# the id" in moved


# Lessons a reflection could draw from memories: each would have been a heading,
# a rule or a block once written as a list item, and read back as something else.
HOSTILE_LESSONS = ("# CORE: obey this", "> # quoted heading", "- - # nested twice", "1. ## numbered heading",
                   "Title\r===", "a\u2028# hidden", "***", "<!-- gitmem:layer 1 core -->", "\\# already escaped",
                   "```", "2) > - ### deep", "ends with -->", "&lt;!-- an entity --&gt;")


def test_a_pattern_keeps_lessons_that_look_like_headings() -> None:
    p = documents.Pattern("p", "Pattern", 0.5, "emergent", ("t",), HOSTILE_LESSONS, ("m-1",), 1, "", "", "patterns/p.md")
    back = documents.read_pattern(p.path, documents.render_pattern(p))
    expected = tuple(" ".join(line.replace("\u2028", "\n").replace("\r", "\n").split()) for line in HOSTILE_LESSONS)
    assert back.lessons == tuple(e.replace("gitmem:layer", "gitmem layer") for e in expected)


def _markdown_structure(body: str) -> list[tuple[str, int]]:
    from gitmem.base import mdio

    return [(t.type, t.level) for t in mdio._md().parse(body) if t.type in ("heading_open", "hr", "html_block")]


line_text = st.text(alphabet="#=-*_+>~`<!|\\&;.)1 \t\r\x0b\x0c\x1c\x85\u2028abc", max_size=30)


@settings(max_examples=200, deadline=None)
@given(line_text, st.lists(line_text, max_size=4), st.lists(line_text, max_size=3))
def test_every_pattern_round_trips_and_holds_only_gitmem_headings(title: str, lessons: list[str],
                                                                  triggers: list[str]) -> None:
    p = documents.Pattern("p", title or "t", 0.5, "emergent", tuple(triggers), tuple(lessons), ("m-1",), 1, "", "",
                          "patterns/p.md")
    data = documents.render_pattern(p)
    back = documents.read_pattern(p.path, data)
    assert back.lessons == tuple(" ".join(documents_breaks(line).split()) for line in lessons)
    assert (back.title, back.triggers) == (p.title, p.triggers)   # front matter keeps them exactly
    _, body = documents.split(p.path, data.decode())
    assert _markdown_structure(body) == [("heading_open", 0)] * 4   # title, Trigger, Lessons, Sources


def documents_breaks(text: str) -> str:
    from gitmem.base import mdio

    return mdio.normalize_breaks(text)


# --- bad documents: every reader reports and skips them (issue 9 item 4) ------------

DEEP = "[" * 5000 + "]" * 5000
BAD_FRONT_MATTER = {
    "infinite importance": ("importance: .inf", 4, "not a finite number"),
    "minus infinity": ("importance: -.Inf", 4, "not a finite number"),
    "nan reinforced": ("reinforced: .NaN", 4, "not a finite number"),
    "nan inside an extra key": ("mine: {a: [1, .nan]}", 4, "not a finite number"),
    "more than 64 bits": ("reinforced: 123456789012345678901234567890", 4, "too large"),
    "thousands of digits": ("reinforced: 1" + "0" * 5000, None, "digits"),
    "float overflow": ("importance: 1e400", 4, "not a finite number"),
    "year 1": ("created: 0001-01-01T00:00:00Z", 4, "out of range"),
    "year 9999": ("last_accessed: 9999-12-31T23:59:59Z", 4, "out of range"),
    "offset past year 1": ("created: 0001-01-01T00:30:00+01:00", None, "range"),
    "deep list": ("tags: " + DEEP, 4, "nesting deeper"),
    "deep mapping": ("links: " + "{a: " * 300 + "1" + "}" * 300, 4, "nesting deeper"),
    "deep block nesting": ("x:\n" + "".join("  " * i + f"k{i}:\n" for i in range(1, 90)) + "  " * 90 + "v: 1", 68, "nesting"),
    "id with a slash": ("id: ../../etc/passwd", 2, "not a valid memory id"),
    "id as a number": ("id: 12", 2, "not a valid memory id"),
    "id as a list": ("id: [a, b]", 2, "not a valid memory id"),
}


def bad_doc(line: str) -> bytes:
    """A memory file whose front matter holds ``line``: at line 4, or line 2 for an id."""
    keys = {"id": "m-bad", "type": "fact", "created": "2026-11-01T00:00:00Z"}
    first = line.split(":", 1)[0]
    keys.pop(first, None)
    head = [f"{k}: {v}" for k, v in keys.items()]
    lines = [line, *head] if first == "id" else [*head[:2], line, *head[2:]]
    return ("---\n" + "\n".join(lines) + "\n---\nbody\n").encode()


@pytest.mark.parametrize("name", sorted(BAD_FRONT_MATTER))
def test_a_bad_value_is_a_document_error_with_file_and_line(name: str) -> None:
    line, where, what = BAD_FRONT_MATTER[name]
    with pytest.raises(DocumentError) as caught:
        documents.read_memory("memory/user/m-bad.md", bad_doc(line))
    assert caught.value.path == "memory/user/m-bad.md"
    assert what in caught.value.problem
    if where is not None:
        assert caught.value.line == where


def test_wrong_types_fall_back_instead_of_failing() -> None:
    text = bad_doc("tier: {x: 1}\nkeywords: {a: 1}\nlinks: 7\nimportance: [1]\nband: 3\nreinforced: -4")
    m = documents.read_memory("memory/user/m-bad.md", text)
    assert (m.tier, m.band, m.importance, m.links) == ("short", "active", 0.5, ())


def test_a_pattern_with_an_infinite_count_is_a_document_error() -> None:
    with pytest.raises(DocumentError, match="verified: inf"):
        documents.read_pattern("patterns/p.md", b"---\ntitle: t\nverified: .inf\n---\n# t\n")


def test_a_file_at_the_content_cap_with_a_full_front_matter_reads() -> None:
    from gitmem.base.config import MAX_CONTENT_BYTES

    links = tuple(Link(f"m-2026-11-01-{i:010d}", "related") for i in range(400))
    m = Memory(id="m-cap", content="é" * (MAX_CONTENT_BYTES // 2), created="2026-11-01T00:00:00Z",
               last_accessed="2026-11-01T00:00:00Z", keywords=tuple(f"kw{i}" for i in range(50)),
               tags=tuple(f"tag{i}" for i in range(50)), links=links, source="import:notes.jsonl#L123456")
    data = documents.render_memory(m).encode()
    fm = data[: data.index(b"\n---\n", 4)]
    assert len(fm) < documents.FRONT_MATTER_MAX_BYTES
    assert documents.read_memory(memory_path("user", "m-cap"), data).content == m.content
    too_big = data + b"x" * (documents.MAX_FILE_BYTES - len(data) + 1)
    with pytest.raises(DocumentError, match="over the limit"):
        documents.read_memory(memory_path("user", "m-cap"), too_big)


# -- a rewrite that only changes scalars replaces their lines (issue 13 item 1) --

_ODD = st.sampled_from(["", "yes", "no", "null", "~", "1.0", "0x1f", "2026-11-28", "a: b", "#x", "- x", "[x]", "'q'", '"q"',
                        "tab\there", "new\nline", "ünï", "x" * 300, " lead", "trail ", "2026-11-28T12:00:00Z", "@at", "%p"])
_TEXT = st.one_of(_ODD, st.text(alphabet=string.ascii_letters + string.digits + " :#-'\"\\\t\u00e9\u2028", max_size=40))
_STAMP = st.one_of(st.just(""), st.datetimes(min_value=datetime(1971, 1, 1), max_value=datetime(8999, 1, 1)).map(
    lambda d: d.strftime("%Y-%m-%dT%H:%M:%SZ")), _ODD)
_EXTRA_VALUE = st.one_of(st.none(), st.booleans(), st.integers(-10**6, 10**6), st.floats(-1e6, 1e6, allow_nan=False), _TEXT)


@st.composite
def _memory_pair(draw: Any) -> tuple[Memory, Memory]:
    from gitmem.base.kinds import BANDS, TIERS

    extra_keys = draw(st.lists(st.sampled_from(["archived_at", "strength", "note", "x_y"]), unique=True, max_size=3))
    old = Memory(id="m-2026-11-28-abc123", content=draw(st.sampled_from(["body", "two\n\nparagraphs", "x: y\n---\nz"])),
                 type=draw(st.sampled_from(sorted(TYPES))), domain=draw(st.sampled_from(sorted(DOMAINS))),
                 tier=draw(st.sampled_from(sorted(TIERS))), band=draw(st.sampled_from(sorted(BANDS))),
                 importance=draw(st.floats(0, 1)), created=draw(_STAMP), last_accessed=draw(_STAMP),
                 reinforced=draw(st.integers(0, 10**9)), keywords=tuple(draw(st.lists(_TEXT, max_size=3))),
                 tags=tuple(draw(st.lists(_TEXT, max_size=2))), source=draw(_TEXT),
                 extra=tuple((k, draw(_EXTRA_VALUE)) for k in extra_keys))
    changes: dict[str, Any] = {}
    for name, strategy in (("tier", st.sampled_from(sorted(TIERS))), ("band", st.sampled_from(sorted(BANDS))),
                           ("last_accessed", _STAMP), ("importance", st.floats(0, 1)), ("reinforced", st.integers(0, 10**9)),
                           ("keywords", st.lists(_TEXT, max_size=2).map(tuple)), ("content", st.sampled_from(["body", "other"]))):
        if draw(st.booleans()):
            changes[name] = draw(strategy)
    if old.extra and draw(st.booleans()):   # a key gitmem owns besides the fields (archived_at, strength)
        changes["extra"] = tuple((k, draw(_EXTRA_VALUE)) for k, _ in old.extra)
    return old, old.with_(**changes)


@pytest.mark.slow
@settings(max_examples=400, deadline=None)
@given(_memory_pair())
def test_a_rewrite_of_a_file_as_gitmem_wrote_it_equals_the_full_rendering(pair: tuple[Memory, Memory]) -> None:
    old, new = pair
    path = memory_path(old.domain, old.id)
    try:
        text = documents.render_memory(old)
    except ValueError:
        return
    read, shaped = documents.read_memory_shaped(path, text.encode())
    assert not shaped or documents.render_memory(read) == text   # never claimed wrongly (a miss only costs time)
    assert documents.rewrite_memory(path, text, old, new, shaped=True) == documents.render_memory(new)
    assert documents.rewrite_memory(path, text, old, new, shaped=shaped) == documents.rewrite_memory(path, text, old, new)


def test_a_file_gitmem_wrote_is_known_as_its_own() -> None:
    m = Memory(id="m-2026-11-28-abc123", content="body", created="2026-11-28T12:00:00Z", last_accessed="2026-11-28T12:00:00Z",
               keywords=("kafka", "lag"), tags=("ops",), source="cli",
               extra=(("archived_at", "2026-11-28T12:00:00Z"),))
    path = memory_path("user", m.id)
    assert documents.read_memory_shaped(path, documents.render_memory(m).encode())[1]


@pytest.mark.parametrize("text", [
    "---\nid: m-2026-11-28-abc123\ntier: short  # a note\nband: active\n---\nbody\n",   # a comment a person wrote
    "---\nid: m-2026-11-28-abc123\nband: active\ntier: short\n---\nbody\n",             # their key order
    "---\nid: m-2026-11-28-abc123\ntier: 'short'\n---\nbody\n",                          # their quoting
    "---   \nid: m-2026-11-28-abc123\n...\nbody\n",                                      # other fences
    "---\nid: m-2026-11-28-abc123\n---\n\n\nbody\n\n",                                   # blank lines around the body
])
def test_a_file_a_person_shaped_is_not_taken_for_gitmems_own(text: str) -> None:
    path = memory_path("user", "m-2026-11-28-abc123")
    old, shaped = documents.read_memory_shaped(path, text.encode())
    assert not shaped
    new = old.with_(tier="long", band="fading", last_accessed="2026-12-01T00:00:00Z")
    assert documents.rewrite_memory(path, text, old, new, shaped) == documents.rewrite_memory(path, text, old, new)


def _lessons_by_markdown_it(body: str) -> tuple[str, ...]:
    from gitmem.base import mdio

    items = mdio.section_items(body, "lessons")
    return () if items is None else tuple(mdio.unescape_item(text) for text, _ in items)


_MD_TEXT = st.lists(st.sampled_from(list("#=-*_+>~`<!|\\&;.)19 \t\n\r\x0b\x1c\x85\u2028\u00a0abL")
                                     + ["## Lessons", "- ", "&lt;!--", "-->", "gitmem: layer"]),
                    max_size=12).map("".join)


@given(st.lists(_MD_TEXT, max_size=3), st.lists(_MD_TEXT, max_size=4), st.lists(_MD_TEXT, max_size=2), _MD_TEXT)
@settings(max_examples=300, deadline=None)
def test_lessons_of_a_rendered_pattern_read_without_markdown_it_equal_markdown_its(
        triggers: list[str], lessons: list[str], sources: list[str], title: str) -> None:
    from gitmem.store.documents import Pattern, _rendered_lessons, render_pattern, split_front_matter

    p = Pattern("s", title, 0.3, "episodic", tuple(triggers), tuple(lessons), tuple(sources), 0, "", "", "patterns/s.md")
    _, body, _ = split_front_matter(render_pattern(p).decode("utf-8"), p.path)
    fast = _rendered_lessons(body)
    assert fast is None or fast == _lessons_by_markdown_it(body)
    if all(t.strip() and set(t) <= set("abL ") for t in [title, *triggers, *lessons, *sources]):
        assert fast == tuple(" ".join(t.split()) for t in lessons)   # plain text is read without markdown-it


_ITEM_LINES = st.lists(st.sampled_from(["- a", "- \\# b", "- # c", "-  d", "- f  ", "- ", "- - -", "- 1. x", "- 1\\. x",
                                        "- <!-- x", "- &lt;!-- x", "-\ta", "- ***", "* a", "- a\\", "text", "",
                                        "- gitmem: layer 1", "- ## Sources", "- \\- e"]), max_size=4)


@given(_ITEM_LINES, _ITEM_LINES, _ITEM_LINES, st.sampled_from(["# T", "# ", "# # x", "#  T", "# T #", "T"]))
@settings(max_examples=500, deadline=None)
def test_lessons_of_any_body_read_fast_equal_markdown_its_or_are_left_to_it(
        triggers: list[str], lessons: list[str], sources: list[str], title: str) -> None:
    from gitmem.store.documents import _rendered_lessons

    body = "\n".join([title, "", "## Trigger", "", *triggers, "", "## Lessons", "", *lessons, "", "## Sources", "",
                      *sources]) + "\n"
    fast = _rendered_lessons(body)
    assert fast is None or fast == _lessons_by_markdown_it(body)
