"""Sentence vectors as stored (float32 blobs) and the cosine scan over them.

Vectors are unit length (``bert``), so the cosine of two is their dot product
and a scan is one matrix-vector product over the stacked rows.
"""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np

from gitmem.base.embed.bert import Array

__all__ = ["Matrix", "blob", "centroid", "close_pairs", "cosine", "stack"]


def blob(vector: Array) -> bytes:
    """The stored form of one vector: its float32 bytes, little-endian."""
    return np.ascontiguousarray(vector, dtype="<f4").tobytes()


def stack(blobs: Sequence[bytes], dim: int) -> Array:
    """The vectors of ``blobs`` as the rows of one matrix (a blob of the wrong size is a zero row)."""
    out = np.zeros((len(blobs), dim), dtype=np.float32)
    for i, b in enumerate(blobs):
        if len(b) == 4 * dim:
            out[i] = np.frombuffer(b, dtype="<f4")
    return out


def cosine(a: Array, b: Array) -> float:
    """The cosine of two unit vectors."""
    return float(np.dot(a, b))


def centroid(rows: Array) -> Array:
    """The unit mean of unit rows (a text encoded in parts: the direction of the whole); zero for none."""
    mean = rows.sum(axis=0, dtype=np.float32) if len(rows) else np.zeros(rows.shape[1:], dtype=np.float32)
    norm = float(np.linalg.norm(mean))
    out: Array = (mean / norm).astype(np.float32) if norm > 0 else mean
    return out


def close_pairs(rows: Array, floor: float) -> dict[tuple[int, int], float]:
    """Every pair (i, j), i < j, of unit rows whose cosine is at least ``floor``, with that cosine."""
    sims = rows @ rows.T
    i, j = np.nonzero(np.triu(sims >= floor, k=1))
    return {(int(a), int(b)): float(sims[a, b]) for a, b in zip(i, j)}


class Matrix:
    """Stacked unit vectors, one per key; ``nearest`` ranks the keys by cosine to a query vector."""

    def __init__(self, keys: Sequence[str], rows: Array) -> None:
        self.keys, self.rows = list(keys), rows

    def __len__(self) -> int:
        return len(self.keys)

    def nearest(self, query: Array, n: int) -> list[tuple[str, float]]:
        """The ``n`` keys nearest ``query``, best first, with their cosines."""
        if not self.keys or n <= 0:
            return []
        sims = self.rows @ query
        n = min(n, len(self.keys))
        top = np.argpartition(-sims, n - 1)[:n] if n < len(self.keys) else np.arange(len(self.keys))
        top = top[np.argsort(-sims[top], kind="stable")]
        return [(self.keys[i], float(sims[i])) for i in top]
