"""The clone's sentence vectors: one float32 blob per model and text, beside the recall index.

A memory's vector depends only on the model and the memory's text, so it is
kept under (model key, SHA-1 of the text) in ``vectors.sqlite`` in the clone's
shared state folder, next to the index. Like the index it is derived, never
committed and rebuilt from git (by encoding the texts again); unlike the
index's rows it survives a rebuild of the index, a branch switch and a change
of work tree, since the same text always has the same vector. A file that is
not a vector store is set aside and made anew.
"""

from __future__ import annotations

import hashlib
import os
import sqlite3
from collections.abc import Iterable, Sequence
from pathlib import Path

__all__ = ["FILE", "Vectors", "digest"]

FILE = "vectors.sqlite"
_SCHEMA = ("CREATE TABLE IF NOT EXISTS vector (model TEXT NOT NULL, digest BLOB NOT NULL, vec BLOB NOT NULL,"
           " PRIMARY KEY (model, digest)) WITHOUT ROWID")
_CHUNK = 500   # digests per SELECT (SQLite's limit of bound parameters is 32,766; stay far below)


def digest(text: str) -> bytes:
    """The key of a text's vector."""
    return hashlib.sha1(text.encode("utf-8", "surrogatepass")).digest()


class Vectors:
    """The vector store of one clone (``path``), for the model whose key is ``model``."""

    def __init__(self, path: Path, model: str) -> None:
        self.path, self.model = path, model
        path.parent.mkdir(parents=True, exist_ok=True)
        try:
            self._db = self._connect()
        except sqlite3.DatabaseError:
            os.replace(path, path.with_name(path.name + ".bad"))   # set aside, never read again
            self._db = self._connect()

    def _connect(self) -> sqlite3.Connection:
        db = sqlite3.connect(self.path, timeout=30, isolation_level=None, check_same_thread=False)
        try:
            db.execute("PRAGMA journal_mode = WAL")
            db.execute("PRAGMA synchronous = NORMAL")
            db.execute(_SCHEMA)
        except sqlite3.DatabaseError:
            db.close()
            raise
        return db

    def get(self, digests: Sequence[bytes]) -> dict[bytes, bytes]:
        """The stored vectors of ``digests`` (those missing are absent)."""
        out: dict[bytes, bytes] = {}
        for start in range(0, len(digests), _CHUNK):
            part = digests[start:start + _CHUNK]
            marks = ",".join("?" * len(part))
            out.update(self._db.execute(f"SELECT digest, vec FROM vector WHERE model = ? AND digest IN ({marks})",
                                        (self.model, *part)))
        return out

    def put(self, items: Iterable[tuple[bytes, bytes]]) -> None:
        """Store (digest, vector blob) pairs, in one transaction."""
        with self._db:
            self._db.execute("BEGIN IMMEDIATE")
            self._db.executemany("INSERT OR REPLACE INTO vector (model, digest, vec) VALUES (?, ?, ?)",
                                 ((self.model, d, v) for d, v in items))

    def count(self) -> int:
        """How many vectors of this model are stored."""
        return int(self._db.execute("SELECT count(*) FROM vector WHERE model = ?", (self.model,)).fetchone()[0])

    def close(self) -> None:
        self._db.close()
