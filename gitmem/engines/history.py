"""Provenance from git history: ``why`` one memory, and the weekly review."""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from datetime import datetime, timedelta

from gitmem.base.gitio import CommitInfo, Git, Trailers
from gitmem.base.model import DOMAINS, Memory, legacy_path, memory_path

EVENT_VERBS = {
    "memory.create": "created", "memory.reinforce": "reinforced", "memory.decay": "decayed",
    "memory.forget": "archived", "memory.import": "imported", "memory.link": "linked",
    "memory.session_end": "kept from working memory", "harvest.session": "harvested",
    "reflect.patterns": "folded into a pattern", "repo.rollback": "rolled back",
    "render.sync_core": "core and layers rendered", "repo.init": "repository created",
}


@dataclass(frozen=True)
class Step:
    commit: str
    time: str
    event: str
    subject: str
    author: str
    trailers: dict[str, str] = field(default_factory=dict)

    def to_json(self) -> dict[str, object]:
        """The step as JSON-able data (``--json`` output)."""
        return {"commit": self.commit, "time": self.time, "event": self.event, "subject": self.subject,
                "author": self.author, "trailers": self.trailers}


@dataclass(frozen=True)
class Why:
    memory: Memory
    source: str
    steps: tuple[Step, ...]          # oldest first

    def to_json(self) -> dict[str, object]:
        """What ``why --json`` prints."""
        return {"id": self.memory.id, "source": self.source, "path": self.memory.path,
                "history": [s.to_json() for s in self.steps]}


def _step(info: CommitInfo, trailers: Trailers) -> Step:
    event = trailers.get("Gitmem-Event") or "person"
    return Step(info.id, info.time, EVENT_VERBS.get(event, event), info.subject, info.author,
                trailers.last_values())


def steps_of(git: Git, infos: list[CommitInfo]) -> list[tuple[Step, Trailers]]:
    """Each commit as a step, with every trailer it carries (read by git in one process)."""
    found = git.trailers([info.id for info in infos])
    out = []
    for info in infos:
        trailers = found.get(info.id, Trailers())
        out.append((_step(info, trailers), trailers))
    return out


_LINK_SUBJECT = re.compile(r"gitmem: link (\S+) -([a-z][a-z0-9_-]{0,39})-> (\S+)")


def links_made(git: Git, rev: str | None) -> frozenset[tuple[str, str, str]]:
    """(from, to, relation) of every link as a person made it, read from the link commits."""
    if rev is None:
        return frozenset()
    found = (_LINK_SUBJECT.fullmatch(info.subject) for info in git.log(rev))
    return frozenset((m.group(1), m.group(3), m.group(2)) for m in found if m)


def why(git: Git, rev: str, memory: Memory) -> Why:
    """Every commit that created, changed, moved or reverted ``memory``."""
    paths = tuple(sorted({memory.path} | {f(d, memory.id, a) for f in (memory_path, legacy_path)
                                          for d in DOMAINS for a in (False, True)}))
    steps = [step for step, _ in steps_of(git, list(git.log(rev, path=paths)))]
    return Why(memory, memory.source, tuple(reversed(steps)))


@dataclass(frozen=True)
class Review:
    """What changed in memory since a time: ``counts`` of things, each key naming its unit
    ("memories created", "links made"), ``commits`` per event, and the commits themselves."""

    since: str
    counts: dict[str, int]
    steps: tuple[Step, ...]          # newest first
    commits: dict[str, int] = field(default_factory=dict)

    def to_json(self) -> dict[str, object]:
        """What ``consolidate --json`` prints."""
        return {"since": self.since, "counts": self.counts, "commits_by_event": self.commits,
                "commits": [s.to_json() for s in self.steps]}


def parse_since(text: str, now: datetime) -> datetime:
    """'7d', '12h', '2w' or an ISO date."""
    from gitmem.base.clock import parse_time
    from gitmem.base.errors import ArgumentError, UsageError

    units = {"h": 1 / 24, "d": 1, "w": 7}
    if text and text[-1] in units and text[:-1].isdigit():
        try:
            return now - timedelta(days=int(text[:-1]) * units[text[-1]])
        except (OverflowError, ValueError):
            raise ArgumentError(f"--since {text!r} reaches before the year 1",
                             hint="give a shorter duration, or an ISO date such as 2026-01-01") from None
    try:
        return parse_time(text)
    except UsageError:
        raise ArgumentError(f"--since {text!r} is neither a duration (7d, 12h, 2w) nor an ISO date",
                            hint="the accepted formats: a number and h, d or w (12h, 7d, 2w), "
                                 "or an ISO date such as 2026-01-01") from None


_MEMORY_EVENTS = ("memory.create", "memory.reinforce", "memory.import", "memory.session_end", "harvest.session")


def _add(counts: dict[str, int], key: str, n: int) -> None:
    if n:
        counts[key] = counts.get(key, 0) + n


def _count(git: Git, info: CommitInfo, event: str, counts: dict[str, int]) -> None:
    """Add what one commit did, in memories, patterns and links (not in commits)."""
    from gitmem.base.model import ARCHIVE_DIR, MEMORY_DIR

    body = info.message
    if event == "memory.decay":
        _add(counts, "memories archived", body.count(": archived"))
        _add(counts, "band changes", body.count(": band "))
        _add(counts, "promoted to long-term", body.count("tier short -> long"))
        return
    if event == "memory.link":
        _add(counts, "links made", 1)
        return
    if event not in (*_MEMORY_EVENTS, "memory.forget", "reflect.patterns"):
        return
    changes = git.diff(info.parents[0] if info.parents else None, info.id)
    for change in changes:
        top = change.path.split("/", 1)[0]
        if event == "reflect.patterns":
            if change.path.startswith("patterns/"):
                _add(counts, "patterns created" if change.status == "A" else "patterns verified again", 1)
        elif top == MEMORY_DIR and change.status == "A":
            _add(counts, "memories created", 1)
        elif top == MEMORY_DIR and change.status == "M" and event in _MEMORY_EVENTS:
            _add(counts, "memories reinforced", 1)
        elif top == ARCHIVE_DIR and change.status == "A":
            _add(counts, "memories archived", 1)
    if event == "reflect.patterns" and "consumed: " in body:
        ids = body.split("consumed: ", 1)[1].split("\n", 1)[0]
        _add(counts, "memories folded into patterns", len([i for i in ids.split(", ") if i.strip()]))


def consolidate(git: Git, rev: str | None, since: datetime) -> Review:
    """What changed in memory since ``since``: things counted as themselves, commits apart."""
    from gitmem.base.model import iso

    stamp = iso(since)
    steps: list[Step] = []
    counts: dict[str, int] = {}
    commits: dict[str, int] = {}
    infos: list[CommitInfo] = []
    if rev is not None:
        for info in git.log(rev):
            if info.time < stamp:
                break
            infos.append(info)
    for info, (step, trailers) in zip(infos, steps_of(git, infos)):
        steps.append(step)
        commits[step.event] = commits.get(step.event, 0) + 1
        _count(git, info, trailers.get("Gitmem-Event") or "", counts)
    return Review(stamp, counts, tuple(steps), commits)
