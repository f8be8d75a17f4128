"""Forged structure: text from sessions that poses as a layer, a marker or a heading.

Generated text carries what sessions said, so a memory could try to forge a
``gitmem:layer`` marker or a heading such as ``# CORE`` and smuggle
instructions into what looks like the person's rules. ``gitmem.base.mdio.escape``
neutralizes that before text is placed; this module finds what slipped through:
in CLAUDE.md's generated Layers 2 and 3 (``forgery``, ``hidden_break``, used by
``gitmem.guards.layers``), and in every other generated file, HIPPOCAMPUS_CORE.md
and patterns.md (``generated_problems``), whose only heading is their title.
"""

from __future__ import annotations

import re
from functools import lru_cache

from gitmem.base import mdio

GENERATED_FILES = ("HIPPOCAMPUS_CORE.md", "patterns.md")   # besides CLAUDE.md's Layers 2 and 3

_HTML_HEADING_TEXT = re.compile(r"<h[1-6][^>]*>(.*?)(?:</h[1-6]>|$)", re.IGNORECASE)
# what a raw reader takes for a heading behind block quote and list markers: `> - # CORE`, `  ## x`
_RAW_HEADING = re.compile(r"^[ \t>*+\-]*#{1,6}(?:[ \t]|$)")
_RAW_UNDERLINE = re.compile(r"^[ \t>]*(?:=+|-{2,})[ \t]*$")


@lru_cache(maxsize=None)
def layer_title() -> re.Pattern[str]:
    """Heading text that claims to be a layer, or the privileged parts of one (compiled on first use)."""
    return re.compile(
        r"^(?:the\s+)?(?:layer\s*(?:\d+|[ivx]+|one|two|three|four)\b|core\b|meta\b|consolidated\s+patterns"
        r"|episodic\s+index|human\s*only|read\s*only|instructions?\b|system\b|gitmem\b)",
        re.IGNORECASE)


def forgery(line: str, i: int, heading: str | None, at: int, layer: int) -> list[tuple[int, str]]:
    """Marker-like text on line i (1-based) of a generated layer, or a layer-like heading (on line ``at``)."""
    where = f"inside generated layer {layer}"
    out: list[tuple[int, str]] = []
    if looks_like_marker(line):
        out.append((i, f"text resembling a gitmem:layer marker {where}; generated text must go through layers.escape"))
    if heading is None:
        html = _HTML_HEADING_TEXT.search(line)
        heading = html[1] if html else None
    if heading is not None and layer_title().match(plain(heading)):
        out.append((at, f"layer-like heading {heading.strip()[:60]!r} {where}"))
    return out


def hidden_break(line: str, i: int, layer: int) -> list[tuple[int, str]]:
    """A layer-like heading behind a line break markdown-it does not see (U+2028, \\x85, \\v …).

    Python's ``splitlines`` (and a model reading the raw file) may break the
    line there; generated text never holds such a character (``escape``
    normalizes them).
    """
    parts = mdio.normalize_breaks(line).split("\n")
    for part in parts[1:]:
        heading = mdio.heading_text(part.strip())
        if heading is not None and layer_title().match(plain(heading)):
            return [(i, f"layer-like heading {heading.strip()[:60]!r} after a hidden line break "
                        f"inside generated layer {layer}")]
    return []


def looks_like_marker(line: str) -> bool:
    """Whether ``line`` holds ``gitmem:layer`` marker text in any spelling the escaper neutralizes."""
    return mdio.neutralize_markers(line) != line


def plain(title: str) -> str:
    """Heading text without Markdown emphasis, punctuation or closing #s."""
    return " ".join(re.sub(r"[^\w\s]|_", " ", title).split())


def generated_problems(path: str, text: str) -> list[str]:
    """Forged structure in generated file ``path`` (HIPPOCAMPUS_CORE.md, patterns.md) as ``line N: …``.

    Its title on line 1 is its only heading: any other heading markdown-it finds, any line a raw
    reader would take for one (behind quote or list markers, across a hidden line break), and any
    marker-like text is forged, since everything gitmem renders there is escaped.
    """
    problems: list[tuple[int, str]] = []
    for block in mdio.blocks(text):
        if block.kind == "heading" and block.start > 0:
            problems.append((block.start + 1, f"heading {block.text.strip()[:60]!r} in generated {path}"))
    lines = mdio.lines(text)
    for i, line in enumerate(lines, 1):
        parts = mdio.normalize_breaks(line).split("\n")
        if i > 1 and any(_RAW_HEADING.match(part) for part in parts):
            problems.append((i, f"a line that reads as a heading in generated {path}"))
        elif i > 2 and _RAW_UNDERLINE.match(line) and lines[i - 2].strip():
            problems.append((i, f"a heading underline in generated {path}"))
        if looks_like_marker(line):
            problems.append((i, f"text resembling a gitmem:layer marker in generated {path}"))
    return [f"line {n}: {message}" for n, message in sorted(set(problems))]
