"""The four layers of CLAUDE.md, fenced by HTML-comment markers (DESIGN.md 6).

::

    <!-- gitmem:layer 1 core -->       a person's own rules; automation never edits it
    <!-- gitmem:layer 2 patterns -->   generated from patterns/
    <!-- gitmem:layer 3 episodic -->   generated pointers to recent episodes
    <!-- gitmem:layer 4 meta -->       instructions about the memory itself; read-only for automation

each closed by ``<!-- /gitmem:layer -->``. Text outside the layers (a title, a
heading above each marker) belongs to the person, like Layers 1 and 4.

Generated layers carry text that came from sessions, so a memory could try to
forge a marker or a heading such as ``# CORE`` and smuggle instructions into
what looks like the person's rules. ``escape`` neutralizes that before text is
placed in a layer, and ``validate`` refuses what slipped through (the forgery
rules themselves live in ``gitmem.guards.forgery``, which also checks the
other generated files).

Structure comes from markdown-it tokens (through ``gitmem.base.mdio``): a
marker counts only as a top-level HTML block of its own line, so a marker
quoted in a code block, a block quote or a list item is not one; headings are
ATX or setext headings wherever markdown-it finds them. ``escape`` stays a
line transform on purpose: it must neutralize whatever could become a heading
in any context the text is later placed in, so it escapes every candidate.

This module runs inside the pre-commit hooks: markdown-it is imported only
when a CLAUDE.md is actually read (``unicodedata`` for the rare non-ASCII line),
and not even then for a CLAUDE.md in the form gitmem renders (plain lines, exact
markers): ``_valid_as_rendered`` proves such a text valid from its lines alone. The
escaper itself is ``gitmem.base.mdio.escape``, the one escaper of generated Markdown.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from functools import lru_cache

from gitmem.base import mdio
from gitmem.guards.forgery import forgery as _forgery, hidden_break as _hidden_break

NAMES = {1: "core", 2: "patterns", 3: "episodic", 4: "meta"}
GENERATED = (2, 3)
OUTSIDE = 0  # pseudo layer number: text outside every layer, in changed_layers

CLOSE_MARKER = "<!-- /gitmem:layer -->"

_OPEN = re.compile(r"^[ \t]*<!--[ \t]*gitmem:layer[ \t]+(\d+)[ \t]+([A-Za-z]+)[ \t]*-->[ \t]*$")
_CLOSE = re.compile(r"^[ \t]*<!--[ \t]*/gitmem:layer[ \t]*-->[ \t]*$")


# _malformed is compiled on first use: the pre-commit hook reads CLAUDE.md in the
# rendered form (``_valid_as_rendered``), which needs neither.

@lru_cache(maxsize=None)
def _malformed() -> re.Pattern[str]:
    """An HTML comment that mentions a layer but is not an exact marker: a typo a
    person should hear about, since gitmem would silently not see the layer."""
    return re.compile(r"<!--.*gitmem\s*:\s*/?\s*layer", re.IGNORECASE)


@dataclass(frozen=True)
class Layer:
    """One fenced layer; lines are 1-based, ``content`` excludes the marker lines."""

    number: int
    name: str
    start_line: int
    end_line: int
    content: str


def marker(number: int) -> str:
    """The opening marker line of a layer."""
    return f"<!-- gitmem:layer {number} {NAMES[number]} -->"


def _lines(text: str) -> list[str]:
    """Lines as markdown-it counts them (CR LF and CR are line ends, nothing else)."""
    lines = mdio.lines(text)
    if lines[-1] == "":
        lines.pop()
    return lines


@dataclass(frozen=True)
class _Structure:
    """What markdown-it found in a CLAUDE.md, by 0-based line."""

    lines: list[str]
    opens: dict[int, tuple[int, str]]      # line -> (layer number, name) of a top-level opening marker
    closes: set[int]                       # lines of top-level closing markers
    headings: dict[int, str]               # first line of a heading -> its text
    code: set[int]                         # lines inside code blocks


def _structure(text: str) -> _Structure:
    lines = _lines(text)
    opens: dict[int, tuple[int, str]] = {}
    closes: set[int] = set()
    headings: dict[int, str] = {}
    code: set[int] = set()
    for block in mdio.blocks(text):
        if block.kind == "heading":
            headings[block.start] = block.text
        elif block.kind == "code":
            code.update(range(block.start, block.end))
        elif block.depth == 0 and block.end - block.start == 1 and block.start < len(lines):
            opened = _OPEN.match(lines[block.start])
            if opened:
                opens[block.start] = (int(opened[1]), opened[2].lower())
            elif _CLOSE.match(lines[block.start]):
                closes.add(block.start)
    return _Structure(lines, opens, closes, headings, code)


def _markers(text: str) -> tuple[list[str], dict[int, tuple[int, str]], set[int]]:
    """The lines, the opening markers (0-based line -> (number, name)) and the closing markers;
    read from the lines alone when the text is in the rendered form (``_valid_as_rendered``: there
    every marker-shaped line is a top-level marker), else from markdown-it."""
    if not _valid_as_rendered(text):
        found = _structure(text)
        return found.lines, found.opens, found.closes
    lines = _lines(text)
    opens = {n: (int(m[1]), m[2].lower()) for n, line in enumerate(lines) if (m := _OPEN.match(line))}
    return lines, opens, {n for n, line in enumerate(lines) if _CLOSE.match(line)}


def parse(text: str) -> list[Layer]:
    """Every layer found, in file order; never raises (``validate`` reports problems).

    An unclosed layer runs until the next opening marker or the end of the file.
    """
    lines, opens, closes = _markers(text)
    layers: list[Layer] = []
    current: tuple[int, str, int] | None = None

    def close(end: int, content_end: int) -> None:
        assert current is not None
        number, name, start = current
        layers.append(Layer(number, name, start, end, "\n".join(lines[start:content_end])))

    for n in sorted(opens.keys() | closes):
        i = n + 1
        if n in opens:
            if current:
                close(i - 1, i - 1)
            current = (*opens[n], i)
        elif current:
            close(i, i - 1)
            current = None
    if current:
        close(len(lines), len(lines))
    return layers


# --- the rendered form: a CLAUDE.md proved valid without markdown-it ----------------
#
# A commit that stages CLAUDE.md would otherwise pay for importing markdown-it (tens of
# milliseconds; the parse itself takes under one). ``_valid_as_rendered`` accepts only
# texts whose every line has one of a few shapes gitmem renders and a person's plain
# prose uses, shapes whose block structure no context can change; it says only "valid",
# and every other text (and every problem) comes from markdown-it.

_RENDERED_MARKERS = [marker(1), CLOSE_MARKER, marker(2), CLOSE_MARKER, marker(3), CLOSE_MARKER,
                     marker(4), CLOSE_MARKER]
_OPENS_GENERATED = {marker(n): n for n in GENERATED}   # a marker line -> the generated layer it opens
# What may open a plain line or a bullet's content: characters that open no block in
# CommonMark (a letter, a backslash escape, prose punctuation), emphasis or a code span
# on a word, or a number no `.` or `)` follows (not an ordered list).
_PLAIN = r"(?:[^\W\d_]|[\\(\"'!?.,:;@$%&/]|[_*`][A-Za-z0-9]|\*\*[^\s*]|\d+[^\d.)\s])"
# Optionally two spaces (a list item's continuation: never code, which needs four),
# an optional bullet `- `, then a plain start; or an ATX heading at the margin.
_PLAIN_LINE = re.compile(rf"(?:  )?(?:- )?{_PLAIN}")
_ATX_LINE = re.compile(r"#{1,6} \S")
# \r, NUL and the breaks markdown-it reads as characters (U+2028 …): such texts go to markdown-it.
_NOT_RENDERED = re.compile("[\r\0\v\f\x1c\x1d\x1e\x85\u2028\u2029]")


def _valid_as_rendered(text: str) -> bool:
    """True when ``text`` is proved valid without markdown-it; False means "ask markdown-it".

    Every line is blank (empty), an exact marker at the margin, an ATX heading at the
    margin outside layers 2 and 3, or a plain line (``_PLAIN_LINE``): no code block,
    block quote, HTML block, setext underline or thematic break can start, so each
    marker is a top-level HTML block of its own line, as markdown-it would find it.
    No other line holds ``<!--``, so none is a malformed marker. A plain line is no
    heading to a raw reader either (``_raw_heading``): it starts with neither ``#`` nor
    ``=``, and a bullet's text is never a setext underline. The markers are exactly the
    four layers in order, each closed, and no line of layers 2 and 3 holds a marker
    look-alike or a layer-like HTML heading (``_forgery``, the check ``find_problems``
    makes there). tests/test_layers.py checks this against markdown-it on mutated texts.
    """
    if _NOT_RENDERED.search(text):
        return False
    seen: list[str] = []
    generated = 0   # the generated layer the line is in, else 0
    for i, line in enumerate(_lines(text), 1):
        if not line:
            continue
        if line.startswith("<!--"):
            seen.append(line)
            if seen != _RENDERED_MARKERS[:len(seen)]:
                return False   # not an exact marker, or not in its place
            generated = _OPENS_GENERATED.get(line, 0)
        elif "<!--" in line:
            return False
        elif generated:
            if not _PLAIN_LINE.match(line) or _forgery(line, i, None, i, generated):
                return False
        elif not (_PLAIN_LINE.match(line) or _ATX_LINE.match(line)):
            return False
    return seen == _RENDERED_MARKERS


def find_problems(text: str) -> list[tuple[int | None, str]]:
    """Structure problems as (line or None, message), in file order then missing layers."""
    if _valid_as_rendered(text):
        return []
    return _parsed_problems(text)


def _parsed_problems(text: str) -> list[tuple[int | None, str]]:
    """``find_problems`` from markdown-it's reading of the text."""
    problems: list[tuple[int | None, str]] = []
    found = _structure(text)
    seen: dict[int, int] = {}
    highest = 0
    current: tuple[int, int] | None = None  # (layer number, line of its marker)
    for i, line in enumerate(found.lines, 1):
        if i - 1 in found.opens:
            number, name = found.opens[i - 1]
            problems.extend((i, p) for p in _opening_problems(number, name, current, seen, highest))
            seen.setdefault(number, i)
            highest = max(highest, number)
            current = (number, i)
        elif i - 1 in found.closes:
            if current is None:
                problems.append((i, "closing marker without an open layer"))
            current = None
        elif current and current[0] in GENERATED:
            heading, at = found.headings.get(i - 1), i
            if heading is None:
                heading, at = _raw_heading(found.lines, i, found.opens)
            problems.extend(_forgery(line, i, heading, at, current[0]))
            problems.extend(_hidden_break(line, i, current[0]))
        elif i - 1 not in found.code and _malformed().search(line):
            problems.append((i, "malformed layer marker; expected e.g. "
                                f"`{marker(2)}` or `{CLOSE_MARKER}` alone on the line, at the top level"))
    if current:
        problems.append((current[1], f"layer {current[0]} is not closed; add `{CLOSE_MARKER}` after its content"))
    for number, name in NAMES.items():
        if number not in seen:
            problems.append((None, f"missing layer {number} ({name}): add `{marker(number)}` … `{CLOSE_MARKER}`"))
    return problems


