"""Co-activation of patterns: which patterns the same sessions activate (seed 000's analyze).

For each pattern, the set of sessions that activate it; for each pair, the
Jaccard index of their two sets. Pairs at or above ``cluster_threshold`` join
clusters (connected components); pairs at or above ``merge_threshold`` are
merge candidates: a person may fold one into the other.
"""

from __future__ import annotations

from dataclasses import dataclass
from itertools import combinations
from typing import Sequence

TYPE_CHECKING = False
if TYPE_CHECKING:
    from gitmem.engines.hebbian import SessionSignal
    from gitmem.store.documents import Pattern

CLUSTER_THRESHOLD = 0.3
MERGE_THRESHOLD = 0.8
MIN_SESSIONS = 3   # analyze.min_sessions' default


@dataclass(frozen=True)
class Analysis:
    """Activation counts, co-activated pairs, clusters and merge candidates."""

    activations: dict[str, int]
    pairs: tuple[tuple[str, str, float], ...]          # (a, b, jaccard), strongest first
    clusters: tuple[tuple[str, ...], ...]
    merge_candidates: tuple[tuple[str, str, float], ...]
    min_sessions: int = MIN_SESSIONS   # shared sessions a merge candidate needs

    def to_json(self) -> dict[str, object]:
        """What ``analyze --json`` prints."""
        return {"activations": self.activations,
                "pairs": [{"a": a, "b": b, "jaccard": j} for a, b, j in self.pairs],
                "clusters": [list(c) for c in self.clusters],
                "merge_candidates": [{"a": a, "b": b, "jaccard": j} for a, b, j in self.merge_candidates],
                "min_sessions": self.min_sessions}


def jaccard(a: frozenset[str], b: frozenset[str]) -> float:
    """|a & b| / |a | b|, 0.0 for two empty sets."""
    union = len(a | b)
    return round(len(a & b) / union, 6) if union else 0.0


def activated_by(patterns: Sequence[Pattern], sessions: Sequence[SessionSignal]) -> dict[str, frozenset[str]]:
    """For each pattern, the ids of the sessions that activate it."""
    from gitmem.engines import hebbian

    out = {}
    for p in patterns:
        stems = hebbian.trigger_stems(p.triggers)
        out[p.slug] = frozenset(s.id for s in sessions if hebbian.activates(stems, p.slug, s))
    return out


def analyze(patterns: Sequence[Pattern], sessions: Sequence[SessionSignal],
            cluster_threshold: float = CLUSTER_THRESHOLD, merge_threshold: float = MERGE_THRESHOLD,
            min_sessions: int = MIN_SESSIONS) -> Analysis:
    """Co-activation over every pair of patterns. A merge candidate needs its Jaccard index at or above
    ``merge_threshold`` *and* ``min_sessions`` sessions that activated both: after one shared session
    any two patterns have an index of 1.0, which is no evidence that they are one."""
    sets = activated_by(patterns, sessions)
    pairs = [(a, b, jaccard(sets[a], sets[b])) for a, b in combinations(sorted(sets), 2)]
    pairs = sorted((p for p in pairs if p[2] > 0), key=lambda p: (-p[2], p[0], p[1]))
    parent = {s: s for s in sets}

    def root(s: str) -> str:
        while parent[s] != s:
            parent[s] = parent[parent[s]]
            s = parent[s]
        return s

    for a, b, j in pairs:
        if j >= cluster_threshold:
            parent[root(a)] = root(b)
    groups: dict[str, list[str]] = {}
    for s in sorted(sets):
        groups.setdefault(root(s), []).append(s)
    clusters = sorted((tuple(g) for g in groups.values() if len(g) > 1), key=lambda g: (-len(g), g))
    return Analysis({s: len(v) for s, v in sorted(sets.items())}, tuple(pairs), tuple(clusters),
                    tuple(p for p in pairs if p[2] >= merge_threshold and len(sets[p[0]] & sets[p[1]]) >= min_sessions),
                    min_sessions)
