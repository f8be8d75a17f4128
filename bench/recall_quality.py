"""Recall quality of gitmem.store.index on the LoCoMo dev split, in process.

Builds one Index per conversation the way an import would fill it (one
memory per dialog turn, the benchmark id kept as ``source_id``, every
memory last accessed at the import moment, importance 0.5), asks every
question with ``Index.search(question, k=10)`` and scores the ranking with
the benchmark's own ``common.py`` (imported from the benchmark folder, not
copied). Prints R@5 / R@10 / MRR@10 per conversation next to the
benchmark's baselines, and the same for ablations of the ranking.

    python bench/recall_quality.py [--convs conv-26,conv-30] [--ablations]

The benchmark folder is ``../shared/bench/recall`` beside the repository,
or ``$GITMEM_BENCH_DIR``.
"""

from __future__ import annotations

import argparse
import os
import random
import re
import sys
import time
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from datetime import datetime, timezone
from pathlib import Path
from types import ModuleType
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))
from gitmem.store import index, ranking  # noqa: E402

# From the benchmark's README: SQLite FTS5 with the porter tokenizer, the best.
BASELINE = {
    "conv-26": (0.503, 0.594, 0.378),
    "conv-30": (0.610, 0.724, 0.452),
}
METRICS = ("R@5", "R@10", "MRR@10")


def bench_dir() -> Path:
    """Where the LoCoMo dev split lives."""
    given = os.environ.get("GITMEM_BENCH_DIR")
    return Path(given) if given else Path(__file__).resolve().parents[2] / "shared" / "bench" / "recall"


def load_common() -> ModuleType:
    """The benchmark's common.py, imported from its folder."""
    folder = bench_dir()
    if not (folder / "common.py").is_file():
        raise SystemExit(f"no benchmark at {folder}; set GITMEM_BENCH_DIR")
    sys.path.insert(0, str(folder))
    import common  # type: ignore[import-not-found]

    return common


def slug(text: str) -> str:
    """An id in gitmem's alphabet ([a-z0-9-]) for a benchmark id."""
    return re.sub(r"[^a-z0-9]+", "-", text.lower()).strip("-")


def to_rows(
    memories: list[dict[str, Any]], importance: Callable[[int], float], keep_source: bool, encoded: bool = False
) -> Iterator[index.IndexRow]:
    """IndexRows as an import of the benchmark memories would make them.

    With ``encoded``, keywords and importance come from ``gitmem.engines.encode``, as
    ``gitmem import`` sets them.
    """
    imported = datetime.now(timezone.utc).isoformat(timespec="seconds").replace("+00:00", "Z")
    for n, m in enumerate(memories):
        keywords: tuple[str, ...] = ()
        weight = importance(n)
        if encoded:
            from gitmem.engines import encode

            found = encode.encode(m["content"])
            keywords, weight = found.keywords, found.importance
        yield index.IndexRow(
            id=slug(m["id"]),
            path=f"memory/world/{slug(m['id'])}.md",
            content=m["content"],
            type="fact",
            domain="world",
            tier="short",
            band="active",
            importance=weight,
            keywords=keywords,
            created=m["created"] + "Z",
            last_accessed=imported,
            tags=tuple(m.get("tags", ())),
            source_id=m["id"] if keep_source else None,
        )


def evaluate(
    common: ModuleType, convs: list[str], importance: Callable[[int], float], keep_source: bool, encoded: bool = False,
    related: bool = False,
) -> dict[str, Any]:
    """Per-conversation metrics and latency of Index.search on the benchmark (``related``: as ``recall --expand``)."""
    by_conv, queries = common.load_benchmark(convs)
    per_query = []
    for conv, memories in by_conv.items():
        back = {slug(m["id"]): m["id"] for m in memories}
        with index.Index(":memory:") as ix:
            ix.upsert(to_rows(memories, importance, keep_source, encoded))
            for q in (q for q in queries if q["conv"] == conv):
                t0 = time.perf_counter()
                hits = ix.search(q["question"], k=10, related=related)
                elapsed = time.perf_counter() - t0
                ranked = [back[h.id] for h in hits]
                res = common.score_ranking(ranked, q["evidence"])
                res.update(conv=conv, category=q["category"], latency_s=elapsed)
                per_query.append(res)
    return common.aggregate(per_query)


@contextmanager
def patched(**values: float) -> Iterator[None]:
    """Temporarily change ranking constants of gitmem.store.ranking (ablations only)."""
    old = {name: getattr(ranking, name) for name in values}
    for name, value in values.items():
        setattr(ranking, name, value)
    try:
        yield
    finally:
        for name, value in old.items():
            setattr(ranking, name, value)


