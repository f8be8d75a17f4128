"""Reflect's grouping: average-linkage clustering of memories that share a topic.

Two memories link by lexical similarity or the share of keywords in common
(``link``), only when they share a topic word (``topic_words``: no names, ids,
numbers or dates), and never across a contradiction. With the embedding model
configured the caller adds the model's close pairs (``Near``), which link
paraphrases and translations that share no word.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from gitmem.engines.encode import keywords
from gitmem.engines.features import describe, stem_word
from gitmem.engines.similarity import contradiction, similarity

__all__ = ["DENSE_FLOOR", "DENSE_OFFSET", "GROUP_THRESHOLD", "Near", "clusters", "kept_apart", "link", "topic_words"]

# Topic links, not duplicates: "GitHub push timed out" and "GitHub clone
# timed out" link at ~0.45, unrelated memories stay under 0.2.
GROUP_THRESHOLD = 0.25
# The model's cosine of two texts links them at cosine - DENSE_OFFSET: at 0.45 they reach the threshold
# (all-MiniLM-L6-v2 puts two wordings of one lesson at 0.45-0.5, unrelated memories near 0.1-0.2).
# Pairs under DENSE_FLOOR are not given (they could not reach it).
DENSE_OFFSET = 0.2
DENSE_FLOOR = GROUP_THRESHOLD + DENSE_OFFSET

Near = Callable[[Sequence[str]], Mapping[tuple[int, int], float]]
"""The model's close pairs of texts: (i, j), i < j, with their cosine, for those at DENSE_FLOOR or above."""


def link(a: str, b: str, ka: frozenset[str], kb: frozenset[str]) -> float:
    """Topic closeness: lexical similarity, or the share of keywords in common."""
    shared = len(ka & kb) / min(len(ka), len(kb)) if ka and kb else 0.0
    return max(similarity(a, b), 0.5 * shared)


def topic_words(text: str) -> frozenset[str]:
    """The content words of ``text`` a topic can rest on: no names, ids, numbers or dates.

    Two greetings that share a user id, or two facts that share only "Alice",
    have no topic in common.
    """
    features = describe(text)
    names = {stem_word(form) for form in features.strong | features.weak}
    return frozenset(t for t in features.tokens
                     if t not in names and not t.startswith("@") and not any(c.isdigit() for c in t))


def clusters(texts: Sequence[str], threshold: float, near: Near | None = None) -> list[list[int]]:
    """Average-linkage clustering; ties go to the earliest clusters, so it is deterministic.

    Two items link only when they share a topic word, and two clusters never
    join when a member of one contradicts a member of the other. The pairs
    sharing a topic come from an index of topic words, and the closest pair
    of clusters from a heap (entries made stale by a merge are skipped when
    they come up): grouping 2,000 memories takes seconds, not minutes.

    With ``near`` (the embedding model's close pairs of the items' texts), a pair the model puts at
    cosine ``c`` also links at ``c - DENSE_OFFSET``, whether or not they share a topic word: a
    paraphrase or a translation joins its topic.
    """
    import heapq

    words = [frozenset(keywords(text)) for text in texts]
    topics = [topic_words(text) for text in texts]
    holders: dict[str, list[int]] = {}
    for i, topic in enumerate(topics):
        for word in topic:
            holders.setdefault(word, []).append(i)
    clusters: dict[int, list[int]] = {i: [i] for i in range(len(texts))}
    # Sum of pairwise links between two clusters, keyed by their first members, both ways.
    links: dict[int, dict[int, float]] = {i: {} for i in range(len(texts))}
    apart: set[tuple[int, int]] = set()
    dense = near(texts) if near is not None and texts else {}
    by_model: dict[int, set[int]] = {}
    for i, j in dense:
        by_model.setdefault(i, set()).add(j)
    for i in range(len(texts)):
        for j in sorted({j for word in topics[i] for j in holders[word] if j > i} | by_model.get(i, set())):
            value = link(texts[i], texts[j], words[i], words[j])
            if (i, j) in dense:
                value = max(value, dense[i, j] - DENSE_OFFSET)
            if value > 0 and contradiction(texts[i], texts[j]) is not None:
                apart.add((i, j))
            elif value > 0:
                links[i][j] = links[j][i] = value
    heap = [(-total, i, j) for i, row in links.items() for j, total in row.items() if i < j]
    heapq.heapify(heap)
    while heap:
        neg, a, b = heapq.heappop(heap)
        total = links.get(a, {}).get(b)
        if total is None or total / (len(clusters[a]) * len(clusters[b])) != -neg:
            continue   # stale: a merge changed this pair since
        if -neg < threshold:
            break   # the closest pair left is not close enough
        if kept_apart(clusters[a], clusters[b], apart):
            del links[a][b], links[b][a]   # for good: a merge only adds members
            continue
        clusters[a].extend(clusters.pop(b))
        for x, part in links.pop(b).items():
            if x != a:
                del links[x][b]
                links[a][x] = links[x][a] = links[a].get(x, 0.0) + part
        del links[a][b]
        for x, total in links[a].items():
            lo, hi = min(a, x), max(a, x)
            heapq.heappush(heap, (-(total / (len(clusters[lo]) * len(clusters[hi]))), lo, hi))
    return [clusters[k] for k in sorted(clusters)]


def kept_apart(left: list[int], right: list[int], apart: set[tuple[int, int]]) -> bool:
    return any((min(i, j), max(i, j)) in apart for i in left for j in right)
