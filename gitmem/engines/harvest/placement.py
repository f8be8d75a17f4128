"""Where a harvested memory goes: a concise statement, the domain it holds in, an importance below core.

A memory harvest makes is a statement of at most ``MAX_STATEMENT`` characters,
never a pasted turn: a longer text keeps its whole first sentences, or, when
its first sentence alone is too long, ends at a word with an ellipsis.

Every session loads the core band. Only a durable rule about how the agent
should work for this person (domain ``user``, kind preference, remember or
correction) may reach it from a harvest; any other harvested memory (a project
fact, a decision, a lesson) is created, and reinforced, just below
``tiers.core``. A person lifts one higher with ``remember --importance``.
"""

from __future__ import annotations

import re

from gitmem.base.config import Memory as MemoryConfig
from gitmem.base.text import CJK

__all__ = ["MAX_STATEMENT", "USER_RULE_KINDS", "below_core", "concise", "domain_of", "importance", "is_user_rule"]

MAX_STATEMENT = 300
USER_RULE_KINDS = frozenset({"preference", "remember", "correction"})
CORE_MARGIN = 0.01           # how far under tiers.core a harvested memory that is no user rule stays

# The end of a sentence: Latin punctuation before a space, CJK punctuation anywhere.
_END = re.compile(r"[.!?;](?=\s)|[。！？；]")
_CJK = re.compile(f"[{CJK}]")


def concise(text: str, limit: int = MAX_STATEMENT) -> str:
    """``text`` on one line within ``limit`` characters, cut at a sentence end, else at a word (never inside one)."""
    text = " ".join(text.split())
    if len(text) <= limit:
        return text
    cut = 0
    for m in _END.finditer(text, 0, limit):
        cut = m.end()
    if cut >= limit // 3:     # whole sentences that say enough on their own
        return text[:cut]
    head = text[: limit - 1]
    space = head.rfind(" ")
    if space >= limit // 3:
        head = head[:space]
    elif not (_CJK.match(text[limit - 2]) or _CJK.match(text[limit - 1])):
        # one run with no space (a path, a URL): only its start is kept, whole up to the last separator
        sep = max(head.rfind(c) for c in "/-_.,")
        head = head[:sep] if sep >= limit // 3 else head
    return head.rstrip(" ,;:—–-") + "…"


def domain_of(kind: str, encoded: str) -> str:
    """The domain of a harvested memory: a stated preference is the person's (it holds in every project)."""
    return "user" if kind == "preference" and encoded in ("world", "project") else encoded


def is_user_rule(kind: str, domain: str) -> bool:
    """Whether a harvested memory of ``kind`` in ``domain`` is a durable rule for this person: it may reach core."""
    return domain == "user" and kind in USER_RULE_KINDS


def below_core(cfg: MemoryConfig) -> float:
    """The highest importance a harvested memory that is no user rule is created or reinforced at."""
    return round(max(0.0, cfg.tiers.core - CORE_MARGIN), 4)


def importance(kind: str, domain: str, proposed: float, cfg: MemoryConfig) -> float:
    """``proposed``, kept under the core band unless the memory is a user rule (``is_user_rule``)."""
    return proposed if is_user_rule(kind, domain) else min(proposed, below_core(cfg))
