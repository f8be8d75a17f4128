"""A reflection entry of ``bank/reflections.md`` in the seed's format, and the seed's trigger pre-check.

An entry is a ``## [date] topic`` heading and one ``**Label**: value`` line per
field, closed by ``---``. Every value is one line escaped for Markdown
(``mdio.escape_item``), so a reflection can open no heading or block of its
own; ``parse`` reads back what ``render`` wrote and skips what it cannot read.
"""

from __future__ import annotations

import hashlib
from dataclasses import dataclass
from datetime import datetime, timedelta
from typing import Literal

from gitmem.base import mdio

Kind = Literal["error_fix", "process", "preference", "routine"]
Result = Literal["good", "bad", "neutral"]
Step = Literal["skip_all", "skip_reflect", "reflect"]
KINDS: tuple[Kind, ...] = ("error_fix", "process", "preference", "routine")
RESULTS: tuple[Result, ...] = ("good", "bad", "neutral")
KIND_TAGS: dict[Kind, str] = {"error_fix": "#error", "process": "#process", "preference": "#preference",
                              "routine": "#routine"}
SIMILAR = 0.8          # the seed: more than 0.8 similar to one of the last 3 reflections skips reflect
RECENT = 3
SEPARATOR = "---"


@dataclass(frozen=True)
class Reflection:
    """One entry: the seed's fields, plus what routing and promotion need."""

    id: str
    at: str                       # ISO time it was written
    topic: str
    context: str
    approach: str
    result: Result
    score: int
    reusable: str
    tags: tuple[str, ...]
    kind: Kind
    skill: str = ""               # a process improvement's skill
    role: str = ""                # a role- or project-specific reflection's file under bank/characters/
    likes: int = 0
    repeat: bool = False          # the same error class failed twice in a row
    deviation: bool = False       # a "did this drift from the goal?" entry (TTL)
    loop: str = ""                # the loop (session) it closes: at most one entry per loop
    source: str = "agent"
    distilled: str = ""           # where distill put it
    promoted: str = ""            # the review branch that proposes it

    @property
    def date(self) -> str:
        """The day of the heading."""
        return self.at[:10]

    def text(self) -> str:
        """What similarity compares: the topic, the approach and the reusable point."""
        return " ".join((self.topic, self.approach, self.reusable))

    def to_json(self) -> dict[str, object]:
        """The entry as ``sediment ... --json`` prints it."""
        return {"id": self.id, "at": self.at, "topic": self.topic, "context": self.context,
                "approach": self.approach, "result": self.result, "score": self.score, "reusable": self.reusable,
                "tags": list(self.tags), "kind": self.kind, "skill": self.skill, "role": self.role,
                "likes": self.likes, "repeat": self.repeat, "deviation": self.deviation, "loop": self.loop,
                "source": self.source, "distilled": self.distilled, "promoted": self.promoted}


def new_id(at: str, topic: str, reusable: str) -> str:
    """A stable id from the time, topic and reusable point: ``r-`` and 10 hex digits."""
    return "r-" + hashlib.sha1(f"{at}\n{topic}\n{reusable}".encode("utf-8")).hexdigest()[:10]


def tags_of(kind: Kind, tags: tuple[str, ...]) -> tuple[str, ...]:
    """``#experience``, the kind's tag and the given ones (each one word, ``#``-prefixed), once each."""
    cleaned = ["#" + "".join(ch for ch in t.lstrip("#") if ch.isalnum() or ch in "_-") for t in tags]
    return tuple(dict.fromkeys(["#experience", KIND_TAGS[kind], *[t for t in cleaned if len(t) > 1]]))


_LABELS = (("Context", "context"), ("Approach", "approach"), ("Result", "result"), ("Score", "score"),
           ("Reusable", "reusable"), ("Tags", "tags"))
_BY_LABEL = {**dict(_LABELS), "Meta": "meta"}
_META = ("id", "at", "kind", "skill", "role", "likes", "repeat", "deviation", "loop", "source", "distilled", "promoted")
TOKEN = r"[A-Za-z0-9_.:#/+-]{0,200}"    # what a meta value may hold (ids, times, names, paths, branches)


