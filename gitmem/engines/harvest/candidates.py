"""Harvest candidates: every statement of the exchange that might be worth remembering, with its context.

A candidate is one unit of natural-language text from the user's own turns or
from the assistant's replies: a paragraph, a list item, or a sentence of a
long paragraph. Code blocks, tables, tool calls and tool output are never
candidates (raw tool output never becomes a memory); they only shape the
context a candidate carries: whether a tool failed since the last user turn
(``after_error``), and whether the next tool run after the statement passed
(``then_passed``: the assistant's explanation after a failure that the next
run proves right is the strongest lesson a session holds), and whether it
explains a confirmed fix (``fixed``): a command failed, a file was changed,
and the same command run again passed, all in one turn. The statements of
the assistant from the failure up to its first words after the passing run
are paired with that fix: together they are the cause and the fix of one
lesson, whatever language they are written in.

The events a transcript yields are redacted before extraction (``planning``),
so every candidate's text is already clean. A candidate is named by its line,
its place among the units of that line and a hash of its text (``key``): the
labels of the harvest corpus are keyed by it, so the way units are cut is part
of the corpus' format (``VERSION``).
"""

from __future__ import annotations

import hashlib
import re
from dataclasses import dataclass
from typing import Literal

from gitmem.engines.harvest.content import FILE_TOOLS
from gitmem.engines.harvest.signals import CJK, one_line
from gitmem.engines.harvest.sources import Event, Transcript

__all__ = ["EDIT_TOOLS", "MAX_UNIT", "MIN_UNIT", "VERSION", "Candidate", "Speaker", "extract", "fix_explanations", "units"]

VERSION = 1
"""How units are cut; labels made against another version do not match by key."""

Speaker = Literal["user", "assistant"]

MIN_UNIT = 12          # characters of a Latin-script unit; a CJK one needs 6 CJK characters
MAX_UNIT = 600         # a longer paragraph is cut into sentences
_MAX_NEXT = 200

_FENCE = re.compile(r"^\s*(```|~~~)")
_TABLE_ROW = re.compile(r"^\s*\|.*\|\s*$")
_INDENTED = re.compile(r"^(?: {4}|\t)")
_ITEM = re.compile(r"^\s*(?:[-*+•]|\d{1,3}[.)]|[a-zA-Z][.)]|[一二三四五六七八九十]+、)\s+")
_HEADING = re.compile(r"^\s*#{1,6}\s+")
# The tools that change a file (reading ones do not fix anything).
EDIT_TOOLS = frozenset(t for t in FILE_TOOLS if not t.startswith(("read", "view"))) | {"apply_patch", "patch"}
_SENTENCE_END = re.compile(r"(?<=[.!?;])\s+(?=\S)|(?<=[。！？；])")


@dataclass(frozen=True, slots=True)
class Candidate:
    """One statement of a session, with the context a scorer needs.

    ``line``: the transcript line of its event; ``part``: its place among the
    units of that event (0-based); ``turn``: the number of user turns before or
    at it (0 before the first); ``position``: its place in the session, 0..1;
    ``after_error``: a tool failed since the last user turn, before it;
    ``then_passed``: it follows a failure and the next tool result after it is
    not an error; ``next_user``: the start of the user's next turn ('' if none);
    ``tool_before``: the last tool called since the last user turn; ``fixed``: an assistant statement
    paired with a confirmed fix (a command failed, a file changed, the same command then passed).
    """

    line: int
    part: int
    speaker: Speaker
    text: str
    turn: int
    position: float
    after_error: bool = False
    then_passed: bool = False
    next_user: str = ""
    tool_before: str | None = None
    fixed: bool = False

    def key(self) -> str:
        """``line:part:hash``: how labels name this candidate."""
        digest = hashlib.sha1(self.text.encode("utf-8")).hexdigest()[:12]
        return f"{self.line}:{self.part}:{digest}"


def units(text: str) -> list[str]:
    """The statements of one turn's text: paragraphs and list items, long ones cut into sentences.

    Fenced and indented code, table rows and headings are left out; each unit
    is on one line and long enough to mean something.
    """
    out: list[str] = []
    block: list[str] = []
    fenced = False

    def flush() -> None:
        if block:
            out.extend(_cut(one_line(" ".join(block))))
            block.clear()

    for raw in text.splitlines():
        if _FENCE.match(raw):
            flush()
            fenced = not fenced
            continue
        if fenced or _TABLE_ROW.match(raw) or _INDENTED.match(raw) or _HEADING.match(raw):
            flush()
            continue
        if not raw.strip():
            flush()
            continue
        if _ITEM.match(raw):
            flush()
            raw = _ITEM.sub("", raw, count=1)
        block.append(raw.strip())
    flush()
    return [u for u in out if _long_enough(u)]