def _opening_problems(number: int, name: str, current: tuple[int, int] | None,
                      seen: dict[int, int], highest: int) -> list[str]:
    out = []
    if number not in NAMES:
        out.append(f"unknown layer {number}; CLAUDE.md has layers 1 to 4")
    elif name != NAMES[number]:
        out.append(f"layer {number} is named `{NAMES[number]}`, not `{name}`")
    if current:
        out.append(f"layer {number} opens inside layer {current[0]} (opened at line {current[1]}); "
                   f"close that one first with `{CLOSE_MARKER}`")
    if number in seen:
        out.append(f"duplicate marker of layer {number} (first at line {seen[number]})")
    elif number < highest:
        out.append(f"layer {number} comes after layer {highest}; the layers go in order 1, 2, 3, 4")
    return out


def _raw_heading(lines: list[str], i: int, opens: dict[int, tuple[int, str]]) -> tuple[str | None, int]:
    """(heading text, its 1-based line) a raw reader could see at line i out of its context.

    Markdown may read such a line as a list item's lazy continuation or a
    thematic break, but a model reading the raw file sees a heading: line i on
    its own, or line i as the setext underline of the line above.
    """
    line = lines[i - 1].strip()
    if line[:1] == "#":
        return mdio.heading_text(line), i
    if line[:1] in ("=", "-") and i > 1 and lines[i - 2].strip() and i - 2 not in opens:
        above = lines[i - 2].strip().lstrip(">").strip()
        return mdio.heading_text(f"{above}\n{line}"), i - 1
    return None, i