def render(r: Reflection) -> str:
    """The entry as it is appended to ``bank/reflections.md``: the seed's six lines, one ``Meta`` line with
    what routing and promotion need, ``---``; ten lines, so one entry fits the amplitude floor."""
    values: dict[str, object] = {**r.to_json(), "tags": " ".join(r.tags), "repeat": "yes" if r.repeat else "no",
                                 "deviation": "yes" if r.deviation else "no"}
    lines = [f"## [{r.date}] {mdio.escape_item(r.topic)}"]
    lines += [f"**{label}**: {mdio.escape_item(str(values[key]))}" for label, key in _LABELS]
    lines.append("**Meta**: " + "; ".join(f"{k}={values[k]}" for k in _META if str(values[k]) != ""))
    return "\n".join(lines) + "\n\n" + SEPARATOR + "\n"


def parse(text: str) -> list[Reflection]:
    """The entries of a reflections file, in file order."""
    found: list[Reflection] = []
    topic: str | None = None
    fields: dict[str, str] = {}
    for line in (text + "\n## ").splitlines():
        if line.startswith("## "):
            if topic is not None:
                made = _entry(topic, fields)
                if made is not None:
                    found.append(made)
            head = line[3:]
            topic = mdio.unescape_item(head.split("] ", 1)[1]) if head.startswith("[") and "] " in head else None
            fields = {}
        elif topic is not None and line.startswith("**") and "**: " in line:
            label, value = line[2:].split("**: ", 1)
            if label == "Meta":
                for pair in value.split("; "):
                    key, _, v = pair.partition("=")
                    if key in _META:
                        fields[key] = v
            elif label in _BY_LABEL:
                fields[_BY_LABEL[label]] = mdio.unescape_item(value)
    return found


def _entry(topic: str, f: dict[str, str]) -> Reflection | None:
    kind, result = f.get("kind", ""), f.get("result", "")
    if not f.get("id") or kind not in KINDS or result not in RESULTS:
        return None
    try:
        score, likes = int(f.get("score", "")), int(f.get("likes", "0"))
    except ValueError:
        return None
    return Reflection(f["id"], f.get("at", ""), topic, f.get("context", ""), f.get("approach", ""),
                      result, score, f.get("reusable", ""), tuple(f.get("tags", "").split()),
                      kind, f.get("skill", ""), f.get("role", ""), max(0, likes),
                      f.get("repeat") == "yes", f.get("deviation") == "yes", f.get("loop", ""),
                      f.get("source", "agent"), f.get("distilled", ""), f.get("promoted", ""))


def _block(lines: list[str], entry_id: str) -> tuple[int, int] | None:
    """(first line, line after the ``---``) of the entry ``entry_id``."""
    at = next((i for i, line in enumerate(lines) if line.startswith("**Meta**: ")
               and line.rstrip("\n")[10:].split("; ")[0] == f"id={entry_id}"), None)
    if at is None:
        return None
    heads = [i for i in range(at + 1) if lines[i].startswith("## ")]
    end = next((i for i in range(at, len(lines)) if lines[i].rstrip("\n") == SEPARATOR), len(lines) - 1)
    return (heads[-1] if heads else at), end + 1


def replace_entry(text: str, updated: Reflection) -> str:
    """``text`` with the entry of ``updated.id`` rendered anew in place (``text`` unchanged when absent)."""
    lines = text.splitlines(keepends=True)
    found = _block(lines, updated.id)
    if found is None:
        return text
    return "".join(lines[:found[0]]) + render(updated) + "".join(lines[found[1]:])


def remove_entries(text: str, ids: set[str]) -> str:
    """``text`` without the entries whose id is in ``ids``."""
    lines = text.splitlines(keepends=True)
    for entry_id in ids:
        found = _block(lines, entry_id)
        if found is not None:
            lines = lines[:found[0]] + lines[found[1]:]
    return "".join(lines)


def precheck(output: str, recent: list[Reflection], similarity: float) -> Step:
    """The seed's trigger pre-check: an empty output skips everything; one more than 0.8 similar
    (``similarity``: its best score against the last 3 entries) skips reflect but allows distill."""
    if not output.strip():
        return "skip_all"
    return "skip_reflect" if recent and similarity > SIMILAR else "reflect"


def within_ttl(new: Reflection, existing: list[Reflection], now: datetime, ttl_hours: float) -> Reflection | None:
    """The earlier deviation entry that makes ``new`` a repeat within ``ttl_hours`` (None: write it).
    Two deviation entries are the same when their topics are the same, case and spacing aside."""
    from gitmem.base.clock import parse_time

    if not new.deviation:
        return None
    key = " ".join(new.topic.casefold().split())
    for old in reversed(existing):
        if not old.deviation or " ".join(old.topic.casefold().split()) != key:
            continue
        try:
            if now - parse_time(old.at) < timedelta(hours=ttl_hours):
                return old
        except ValueError:
            continue
    return None
