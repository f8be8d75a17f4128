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
import re
import sys
from array import array
from dataclasses import dataclass, replace
from functools import cache
from importlib import resources
from typing import TYPE_CHECKING, Any, Literal, Mapping, Sequence

from gitmem.engines.harvest import featurize
from gitmem.engines.harvest.featurize import Scorable
from gitmem.engines.harvest.signals import Signal, SignalKind

if TYPE_CHECKING:
    from gitmem.engines.harvest.sources import Transcript

__all__ = ["FILE", "FORMAT", "MAGIC", "MAX_TEXT", "Decision", "Model", "WeightsMismatch", "concise", "decide", "dump",
           "find_signals", "kind_of", "lesson", "load", "parse", "score"]

FILE = "scorer.weights"
MAGIC = b"GMHS"
FORMAT = 1

Decision = Literal["keep", "inbox", "drop"]
KeptKind = Literal["preference", "decision", "fact", "lesson", "remember"]
KINDS: tuple[KeptKind, ...] = ("preference", "decision", "fact", "lesson", "remember")
_KIND: dict[str, KeptKind] = {k: k for k in KINDS}
# The signal kind (and so the memory type) of a kept candidate's kind: a lesson is an error and its fix.
SIGNAL_KIND: dict[KeptKind, SignalKind] = {"preference": "preference", "decision": "decision", "fact": "fact",
                                           "lesson": "error", "remember": "remember"}
MAX_TEXT = 300
# What the rule signals of ``signals.find_signals`` become beside the scorer's: "scored" (confirmed by the
# score of their candidate), "inbox" (on main when they say outright that they last or their candidate
# scores at the keep threshold, else in the harvest inbox for a person to settle), "kept" as the rules
# judged them, or "transient" (in the episode only, never a memory). Chosen by measure on the training repositories (bench/harvest_train.py prints all three).
RuleMode = Literal["kept", "scored", "inbox", "transient"]
RULE_SIGNALS: RuleMode = "inbox"


class WeightsMismatch(RuntimeError):
    """The shipped weights do not fit this code (another feature spec, a broken file)."""


@dataclass(frozen=True)
class Model:
    """A scorer's weights: keep-or-drop, the kind of what is kept, the thresholds, and the header as read."""

    keep: Mapping[int, float]
    bias: float
    keep_at: float
    inbox_at: float
    rules_at: float
    kinds: Mapping[str, tuple[Mapping[int, float], float]]
    header: Mapping[str, Any]

    def probability(self, vector: Mapping[int, float]) -> float:
        """The model's probability that a person keeps the candidate of ``vector``."""
        z, get = self.bias, self.keep.get
        for b, v in vector.items():
            z += get(b, 0.0) * v
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
    if len(data) < end + 2 * n:
        raise WeightsMismatch("scorer weights truncated")
    idx.frombytes(data[at:end])
    val.frombytes(data[end:end + 2 * n])
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
    th = header["thresholds"]
    return Model(blocks["keep"], float(header["bias"]), float(th["keep"]), float(th["inbox"]),
                 float(th.get("rules", th["keep"])), kinds, header)


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


def kind_of(c: Scorable, model: Model | None = None, vector: Mapping[int, float] | None = None) -> KeptKind:
    """What a kept candidate is: the kind model's answer, else a guess from its speaker and markers."""
    found = (model or load()).kind(vector if vector is not None else featurize.features(c))
    if found is not None and found in _KIND:
        return _KIND[found]
    from gitmem.engines.harvest.signals import classify

    rule = classify(c.text)
    if rule == "correction":
        return "preference"
    if rule is not None and rule in _KIND:
        return _KIND[rule]
    return "lesson" if c.after_error or rule == "error" else "fact"


# What a tool puts before a user's words: "[Wed 2026-02-04 14:40 GMT+11] ", "[message_id: 123] ".
_ENVELOPE = re.compile(r"^(?:\[(?:[^\]]{0,40}\d{1,2}:\d{2}[^\]]{0,24}|message_id:[^\]]{0,60})\]\s*)+")
_SENTENCE_END = re.compile(r"[.!?;。！？；](?=\s|$)|[。！？；]")


