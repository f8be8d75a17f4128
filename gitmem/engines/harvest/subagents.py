"""Sub-agent transcripts belong to their session.

Claude Code 2.1 and later writes the conversations of sub-agents beside the
session file, as ``<session-id>/subagents/agent-<id>.jsonl``; their records
carry the session's ``sessionId``. A session is harvested as one unit: its
main file and every sub-agent file of the same ``sessionId`` (given in the
same request or found in the session's ``subagents`` folder). Each file of a
unit is screened, so a secret in any of them rejects the whole session.

Not every file there is a conversation:

- ``agent-aprompt_suggestion-*`` holds a message Claude Code guessed the user
  might type next: nobody said it, so it is never a source of user statements;
- ``agent-acompact-*`` is the compaction agent's copy of the session: read
  with its session it would count every statement twice, so only the screen
  reads it.

Sub-agent traffic is marked ``sidechain`` (signals never come from it). A
sub-agent file whose session file is missing is a unit of its own, still
screened and harvested under its own id.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, replace
from pathlib import Path
from typing import Iterable, Literal

from gitmem.base.errors import GitmemError
from gitmem.engines.harvest import reader
from gitmem.engines.harvest.sources import Event, Transcript

__all__ = ["SUBAGENT_DIR", "Part", "Unit", "companions", "group", "merge", "part_of"]

SUBAGENT_DIR = "subagents"
# agent-<id>.jsonl, the id starting with "a"; copies may carry a prefix ("<owner>__<session>__agent-…").
_AGENT_NAME = re.compile(r"(?:^|_)agent-a[\w-]*\.jsonl")
Part = Literal["main", "agent", "prompt_suggestion", "compact"]


@dataclass(frozen=True)
class Unit:
    """One session to harvest: its main file and the sub-agent files read with it."""

    path: Path
    parts: tuple[Path, ...] = ()

    @property
    def files(self) -> tuple[Path, ...]:
        """Every file of the session, main file first."""
        return (self.path, *self.parts)


def part_of(path: Path) -> Part:
    """What a transcript file is to its session, from its name and folder."""
    name = path.name
    if "agent-aprompt_suggestion-" in name:
        return "prompt_suggestion"
    if "agent-acompact-" in name:
        return "compact"
    if path.parent.name == SUBAGENT_DIR or _AGENT_NAME.search(name):
        return "agent"
    return "main"


def companions(path: Path) -> tuple[Path, ...]:
    """The sub-agent files in the session folder beside a main session file (``<stem>/subagents/*.jsonl``)."""
    stem = path.name[: path.name.find(".jsonl")] if ".jsonl" in path.name else path.stem
    folder = path.parent / stem / SUBAGENT_DIR
    if not folder.is_dir():
        return ()
    return tuple(sorted(p for p in folder.iterdir() if p.name.endswith(".jsonl") and p.is_file()))


def _session_key(path: Path, fmt: str) -> str | None:
    """The ``sessionId`` a Claude Code file's records carry, else the session folder it sits in."""
    try:
        sid = reader.session_of(path, fmt)
    except (GitmemError, OSError):
        sid = None  # a file that cannot be read is reported when it is harvested
    if sid:
        return sid
    if path.parent.name == SUBAGENT_DIR:
        return path.parent.parent.name
    return None


def group(files: Iterable[Path], fmt: str) -> list[Unit]:
    """Group transcript files into sessions: a main file with the sub-agent files of its ``sessionId``.

    Main files keep their order; sub-agent files join the main file of their
    session when it is among ``files`` or holds them in its ``subagents``
    folder. Those left without one are grouped by session on their own, a
    conversation (not a compaction copy or a prompt suggestion) first.
    """
    files = list(files)
    mains = [p for p in files if part_of(p) == "main"]
    agents = [p for p in files if part_of(p) != "main"]
    if not agents and not any(companions(p) for p in mains):
        return [Unit(p) for p in mains]
    by_key: dict[str, list[Path]] = {}
    for p in agents:
        by_key.setdefault(_session_key(p, fmt) or f"file:{p}", []).append(p)
    units: list[Unit] = []
    for p in mains:
        key = _session_key(p, fmt) if by_key or companions(p) else None
        parts = list(companions(p))
        if key is not None:
            parts += by_key.pop(key, [])
        units.append(Unit(p, tuple(_unique(q for q in parts if q != p))))
    for members in by_key.values():
        ranked = sorted(members, key=lambda q: (part_of(q) != "agent", str(q)))
        units.append(Unit(ranked[0], tuple(ranked[1:])))
    return units


def _unique(paths: Iterable[Path]) -> list[Path]:
    seen: set[Path] = set()
    out = []
    for p in paths:
        key = p.resolve()
        if key not in seen:
            seen.add(key)
            out.append(p)
    return out


def merge(main: Transcript, parts: Iterable[tuple[Path, Transcript]]) -> Transcript:
    """The session's transcript: the main file's events, then its sub-agents' conversations as sidechain.

    Compaction copies and prompt suggestions add nothing; a unit led by a
    sub-agent file has its own events marked too.
    """
    events = list(_marked(main.events, part_of(Path(main.path))))
    started, ended = main.started, main.ended
    for path, t in parts:
        if part_of(path) in ("compact", "prompt_suggestion"):
            continue
        events += _marked(t.events, "agent")
        started = min(filter(None, (started, t.started)), default=None)
        ended = max(filter(None, (ended, t.ended)), default=None)
    return replace(main, events=tuple(events), started=started, ended=ended)


def _marked(events: Iterable[Event], part: Part) -> list[Event]:
    if part == "main":
        return list(events)
    # Nobody typed a prompt suggestion: meta as well, so no reading takes it for the user's words.
    meta = part == "prompt_suggestion"
    return [replace(e, sidechain=True, meta=e.meta or meta) for e in events]
