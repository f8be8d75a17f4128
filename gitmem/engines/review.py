"""Review branches: their names, what a person reads before deciding, and atrophy candidates.

A weight update or stage move proposed for review is one commit on
``gitmem/review/weights-<stamp>``; an atrophy deletion one commit on
``gitmem/atrophy/<slug>``. The harvest inbox, ``gitmem/review/harvest-<stamp>``,
holds memories a harvest was unsure of, one commit per harvest; a person keeps
or drops them item by item (``InboxItem``, ``parse_only``). A rejected branch
moves under ``refs/gitmem/rejected/`` and stays there for audit. What each kind
may change is declared in ``gitmem.engines.reviewkinds`` (the name only finds
the kind; the diff is judged). ``semantic_diff`` says in words what a branch
changes in patterns; ``visible`` shows every invisible or direction-changing
character, so what is reviewed is what is stored.
"""

from __future__ import annotations

import hashlib
import re
import unicodedata
from dataclasses import dataclass
from datetime import datetime, timedelta, timezone
from typing import Literal, Mapping, Sequence

from gitmem.base.errors import UsageError

TYPE_CHECKING = False
if TYPE_CHECKING:
    from gitmem.base.config import Hebbian
    from gitmem.base.model import Memory
    from gitmem.engines.hebbian import HebbState
    from gitmem.store.documents import Pattern

from gitmem.engines.reviewkinds import ATROPHY as ATROPHY, REVIEW as REVIEW, kind_of

REJECTED = "refs/gitmem/rejected/"
PREFIXES = (REVIEW, ATROPHY)
RECENT_DAYS = 30          # a pattern activated this recently is never proposed for atrophy
_BIDI = frozenset("\u061c\u200e\u200f\u202a\u202b\u202c\u202d\u202e\u2066\u2067\u2068\u2069")


def weights_branch(now: datetime) -> str:
    """The branch of a weight update proposed at ``now``."""
    return REVIEW + "weights-" + now.astimezone(timezone.utc).strftime("%Y%m%dT%H%M%SZ")


def harvest_branch(now: datetime) -> str:
    """The branch of a harvest inbox opened at ``now``."""
    return REVIEW + "harvest-" + now.astimezone(timezone.utc).strftime("%Y%m%dT%H%M%SZ")


def promote_branch(slug: str) -> str:
    """The branch that proposes moving pattern ``slug`` into Layer 1 (CORE)."""
    return REVIEW + "promote-" + slug


def atrophy_branch(slug: str) -> str:
    """The branch that proposes deleting pattern ``slug``."""
    return ATROPHY + slug


def kind(branch: str) -> str:
    """The name of the review kind ``branch`` is (``weights``, ``harvest``, ``promote``, ``atrophy``, … see
    ``gitmem.engines.reviewkinds``), or ``other``: a branch of no kind, which nothing is in the scope of."""
    found = kind_of(branch)
    return found.name if found is not None else "other"


def is_review(branch: str) -> bool:
    """True for a branch gitmem opened for review."""
    return branch.startswith(PREFIXES)


def rejected_ref(branch: str) -> str:
    """Where a rejected branch is kept."""
    return REJECTED + branch


def _hidden(ch: str) -> bool:
    """True for a character ``visible`` shows as <U+XXXX>."""
    if ch in "\n\t":
        return False
    category = unicodedata.category(ch)
    return ch in _BIDI or category in ("Cc", "Cf", "Co", "Cs", "Zl", "Zp") or (category == "Zs" and ch != " ")


def visible(text: str) -> str:
    """``text`` with every invisible, control or bidirectional character shown as <U+XXXX>."""
    hidden = [ch for ch in set(text) if _hidden(ch)]   # each distinct character looked up once
    return text.translate({ord(ch): f"<U+{ord(ch):04X}>" for ch in hidden}) if hidden else text


def _state(p: Pattern) -> HebbState:
    from gitmem.engines import hebbian

    return hebbian.state_of(p.weight, p.stage, p.created, dict(p.meta))


def _evidence(state: HebbState, entries: int) -> tuple[str, str]:
    """(the day of the last activation or "never", the last ``entries`` of the weight history) as text."""
    history = ", ".join(f"{at[:10]} {w:.6g}" for at, w in state.history[-entries:]) or "none"
    return state.last_activated[:10] or "never", history


def semantic_diff(before: Mapping[str, Pattern], after: Mapping[str, Pattern]) -> list[str]:
    """What a review changes in patterns, in words: weights, stages, patterns added or deleted, text changed.
    Every other path is listed by ``reviewkinds.Change.shown``, deletions as deletions."""
    lines = []
    for slug in sorted(before.keys() | after.keys()):
        old, new = before.get(slug), after.get(slug)
        if new is None and old is not None:
            last, history = _evidence(_state(old), 8)
            lines.append(f"delete {visible(slug)}: weight {old.weight:.6g}, stage {old.stage}, "
                         f"last activated {last}; weight history: {history}")
        elif old is None and new is not None:
            lines.append(f"add {visible(slug)}: weight {new.weight:.6g}, stage {new.stage}, "
                         f"title {visible(new.title)!r}")
        elif old is not None and new is not None:
            parts = []
            if old.weight != new.weight:
                parts.append(f"weight {old.weight:.6g} -> {new.weight:.6g}")
            if old.stage != new.stage:
                parts.append(f"stage {old.stage} -> {new.stage}")
            if old.title != new.title or old.lessons != new.lessons or old.triggers != new.triggers:
                parts.append("text changed")
            if parts:
                lines.append(f"{visible(slug)}: " + ", ".join(parts))
    return lines


