"""Recall: the memories of an open index ranked for a query, the episodes that come after them, and the
memories their links reach.

The engine takes an open index and returns values; opening it (synced with
HEAD) is ``gitmem.store.current``, and the use case (``gitmem.api.recall``)
logs the hits.
"""

from __future__ import annotations

from collections import namedtuple
from datetime import datetime

from gitmem.store.index import EPISODE, Filters, Hit, Index

TYPE_CHECKING = False  # typing costs milliseconds of every recall process: annotations only
if TYPE_CHECKING:
    from collections.abc import Callable

    # The embedding model's ranking: (query, how many, filters) -> (memory id, cosine), best first,
    # only memories that pass the filters.
    Dense = Callable[[str, int, Filters], list[tuple[str, float]]]

# How many episodes a recall of memories shows after them (never in their place).
EPISODES_ALONGSIDE = 3


class Recalled(namedtuple("Recalled", "id score relevance content type domain importance tier band path "
                                     "source_id via", defaults=(None,))):
    """One recalled memory, or an episode (``type`` "episode", ``path`` its document).

    Fields: ``id``, ``content``, ``type``, ``domain``, ``tier``, ``band``,
    ``path`` (str); ``score``, ``relevance``, ``importance`` (float);
    ``source_id`` (str or None); ``via`` ("linked from <id>" when reached by
    --expand, else None). A named tuple: this path imports neither
    dataclasses nor typing.
    """

    __slots__ = ()

    def to_json(self) -> dict[str, object]:
        """The hit as a JSON object (scores rounded to 4 places)."""
        return {"id": self.id, "score": round(self.score, 4), "relevance": round(self.relevance, 4),
                "content": self.content, "type": self.type, "domain": self.domain,
                "importance": self.importance, "tier": self.tier, "band": self.band, "path": self.path,
                "source_id": self.source_id, "via": self.via}


def _memories(index: Index, query: str, k: int, filters: Filters, now: datetime, dense: Dense | None,
              related: bool = False) -> list[Recalled]:
    """The ``k`` best memories: lexical alone, or fused with ``dense`` (episodes are never fused)."""
    if dense is None or filters.type == EPISODE:
        return [_recalled(h) for h in index.search(query, k=k, filters=filters, now=now, related=related)]
    from gitmem.engines import fusion

    lexical = {h.id: h for h in index.search(query, k=max(k, fusion.DEPTH), filters=filters, now=now,
                                             related=related)}
    near = dense(query, fusion.DEPTH, filters)
    out = []
    for key, score in fusion.fuse(list(lexical), [key for key, _ in near], k):
        hit = lexical.get(key)
        if hit is not None:
            out.append(_recalled(hit)._replace(score=score))
            continue
        row = index.get(key)
        if row is not None:
            out.append(Recalled(row.id, score, 0.0, row.content, row.type, row.domain, row.importance, row.tier,
                                row.band, row.path, row.source_id))
    return out


def _recalled(hit: Hit, via: str | None = None) -> Recalled:
    r = hit.row
    return Recalled(r.id, hit.score, hit.relevance, r.content, r.type, r.domain, r.importance, r.tier, r.band,
                    r.path, r.source_id, via)


def search(index: Index, query: str, k: int, filters: Filters, now: datetime, expand: bool = False,
           dense: Dense | None = None) -> list[Recalled]:
    """The ``k`` best memories for ``query``, then up to ``EPISODES_ALONGSIDE`` episodes after them.

    Episodes never take a memory's place: they come after the ``k`` memories,
    or alone when ``filters.type`` is "episode". With ``expand``, memories that
    share rare terms with the best ones take the lower places of the ``k``
    (``gitmem.store.related``), and the memories' links one hop out come after.
    With ``dense`` (the embedding model's ranking, when one is configured), the
    memories are the fusion of the lexical ranking and that one
    (``gitmem.engines.fusion``); episodes stay lexical.
    """
    hits = _memories(index, query, k, filters, now, dense, expand)
    if filters.type is None and filters.domain is None and filters.tier is None and filters.band is None \
            and index.has_type(EPISODE):
        episodes = Filters(type=EPISODE, project=filters.project)
        hits += [_recalled(h) for h in index.search(query, k=min(k, EPISODES_ALONGSIDE), filters=episodes, now=now)]
    if not expand or not hits:
        return hits
    seen = {h.id for h in hits}
    extra: list[Recalled] = []
    for h in hits:
        row = index.get(h.id) if h.type != EPISODE else None
        for link in (row.links if row else ()):
            if link in seen:
                continue
            target = index.get(link)
            if target is None or target.type == EPISODE or (target.tier == "archive" and not filters.include_archive):
                continue
            seen.add(link)
            extra.append(Recalled(target.id, 0.0, 0.0, target.content, target.type, target.domain,
                                  target.importance, target.tier, target.band, target.path, target.source_id,
                                  via=f"linked from {h.id}"))
    return hits + extra
