"""The recall index's layout: its tables, and how a memory becomes a row and back.

``gitmem.store.index`` opens and searches the index; this module says what
the file holds (the schema and its versions), makes a new file whole, and
turns an ``IndexRow`` into the ``memory`` table's values (with the full-text
and reranker columns derived from it) and a stored row back into an
``IndexRow``.
"""

from __future__ import annotations

import os
import re
import sqlite3
from collections import namedtuple
from datetime import datetime, timezone

from gitmem.base import text
from gitmem.store import ranking, vocabulary
from gitmem.store.ranking import EPISODE

__all__ = ["COLUMNS", "INSERT", "ROWS_VERSION", "SCHEMA", "SCHEMA_KEY", "SCHEMA_VERSION", "IndexRow", "create", "full_text",
           "row_of", "values"]

TYPE_CHECKING = False  # typing costs ~5 ms of a whole-process recall: annotations only
if TYPE_CHECKING:
    from collections.abc import Sequence
    from typing import Any

SCHEMA_VERSION = "7"
# What rows carry (the stems and stop words of the terms column included):
# an index whose rows were made another way is rebuilt, not trusted.
# 3: stems from PyStemmer's porter, one English and French stop list.
# 4: episodes are rows too (type "episode"); memories carry their project.
# 5: rows say whether their text states a time (the ``dated`` column, schema 4);
#    keys hold the closed forms of hyphenated compounds.
# 6: FTS5 indexes gitmem's own stems (the ``words`` column, schema 6), no porter tokenizer.
# 7: names add their case parts and closed forms to keys and terms; the vocab table (schema 7).
ROWS_VERSION = "7"
# Meta keys are the caller's (the indexed commit, its own versions); this one
# is the table layout's, named so that no caller's key collides with it.
SCHEMA_KEY = "gitmem.store.index.schema"

# Lists are stored joined by the ASCII unit separator: faster to read back
# than JSON, and no keyword, tag or id contains it.
_SEPARATOR = "\x1f"

# A number ending a source id orders the memories of that source; the part
# before it must end in a character that is not a hex digit, so a random
# hex id ("m-2026-11-29-3f9a12") never looks like a sequence.
_SEQUENCE = re.compile(r"^(.*[^0-9a-fA-F])(\d{1,9})$")

SCHEMA = (
    "CREATE TABLE meta (key TEXT PRIMARY KEY, value TEXT NOT NULL)",
    """CREATE TABLE memory (
    rid INTEGER PRIMARY KEY,
    id TEXT NOT NULL UNIQUE,
    path TEXT NOT NULL,
    content TEXT NOT NULL,
    words TEXT NOT NULL,         -- the content's stems, every word: the FTS words column
    keys TEXT NOT NULL,          -- stems of keywords, tags, closed compounds: the FTS keys column
    cjk TEXT NOT NULL,           -- CJK bigrams, for the FTS cjk column
    terms TEXT NOT NULL,         -- " stem stem … ": no stop words, space padded, for the reranker
    type TEXT NOT NULL,
    domain TEXT NOT NULL,
    tier TEXT NOT NULL,
    band TEXT NOT NULL,
    importance REAL NOT NULL,
    created TEXT NOT NULL,
    last_accessed TEXT NOT NULL,
    accessed_ts REAL,            -- last_accessed as epoch seconds, NULL if unparseable
    keywords TEXT NOT NULL,      -- lists joined by _SEPARATOR
    tags TEXT NOT NULL,
    links TEXT NOT NULL,
    source_id TEXT,
    seq_key TEXT,
    seq_pos INTEGER,
    project TEXT,                -- the project id, NULL for a global memory
    project_name TEXT,
    dated INTEGER NOT NULL DEFAULT 0  -- 1 when the content states a time (gitmem.base.text.states_time)
    )""",
    "CREATE INDEX memory_seq ON memory (seq_key, seq_pos)",
    "CREATE INDEX memory_type ON memory (type)",
    "CREATE INDEX memory_project ON memory (project)",
    """CREATE VIRTUAL TABLE memory_fts USING fts5 (
    words, keys, cjk,
    content='memory', content_rowid='rid',
    tokenize='unicode61 remove_diacritics 2'
    )""",
    # how many memories hold each term: the rarity that weighs a query term's coverage
    "CREATE VIRTUAL TABLE memory_vocab USING fts5vocab (memory_fts, 'row')",
    *vocabulary.SCHEMA,
    f"INSERT INTO meta VALUES ('{SCHEMA_KEY}', '{SCHEMA_VERSION}')",
)