@dataclass(frozen=True)
class Atrophied:
    """A pattern to propose for deletion, with the evidence a person reads."""

    pattern: Pattern
    under_since: str
    evidence: str


def under_since(p: Pattern, threshold: float, state: HebbState | None = None) -> str:
    """When ``p``'s weight last went under ``threshold`` and stayed there ("" when it is not under)."""
    if p.weight >= threshold:
        return ""
    since = p.created
    for at, w in (state or _state(p)).history:
        if w >= threshold:
            since = ""
        elif not since:
            since = at
    return since


def atrophy_candidates(patterns: Sequence[Pattern], now: datetime, cfg: Hebbian, blocked: set[str]) -> list[Atrophied]:
    """Patterns under ``delete_below`` for ``atrophy_weeks``, not activated within 30 days, not ``blocked``
    (an open atrophy branch or an earlier rejection)."""
    from gitmem.base.clock import parse_time

    found = []
    limit = now - timedelta(weeks=cfg.atrophy_weeks)
    recent = now - timedelta(days=RECENT_DAYS)
    for p in patterns:
        if p.slug in blocked or p.stage == "core":
            continue
        state = _state(p)
        since = under_since(p, cfg.delete_below, state)
        if not since:
            continue
        try:
            if parse_time(since) > limit:
                continue
            if state.last_activated and parse_time(state.last_activated) > recent:
                continue
        except ValueError:
            continue
        last, history = _evidence(state, 12)
        evidence = (f"weight {p.weight:.6g} under delete_below {cfg.delete_below} since {since[:10]} "
                    f"({cfg.atrophy_weeks} weeks or more); last activated: {last}\n"
                    f"weight history: {history}")
        found.append(Atrophied(p, since, evidence))
    return found


# --- the harvest inbox ------------------------------------------------------------------

Decision = Literal["keep", "drop"]
_SOURCE = re.compile(r"^session:(?P<session>[^#]*)#L(?P<line>\d+)$")


@dataclass(frozen=True)
class InboxItem:
    """One memory of the harvest inbox, numbered as ``review show`` lists it."""

    number: int
    path: str
    id: str
    text: str
    kind: str
    session: str
    line: int
    key: str = ""          # the candidate it was scored from (line:part:hash), when the scorer said

    def to_json(self) -> dict[str, object]:
        """One entry of ``review show --json``'s ``items``."""
        return {"number": self.number, "path": self.path, "id": self.id, "text": self.text, "kind": self.kind,
                "session": self.session, "line": self.line, "key": self.key}

    def shown(self) -> str:
        """The item as a person reads it: number, kind, text, where it was said."""
        return f"{self.number}. [{visible(self.kind)}] {visible(self.text)} (session {visible(self.session)}, " \
               f"line {self.line})"


def inbox_item(number: int, mem: Memory) -> InboxItem:
    """The item memory ``mem`` is: its kind from its harvest tag, session and line from its source."""
    kinds = [t for t in mem.tags if t != "harvest"]
    found = _SOURCE.match(mem.source or "")
    return InboxItem(number, mem.path, mem.id, mem.content, kinds[0] if kinds else mem.type,
                     found["session"] if found else "", int(found["line"]) if found else 0, mem.source_id or "")


def is_inbox_path(path: str) -> bool:
    """Whether a harvest inbox may add ``path``: a memory document, nothing else."""
    from gitmem.engines.reviewkinds import is_memory_path

    return is_memory_path(path)


def parse_only(spec: str, count: int) -> tuple[int, ...]:
    """The item numbers ``--only`` names ("1,3"), in order given; a usage error for anything else."""
    hint = f"give item numbers from 1 to {count}, separated by commas (see `gitmem review show`)"
    parts = [p.strip() for p in spec.split(",")]
    numbers: list[int] = []
    for part in parts:
        if not part.isascii() or not part.isdigit():
            raise UsageError(f"--only {spec!r}: {part!r} is not an item number", hint=hint)
        n = int(part)
        if not 1 <= n <= count:
            raise UsageError(f"--only {spec!r}: there is no item {n} (the inbox holds {count})", hint=hint)
        if n in numbers:
            raise UsageError(f"--only {spec!r}: item {n} is named twice", hint=hint)
        numbers.append(n)
    return tuple(numbers)


def text_hash(text: str) -> str:
    """The hash a decision records instead of the text, as a candidate's key hashes its own: sha1, 12 hex."""
    return hashlib.sha1(text.encode("utf-8")).hexdigest()[:12]


def decision_record(item: InboxItem, decision: Decision, branch: str, at: str) -> dict[str, object]:
    """One line of the per-clone decisions file: where the item came from and what a person decided, no text.

    ``key``: the candidate's key when the scorer gave it (its text may be longer than the memory's);
    ``hash``: of the memory's text.
    """
    return {"at": at, "inbox": branch, "session": item.session, "line": item.line, "kind": item.kind,
            "decision": decision, "hash": text_hash(item.text), "key": item.key, "memory": item.id}