def validate(text: str) -> list[str]:
    """Structure problems of a CLAUDE.md as ``line N: …`` messages; empty when valid.

    Each of the four markers exactly once, in order 1..4, each closed before the
    next opens, and no marker-like text or layer-like heading inside the
    generated layers 2 and 3.
    """
    return [_format(line, message) for line, message in find_problems(text)]


def _format(line: int | None, message: str) -> str:
    return f"line {line}: {message}" if line else message


def sections(text: str) -> dict[int, str]:
    """Content by layer number (first occurrence wins) and OUTSIDE for the rest."""
    lines = _lines(text)
    inside = [False] * len(lines)
    contents: dict[int, str] = {}
    for layer in parse(text):
        contents.setdefault(layer.number, layer.content)
        for n in range(layer.start_line - 1, layer.end_line):
            inside[n] = True
    contents[OUTSIDE] = "\n".join(line for line, covered in zip(lines, inside, strict=True) if not covered)
    return contents


def changed_layers(old: str, new: str) -> set[int]:
    """Numbers of the layers whose content differs; ``OUTSIDE`` (0) for text outside them.

    A layer present in only one of the two texts counts as changed.
    """
    before, after = sections(old), sections(new)
    return {n for n in before.keys() | after.keys() if before.get(n) != after.get(n)}