COLUMNS = (
    "id, path, content, type, domain, tier, band, importance, created, "
    "last_accessed, keywords, tags, source_id, links, project, project_name"
)


class IndexRow(namedtuple("IndexRow", "id path content type domain tier band importance created last_accessed "
                                       "keywords tags source_id links project project_name",
                                       defaults=((), (), None, (), None, None))):
    """One memory as the index stores it.

    Fields: ``id``, ``path``, ``content``, ``type``, ``domain``, ``tier``,
    ``band`` (str); ``importance`` (float, 0..1); ``created``,
    ``last_accessed`` (ISO 8601 str); ``keywords``, ``tags``, ``links``
    (tuples of str, default empty); ``source_id`` (str or None); ``project``,
    ``project_name`` (the project's id and display name, None for a global
    memory). An episode is a row of ``type`` "episode".

    The values of this module are named tuples, not dataclasses or
    typing.NamedTuple: recall runs as a whole process per query, and importing
    either costs more than the query itself.

    ``source_id`` is where the memory came from when that is an id of its own
    (an import row id, ``session:<id>#L<line>``); a number ending it orders
    the memories of one source, which recall uses as conversational context.
    """

    __slots__ = ()


INSERT = (
    "INSERT INTO memory (id, path, content, words, keys, cjk, terms, type, domain, tier, band,"
    " importance, created, last_accessed, accessed_ts, keywords, tags, links, source_id,"
    " seq_key, seq_pos, project, project_name, dated) VALUES (?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?)"
)


def values(row: IndexRow) -> tuple[Any, ...]:
    """The ``memory`` table's values for ``row`` (what the full-text and reranker columns derive)."""
    content = full_text(row)
    names = ranking.name_terms(content)
    keys = ranking.fts_keys(row.keywords, row.tags, row.content, names)
    cjk = text.cjk_terms(content)
    seq = None if row.type == EPISODE else _sequence(row.source_id or row.id)
    return (
        row.id, row.path, row.content, ranking.fts_words(row.content), keys, cjk, ranking.terms(content, cjk, names),
        row.type, row.domain, row.tier, row.band, float(row.importance),
        row.created, row.last_accessed, _epoch(row.last_accessed),
        _join(row.keywords), _join(row.tags), _join(row.links), row.source_id,
        seq[0] if seq else None, seq[1] if seq else None, row.project, row.project_name,
        int(text.states_time(row.content)),
    )  # fmt: skip


def full_text(row: IndexRow) -> str:
    """The text ``row`` is found by: its content, keywords and tags (its words go to the vocabulary too)."""
    return f"{row.content}\n{' '.join((*row.keywords, *row.tags))}"


def create(path: str) -> None:
    """Make the index file whole beside ``path`` (WAL mode: readers never wait for upkeep; tables),
    then link it into place: of racing makers the first wins and none sees a half-made file
    (switching a shared file to WAL answers "database is locked" at once, with no wait)."""
    from gitmem.base.files import temp_beside

    tmp = temp_beside(path)
    try:
        db = sqlite3.connect(tmp, isolation_level=None)
        try:
            db.executescript("PRAGMA journal_mode = WAL; BEGIN; " + "; ".join(SCHEMA) + "; COMMIT")
        finally:
            db.close()
        try:
            os.link(tmp, path)
        except FileExistsError:
            pass
    finally:
        try:
            os.unlink(tmp)   # its -wal and -shm go with the last connection's close
        except FileNotFoundError:
            pass


def _sequence(source: str) -> tuple[str, int] | None:
    found = _SEQUENCE.match(source)
    return (found.group(1), int(found.group(2))) if found else None


def _join(items: tuple[str, ...]) -> str:
    return _SEPARATOR.join(items)


def _split(text: str) -> tuple[str, ...]:
    return tuple(text.split(_SEPARATOR)) if text else ()


def _epoch(stamp: str) -> float | None:
    try:
        moment = datetime.fromisoformat(stamp.strip().replace("Z", "+00:00"))
    except ValueError:
        return None
    if moment.tzinfo is None:
        moment = moment.replace(tzinfo=timezone.utc)
    return moment.timestamp()


def row_of(found: Sequence[Any]) -> IndexRow:
    (mid, path, content, typ, domain, tier, band, importance, created, accessed, keywords, tags, source, links,
     project, project_name) = found
    return IndexRow(
        mid, path, content, typ, domain, tier, band, importance, created, accessed,
        _split(keywords), _split(tags), source, _split(links), project, project_name,
    )  # fmt: skip
