"""The derived recall index: memories in SQLite with an FTS5 table.

The index is per clone (``.git/gitmem/index.sqlite``), never committed, and
always rebuildable from git; a file that is not a valid index raises
``IndexCorrupt`` so the caller can rebuild it. This module holds the
upkeep of the rows (upsert, delete, meta values) and the search that
fetches candidates; the tables and how a memory becomes a row are
``gitmem.store.layout``, how candidates are scored is
``gitmem.store.ranking``, and keeping the index in step with git is
``gitmem.store.refresh``.
"""

from __future__ import annotations

import os
import sqlite3
from collections import namedtuple
from collections.abc import Callable, Iterable, Iterator
from datetime import datetime, timezone

from gitmem.base.errors import IndexCorrupt
from gitmem.base import text
from gitmem.store import layout, ranking, vocabulary
from gitmem.store import related as shared
from gitmem.store.layout import ROWS_VERSION, SCHEMA_VERSION, IndexRow
from gitmem.store.ranking import EPISODE, Filters

__all__ = ["EPISODE", "ROWS_VERSION", "SCHEMA_VERSION", "Filters", "Hit", "Index", "IndexRow"]

TYPE_CHECKING = False  # typing costs ~5 ms of a whole-process recall: annotations only
if TYPE_CHECKING:
    from pathlib import Path
    from typing import Any, TypeVar

    _T = TypeVar("_T")


class Hit(namedtuple("Hit", "id path score relevance row")):
    """One search result: ``score`` ranks, ``relevance`` is its lexical part (0..1); ``row`` is the IndexRow."""

    __slots__ = ()


_OK = 4  # the column of _gather's rows that tells whether the row passes the filters
_FULL_TEXT = 24  # fill's values: the memory table's, then the text whose words go to the vocabulary


class _Transaction:
    """``Index.transaction``: a class, not contextlib's decorator (contextlib is ~0.5 ms of a recall process)."""

    __slots__ = ("index", "outer")

    def __init__(self, index: Index) -> None:
        self.index, self.outer = index, False

    def __enter__(self) -> None:
        index = self.index
        self.outer = index._depth == 0
        if self.outer:
            index._call(index._db.execute, "BEGIN IMMEDIATE")
        index._depth += 1

    def __exit__(self, kind: type[BaseException] | None, exc: BaseException | None, tb: object) -> None:
        index = self.index
        index._depth -= 1
        if kind is not None:   # rolled back, and the exception goes on
            if self.outer:
                index._db.execute("ROLLBACK")
        elif self.outer:
            index._call(index._db.execute, "COMMIT")


