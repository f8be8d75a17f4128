"""The harvest scorer: a model learned offline decides which candidates become memories.

The weights are data shipped in the package (``scorer.weights``), trained by
``bench/harvest_train.py`` (logistic regression over ``featurize`` vectors)
and read here in pure Python: ``score`` is the model's probability that a
person would keep the candidate, ``decide`` turns it into keep (a memory on
main), inbox (a memory a person settles) or drop, by the thresholds chosen
at training on the training repositories only. ``kind_of`` names what a kept
candidate is (preference, decision, fact, lesson, remember).

The file: ``MAGIC``, a little-endian uint32 header length, the header (JSON:
format, version, the feature spec's hash, thresholds, biases, the blocks and
a few checks: fixed candidates with the scores the trained model gave them),
then per block its int32 bucket indices and int16 weights (times the block's
scale). Only non-zero weights are stored. Weights made for another feature
spec are refused with ``WeightsMismatch``: the code and its data disagree,
which is a bug of the build, never a user's to fix.
"""

from __future__ import annotations

import json
import math
import sys
from array import array
from dataclasses import dataclass
from functools import cache
from importlib import resources
from typing import Any, Literal, Mapping

from gitmem.engines.harvest import featurize
from gitmem.engines.harvest.featurize import Scorable

__all__ = ["FILE", "FORMAT", "MAGIC", "Decision", "Model", "WeightsMismatch", "decide", "dump", "kind_of", "load",
           "parse", "score"]

FILE = "scorer.weights"
MAGIC = b"GMHS"
FORMAT = 1

Decision = Literal["keep", "inbox", "drop"]
KeptKind = Literal["preference", "decision", "fact", "lesson", "remember"]
KINDS: tuple[KeptKind, ...] = ("preference", "decision", "fact", "lesson", "remember")


class WeightsMismatch(RuntimeError):
    """The shipped weights do not fit this code (another feature spec, a broken file)."""


@dataclass(frozen=True)
class Model:
    """A scorer's weights: keep-or-drop, the kind of what is kept, the thresholds, and the header as read."""

    keep: Mapping[int, float]
    bias: float
    keep_at: float
    inbox_at: float
    kinds: Mapping[str, tuple[Mapping[int, float], float]]
    header: Mapping[str, Any]

    def probability(self, vector: Mapping[int, float]) -> float:
        """The model's probability that a person keeps the candidate of ``vector``."""
        z = self.bias + sum(self.keep.get(b, 0.0) * v for b, v in vector.items())
        return 1.0 / (1.0 + math.exp(-z)) if z >= -700 else 0.0

    def kind(self, vector: Mapping[int, float]) -> str | None:
        """The most likely kind of a kept candidate, or None when the weights hold no kind model."""
        best: tuple[float, str] | None = None
        for name, (weights, bias) in self.kinds.items():
            z = bias + sum(weights.get(b, 0.0) * v for b, v in vector.items())
            if best is None or z > best[0]:
                best = (z, name)
        return best[1] if best else None


def _arrays(data: bytes, at: int, n: int, scale: float) -> tuple[dict[int, float], int]:
    idx, val = array("i"), array("h")
    if idx.itemsize != 4 or val.itemsize != 2:
        raise WeightsMismatch("this platform's C int is not 32 bits: the scorer's weights cannot be read")
    end = at + 4 * n
    idx.frombytes(data[at:end])
    val.frombytes(data[end:end + 2 * n])
    if len(val) != n:
        raise WeightsMismatch("scorer weights truncated")
    if sys.byteorder == "big":
        idx.byteswap()
        val.byteswap()
    return {i: q * scale for i, q in zip(idx, val)}, end + 2 * n


def parse(data: bytes, spec: str = featurize.SPEC) -> Model:
    """The model a weights file holds; ``WeightsMismatch`` when it is broken or made for another spec."""
    if data[:4] != MAGIC or len(data) < 8:
        raise WeightsMismatch("not a scorer weights file")
    size = int.from_bytes(data[4:8], "little")
    try:
        header = json.loads(data[8:8 + size].decode("utf-8"))
    except ValueError as exc:
        raise WeightsMismatch(f"scorer weights header unreadable: {exc}") from None
    if header.get("format") != FORMAT:
        raise WeightsMismatch(f"scorer weights format {header.get('format')!r}, this code reads {FORMAT}")
    if header.get("spec") != spec:
        raise WeightsMismatch(f"scorer weights made for feature spec {header.get('spec')!r}, this code has {spec!r}: "
                              "retrain with bench/harvest_train.py")
    at = 8 + size
    blocks: dict[str, dict[int, float]] = {}
    for block in header["blocks"]:
        blocks[block["name"]], at = _arrays(data, at, int(block["n"]), float(block["scale"]))
    if at != len(data):
        raise WeightsMismatch("scorer weights file has trailing bytes")
    kinds = {name: (blocks[f"kind:{name}"], float(bias)) for name, bias in header.get("kind_bias", {}).items()}
    return Model(blocks["keep"], float(header["bias"]), float(header["thresholds"]["keep"]),
                 float(header["thresholds"]["inbox"]), kinds, header)


def _quantized(weights: Mapping[int, float]) -> tuple[bytes, int, float]:
    kept = {i: w for i, w in weights.items() if w != 0.0}
    top = max((abs(w) for w in kept.values()), default=0.0)
    scale = top / 32767 if top else 1.0
    pairs = sorted((i, round(w / scale)) for i, w in kept.items())
    pairs = [(i, q) for i, q in pairs if q != 0]
    idx, val = array("i", [i for i, _ in pairs]), array("h", [q for _, q in pairs])
    if sys.byteorder == "big":
        idx.byteswap()
        val.byteswap()
    return idx.tobytes() + val.tobytes(), len(pairs), scale


def dump(header: Mapping[str, Any], keep: Mapping[int, float], kinds: Mapping[str, Mapping[int, float]]) -> bytes:
    """A weights file: ``header`` (without its blocks) and the keep and kind weights, non-zero ones only."""
    body, blocks = b"", []
    for name, weights in (("keep", keep), *((f"kind:{k}", w) for k, w in kinds.items())):
        data, n, scale = _quantized(weights)
        body += data
        blocks.append({"name": name, "n": n, "scale": scale})
    head = json.dumps({**header, "format": FORMAT, "blocks": blocks}, ensure_ascii=False, sort_keys=True).encode("utf-8")
    return MAGIC + len(head).to_bytes(4, "little") + head + body


@cache
def load() -> Model:
    """The shipped model, read once."""
    return parse(resources.files("gitmem.engines.harvest").joinpath(FILE).read_bytes())


def score(c: Scorable, model: Model | None = None) -> float:
    """The probability that a person would keep candidate ``c``."""
    return (model or load()).probability(featurize.features(c))


def decide(p: float, model: Model | None = None) -> Decision:
    """keep, inbox or drop for a candidate of score ``p``."""
    m = model or load()
    return "keep" if p >= m.keep_at else "inbox" if p >= m.inbox_at else "drop"


def kind_of(c: Scorable, model: Model | None = None) -> KeptKind:
    """What a kept candidate is: the kind model's answer, else a guess from its speaker and markers."""
    found = (model or load()).kind(featurize.features(c))
    if found in KINDS:
        return found  # type: ignore[return-value]  # checked against KINDS just above
    from gitmem.engines.harvest.signals import classify

    rule = classify(c.text)
    if rule in ("remember", "preference", "decision"):
        return rule  # type: ignore[return-value]
    if rule == "correction":
        return "preference"
    return "lesson" if c.after_error or rule == "error" else "fact"
