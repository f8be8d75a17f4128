"""The only module that imports markdown-it-py: sections and list items of a body."""

from __future__ import annotations

from dataclasses import dataclass
from functools import lru_cache
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

    return MarkdownIt("commonmark")


def sections(text: str) -> list[Section]:
    """Split Markdown into sections by headings (any level), in order."""
    lines = text.split("\n")
    tokens = _md().parse(text)
    heads: list[tuple[int, int, str]] = []  # (start line, level, heading text)
    for i, tok in enumerate(tokens):
        if tok.type == "heading_open" and tok.map:
            heads.append((tok.map[0], int(tok.tag[1:]), tokens[i + 1].content.strip()))
    out: list[Section] = []
    if not heads or heads[0][0] > 0:
        end = heads[0][0] if heads else len(lines)
        pre, first = _trimmed(lines, 0, end)
        if pre:
            out.append(Section("", 0, pre, 1, first))
    for n, (start, level, title) in enumerate(heads):
        end = heads[n + 1][0] if n + 1 < len(heads) else len(lines)
        body, first = _trimmed(lines, start + 1, end)
        out.append(Section(title, level, body, start + 1, first))
    return out


def _trimmed(lines: list[str], start: int, end: int) -> tuple[str, int]:
    """Lines ``start:end`` without blank lines around them, and the 1-based file line of the first kept."""
    while start < end and not lines[start].strip():
        start += 1
    while end > start and not lines[end - 1].strip():
        end -= 1
    return "\n".join(lines[start:end]).strip(), start + 1


def list_items(text: str) -> list[tuple[str, int]]:
    """Top-level list items as (text, 1-based line), nested items folded into their parent."""
    lines = text.split("\n")
    items: list[tuple[str, int]] = []
    depth = 0
    for tok in _md().parse(text):
        if tok.type in ("bullet_list_open", "ordered_list_open"):
            depth += 1
        elif tok.type in ("bullet_list_close", "ordered_list_close"):
            depth -= 1
        elif tok.type == "list_item_open" and depth == 1 and tok.map:
            start, end = tok.map
            chunk = "\n".join(lines[start:end]).strip()
            marker = tok.info + tok.markup      # "-", "*", "+", or "3." / "3)": the token says which
            chunk = chunk[len(marker):] if chunk.startswith(marker) else chunk
            items.append((" ".join(chunk.split()), start + 1))
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