def _cut(paragraph: str) -> list[str]:
    if len(paragraph) <= MAX_UNIT:
        return [paragraph]
    pieces: list[str] = []
    current = ""
    for sentence in _SENTENCE_END.split(paragraph):
        sentence = sentence.strip()
        if not sentence:
            continue
        if current and len(current) + 1 + len(sentence) > MAX_UNIT:
            pieces.append(current)
            current = ""
        current = f"{current} {sentence}".strip() if current else sentence
    if current:
        pieces.append(current)
    return [p if len(p) <= MAX_UNIT else p[:MAX_UNIT] for p in pieces]


def _long_enough(unit: str) -> bool:
    return len(CJK.findall(unit)) >= 6 or (len(unit) >= MIN_UNIT and len(unit.split()) >= 3)


def _speaks(e: Event) -> Speaker | None:
    if e.sidechain or e.meta:
        return None
    if e.role == "user":
        return "user"
    if e.role == "assistant":
        return "assistant"
    return None


def extract(t: Transcript) -> tuple[Candidate, ...]:
    """Every candidate of a transcript, in order."""
    events = t.events
    total = max(len(events) - 1, 1)
    next_user = _next_user_texts(events)
    next_result = _next_result_errors(events)
    fixes = fix_explanations(events)
    found: list[Candidate] = []
    turn = 0
    failed = False
    tool: str | None = None
    for n, e in enumerate(events):
        speaker = _speaks(e)
        if e.role == "tool_call" and not e.sidechain:
            tool = e.tool or tool
        elif e.role == "tool_result" and not e.sidechain:
            failed = failed or e.is_error
        if speaker is None:
            continue
        if speaker == "user":
            turn += 1
            failed, tool = False, None
        passed = speaker == "assistant" and failed and next_result[n] is False
        for part, text in enumerate(units(e.text)):
            found.append(Candidate(e.line, part, speaker, text, turn, round(n / total, 4),
                                   after_error=speaker == "assistant" and failed, then_passed=passed,
                                   next_user=next_user[n], tool_before=tool if speaker == "assistant" else None,
                                   fixed=n in fixes))
    return tuple(found)


_PREFIX = re.compile(r"^(?:cd\s+\S+\s*(?:&&|;)\s*|(?:sudo|env|time|timeout\s+\d+\w?)\s+|\w+=\S*\s+)+")


def _command(e: Event) -> str:
    """What a tool call ran, to know it again when rerun: its tool and the program and first word of a
    command (``cd X &&``, ``sudo`` and variables before it left out), else the first line of its input."""
    first = e.text.strip().split("\n", 1)[0] if e.text.strip() else ""
    words = _PREFIX.sub("", " ".join(first.split())).split()
    head = words[:2] if len(words) > 1 and not words[1].startswith(("-", "/", ".", "~")) else words[:1]
    return f"{(e.tool or '').casefold()} {' '.join(head)}"


def fix_explanations(events: tuple[Event, ...]) -> frozenset[int]:
    """The indexes of the assistant events that explain a confirmed fix: from a failed tool run (something
    changed since: a file edited or another command run) up to the assistant's first words after the same
    command passes again, within one user turn."""
    out: set[int] = set()
    failed: str | None = None     # the command that failed, waiting for its passing run
    edited = False                # something changed since the failure
    explaining: list[int] = []
    calls: list[str] = []         # the commands of the calls waiting for their results, in order
    after_pass = False            # the first assistant words after the passing run belong to the fix too
    for n, e in enumerate(events):
        if e.sidechain or e.meta:
            continue
        if e.role == "user":
            failed, edited, explaining, calls, after_pass = None, False, [], [], False
        elif e.role == "tool_call":
            calls.append(_command(e))
            edited = edited or (failed is not None and calls[-1] != failed)
        elif e.role == "tool_result":
            if not calls:
                continue
            ran = calls.pop(0)
            if e.is_error and failed is None and (ran.split(" ", 1)[0] not in EDIT_TOOLS):
                failed, edited, explaining = ran, False, []
            elif not e.is_error and ran == failed and edited:
                out.update(explaining)
                failed, edited, explaining, after_pass = None, False, [], True
        elif e.role == "assistant":
            if failed is not None:
                explaining.append(n)
            elif after_pass:
                out.add(n)
                after_pass = False
    return frozenset(out)


def _next_user_texts(events: tuple[Event, ...]) -> list[str]:
    """For each event, the start of the first user turn after it ('' if none)."""
    out = [""] * len(events)
    following = ""
    for n in range(len(events) - 1, -1, -1):
        out[n] = following
        if _speaks(events[n]) == "user":
            following = one_line(events[n].text)[:_MAX_NEXT]
    return out


def _next_result_errors(events: tuple[Event, ...]) -> list[bool | None]:
    """For each event, whether the next tool result after it (before the next user turn) is an error; None if none."""
    out: list[bool | None] = [None] * len(events)
    following: bool | None = None
    for n in range(len(events) - 1, -1, -1):
        out[n] = following
        e = events[n]
        if _speaks(e) == "user":
            following = None
        elif e.role == "tool_result" and not e.sidechain:
            following = e.is_error
    return out

