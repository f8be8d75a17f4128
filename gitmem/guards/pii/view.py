"""How the detectors see a text: same-length byte views, lazily compiled
patterns, and the way back from an offset to a line and a column.

The text is viewed as ASCII bytes of the same length (one byte per character,
non-ASCII becomes ``?``) with JSON/shell escapes (``\\n``, ``\\r``, ``\\t``,
``\\u00XX``) blanked to spaces, so ``\\nAKIA…`` still has a word boundary and
every offset still points into the original text.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Iterator

TYPE_CHECKING = False  # typing costs an import; annotations only need it for checkers
if TYPE_CHECKING:
    from typing import Any

ALNUM = frozenset(b"abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789")
DIGITS = frozenset(b"0123456789")


def position(text: str, offset: int) -> tuple[int, int]:
    """The 1-based (line, column) of the character at ``offset`` in ``text``."""
    line_start = text.rfind("\n", 0, offset) + 1
    return text.count("\n", 0, offset) + 1, offset - line_start + 1


class Patterns:
    """Named patterns, each compiled on first use.

    The pre-commit hook compiles afresh in every commit, and a short memory
    file reaches only a few detectors: it pays for those only.
    """

    def __init__(self, sources: dict[str, str | bytes]) -> None:
        self._sources = sources

    def __getattr__(self, name: str) -> Any:  # only called for a missing attribute
        try:
            source = self.__dict__["_sources"][name]
        except KeyError:
            raise AttributeError(name) from None
        compiled = re.compile(source)
        setattr(self, name, compiled)
        return compiled


_rx = Patterns(
    {
        "token_run": rb"BBBBBBBBBBBBBBBB+",
        "unicode_esc": rb"\\u00[0-9A-Fa-f]{2}",
    }
)


def _table(mapping: Callable[[int], int]) -> bytes:
    return bytes(mapping(i) for i in range(256))


_DIGIT_SHAPE = _table(lambda i: 0x30 if 0x30 <= i <= 0x39 else i)
# Token characters (alphanumerics and the base64/base64url extras) become B.
_TOKEN_SHAPE = _table(
    lambda i: 0x42 if (0x30 <= i <= 0x39 or 0x41 <= i <= 0x5A or 0x61 <= i <= 0x7A or i in b"+/-_") else 0x20
)



class View:
    """The text and same-length byte views of it that the detectors search."""

    __slots__ = ("text", "ab", "low", "_shape", "_runs")

    def __init__(self, text: str) -> None:
        self.text = text
        ab = text.encode("ascii", "replace")
        if b"\\" in ab:
            # Same-length blanking of escapes keeps offsets and gives tokens
            # that follow an escaped newline a real boundary.
            ab = ab.replace(b"\\n", b"  ").replace(b"\\r", b"  ").replace(b"\\t", b"  ")
            if b"\\u00" in ab:
                ab = _rx.unicode_esc.sub(b"      ", ab)
        self.ab = ab
        self.low = ab.lower()
        self._shape: bytes | None = None
        self._runs: list[tuple[int, int]] | None = None

    @property
    def shape(self) -> bytes:
        if self._shape is None:
            self._shape = self.ab.translate(_DIGIT_SHAPE)
        return self._shape

    @property
    def runs(self) -> list[tuple[int, int]]:
        """Spans of 16+ token characters: where keys, tokens and base64 live."""
        if self._runs is None:
            shape = self.ab.translate(_TOKEN_SHAPE)
            self._runs = [m.span() for m in _rx.token_run.finditer(shape)]
        return self._runs

    def s(self, start: int, end: int) -> str:
        return self.text[start:end]


def near(rx: re.Pattern[bytes], hay: bytes, literal: bytes, reach: int) -> Iterator[re.Match[bytes]]:
    """What ``rx.finditer(hay)`` finds, for a pattern whose every match holds ``literal`` at most ``reach``
    bytes after its start and no line break: ``rx`` is tried only on the lines around each ``literal``,
    left to right and never inside an earlier match. A pattern without a literal start costs ``re`` a try
    at every byte; ``bytes.find`` of a literal costs a fraction of that."""
    end = 0
    k = hay.find(literal)
    while k >= 0:
        if k >= end:
            nl = hay.find(b"\n", k)
            m = rx.search(hay, max(end, k - reach), len(hay) if nl < 0 else nl + 1)
            if m is not None:
                end = m.end()
                yield m
                k = hay.find(literal, max(k + 1, end))
                continue
        k = hay.find(literal, k + 1)


def bounded(ab: bytes, s: int, e: int, left_bad: bytes, right_bad: bytes) -> bool:
    """No letter, digit or listed byte touches the span; a dot or colon on the
    right only counts when a digit follows it (end of sentence vs 1.2.3.4)."""
    if s > 0:
        c = ab[s - 1]
        if c in ALNUM or c in left_bad:
            return False
    if e < len(ab):
        c = ab[e]
        if c in ALNUM or c in right_bad:
            return False
        if number_continues(ab, e):
            return False
    return True


def number_continues(ab: bytes, e: int) -> bool:
    """A decimal point (1.5) or a thousands group (1,234) follows: the number
    goes on. A comma and a longer number is a CSV column, not a group."""
    c = ab[e : e + 1]
    if c == b".":
        return ab[e + 1 : e + 2].isdigit()
    if c == b",":
        return ab[e + 1 : e + 4].isdigit() and len(ab[e + 1 : e + 4]) == 3 and not ab[e + 4 : e + 5].isdigit()
    return False



def decode_base64(blob: str) -> str | None:
    """Decode base64 or base64url to text; None when it is not mostly printable text."""
    import binascii  # only needed when a blob turns up

    s = blob.rstrip("=").replace("-", "+").replace("_", "/")
    if len(s) % 4 == 1:
        s = s[:-1]
    s += "=" * (-len(s) % 4)
    try:
        raw = binascii.a2b_base64(s)
        text = raw.decode("utf-8")
    except (binascii.Error, ValueError):
        return None
    if not text:
        return None
    if text.isprintable():
        return text
    bad = sum(1 for ch in text if not ch.isprintable() and ch not in "\n\r\t")
    return text if bad * 20 <= len(text) else None

