"""Distill: where a reflection's rule goes, and the text that puts it there.

    error_fix    -> bank/TABOOS.md
    process      -> skills/<skill>/SKILL.md (an existing skill; a new one only by promotion)
    role/project -> bank/characters/<role>.md when it exists, else the day file bank/days/YYYY-MM-DD.md
    preference, routine (general principles) -> bank/MEMORY.md, under the section of its first domain tag

Distill creates no file but the day file; ``route`` says which file, ``insert`` the new text.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Callable

from gitmem.base import mdio
from gitmem.engines.sediment.entry import KIND_TAGS, Reflection

TABOOS = "bank/TABOOS.md"
MEMORY = "bank/MEMORY.md"
REFLECTIONS = "bank/reflections.md"
PROMOTIONS = "bank/promotions.md"


@dataclass(frozen=True)
class Route:
    """Where a reflection goes; ``creates``: the file is made by this write (the day file, a new skill)."""

    path: str
    section: str
    creates: bool


def skill_file(name: str) -> str:
    """A skill's file."""
    return f"skills/{name}/SKILL.md"


def route(r: Reflection, exists: Callable[[str], bool], promotion: bool = False) -> Route | None:
    """The target of ``r``; None when it has none distill may write (a process without an existing skill,
    outside a promotion)."""
    if r.kind == "error_fix":
        return Route(TABOOS, "", False)
    if r.kind == "process" and r.skill:
        path = skill_file(r.skill)
        if exists(path):
            return Route(path, "", False)
        return Route(path, "", True) if promotion else None
    if r.role:
        path = f"bank/characters/{r.role}.md"
        if exists(path) or promotion:   # a promotion may add a role (a capability: a person decides)
            return Route(path, "", not exists(path))
        day = f"bank/days/{r.date}.md"
        return Route(day, "", not exists(day))
    return Route(MEMORY, section_of(r), False)


def section_of(r: Reflection) -> str:
    """The MEMORY.md section of a general principle: its first tag that is no kind tag, capitalised."""
    skip = {"#experience", *KIND_TAGS.values()}
    domain = next((t.lstrip("#") for t in r.tags if t not in skip), "")
    return domain[:1].upper() + domain[1:] if domain else "General"


def rule_line(r: Reflection, promoted: bool = False) -> str:
    """The one list item a rule is: its reusable point and where it came from (a promoted rule says so)."""
    return f"- {'Rule: ' if promoted else ''}{mdio.escape_item(r.reusable)} ({r.id}, {r.date}{', promoted' if promoted else ''})\n"


def own_line(text: str, r: Reflection) -> str | None:
    """The line distill wrote for ``r`` into ``text`` (a promotion turns it into the rule), or None."""
    return next((line for line in text.splitlines() if line.startswith("- ") and f"({r.id}, " in line), None)


def new_file(route_: Route, r: Reflection, promoted: bool = False) -> str:
    """The text of a file a route creates (a day file, a promoted skill or role)."""
    line = rule_line(r, promoted)
    if route_.path.startswith("skills/"):
        return f"# {mdio.escape_item(r.skill)}\n\n{mdio.escape_item(r.topic)}\n\n## Rules\n\n" + line
    if route_.path.startswith("bank/characters/"):
        return f"# {mdio.escape_item(r.role)}\n\n" + line
    return f"# {r.date}\n\n" + line


def rewritten(text: str, r: Reflection, similar: Callable[[str, str], float], at_least: float) -> str | None:
    """The rule line of ``text`` that ``r`` restates (a rewrite of an existing rule), or None."""
    for line in text.splitlines():
        if line.startswith("- ") and f"({r.id}, " not in line and similar(
                line[2:].removeprefix("Rule: ").rsplit(" (r-", 1)[0], r.reusable) >= at_least:
            return line
    return None


def insert(text: str, route_: Route, r: Reflection, replacing: str | None = None, promoted: bool = False) -> str:
    """``text`` with ``r``'s rule added (in place of ``replacing`` when given): at the end of its section
    when it has one, else at the end."""
    line = rule_line(r, promoted)
    body = text if text.endswith("\n") or not text else text + "\n"
    if replacing is not None and replacing + "\n" in body:
        return body.replace(replacing + "\n", line, 1)
    if not route_.section:
        return body + line
    heading = f"## {route_.section}"
    lines = body.splitlines(keepends=True)
    at = next((i for i, x in enumerate(lines) if x.rstrip("\n") == heading), None)
    if at is None:
        return body + ("" if body.endswith("\n\n") or not body else "\n") + f"{heading}\n\n" + line
    end = next((i for i in range(at + 1, len(lines)) if lines[i].startswith("#")), len(lines))
    while end > at + 1 and not lines[end - 1].strip():
        end -= 1
    return "".join(lines[:end]) + line + "".join(lines[end:])
