"""Drift: how far Layers 1 and 2 of CLAUDE.md moved from a baseline (DESIGN.md section 5).

Both texts become term vectors computed here, with no model and no network:
sublinear term frequency (1 + ln tf) over the stems recall uses (``base/text``,
stop words out). No idf: over two texts it would zero every shared term and
call a one-word edit a total change. The cosine of the two vectors is the
similarity; two empty texts are identical, an empty and a non-empty one share
nothing.

With the embedding model configured, the caller also gives the model's cosine
of the two texts (``meaning``), and the similarity is the larger of the two: a
rewording that keeps the meaning is no drift, while a change of words and
meaning lowers both. Without it nothing changes.

The baseline is a commit pinned in ``.gitmem/state.yaml`` (``drift_baseline``),
else the newest snapshot tag, else there is none and nothing has drifted.
"""

from __future__ import annotations

import math
from collections import Counter
from dataclasses import dataclass
from typing import Callable, Sequence

LAYERS = (1, 2)
PIN_COMMAND = "gitmem check drift --pin"


@dataclass(frozen=True)
class Drift:
    """One comparison: the cosine, the threshold, and which baseline it was measured against."""

    cosine: float
    min_cosine: float
    baseline: str | None         # the baseline commit; None: no baseline yet
    baseline_name: str           # "pinned", a snapshot tag's name, or "none"

    @property
    def ok(self) -> bool:
        """True when the layers stayed at or above the threshold (or there is no baseline)."""
        return self.baseline is None or self.cosine >= self.min_cosine

    def describe(self) -> str:
        """One line for a person."""
        if self.baseline is None:
            return "no baseline yet (take a snapshot with `gitmem snapshot` or pin one with `gitmem check drift --pin`)"
        verdict = "ok" if self.ok else f"below {self.min_cosine:.2f}"
        return (f"Layers 1+2 cosine {self.cosine:.3f} to {self.baseline_name} ({self.baseline[:12]}): {verdict}")

    def to_json(self) -> dict[str, object]:
        """What ``check drift --json`` prints."""
        return {"ok": self.ok, "cosine": round(self.cosine, 6), "min_cosine": self.min_cosine,
                "baseline": self.baseline, "baseline_name": self.baseline_name}


def vector(text: str) -> dict[str, float]:
    """Sublinear term frequencies of ``text``'s stems (stop words left out)."""
    from gitmem.base import text as textmod

    counts = Counter(s for s in textmod.content_stems(text) if s)
    return {term: 1.0 + math.log(n) for term, n in counts.items()}


def cosine(a: dict[str, float], b: dict[str, float]) -> float:
    """Cosine similarity of two term vectors; 1.0 for two empty ones, 0.0 when only one is empty."""
    if not a and not b:
        return 1.0
    if not a or not b:
        return 0.0
    small, large = (a, b) if len(a) <= len(b) else (b, a)
    dot = sum(w * large.get(t, 0.0) for t, w in small.items())
    norm = math.sqrt(sum(w * w for w in a.values())) * math.sqrt(sum(w * w for w in b.values()))
    return min(1.0, dot / norm)


def layer_text(claude_md: str | None) -> str:
    """The content of Layers 1 and 2 of a CLAUDE.md (empty when there is none)."""
    if not claude_md:
        return ""
    from gitmem.guards import layers

    found: dict[int, str] = {}
    for layer in layers.parse(claude_md):
        found.setdefault(layer.number, layer.content)
    return "\n".join(found[n] for n in LAYERS if n in found)


Meaning = Callable[[str, str], float]   # the model's cosine of two texts


def similarity(now_md: str | None, base_md: str | None, meaning: Meaning | None = None) -> float:
    """The cosine between Layers 1+2 of two CLAUDE.md texts: the terms' cosine, or the model's when
    ``meaning`` is given and it is larger (two empty layers are the same, one empty shares nothing)."""
    now, base = layer_text(now_md), layer_text(base_md)
    lexical = cosine(vector(now), vector(base))
    if meaning is None or lexical >= 1.0 or not now.strip() or not base.strip():
        return lexical
    return max(lexical, min(1.0, meaning(now, base)))


def baseline(pinned: str | None, snapshot_tags: Sequence[str]) -> tuple[str, str] | None:
    """(revision, name) of the baseline: the pinned commit ("pinned"), else the newest snapshot tag
    (named by itself); None when there is neither."""
    if pinned:
        return pinned, "pinned"
    if snapshot_tags:
        newest = max(snapshot_tags)
        return newest, newest
    return None


def measure(now_md: str | None, base_md: str | None, baseline: str | None, baseline_name: str,
            min_cosine: float, meaning: Meaning | None = None) -> Drift:
    """Compare the CLAUDE.md of now with the baseline's (None: no baseline, never a failure)."""
    if baseline is None:
        return Drift(1.0, min_cosine, None, "none")
    return Drift(similarity(now_md, base_md, meaning), min_cosine, baseline, baseline_name)


