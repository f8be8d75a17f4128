"""Recall: ranked search over the derived index, and the access log of hits.

This path stays light: when the index already reflects HEAD (read from the
ref files), no pygit2 is imported; only a stale index pays for syncing.
"""

from __future__ import annotations

import sqlite3
from datetime import datetime
from pathlib import Path
from collections import namedtuple

TYPE_CHECKING = False  # typing costs milliseconds of every recall process: annotations only
if TYPE_CHECKING:
    from typing import Iterable, Sequence

from gitmem.base import clock
from gitmem.base import state
from gitmem.base.errors import IndexCorrupt
from gitmem.base.gitio import head_commit
from gitmem.store.index import EPISODE, ROWS_VERSION, Filters, Hit, Index

ACCESS_LOG = "access.jsonl"
# How many episodes a recall of memories shows after them (never in their place).
EPISODES_ALONGSIDE = 3
# gitmem.base.config.CONFIG_FILE, named here so that a fresh index skips importing the config schema
CONFIG_FILE = "gitmem.yaml"
_KEEP, _KEEP_STAMP = "never_forget", "never_forget.config"


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


def open_index(root: Path, at: str | None = None) -> Index:
    """The index for HEAD (synced if stale) or for ``at`` (a tag or commit)."""
    gdir = state.git_dirs(root)[0]
    if at is None:
        head = head_commit(gdir)
        path = state.index_path(root)
        if head is not None and path.exists():
            try:
                index = Index(path)
                if index.get_meta("commit") == head and index.get_meta("schema") == ROWS_VERSION:
                    return index
                index.close()
            except IndexCorrupt:
                pass
    from gitmem.base.gitio import Git
    from gitmem.store import refresh

    git = Git(root)
    if at is not None:
        return refresh.open_at(git, at)
    branch = git.head_branch()
    if branch is not None:
        return refresh.open_synced(git, git.tip(branch))
    return refresh.open_synced(git, git.commit("HEAD").id)   # detached: what is checked out


def _recalled(hit: Hit, via: str | None = None) -> Recalled:
    r = hit.row
    return Recalled(r.id, hit.score, hit.relevance, r.content, r.type, r.domain, r.importance, r.tier, r.band,
                    r.path, r.source_id, via)


def never_forget(root: Path, index: Index) -> float:
    """The ``never_forget`` importance of the config, kept in ``index`` while gitmem.yaml is unchanged.

    Recall runs as a whole process per query: a stat of gitmem.yaml and a meta
    value are cheap, loading the config schema is not; the index holds the
    value of the config it last saw.
    """
    try:
        st = (root / CONFIG_FILE).stat()
        stamp = f"{st.st_mtime_ns}:{st.st_size}"
    except OSError:
        stamp = "-"
    if index.get_meta(_KEEP_STAMP) == stamp:
        try:
            return float(index.get_meta(_KEEP) or "")
        except ValueError:
            pass
    from gitmem.base import config

    value = config.load(root).memory.never_forget
    try:
        with index.transaction():
            index.set_meta(_KEEP, repr(value))
            index.set_meta(_KEEP_STAMP, stamp)
    except (IndexCorrupt, sqlite3.Error):
        pass  # a read-only or busy index still answers; it just looks again next time
    return value


def search(index: Index, query: str, k: int, filters: Filters, now: datetime, expand: bool = False) -> list[Recalled]:
    """The ``k`` best memories for ``query``, then up to ``EPISODES_ALONGSIDE`` episodes after them.

    Episodes never take a memory's place: they come after the ``k`` memories,
    or alone when ``filters.type`` is "episode". With ``expand``, the memories'
    links one hop out come too.
    """
    hits = [_recalled(h) for h in index.search(query, k=k, filters=filters, now=now)]
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


def log_access(root: Path, ids: Iterable[str], now: datetime) -> None:
    """Record recall hits; the next decay folds them into last_accessed (no commit now)."""
    ids = [i for i in ids if i is not None]
    if not ids:
        return
    path = state.shared_dir(root) / ACCESS_LOG
    stamp = now.replace(microsecond=0).isoformat().replace("+00:00", "Z")
    for memory_id in ids:
        state.append(path, {"id": memory_id, "at": stamp})


def project_here(index: Index, here: Path | str) -> str | None:
    """The id of the project holding directory ``here`` when memories of ``index`` carry it, else None.

    Git is asked only when some memory has a project at all.
    """
    known = index.projects()
    if not known:
        return None
    from gitmem.base.gitio.project import identify

    found = identify(here)
    return found.id if found is not None and found.id in known else None


def recall(root: Path, query: str, k: int = 10, filters: Filters = Filters(), at: str | None = None,
           expand: bool = False, now: datetime | None = None, log: bool = True,
           here: Path | None = None) -> list[Recalled]:
    """Open the index, search, and log the hits (not when recalling the past with ``at``).

    With ``here`` (a directory) and no ``filters.project``, the search keeps to
    the project holding ``here`` when it is a known one (global memories always come).
    """
    now = now or clock.now()
    index = open_index(root, at)
    try:
        found = search(index, query, k, _kept(root, index, filters, here), now, expand)
    finally:
        index.close()
    if log and at is None:
        log_access(root, (r.id for r in found if r.type != EPISODE), now)
    return found


def _kept(root: Path, index: Index, filters: Filters, here: Path | None = None) -> Filters:
    """``filters`` with the config's never_forget unless the caller set one, scoped to the project of ``here``."""
    if filters.never_forget is None:
        filters = filters._replace(never_forget=never_forget(root, index))
    if here is not None and filters.project is None:
        filters = filters._replace(project=project_here(index, here))
    return filters


def recall_many(root: Path, queries: Sequence[str], k: int, filters: Filters, at: str | None, expand: bool,
                now: datetime, here: Path | None = None) -> Iterable[tuple[str, list[Recalled]]]:
    """Many queries over one open index (``recall --batch``)."""
    index = open_index(root, at)
    try:
        filters = _kept(root, index, filters, here)
        for q in queries:
            found = search(index, q, k, filters, now, expand)
            if at is None:
                log_access(root, (r.id for r in found if r.type != EPISODE), now)
            yield q, found
    finally:
        index.close()
