"""Memories that share names with the top hits: one bounded hop for questions that need more than one memory.

A question such as "what did Melanie paint after the camping trip?" is
answered by two memories, and its words reach only one of them. The other
one shares a name or a rare word with it ("the lake", "sunrise"). So after
the ranking, the words of the best ``SEEDS`` hits that the question does not
ask, and that at least one other memory holds (``MIN_SHARED``), are taken,
the ``PER_SEED`` rarest of each hit, and asked as a query of their own. A
memory that this second query finds and the first did not enters at
``WEIGHT`` times its own score, so it only fills the places below the hits
that matched the question well; the first hits keep their order.

Bounded: one hop, one more query of at most ``SEEDS * PER_SEED`` terms, no
more candidates than the first query's. Measured on the LoCoMo dev split
(``bench/recall_quality.py --by-category``); the multi-hop category gains most.
"""

from __future__ import annotations

TYPE_CHECKING = False  # typing costs milliseconds of every recall process: annotations only
if TYPE_CHECKING:
    from collections.abc import Sequence
    from typing import Any

# How many top hits are followed, how many of each one's rarest shared terms, and how much a memory
# reached that way weighs against one the question reached.
SEEDS = 3
PER_SEED = 3
WEIGHT = 0.5
# A term is shared when at least this many memories hold it (the seed and another).
MIN_SHARED = 2


def shared_terms(seeds: Sequence[Sequence[str]], asked: set[str], docs: dict[str, int]) -> list[str]:
    """The terms to follow: of each seed's terms (stems), the ``PER_SEED`` rarest that the question does not
    ask and that another memory holds, rarest first, then alphabetically (so the choice never varies)."""
    out: list[str] = []
    for terms in seeds:
        own = sorted({t for t in terms if t not in asked and docs.get(t, 0) >= MIN_SHARED},
                     key=lambda t: (docs[t], t))
        out.extend(t for t in own[:PER_SEED] if t not in out)
    return out


def merged(hits: list[Any], more: list[Any], k: int) -> list[Any]:
    """``hits`` (the question's, best first) and the memories only ``more`` found, at ``WEIGHT`` times their
    score, ranked by score; the best ``k``. Both are lists of ``gitmem.store.index.Hit``."""
    seen = {h.id for h in hits}
    reached = [h._replace(score=WEIGHT * h.score) for h in more if h.id not in seen]
    return sorted([*hits, *reached], key=lambda h: -h.score)[:k]