# The recall methods of issue 13, each switched off by these values.
METHODS: dict[str, dict[str, float]] = {
    "question answered by the next turn": {"_CONTEXT_FROM_QUESTION": 0.5},
    "'when' favours turns stating a time": {"_TIME_STATED_WEIGHT": 0.0},
    "named date favours turns made then": {"_PERIOD_WEIGHT": 0.0},
    "coverage weighs terms by rarity": {"_RARITY_WEIGHTED": False},
    "compounds asked and indexed closed": {"_JOIN_COMPOUNDS": False},
}


def flat(n: int) -> float:
    """Importance 0.5 for every memory, as an import gives plain facts."""
    return 0.5


def cells(res: dict[str, Any]) -> str:
    """R@5 / R@10 / MRR@10 of one aggregate."""
    return " / ".join(f"{res[m]:.3f}" for m in METRICS)


def report(label: str, agg: dict[str, Any], convs: list[str]) -> None:
    """One table row per method: each conversation's figures and the latency."""
    row = [f"{label:44s}"]
    for conv in convs:
        row.append(cells(agg["by_conv"][conv]) if conv in agg["by_conv"] else "n/a")
    row.append(f"{agg['overall']['latency_ms_median']:.2f} ms")
    print(" | ".join(row), flush=True)


def main(argv: list[str] | None = None) -> int:
    """Run the benchmark and print the table."""
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--convs", default="conv-26,conv-30", help="comma list of conversation ids")
    ap.add_argument("--ablations", action="store_true", help="also run the ranking without each part")
    ap.add_argument("--by-category", action="store_true", help="also print each run's figures per LoCoMo category")
    args = ap.parse_args(argv)
    common = load_common()
    convs = args.convs.split(",")
    print(f"{'method':44s} | " + " | ".join(f"{c} R@5 / R@10 / MRR@10" for c in convs) + " | median")
    base = [f"{'baseline: FTS5 porter (README)':44s}"]
    for conv in convs:
        base.append(" / ".join(f"{x:.3f}" for x in BASELINE[conv]) if conv in BASELINE else "n/a")
    print(" | ".join(base))
    runs = [("gitmem.store.index", False, False), ("  with gitmem.engines.encode keywords + importance", True, False),
            ("  related: shared rare terms of the top hits (recall --expand)", False, True),
            ("  related, with encode keywords + importance", True, True)]
    for label, encoded, related in runs:
        agg = evaluate(common, convs, flat, True, encoded, related)
        report(label, agg, convs)
        if args.by_category:
            for cat, res in agg["by_category"].items():
                name = common.CATEGORY_LABELS.get(int(cat), cat) if cat.isdigit() else cat
                print(f"{'    ' + name:44s} | {cells(res)} (all conversations)")
    if not args.ablations:
        return 0
    report("  ids only (no source_id)", evaluate(common, convs, flat, False), convs)
    rng = random.Random(7)
    varied = [rng.choice((0.5, 0.5, 0.7, 0.75, 0.8, 0.85, 0.9)) for _ in range(100_000)]
    report("  importance varied 0.5-0.9 (encode-like)", evaluate(common, convs, varied.__getitem__, True), convs)
    ablations: list[tuple[str, dict[str, float]]] = [
        ("  - source context", {"_CONTEXT_FROM_PREVIOUS": 0.0, "_CONTEXT_FROM_NEXT": 0.0}),
        ("  - coverage", {"_COVERAGE_WEIGHT": 0.0}),
        ("  - adjacency", {"_ADJACENCY_WEIGHT": 0.0}),
        ("  bm25 + stop words only", {"_CONTEXT_FROM_PREVIOUS": 0.0, "_CONTEXT_FROM_NEXT": 0.0,
                                      "_COVERAGE_WEIGHT": 0.0, "_ADJACENCY_WEIGHT": 0.0}),
    ]  # fmt: skip
    for label, values in ablations:
        with patched(**values):
            report(label, evaluate(common, convs, flat, True), convs)
    print("methods (import-like run: encode keywords + importance)")
    none: dict[str, float] = {k: v for values in METHODS.values() for k, v in values.items()}
    with patched(**none):
        report("  none of them (before)", evaluate(common, convs, flat, True, True), convs)
    for label, values in METHODS.items():
        others = {k: v for k, v in none.items() if k not in values}
        with patched(**others):
            report(f"  alone: {label}", evaluate(common, convs, flat, True, True), convs)
    for label, values in METHODS.items():
        with patched(**values):
            report(f"  all but: {label}", evaluate(common, convs, flat, True, True), convs)
    report("  all of them", evaluate(common, convs, flat, True, True), convs)
    return 0


if __name__ == "__main__":
    sys.exit(main())
