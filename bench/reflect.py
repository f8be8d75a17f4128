"""Reflect's grouping as the store grows.

    python bench/reflect.py [--sizes 500,1000,2000] [--store 10000]

Prints the time of ``reflect.group`` over N memories next to the time of
describing their texts alone (every memory's features, which grouping needs
whatever its algorithm), and one ``plan_run`` over a store of --store fresh
memories, of which only the newest ``reflect.WINDOW`` are grouped.
"""

from __future__ import annotations

import argparse
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))
sys.path.insert(0, str(Path(__file__).resolve().parent))

from recall_latency import Corpus  # noqa: E402

from gitmem.base.clock import parse_time  # noqa: E402
from gitmem.base.model import Memory  # noqa: E402
from gitmem.engines import reflect  # noqa: E402
from gitmem.engines.features import describe  # noqa: E402
from gitmem.engines.reflect import Item, group  # noqa: E402


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--sizes", default="500,1000,2000")
    ap.add_argument("--store", type=int, default=10_000)
    args = ap.parse_args()
    corpus = Corpus()
    sizes = [int(s) for s in args.sizes.split(",")]
    texts = [corpus.text() for _ in range(max(max(sizes), args.store))]
    for n in sizes:
        describe.cache_clear()
        t0 = time.perf_counter()
        for text in texts[:n]:
            describe(text)
        floor = time.perf_counter() - t0
        describe.cache_clear()
        items = [Item(f"m-{i:06d}", texts[i], "fact", f"2026-11-{1 + i % 28:02d}T00:00:00Z") for i in range(n)]
        t0 = time.perf_counter()
        drafts = group(items)
        took = time.perf_counter() - t0
        print(f"group {n:>6} memories: {took:7.2f} s ({len(drafts)} drafts); describing them alone {floor:5.2f} s;"
              f" ratio {took / floor:6.1f}", flush=True)
    live = [Memory(f"m-{i:06d}", texts[i], created=f"2026-{1 + i * 12 // args.store:02d}-01T00:00:00Z")
            for i in range(args.store)]
    t0 = time.perf_counter()
    run = reflect.plan_run([], live, None, parse_time("2026-12-01T00:00:00Z"), auto=True, trigger=20)
    print(f"plan_run over a store of {args.store} fresh memories (newest {reflect.WINDOW} grouped):"
          f" {time.perf_counter() - t0:.2f} s, {len(run.plan.created) if run.plan else 0} patterns")


if __name__ == "__main__":
    main()
