"""The value after a label: where it starts and ends, and whether to report it.

Shared by the detectors that find a label first (keywords, labelled layouts,
command lines) and then read the value that follows it.
"""

from __future__ import annotations

from gitmem.guards.pii.kinds import Cand, add
from gitmem.guards.pii.plausibility import classes, looks_aws_secret, plausible
from gitmem.guards.pii.view import Patterns, View

_rx = Patterns(
    {
        "value_q": rb"\\{0,3}\"([^\"\\\r\n]*)|\\{0,3}'([^'\\\r\n]*)|`([^`\r\n]*)`|([^\s\"'`]+)",
    }
)


def line_end(low: bytes, at: int) -> int:
    """Where the line holding ``at`` ends (at most 480 bytes on)."""
    end = low.find(b"\n", at, at + 480)
    return end if end >= 0 else min(len(low), at + 480)


def phrase_value(v: View, out: list[Cand], at: int, hi: int, style: str) -> None:
    """Report the value at ``at`` (before ``hi``) when it is a plausible secret written in ``style``."""
    got = value_at(v, at, hi)
    if got is None:
        return
    s, e, quoted = got
    value = v.s(s, e)
    if style == "prose" and not quoted and classes(value) < 2 and not value.isdigit():
        return
    if plausible(value, style, quoted):
        add(out, s, e, aws_context(v, s, value) or "generic_api_key")


def value_at(v: View, pos: int, end: int) -> tuple[int, int, bool] | None:
    """The value at ``pos``: (start, end, quoted), trailing punctuation left out of a bare one."""
    m = _rx.value_q.match(v.ab, pos, end)
    if m is None:
        return None
    for g in (1, 2, 3):
        if m.group(g) is not None:
            return m.start(g), m.end(g), True
    s, e = m.span(4)
    value = v.s(s, e)
    trimmed = value.rstrip(".,;:)?'\"")
    return s, s + len(trimmed), False


def aws_context(v: View, at: int, value: str) -> str | None:
    """A 40-character secret just after the word "aws" is an AWS secret key."""
    if len(value) == 40 and looks_aws_secret(value) and b"aws" in v.low[max(0, at - 120) : at]:
        return "aws_secret_key"
    return None