def check_change(old: str | None, new: str, automated: bool, approved: bool) -> list[str]:
    """Problems of a CLAUDE.md change: the structure of ``new``, then who changed what.

    An automated commit (``Gitmem-Auto: true``) may change only layers 2 and 3
    unless it carries ``Gitmem-Approved-By``. A person's commit may change any
    layer. A new CLAUDE.md (``old`` None) has nothing to protect yet.
    """
    problems = validate(new)
    if automated and not approved and old is not None:
        problems += [_format(line, message) for line, message in protected_changes(old, new)]
    return problems


def protected_changes(old: str, new: str) -> list[tuple[int | None, str]]:
    """Changes only a person may make (Layers 1 and 4, text outside the layers), as (line in new, message)."""
    starts = {layer.number: layer.start_line for layer in reversed(parse(new))}
    out: list[tuple[int | None, str]] = []
    for number in sorted(changed_layers(old, new) - set(GENERATED)):
        what = "text outside the layers" if number == OUTSIDE else f"layer {number} ({NAMES.get(number, '?')})"
        out.append((starts.get(number), f"{what} changed by an automated commit without Gitmem-Approved-By"))
    return out


def escape(text: str) -> str:
    """Text that cannot forge a marker or a heading once placed in a generated layer.

    The one escaper, ``gitmem.base.mdio.escape``: line breaks other than
    ``\n`` normalized, comment delimiters and heading tags as entities,
    ``gitmem:layer`` in any spelling as ``gitmem layer``, and on each line,
    behind any block quote or list markers, whatever could open a heading, a
    thematic break, a setext underline, a code fence or an HTML block
    backslash-escaped. Escaping twice changes nothing more.
    """
    return mdio.escape(text)


def replace_layer(text: str, number: int, body: str) -> str:
    """``text`` with the content of generated layer 2 or 3 replaced by ``body``.

    ``body`` must already be escaped; the layer's title heading, if any, lives
    outside the markers and is kept. Raises ValueError for layers 1 and 4 (only
    a person edits them), for a layer that is missing, duplicated or unclosed,
    and for a body that would forge a marker or a layer-like heading.
    """
    if number not in GENERATED:
        raise ValueError(f"layer {number} is not generated; automation may replace only layers 2 and 3")
    found = [layer for layer in parse(text) if layer.number == number]
    lines = _lines(text)
    if len(found) != 1 or not _CLOSE.match(lines[found[0].end_line - 1]):
        raise ValueError(f"CLAUDE.md has no single closed layer {number}; run `gitmem check layers`")
    body_lines = body.strip("\n").split("\n") if body.strip("\n") else []
    fenced = [marker(number), *body_lines, CLOSE_MARKER]
    bad = [message for _, message in find_problems("\n".join(fenced)) if "missing layer" not in message]
    if bad:
        raise ValueError(f"refusing to place unescaped text in layer {number}: {bad[0]}")
    layer = found[0]
    new_lines = lines[:layer.start_line] + body_lines + lines[layer.end_line - 1:]
    ending = "\n" if text.endswith("\n") or not text else ""
    return "\n".join(new_lines) + ending


def add_to_core(text: str, rule: str) -> str:
    """``text`` with ``rule`` added as the last bullet of Layer 1 (escaped).

    Only a person's accepted promotion calls this (its commit carries
    ``Gitmem-Approved-By``); raises ValueError when Layer 1 is not one closed layer.
    """
    found = [layer for layer in parse(text) if layer.number == 1]
    lines = _lines(text)
    if len(found) != 1 or not _CLOSE.match(lines[found[0].end_line - 1]):
        raise ValueError("CLAUDE.md has no single closed layer 1; run `gitmem check layers`")
    item = "- " + escape(" ".join(rule.split()))
    close = found[0].end_line - 1
    ending = "\n" if text.endswith("\n") else ""
    return "\n".join(lines[:close] + [item] + lines[close:]) + ending