def concise(text: str, limit: int = MAX_TEXT) -> str:
    """``text`` on one line in at most ``limit`` characters, cut at the last sentence end that fits
    (else at a word, with an ellipsis)."""
    text = _ENVELOPE.sub("", " ".join(text.split()))
    if len(text) <= limit:
        return text
    ends = [m.end() for m in _SENTENCE_END.finditer(text, 0, limit)]
    if ends and ends[-1] >= limit // 3:
        return text[:ends[-1]].rstrip()
    cut = text[:limit - 1]
    return (cut.rsplit(" ", 1)[0] if " " in cut[limit // 2:] else cut).rstrip(" ,;:") + "…"


def find_signals(t: Transcript, rules: Sequence[Signal] = (), model: Model | None = None,
                 rule_signals: RuleMode | None = None) -> tuple[Signal, ...]:
    """A session's signals: every candidate of the exchange the scorer keeps (a memory) or is unsure of
    (``inbox``), each a concise statement of its kind, and the rule signals (``signals.find_signals``).

    ``rule_signals`` (``RULE_SIGNALS`` unless given) says what a durable rule signal becomes: ``scored``, a
    memory when it says outright that it lasts or the candidate holding it scores at least the rules'
    threshold, an inbox item above the inbox threshold, else transient; ``inbox``, a memory when it says
    outright that it lasts or its candidate scores at the keep threshold, else an inbox item (the rules found
    it, a person settles it); ``kept``, as the rules judged it; ``transient``, never a memory. A durable rule
    signal inside a candidate stands for it: the rule cut the statement finer and named its kind. A
    statement scoped to now ("for now", 先不用) is never kept. Dropped candidates leave nothing.
    """
    from gitmem.engines.harvest import candidates, durability
    from gitmem.engines.harvest.signals import MAX_SIGNALS

    m = model or load()
    mode = rule_signals or RULE_SIGNALS
    scored = [(c, vector, m.probability(vector)) for c in candidates.extract(t) for vector in [featurize.features(c)]]
    if mode == "transient":
        rules = [replace(r, durable=False, floor=0.0) for r in rules]
    elif mode in ("scored", "inbox"):
        rules = [_judged(r, [(c.text, p) for c, _, p in scored if c.line == r.line], m, mode == "inbox")
                 for r in rules]
    durable: dict[int, list[str]] = {}
    for r in rules:
        if r.durable:
            durable.setdefault(r.line, []).append(_folded(r.text))
    out: list[Signal] = list(rules)
    for c, vector, p in scored:
        if durability.is_scoped_now(c.text) or any(r in _folded(c.text) for r in durable.get(c.line, ())):
            continue   # "for now" is transient whatever the score; a rule's finer cut stands for the statement
        fix = lesson(c)
        verdict = "keep" if fix else decide(p, m)
        if verdict == "drop":
            continue
        kind = "error" if fix else SIGNAL_KIND[kind_of(c, m, vector)]
        text = concise(c.text)
        floor = durability.floor(text, kind) if verdict == "keep" else 0.0
        same = [r for r in out if not r.durable and r.line == c.line and _folded(r.text) == _folded(text)]
        if same and verdict == "inbox":
            continue   # unsure either way: the rule's transient judgement stands (a later repeat may make it last)
        # a sure verdict of the scorer replaces a rule's transient one on the same statement
        out = [r for r in out if r not in same]
        out.append(Signal(text, kind, c.line, True, floor, inbox=verdict == "inbox", key=c.key()))
    out.sort(key=lambda s: s.line)   # stable: on one line, the rules' signals first
    return tuple(out[:MAX_SIGNALS])


def lesson(c: Scorable) -> bool:
    """Whether candidate ``c`` is the assistant's cause and fix of a confirmed fix (a command failed, a file
    changed, the same command then passed) and gives the reason or names the fix: a lesson whatever the score,
    since the run that passed proves it (the corpus labels hold too few such cases to learn it)."""
    from gitmem.engines.harvest.signals import explains

    return c.speaker == "assistant" and c.fixed and explains(c.text)


def outright(rule: Signal) -> bool:
    """Whether a rule signal says outright that it lasts ("always", "from now on", 以后, "remember: ..." leading
    its sentence): such a rule stands without the score (measured on the corpus' training repositories)."""
    from gitmem.engines.harvest import durability

    from gitmem.engines.harvest.signals import classify

    # a request to remember leads its sentence, and the signal's text is what follows it ("Remember: X" is
    # "X"); "I remember when...", "记住了" (an acknowledgement) still hold the word and are no request
    request = rule.kind == "remember" and classify(rule.text) != "remember"
    return rule.durable and (request or durability.says_it_lasts(rule.text))


# An explicit decision ("we decided to use X", "we'll use X"; a remember request is told by outright): in the inbox mode such a
# rule signal lands on main; only the rule signals without such a marker wait in the inbox.
_DECIDED = re.compile(r"\b(?:we|i)(?:'ve| have)? (?:decided|agreed|settled on|chose|chosen)\b|\bwe(?:'ll| will| are going to|'re going to) (?:use|go with|keep|stick with)\b", re.I)


# a failure with its stated cause and fix ("the cause was ...; the fix is ...") is a lesson told outright
_FIXED = re.compile(r"\b(?:the fix (?:is|was)|fixed (?:it|by)|the cause (?:is|was))\b", re.I)


def _explicit(rule: Signal) -> bool:
    """Whether a durable rule signal is an explicit decision or a failure told with its cause or fix."""
    return ((rule.kind == "decision" and _DECIDED.search(rule.text) is not None)
            or (rule.kind == "error" and _FIXED.search(rule.text) is not None))


def _judged(rule: Signal, on_line: Sequence[tuple[str, float]], m: Model, unsure_to_inbox: bool = False) -> Signal:
    """A durable rule signal as the score of its candidate (else the best of its line) confirms it;
    ``unsure_to_inbox``: one the score does not bring to the keep threshold waits in the inbox instead."""
    if not rule.durable or outright(rule) or (unsure_to_inbox and _explicit(rule)):
        return rule   # it says it lasts, or (inbox mode) the person asked or decided outright: the rule's judgement
    if not on_line:   # no candidate holds it (a very short turn)
        return replace(rule, inbox=True) if unsure_to_inbox else rule
    folded = _folded(rule.text)
    p = max((p for text, p in on_line if folded in _folded(text)), default=max(p for _, p in on_line))
    if unsure_to_inbox:
        return rule if p >= m.keep_at else replace(rule, inbox=True)
    if p >= m.rules_at:
        return rule
    if p >= m.inbox_at:
        return replace(rule, inbox=True)
    return replace(rule, durable=False, floor=0.0)


def _folded(text: str) -> str:
    return " ".join(text.casefold().split()).rstrip(".!。！…")
