"""Checks on what a person types: ``is_blank`` (a text of only spaces and invisible characters is
empty) and ``printable_label`` (a tag, source or commit subject without control or
bidirectional-override characters)."""

from __future__ import annotations

__all__ = ["is_blank", "printable_label"]

# Letters that draw nothing: Hangul fillers, the braille blank. Format characters
# (zero-width space, joiners, bidi controls, BOM) are found by their category.
_INVISIBLE_LETTERS = frozenset("\u115f\u1160\u3164\uffa0\u2800")


def is_blank(text: str) -> bool:
    """True when ``text`` shows nothing: only whitespace, control, format or filler characters."""
    import unicodedata

    return all(ch.isspace() or ch in _INVISIBLE_LETTERS or unicodedata.category(ch) in ("Cc", "Cf", "Zs", "Zl", "Zp")
               for ch in text)


def printable_label(text: str) -> str:
    """``text`` on one line with control characters as spaces and format characters (bidi overrides,
    zero-width characters) removed, so a label shows what it says; spacing collapsed."""
    import unicodedata

    kept = []
    for ch in text:
        cat = unicodedata.category(ch)
        if cat == "Cc" or cat in ("Zl", "Zp"):
            kept.append(" ")
        elif cat not in ("Cf", "Cs"):
            kept.append(ch)
    return " ".join("".join(kept).split())
