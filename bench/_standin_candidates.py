"""Temporary stand-in for gitmem.engines.harvest.candidates until it lands (dev only; removed after the merge)."""
from __future__ import annotations

import hashlib
import re
from dataclasses import dataclass

from gitmem.engines.harvest.signals import is_own_words, one_line

_SPLIT = re.compile(r"(?<=[.!?;])\s+|(?<=[。！？；])\s*|\n+")
_FENCED = re.compile(r"```.*?(?:```|$)", re.S)
_PASS = re.compile(r"\bpassed\b|\bPASS\b|\bok\b|✓|success", re.I)


@dataclass(frozen=True)
class Candidate:
    line: int
    part: int
    speaker: str
    text: str
    turn: int
    position: float
    after_error: bool
    then_passed: bool
    next_user: str | None
    tool_before: str | None

    def key(self) -> str:
        return f"{self.line}:{self.part}:{hashlib.blake2b(self.text.encode(), digest_size=6).hexdigest()}"


def extract(t):  # type: ignore[no-untyped-def]
    events = [e for e in t.events if not e.sidechain]
    end = max((e.line for e in events), default=1) or 1
    out = []
    turn = 0
    error = False
    tool = None
    for n, e in enumerate(events):
        if e.role == "tool_result":
            error = error or e.is_error
            continue
        if e.role == "tool_call":
            tool = e.tool
            continue
        if is_own_words(e):
            turn += 1
            error = False
        elif e.role != "assistant" or e.meta:
            continue
        nxt = next((f.text for f in events[n + 1:] if is_own_words(f)), None)
        passed = False
        for f in events[n + 1:]:
            if is_own_words(f):
                break
            if f.role == "tool_result":
                passed = not f.is_error and bool(_PASS.search(f.text[:2000]))
                break
        speaker = "user" if e.role == "user" else "assistant"
        for part, s in enumerate(p for p in (one_line(x) for x in _SPLIT.split(_FENCED.sub("\n", e.text[:8000]))) if p):
            if len(s) < 6:
                continue
            out.append(Candidate(e.line, part, speaker, s[:600], turn, e.line / end, error, passed,
                                 one_line(nxt)[:300] if nxt else None, tool))
    return out
