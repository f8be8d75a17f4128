"""The only module that imports markdown-it-py: sections and list items of a body,
and the one escaper of everything gitmem generates into Markdown.

Lines are counted as markdown-it counts them (``\n``, ``\r\n`` and a bare
``\r`` end a line). Python's ``str.splitlines`` also breaks at ``\v``, ``\f``,
``\x1c``-``\x1e``, ``\x85``, U+2028 and U+2029, which markdown-it reads as
ordinary characters: generated text has all of them turned into ``\n`` before it
is escaped (``normalize_breaks``), so no reader can split it where another
does not.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from functools import lru_cache

TYPE_CHECKING = False   # typing costs an import on the pre-commit hook's path; annotations only
if TYPE_CHECKING:
    from typing import Any


@dataclass(frozen=True)
class Section:
    heading: str
    level: int
    text: str        # the section's source lines, heading excluded, blank lines around it removed
    line: int        # 1-based line of the heading (or 1 for text before any heading)
    first: int = 1   # 1-based file line of the first line of ``text``


@lru_cache(maxsize=1)
def _md() -> Any:
    from markdown_it import MarkdownIt

    # Every reader here needs only the blocks (a heading's text is set by the block rule): the inline
    # rules would cost a quarter of each parse for nothing.
    return MarkdownIt("commonmark").disable(["inline", "text_join"])


def lines(text: str) -> list[str]:
    """The lines of ``text`` as markdown-it counts them (``\r\n`` and ``\r`` end a line too)."""
    return text.replace("\r\n", "\n").replace("\r", "\n").split("\n")


def sections(text: str) -> list[Section]:
    """Split Markdown into sections by top-level headings (any level), in order.

    A heading nested in a list item or a block quote belongs to the section
    around it: it is part of that item's text, not a new section.
    """
    lines_ = lines(text)
    heads = _heads(_md().parse(text))
    out: list[Section] = []
    if not heads or heads[0][0] > 0:
        end = heads[0][0] if heads else len(lines_)
        pre, first = _trimmed(lines_, 0, end)
        if pre:
            out.append(Section("", 0, pre, 1, first))
    for n, (start, stop, level, title, _) in enumerate(heads):
        end = heads[n + 1][0] if n + 1 < len(heads) else len(lines_)
        body, first = _trimmed(lines_, stop, end)  # a setext underline is part of its heading
        out.append(Section(title, level, body, start + 1, first))
    return out


def _heads(tokens: list[Any]) -> list[tuple[int, int, int, str, int]]:
    """The top-level headings: (start line, end line, level, heading text, index of its heading_open)."""
    return [(tok.map[0], tok.map[1], int(tok.tag[1:]), tokens[i + 1].content.strip(), i)
            for i, tok in enumerate(tokens) if tok.type == "heading_open" and tok.map and tok.level == 0]


def section_items(text: str, heading: str) -> list[tuple[str, int]] | None:
    """``list_items`` of the first section whose heading is ``heading`` (any case), None without one.

    The same as ``list_items(section.text)`` of that section from ``sections``, from one parse: the
    blocks after a top-level heading are read as they would be on their own. Only a section whose first
    line is indented is parsed again (its text is stripped, which changes what the indent means).
    """
    lines_ = lines(text)
    tokens = _md().parse(text)
    heads = _heads(tokens)
    wanted = heading.lower()
    for n, (_, stop, _, title, at) in enumerate(heads):
        if title.lower() != wanted:
            continue
        end = heads[n + 1][0] if n + 1 < len(heads) else len(lines_)
        body, first = _trimmed(lines_, stop, end)
        if not _plainly_trimmed(lines_, stop, end, body, first):
            return list_items(body)
        close = at + 3                                   # heading_open, inline, heading_close
        upto = heads[n + 1][4] if n + 1 < len(heads) else len(tokens)
        return _items(tokens[close:upto], lines_, first - 1)
    return None


def _plainly_trimmed(lines_: list[str], start: int, end: int, body: str, first: int) -> bool:
    """True when ``_trimmed`` took off only what markdown-it reads as blank: lines of spaces and tabs
    around ``body``, and no white space of another kind (which ``str.strip`` takes too) at its ends."""
    kept = body.count("\n") + 1 if body else 0
    around = lines_[start:first - 1] + lines_[first - 1 + kept:end]
    return all(not line.strip(" \t") for line in around) and "\n".join(lines_[first - 1:first - 1 + kept]) == body


def _trimmed(lines: list[str], start: int, end: int) -> tuple[str, int]:
    """Lines ``start:end`` without blank lines around them, and the 1-based file line of the first kept."""
    while start < end and not lines[start].strip():
        start += 1
    while end > start and not lines[end - 1].strip():
        end -= 1
    return "\n".join(lines[start:end]).strip(), start + 1


def list_items(text: str) -> list[tuple[str, int]]:
    """Top-level list items as (text, 1-based line), nested items folded into their parent."""
    return _items(_md().parse(text), lines(text), 0)


def _items(tokens: list[Any], lines_: list[str], offset: int) -> list[tuple[str, int]]:
    """The top-level list items of ``tokens``, lines counted from line ``offset`` (0-based) of ``lines_``."""
    items: list[tuple[str, int]] = []
    depth = 0
    for tok in tokens:
        if tok.type in ("bullet_list_open", "ordered_list_open"):
            depth += 1
        elif tok.type in ("bullet_list_close", "ordered_list_close"):
            depth -= 1
        elif tok.type == "list_item_open" and depth == 1 and tok.map:
            start, end = tok.map
            chunk = "\n".join(lines_[start:end]).strip()
            marker = tok.info + tok.markup      # "-", "*", "+", or "3." / "3)": the token says which
            chunk = chunk[len(marker):] if chunk.startswith(marker) else chunk
            items.append((" ".join(chunk.split()), start + 1 - offset))
    return items


@dataclass(frozen=True)
class Block:
    """A block of a Markdown text, as markdown-it reads it.

    ``kind`` is ``html`` (an HTML block), ``heading`` (ATX or setext, ``text``
    is its inline text) or ``code`` (fenced or indented). Lines are 0-based,
    ``end`` excluded; ``depth`` is 0 for a block at the top level and grows
    inside block quotes and list items.
    """

    kind: str
    start: int
    end: int
    depth: int
    text: str


_KINDS = {"html_block": "html", "heading_open": "heading", "fence": "code", "code_block": "code"}


def blocks(text: str) -> list[Block]:
    """The HTML blocks, headings and code blocks of ``text``, in order."""
    tokens = _md().parse(text)
    out: list[Block] = []
    for i, tok in enumerate(tokens):
        kind = _KINDS.get(tok.type)
        if kind is None or not tok.map:
            continue
        content = tokens[i + 1].content if kind == "heading" else tok.content
        out.append(Block(kind, tok.map[0], tok.map[1], tok.level, content))
    return out


def heading_text(text: str) -> str | None:
    """The text of the heading ``text`` is when read on its own at the top level, else None.

    A line (or a line and its setext underline) read out of its context: what
    a reader of the raw file could take for a heading.
    """
    tokens = _md().parse(text)
    if len(tokens) == 3 and tokens[0].type == "heading_open":
        return str(tokens[1].content)
    return None


# -- escaping: the one escaper of generated text --------------------------------
#
# The escapers' patterns are compiled on first use: the pre-commit hook imports this
# module for a CLAUDE.md and uses none of them.

# Every character str.splitlines breaks at, other than \n (\r\n first, as one break).
@lru_cache(maxsize=None)
def _breaks() -> re.Pattern[str]:
    return re.compile("\r\n|[\r\v\f\x1c\x1d\x1e\x85\u2028\u2029]")


# Anything a reader (person or model) could take for a gitmem layer marker: the
# colon may be an entity, percent-encoded or full-width. "gitmem layer" with a
# plain space is ordinary prose and is what escaping turns these into.
MARKER_LIKE = re.compile(
    r"gitmem[ \t]*(?::|：|&#0*58;|&#x0*3a;|&colon;|%3a)[ \t]*/?[ \t]*layer", re.IGNORECASE)


@lru_cache(maxsize=None)
def _html_heading() -> re.Pattern[str]:
    return re.compile(r"<(/?h[1-6])\b", re.IGNORECASE)


# One container step at the start of a line: white space, a block quote's `>`,
# or a list marker (bullet or ordered) followed by white space.
@lru_cache(maxsize=None)
def _step() -> re.Pattern[str]:
    return re.compile(r"[^\S\n]|>|[-*+](?=[^\S\n])|\d{1,9}[.)](?=[^\S\n])")


# What may open a block after the containers: an ATX heading, a thematic break,
# a setext underline, a code fence, an HTML block.
# (A thematic break is found by ``_rules``, in one pass over the line.)
@lru_cache(maxsize=None)
def _opens() -> re.Pattern[str]:
    return re.compile(r"#{1,6}(?:[^\S\n]|$)|=+[^\S\n]*$|-+[^\S\n]*$|```|~~~|<")


# For one-line items: a first character Markdown could read as structure, or an
# ordered-list number (whose `.`/`)` gets the backslash), or a backslash itself.
@lru_cache(maxsize=None)
def _item_lead() -> re.Pattern[str]:
    return re.compile(r"[\\#>=\-+*_|<`~]|\d{1,9}(?=\\*[.)])")


@lru_cache(maxsize=None)
def _item_entities() -> re.Pattern[str]:
    return re.compile(r"<!--|-->|&((?:amp;)*)(lt;!--)|--&((?:amp;)*)(gt;)")


@lru_cache(maxsize=None)
def _item_unentities() -> re.Pattern[str]:
    return re.compile(r"&lt;!--|--&gt;|&amp;((?:amp;)*)(lt;!--)|--&amp;((?:amp;)*)(gt;)")




def normalize_breaks(text: str) -> str:
    """``text`` with every line break other than ``\\n`` (``\\r\\n``, ``\\r``, ``\\v``, ``\\f``,
    ``\\x1c``-``\\x1e``, ``\\x85``, U+2028, U+2029) turned into ``\\n``."""
    return _breaks().sub("\n", text)


def neutralize_markers(text: str) -> str:
    """``gitmem:layer`` in any spelling (entities, percent-encoding, full-width) as ``gitmem layer``."""
    if not text.isascii():
        import unicodedata  # only for non-ASCII text: full-width look-alikes

        folded = unicodedata.normalize("NFKC", text)
        if MARKER_LIKE.search(folded):  # a look-alike: give up the odd glyphs
            text = folded
    return MARKER_LIKE.sub("gitmem layer", text)


def escape(text: str) -> str:
    """Text that can open no block of its own wherever it is placed in Markdown.

    Line breaks are normalized (``normalize_breaks``); HTML comment delimiters
    and heading tags become entities (``&lt;!--``), ``gitmem:layer`` in any
    spelling becomes ``gitmem layer``; on each line, after any block quote and
    list markers, what could open an ATX heading, a thematic break, a setext
    underline, a code fence or an HTML block gets a backslash (``<`` an
    entity). Markdown shows the text as written; escaping twice changes
    nothing more.
    """
    return "\n".join(_escape_line(line) for line in normalize_breaks(text).split("\n"))


def _escape_line(line: str) -> str:
    line = line.replace("<!--", "&lt;!--").replace("-->", "--&gt;")
    line = neutralize_markers(_html_heading().sub(r"&lt;\1", line))
    rules = _rules(line)
    at = 0
    while True:
        if at in rules or _opens().match(line, at):
            return f"{line[:at]}&lt;{line[at + 1:]}" if line[at] == "<" else f"{line[:at]}\\{line[at:]}"
        step = _step().match(line, at)
        if not step:
            return line
        at = step.end()


def _rules(line: str) -> set[int]:
    """Where a thematic break starts: a `-`, `*` or `_` followed to the end of the line by
    two or more of the same and white space only (one pass from the end, not a regex per
    position: a long line of list markers stays linear)."""
    starts: set[int] = set()
    mark, count = "", 0
    for i in range(len(line) - 1, -1, -1):
        c = line[i]
        if c.isspace():
            continue
        if c != mark:
            if mark:
                break            # two different marks: no rule starts here or earlier
            mark = c
        count += 1
        if mark in "-*_" and count >= 3:
            starts.add(i)
    return starts


def escape_item(text: str) -> str:
    """One line of text for a list item, a heading or a paragraph, reversible by ``unescape_item``.

    White space runs (line breaks included) become one space, comment
    delimiters become entities, a first character Markdown could read as
    structure gets a backslash. Marker look-alikes become ``gitmem layer``:
    that is the one change ``unescape_item`` does not undo.
    """
    line = neutralize_markers(" ".join(normalize_breaks(text).split()))
    line = _item_entities().sub(_entity, line)
    lead = _item_lead().match(line)
    if lead:
        at = lead.end() if line[0].isdigit() else 0
        line = f"{line[:at]}\\{line[at:]}"
    return line


def _entity(m: re.Match[str]) -> str:
    if m[0] == "<!--":
        return "&lt;!--"
    if m[0] == "-->":
        return "--&gt;"
    return f"&amp;{m[1]}{m[2]}" if m[2] else f"--&amp;{m[3]}{m[4]}"


def unescape_item(text: str) -> str:
    """The text ``escape_item`` was given (up to white space and marker look-alikes)."""
    lead = re.match(r"\\|\d{1,9}\\(?=\\*[.)])", text)
    if lead:
        at = lead.end() - 1
        text = text[:at] + text[at + 1:]
    return _item_unentities().sub(_unentity, text)


def _unentity(m: re.Match[str]) -> str:
    if m[0] == "&lt;!--":
        return "<!--"
    if m[0] == "--&gt;":
        return "-->"
    return f"&{m[1]}{m[2]}" if m[2] else f"--&{m[3]}{m[4]}"
