"""Scan a stream for secrets and PII a window at a time, never holding it whole.

``gitmem pii scan -`` may be handed an endless pipe or a file larger than
memory. The stream is read in blocks; each window is the unreported tail of the
previous one plus a new block, and only findings that start before the last
``OVERLAP`` characters are reported, the tail being scanned again with what
follows. A secret up to ``OVERLAP`` characters long (a private key block, a
long token) is thus seen whole, whichever block boundary it straddles; windows
begin at a line start when they can, so a keyword and its value on one line
stay together.
"""

from __future__ import annotations

import codecs
from typing import BinaryIO, Iterator, NamedTuple

from gitmem.guards.pii.kinds import Allowlist
from gitmem.guards.pii.scan import scan

BLOCK = 1 << 20
OVERLAP = 1 << 16


class Located(NamedTuple):
    """A finding in a stream: kind, character offsets in the whole stream, its 1-based line and column."""

    kind: str
    start: int
    end: int
    secret: bool
    line: int
    column: int
    value: str = ""   # the text found (for its id; never printed)


def scan_stream(stream: BinaryIO, allowlist: Allowlist | None = None, block: int = BLOCK,
                overlap: int = OVERLAP) -> Iterator[Located]:
    """Findings of ``stream`` (UTF-8, bad bytes replaced), in order, using memory bounded by ``block + overlap``."""
    decoder = codecs.getincrementaldecoder("utf-8")(errors="replace")
    carry, base, base_line, base_col = "", 0, 1, 1   # the window's start: offset, line, column
    while True:
        data = stream.read(block)
        final = not data
        window = carry + decoder.decode(data, final=final)
        if final:
            cut = len(window)
        else:
            cut = window.rfind("\n", 0, max(0, len(window) - overlap)) + 1 or max(0, len(window) - overlap)
        for f in scan(window, allowlist):
            if f.start >= cut:
                continue   # in the tail: scanned again with the next block
            line = window.count("\n", 0, f.start)
            column = f.start - (window.rfind("\n", 0, f.start) + 1) + (base_col if line == 0 else 1)
            yield Located(f.kind, base + f.start, base + f.end, f.secret, base_line + line, column,
                          window[f.start:f.end])
        if final:
            return
        newlines = window.count("\n", 0, cut)
        base_col = cut - (window.rfind("\n", 0, cut) + 1) + (base_col if newlines == 0 else 1)
        base, base_line, carry = base + cut, base_line + newlines, window[cut:]
