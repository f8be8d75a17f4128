"""Recall latency and index upkeep of gitmem.store.index at 10k and 100k memories.

For each size, builds an Index on disk from synthetic memories (English stop
words at the head of a Zipf-distributed vocabulary, then made-up words: stop
words are about half the tokens, as in English; 6 to 40 words a memory, 20
memories per source session) and, in the same file, a
plain FTS5 table (``porter unicode61``) over the same texts. Then measures,
in the same run:

- ``Index.search(q, k=10)`` next to the raw query
  ``SELECT rowid, content FROM raw WHERE raw MATCH 'w1 OR w2 …' ORDER BY
  bm25(raw) LIMIT 10`` for the same queries, p50 and p95, for queries of
  2 to 4 words taken from one memory, with and without a common (stop) word,
  with one of the 40 most frequent content words, with the start of a
  mixed-case name (one memory in ten names one, "KaloMiser"), and with a word
  that is no stop word but is in half the memories ("project");
- upsert cost per changed memory: one memory per transaction (each a commit)
  and a batch of 500 in one transaction;
- a full rebuild (clear, then every row in one transaction), the rebuild by
  ``fill`` (as from git) and the index file's size.

    python bench/recall_latency.py [--sizes 10000,100000] [--queries 300]

Absolute times are noisy on shared machines; the ratios to the raw query,
measured in the same run, are the figures to read.
"""

from __future__ import annotations

import argparse
import itertools
import random
import sqlite3
import sys
import tempfile
import time
from collections.abc import Callable
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))
from gitmem.base import text  # noqa: E402
from gitmem.store import index  # noqa: E402

CLOCK = time.perf_counter  # how queries are timed (--clock)
NAMED_SHARE = 0.1  # memories that name a mixed-case identifier ("KaloMiser")
COMMON_WORD, COMMON_SHARE = "project", 0.5  # a word that is not a stop word, in half the memories
STOP_HEAD = ("the", "and", "to", "of", "a", "in", "is", "it", "that", "for", "with", "was", "on", "i", "you")
SYLLABLES = ("ka", "lo", "mi", "ser", "dan", "tro", "vel", "un", "qui", "ber", "sol", "ran", "po", "te", "gra", "nix")


def vocabulary(rng: random.Random, size: int) -> list[str]:
    """Stop words first (as in English, about half of all tokens), then made-up words."""
    words = list(STOP_HEAD) + sorted(text.ENGLISH_STOP_WORDS - set(STOP_HEAD))
    seen = set(words)
    while len(words) < size:
        word = "".join(rng.choice(SYLLABLES) for _ in range(rng.randint(2, 4)))
        if word not in seen and word not in text.STOP_WORDS:
            seen.add(word)
            words.append(word)
    return words


class Corpus:
    """Synthetic memory texts with Zipf word frequencies (exponent 1.05)."""

    def __init__(self, seed: int = 42, vocab: int = 50_000) -> None:
        self.rng = random.Random(seed)
        self.words = vocabulary(self.rng, vocab)
        weights = [1.0 / (rank + 1) ** 1.05 for rank in range(vocab)]
        self.cum = list(itertools.accumulate(weights))

    def text(self) -> str:
        """One memory's content; one in ten names a mixed-case identifier made of two of its words."""
        n = self.rng.randint(6, 40)
        said = self.rng.choices(self.words, cum_weights=self.cum, k=n)
        if self.rng.random() < COMMON_SHARE:
            said.insert(self.rng.randrange(len(said) + 1), COMMON_WORD)
        if self.rng.random() < NAMED_SHARE:
            said.append("".join(w.capitalize() for w in self.rng.sample(self.words[200:5000], 2)))
        line = " ".join(said)
        return line[0].upper() + line[1:] + "."   # not str.capitalize(): it would lower-case the names

    def rows(self, n: int, stamp: str) -> list[index.IndexRow]:
        """``n`` IndexRows, 20 to a source session."""
        return [
            index.IndexRow(
                id=f"m-{i:07d}x", path=f"memory/project/m-{i:07d}x.md", content=self.text(), type="fact",
                domain="project", tier="short", band="active", importance=self.rng.choice((0.5, 0.7, 0.8)),
                created=stamp, last_accessed=stamp, source_id=f"session:s{i // 20:06d}#L{i % 20 + 1}",
            )
            for i in range(n)
        ]  # fmt: skip


def queries(rng: random.Random, rows: list[index.IndexRow], corpus: Corpus, n: int) -> dict[str, list[str]]:
    """Five query sets: plain, plus a stop word, plus a frequent content word, plus the start of a name, plus a
    word in half the memories."""
    plain: list[str] = []
    while len(plain) < n:
        own = [w for w in rng.choice(rows).content.lower().rstrip(".").split() if w not in text.STOP_WORDS]
        if len(set(own)) >= 2:
            plain.append(" ".join(rng.sample(sorted(set(own)), min(len(set(own)), rng.randint(2, 4)))))
    head = len(STOP_HEAD) + len(text.ENGLISH_STOP_WORDS - set(STOP_HEAD))
    frequent = corpus.words[head : head + 40]  # the most frequent content words
    names = [w.lower() for r in rows for w in r.content.split() if w[1:] != w[1:].lower()] or frequent
    return {
        "no common word": plain,
        "with a stop word": [f"{q} {rng.choice(STOP_HEAD[:6])}" for q in plain],
        "with a frequent word": [f"{q} {rng.choice(frequent)}" for q in plain],
        "with a name's start": [f"{q} {rng.choice(names)[:6]}" for q in plain],
        "with a word in half": [f"{q} {COMMON_WORD}" for q in plain],
    }


