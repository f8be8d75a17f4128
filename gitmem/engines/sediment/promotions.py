"""``bank/promotions.md``: the seed's metadata block and one entry per promotion.

    ## System metadata
    **Threshold**: 15
    **Promotions in the last hour**: 0
    **Override lock until**: null
    **Threshold history**: [{"date": "...", "from": 15, "to": 17, "reason": "3 vetoes in a row"}]
    ---
    ## [date] topic
    **Priority**: how it was computed
    **Trigger**: which condition
    **Source**: reflections.md [date] id
    **Target**: where it went
    ---
"""

from __future__ import annotations

import json
from dataclasses import dataclass

from gitmem.base import mdio
from gitmem.engines.sediment.entry import SEPARATOR, Reflection
from gitmem.engines.sediment.threshold import Threshold

META = "## System metadata"


@dataclass(frozen=True)
class Promotion:
    """One accepted promotion as the log records it."""

    reflection: Reflection
    formula: str
    trigger: str
    target: str
    review: str
    decided_by: str

    def render(self) -> str:
        """The entry appended to the log: nine lines, within the amplitude floor a review's merge is held to."""
        r = self.reflection
        return (f"\n## [{r.date}] {mdio.escape_item(r.topic)}\n"
                f"**Priority**: {mdio.escape_item(self.formula)}\n"
                f"**Trigger**: {mdio.escape_item(self.trigger)}\n"
                f"**Source**: reflections.md [{r.date}] {r.id}\n"
                f"**Target**: {mdio.escape_item(self.target)}\n"
                f"**Review**: {mdio.escape_item(self.review)} accepted by {mdio.escape_item(self.decided_by)}\n"
                f"\n{SEPARATOR}\n")


def metadata(t: Threshold) -> str:
    """The metadata block for threshold ``t``."""
    history = json.dumps([c.to_json() for c in t.history], ensure_ascii=False)
    return (f"{META}\n\n**Threshold**: {t.value:g}\n**Promotions in the last hour**: {t.recent_promotions}\n"
            f"**Override lock until**: {t.locked_until or 'null'}\n**Threshold history**: {history}\n\n{SEPARATOR}\n")


def with_metadata(text: str, t: Threshold) -> str:
    """``text`` with its metadata block replaced (or added after the title)."""
    block = metadata(t)
    lines = text.splitlines(keepends=True)
    at = next((i for i, x in enumerate(lines) if x.rstrip("\n") == META), None)
    if at is not None:
        end = next((i for i in range(at, len(lines)) if lines[i].rstrip("\n") == SEPARATOR), len(lines) - 1)
        return "".join(lines[:at]) + block + "".join(lines[end + 1:])
    first = next((i for i, x in enumerate(lines) if x.startswith("## [")), None)
    if first is not None:   # the block comes before the entries, as in the seed
        return "".join(lines[:first]) + block + "\n" + "".join(lines[first:])
    body = text if text.endswith("\n") else text + "\n"
    return body + "\n" + block


def add(text: str, promotion: Promotion) -> str:
    """``text`` with ``promotion`` appended."""
    return (text if text.endswith("\n") else text + "\n") + promotion.render()


def sources(text: str) -> list[str]:
    """The reflection ids the log's entries came from, in order."""
    return [line.rsplit(" ", 1)[-1].strip() for line in text.splitlines() if line.startswith("**Source**: ")]


def remove(text: str, ids: set[str]) -> tuple[str, int]:
    """``text`` without the entries that came from reflections ``ids``, and how many went."""
    out: list[str] = []
    block: list[str] = []
    removed = 0
    inside = False
    for line in text.splitlines(keepends=True):
        if line.startswith("## [") and not inside:
            inside, block = True, [line]
            continue
        if inside:
            block.append(line)
            if line.rstrip("\n") == SEPARATOR:
                inside = False
                if any(b.startswith("**Source**: ") and b.rsplit(" ", 1)[-1].strip() in ids for b in block):
                    removed += 1
                    while out and not out[-1].strip():
                        out.pop()
                    out.append("\n") if out else None
                else:
                    out.extend(block)
            continue
        out.append(line)
    out.extend(block if inside else [])
    return "".join(out), removed