class Index:
    """The recall index of one clone: upkeep and ranked search."""

    def __init__(self, path: Path | str) -> None:
        self.path = str(path)
        self._depth = 0
        try:
            if self.path != ":memory:" and not os.path.exists(self.path):
                layout.create(self.path)
            self._db = sqlite3.connect(self.path, isolation_level=None, check_same_thread=False)
        except sqlite3.Error as exc:
            raise IndexCorrupt(self.path, str(exc)) from exc
        try:
            self._open()
        except sqlite3.DatabaseError as exc:
            self._db.close()
            if _is_busy(exc):
                raise
            raise IndexCorrupt(self.path, str(exc)) from exc

    def _open(self) -> None:
        db = self._db
        # derived data: a crash may lose the last write but never corrupts it
        db.execute("PRAGMA synchronous = NORMAL")
        # reading pages through a memory map saves a system call per page, the
        # larger part of a search's cost once the file outgrows the page cache
        db.execute("PRAGMA mmap_size = 1073741824")
        db.execute("PRAGMA cache_size = -32768")
        if self.path == ":memory:":
            for statement in layout.SCHEMA:
                db.execute(statement)
        tables = {r[0] for r in db.execute("SELECT name FROM sqlite_master WHERE type IN ('table', 'view')")}
        if not {"meta", "memory", "memory_fts"} <= tables:
            raise IndexCorrupt(self.path, "tables missing")
        found = db.execute("SELECT value FROM meta WHERE key = ?", (layout.SCHEMA_KEY,)).fetchone()
        if found is None or found[0] != SCHEMA_VERSION:
            raise IndexCorrupt(self.path, f"schema {found[0] if found else 'unknown'}, expected {SCHEMA_VERSION}")

    # ------------------------------------------------------------ upkeep

    def transaction(self) -> _Transaction:
        """Group upserts, deletes and meta updates into one transaction (``with index.transaction():``).

        Nested uses join the outermost one; an exception rolls it all back.
        """
        return _Transaction(self)

    def upsert(self, rows: Iterable[IndexRow], meta: dict[str, str] | None = None) -> int:
        """Insert or replace memories by id, in one transaction; returns how many.

        The vocabulary of all of them goes in by one statement at the end, one row a distinct word (row by row,
        a 10k rebuild took 2.4 times as long).
        """
        n = 0
        texts: list[str] = []
        with self.transaction():
            for row in rows:
                self._call(self._upsert_one, row)
                texts.append(layout.full_text(row))
                n += 1
            self._call(self._db.executemany, vocabulary.INSERT, vocabulary.rows(texts))
            for key, value in (meta or {}).items():
                self.set_meta(key, value)
        return n

    def fill(self, rows: Iterable[IndexRow], meta: dict[str, str] | None = None) -> int:
        """Load ``rows`` into an index that holds none (a rebuild), in one transaction; returns how many.

        The rows go in by one bulk insert and the full-text table is built
        from them once, instead of row by row; a row whose id repeats keeps
        the last one, as ``upsert`` does.
        """
        values = {row.id: (*layout.values(row), layout.full_text(row)) for row in rows}
        with self.transaction():
            if self._call(self._db.execute, "SELECT EXISTS (SELECT 1 FROM memory)").fetchone()[0]:
                raise ValueError("fill() loads an empty index; use upsert()")
            self._call(self._db.executemany, layout.INSERT, [v[:_FULL_TEXT] for v in values.values()])
            self._call(self._db.executemany, vocabulary.INSERT, vocabulary.rows(v[_FULL_TEXT] for v in values.values()))
            self._call(self._db.execute, "INSERT INTO memory_fts (memory_fts) VALUES ('rebuild')")
            for key, value in (meta or {}).items():
                self.set_meta(key, value)
        return len(values)

    def _upsert_one(self, row: IndexRow) -> None:
        self._unindex(row.id)
        cur = self._db.execute(layout.INSERT, layout.values(row))
        self._db.execute(
            "INSERT INTO memory_fts (rowid, words, keys, cjk) SELECT rid, words, keys, cjk"
            " FROM memory WHERE rid = ?",
            (cur.lastrowid,),
        )

    def _unindex(self, memory_id: str) -> bool:
        # external-content FTS5 needs the old values to remove their postings
        found = self._db.execute(
            "SELECT rid, words, keys, cjk FROM memory WHERE id = ?", (memory_id,)
        ).fetchone()
        if found is None:
            return False
        self._db.execute(
            "INSERT INTO memory_fts (memory_fts, rowid, words, keys, cjk) VALUES ('delete', ?, ?, ?, ?)",
            found,
        )
        self._db.execute("DELETE FROM memory WHERE rid = ?", (found[0],))
        return True

    def delete(self, ids: Iterable[str], meta: dict[str, str] | None = None) -> int:
        """Remove memories by id, in one transaction; returns how many existed."""
        n = 0
        with self.transaction():
            for memory_id in ids:
                n += self._call(self._unindex, memory_id)
            for key, value in (meta or {}).items():
                self.set_meta(key, value)
        return n

    def clear(self) -> None:
        """Remove every memory and every meta value (the layout's version stays)."""
        with self.transaction():
            self._call(self._db.execute, "DELETE FROM memory")
            self._call(self._db.execute, "DELETE FROM vocab")
            self._call(self._db.execute, "INSERT INTO memory_fts (memory_fts) VALUES ('delete-all')")
            self._call(self._db.execute, "DELETE FROM meta WHERE key != ?", (layout.SCHEMA_KEY,))

    def get_meta(self, key: str) -> str | None:
        """A stored meta value (such as the indexed commit id), or None."""
        found = self._call(self._db.execute, "SELECT value FROM meta WHERE key = ?", (key,)).fetchone()
        return None if found is None else str(found[0])

    def set_meta(self, key: str, value: str) -> None:
        """Store a meta value; inside ``transaction()`` it commits with the rest."""
        self._call(self._db.execute, "INSERT INTO meta (key, value) VALUES (?, ?)"
                   " ON CONFLICT (key) DO UPDATE SET value = excluded.value", (key, value))

    def count(self) -> int:
        """How many memories the index holds (episodes are not memories)."""
        return int(self._call(self._db.execute, "SELECT count(*) FROM memory WHERE type != ?", (EPISODE,)).fetchone()[0])

    def get(self, memory_id: str) -> IndexRow | None:
        """One stored memory by id, or None."""
        found = self._call(self._db.execute, f"SELECT {layout.COLUMNS} FROM memory WHERE id = ?", (memory_id,)).fetchone()
        return None if found is None else layout.row_of(found)

    def has_type(self, type_: str) -> bool:
        """Whether any row is of ``type_`` (an episode search skips its query when none is)."""
        found = self._call(self._db.execute, "SELECT EXISTS (SELECT 1 FROM memory WHERE type = ?)", (type_,))
        return bool(found.fetchone()[0])

    def projects(self) -> dict[str, str]:
        """Every project the rows name: id -> display name."""
        cur = self._call(self._db.execute, "SELECT DISTINCT project, project_name FROM memory WHERE project IS NOT NULL")
        return {str(pid): str(name or pid) for pid, name in cur}

    def passing(self, ids: Iterable[str], filters: Filters) -> set[str]:
        """Those of ``ids`` whose memories pass ``filters`` (as a search would keep them)."""
        wanted = list(dict.fromkeys(ids))
        if not wanted:
            return set()
        sql, params = ranking.filter_sql(filters, "m")
        marks = ",".join("?" * len(wanted))
        cur = self._call(self._db.execute, f"SELECT m.id FROM memory AS m WHERE m.id IN ({marks}){sql}",
                         (*wanted, *params))
        return {str(found[0]) for found in cur}

    def rows(self) -> Iterator[IndexRow]:
        """Every stored memory, by id."""
        yield from map(layout.row_of, self._call(self._db.execute, f"SELECT {layout.COLUMNS} FROM memory ORDER BY id"))

    def close(self) -> None:
        """Close the database; the object is unusable afterwards."""
        self._db.close()

    def __enter__(self) -> Index:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    # ------------------------------------------------------------ search

    def search(
        self,
        query: str,
        k: int = 10,
        filters: Filters = Filters(),
        now: datetime | None = None,
        related: bool = False,
    ) -> list[Hit]:
        """The ``k`` best memories for ``query``, best first (scored as ``gitmem.store.ranking`` says).

        Any text is a valid query: FTS5 syntax in it is taken literally. A
        query made only of stop words matches nothing and returns []. With
        ``related``, memories that share rare terms with the best hits take
        the lower places (``gitmem.store.related``: one more query).
        """
        parsed = ranking.parse_query(query)
        if parsed is None or k <= 0:
            return []
        read = not self._db.in_transaction   # candidates and rows from one state: a commit between drops rows
        self._call(self._db.execute, "BEGIN") if read else None
        try:
            parsed, weights = self._expanded(parsed)
            moment = (now or datetime.now(timezone.utc)).timestamp()
            hits = self._ranked(parsed, weights, k, filters, moment)
            if related and hits and shared.SEEDS:
                hits = self._related(parsed, hits, k, filters, moment)
        finally:
            self._db.execute("COMMIT") if read and self._db.in_transaction else None
        return hits

    def _ranked(self, parsed: ranking.Query, weights: list[float], k: int, filters: Filters,
                moment: float) -> list[Hit]:
        """The ``k`` best memories for a parsed query (module ``gitmem.store.ranking``)."""
        candidates = self._candidates(parsed, max(ranking.CANDIDATES, 2 * k), filters, weights)
        relevance = ranking.relevance(candidates) if candidates else {}
        best = max(relevance.values(), default=0.0)
        scored = sorted(ranking.scores(relevance, best, candidates, moment, k), key=lambda t: (-t[0], -t[1], t[2]))[:k] if best > 0 else []
        rows = self._rows_by_rid([rid for _, _, rid in scored]) if scored else {}
        return [Hit(rows[rid].id, rows[rid].path, score, rel, rows[rid]) for score, rel, rid in scored if rid in rows]

    def _related(self, parsed: ranking.Query, hits: list[Hit], k: int, filters: Filters, moment: float) -> list[Hit]:
        """``hits`` with the memories that share rare terms with the best of them (``gitmem.store.related``)."""
        stop, stem = text.STOP_WORDS, text.stem
        seeds = [[stem(w) for w in text.words(h.row.content) if w not in stop and len(w) > 2]
                 for h in hits[:shared.SEEDS]]
        asked = {*parsed.terms, *(a for alts in parsed.alts for a in alts)}
        held = list(dict.fromkeys(t for terms in seeds for t in terms if t not in asked))
        if not held:
            return hits
        docs, rows = self._docs(held)
        terms = shared.shared_terms(seeds, asked, docs)
        if not terms:
            return hits
        query = ranking.Query(" OR ".join(f'"{t}"' for t in terms), tuple(terms), frozenset(), (),
                              words=(None,) * len(terms), alts=((),) * len(terms))
        more = self._ranked(query, ranking.rarity([docs[t] for t in terms], rows), k, filters, moment)
        return shared.merged(hits, more, k)

    def _candidates(self, query: ranking.Query, limit: int, filters: Filters,
                    weights: list[float]) -> dict[int, ranking.Candidate]:
        """The ``limit`` best bm25 matches that pass the filters, and their followers.

        A follower is the next memory of the same source, the likely answer to
        a match that asked something; it enters with no lexical score of its
        own and gains from its predecessor in ``_relevance``.
        """
        # Ranking the bare FTS5 matches and filtering the few survivors is much
        # cheaper than joining every match to its row first; only when the
        # filters threw some out is the exact (joined) ranking needed.
        m_sql, m_params = ranking.filter_sql(filters, "m")
        n_sql, n_params = ranking.filter_sql(filters, "n")
        ranked = f"SELECT rowid, {ranking.BM25} AS b FROM memory_fts WHERE memory_fts MATCH ? ORDER BY b LIMIT ?"
        rows = self._gather(ranked, (query.fts, limit), query, weights, m_sql, m_params, n_sql, n_params)
        # two memories may claim one source position, so count distinct matches
        if len({row[0] for row in rows}) == limit and not all(row[_OK] for row in rows):
            ranked = (
                f"SELECT m.rid AS rowid, {ranking.BM25} AS b FROM memory_fts JOIN memory AS m ON m.rid = memory_fts.rowid"
                f" WHERE memory_fts MATCH ?{m_sql} ORDER BY b LIMIT ?"
            )
            rows = self._gather(ranked, (query.fts, *m_params, limit), query, weights, m_sql, m_params, n_sql,
                                n_params)
        out: dict[int, ranking.Candidate] = {}
        followers = []
        for rid, importance, ts, lexical, ok, n_rid, n_importance, n_ts, asks in rows:
            if ok:
                out[rid] = ranking.Candidate(importance, ts, lexical, n_rid, bool(asks))
                if n_rid is not None:
                    followers.append((n_rid, ranking.Candidate(n_importance, n_ts, 0.0, None)))
        for rid, c in followers:
            out.setdefault(rid, c)
        return out

    def _expanded(self, query: ranking.Query) -> tuple[ranking.Query, list[float]]:
        """``query`` with the alternatives of its words that some memory holds (``gitmem.store.vocabulary``),
        and each term's weight in the coverage bonus, from how many memories hold it (or, for a term no
        memory holds, the rarest alternative that one does)."""
        own = list(dict.fromkeys([*query.terms, *(a for alts in query.alts for a in alts)]))
        docs, rows = self._docs(own)
        words = [w for w in query.words if w] if ranking._NAMES else []
        unheld = {w for w, t in zip(query.words, query.terms) if w and not docs.get(t)}
        more = self._call(vocabulary.expansions, self._db, words, unheld) if words else {}
        added = [a for alts in more.values() for a in alts if a not in docs]
        if added:
            found, counted = self._docs(list(dict.fromkeys(added)))
            docs.update(found)
            rows = max(rows, counted)
        query = ranking.expanded(query, more, docs, rows)
        held = [docs.get(t, 0) or min((docs[a] for a in alts), default=0)
                for t, alts in zip(query.terms, query.alts)]
        return query, ranking.rarity(held, rows)

    def _docs(self, terms: list[str]) -> tuple[dict[str, int], int]:
        """How many memories hold each of ``terms`` (those none holds are left out), and the row count."""
        marks = ",".join("?" * len(terms))
        # the highest row number stands for the row count: exact until rows are deleted, and O(1)
        found = self._call(self._db.execute, f"SELECT term, doc, (SELECT max(rid) FROM memory) FROM memory_vocab"
                                             f" WHERE term IN ({marks})", terms).fetchall()
        return {term: int(n) for term, n, _ in found}, int(found[0][2]) if found else 0

    def _gather(
        self, ranked: str, ranked_params: tuple[object, ...], query: ranking.Query, weights: list[float],
        m_sql: str, m_params: tuple[object, ...], n_sql: str, n_params: tuple[object, ...],
    ) -> list[tuple[Any, ...]]:  # fmt: skip
        """The ``ranked`` matches' lexical scores, whether each passes the filters, and followers."""
        lexical, lexical_params = ranking.lexical_sql(query, weights)
        return self._call(
            self._db.execute,
            f"SELECT m.rid, m.importance, m.accessed_ts, {lexical}, (1{m_sql}), n.rid, n.importance, n.accessed_ts,"
            " instr(m.content, '?') > 0"
            f" FROM ({ranked}) AS f JOIN memory AS m ON m.rid = f.rowid"
            # the next number of the same source, not just +1: harvested
            # memories carry transcript line numbers, with gaps between them
            " LEFT JOIN memory AS n ON n.seq_key = m.seq_key AND n.seq_pos = (SELECT min(x.seq_pos)"
            f" FROM memory AS x WHERE x.seq_key = m.seq_key AND x.seq_pos > m.seq_pos){n_sql}",
            (*lexical_params, *m_params, *ranked_params, *n_params),
        ).fetchall()

    def _rows_by_rid(self, rids: list[int]) -> dict[int, IndexRow]:
        marks = ",".join("?" * len(rids))
        cur = self._call(self._db.execute, f"SELECT rid, {layout.COLUMNS} FROM memory WHERE rid IN ({marks})", rids)
        return {found[0]: layout.row_of(found[1:]) for found in cur}

    def _call(self, fn: Callable[..., _T], *args: Any) -> _T:
        """Run one database call, turning a damaged file into IndexCorrupt."""
        try:
            return fn(*args)
        except sqlite3.DatabaseError as exc:
            if isinstance(exc, sqlite3.OperationalError) and not _looks_corrupt(exc):
                raise
            raise IndexCorrupt(self.path, str(exc)) from exc


# ------------------------------------------------------------------ helpers

def _is_busy(exc: sqlite3.Error) -> bool:
    return "locked" in str(exc) or "busy" in str(exc)


def _looks_corrupt(exc: sqlite3.Error) -> bool:
    text = str(exc).lower()
    return any(word in text for word in ("malformed", "corrupt", "not a database", "no such table", "no such column"))