def raw_expr(query: str) -> str:
    """The raw baseline's MATCH expression: every word, OR-ed, quoted."""
    return " OR ".join(f'"{w}"' for w in query.split())


def timed_pair(
    mine: Callable[[str], object], base: Callable[[str], object], items: list[str], rounds: int = 3
) -> tuple[list[float], list[float]]:
    """Milliseconds per call of both functions, interleaved query by query.

    Each query runs both ways back to back, in alternating order, so the
    noise of a shared machine falls on both alike; one untimed pass warms
    the caches first.
    """
    for q in items[:50]:
        mine(q)
        base(q)
    a: list[float] = []
    b: list[float] = []
    for r in range(rounds):
        for i, q in enumerate(items):
            order = ((mine, a), (base, b)) if (i + r) % 2 == 0 else ((base, b), (mine, a))
            for fn, out in order:
                t0 = CLOCK()
                fn(q)
                out.append((CLOCK() - t0) * 1000)
    return a, b


def pct(values: list[float], p: float) -> float:
    """The p-th percentile (nearest rank)."""
    s = sorted(values)
    return s[min(len(s) - 1, max(0, round(p / 100 * len(s)) - 1))]


def run_size(n: int, nq: int, folder: Path) -> None:
    """Build both indexes at one size and print every figure."""
    corpus = Corpus()
    stamp = "2026-11-01T00:00:00Z"
    rows = corpus.rows(n, stamp)
    path = folder / f"index-{n}.sqlite"
    ix = index.Index(path)
    t0 = time.perf_counter()
    with ix.transaction():
        ix.clear()
        ix.upsert(rows, meta={"commit": "0" * 40})
    rebuild = time.perf_counter() - t0
    ix.close()
    path.unlink()
    ix = index.Index(path)
    t0 = time.perf_counter()
    ix.fill(rows, meta={"commit": "0" * 40})
    filled = time.perf_counter() - t0
    checkpointed = sqlite3.connect(path)
    checkpointed.execute("PRAGMA wal_checkpoint(TRUNCATE)")
    checkpointed.close()
    size = path.stat().st_size

    raw = sqlite3.connect(path)
    raw.execute("CREATE VIRTUAL TABLE raw USING fts5(content, tokenize='porter unicode61')")
    t0 = time.perf_counter()
    with raw:
        raw.executemany("INSERT INTO raw (rowid, content) VALUES (?, ?)", ((i + 1, r.content) for i, r in enumerate(rows)))
    raw_build = time.perf_counter() - t0

    print(f"\n## {n:,} memories")
    print(f"full rebuild (clear + upsert all, one transaction): {rebuild:.2f} s "
          f"({rebuild / n * 1000:.3f} ms/row); raw FTS5 insert of the same texts: {raw_build:.2f} s")  # fmt: skip
    print(f"rebuild by fill (bulk insert, one FTS build, as a rebuild from git): {filled:.2f} s; "
          f"index file {size / 1e6:.1f} MB")

    rng = random.Random(n)
    sets = queries(rng, rows, corpus, nq)
    print(f"{'queries':22s} {'Index.search p50/p95':>22s} {'raw bm25 p50/p95':>18s} {'ratio p50/p95':>14s}")
    for label, qs in sets.items():
        mine, base = timed_pair(
            lambda q: ix.search(q, k=10),
            lambda q: raw.execute(
                "SELECT rowid, content FROM raw WHERE raw MATCH ? ORDER BY bm25(raw) LIMIT 10", (raw_expr(q),)
            ).fetchall(),
            qs,
        )
        m50, m95, b50, b95 = pct(mine, 50), pct(mine, 95), pct(base, 50), pct(base, 95)
        print(f"{label:22s} {m50:9.2f} / {m95:6.2f} ms {b50:7.2f} / {b95:6.2f} ms {m50 / b50:6.2f} / {m95 / b95:5.2f}")

    changed = corpus.rows(500, "2026-11-02T00:00:00Z")
    # the same memories, changed: each new text takes the id and source of an existing row
    changed = [r._replace(id=rows[i * 7].id, source_id=rows[i * 7].source_id) for i, r in enumerate(changed)]
    t0 = time.perf_counter()
    for r in changed[:200]:
        ix.upsert([r], meta={"commit": "1" * 40})
    single = (time.perf_counter() - t0) / 200 * 1000
    t0 = time.perf_counter()
    ix.upsert(changed, meta={"commit": "2" * 40})
    batch = (time.perf_counter() - t0) / len(changed) * 1000
    print(f"upsert per changed memory: {single:.3f} ms one per transaction (with commit), {batch:.3f} ms in a batch of 500")
    ix.close()
    raw.close()


def main(argv: list[str] | None = None) -> int:
    """Run every size and print the figures."""
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--sizes", default="10000,100000", help="comma list of index sizes")
    ap.add_argument("--queries", type=int, default=300, help="queries per set")
    ap.add_argument("--clock", choices=("wall", "cpu"), default="wall",
                    help="time queries by the wall clock, or by this thread's CPU time (steady on a loaded machine)")
    args = ap.parse_args(argv)
    global CLOCK
    CLOCK = time.thread_time if args.clock == "cpu" else time.perf_counter
    print(f"SQLite {sqlite3.sqlite_version}, Python {sys.version.split()[0]}, queries timed by {args.clock} clock")
    with tempfile.TemporaryDirectory(prefix="gitmem-latency-") as tmp:
        for n in (int(s) for s in args.sizes.split(",")):
            run_size(n, args.queries, Path(tmp))
    return 0


if __name__ == "__main__":
    sys.exit(main())
