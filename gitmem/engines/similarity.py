"""Similarity: does a new text restate an existing memory (reinforce it) or not (create one)?

Reinforcing the wrong memory loses information, so a duplicate needs two
things: a high lexical ``similarity`` *and* no ``conflict``. A conflict is a
difference that changes the fact even when most words are shared: a number,
a date or time, a name, or a negation ("port 5432" vs "port 5433", "use tabs"
vs "never use tabs"). Texts may mix English, French and Chinese.
"""

from __future__ import annotations

import difflib
from collections import Counter
from collections.abc import Iterable, Mapping
from functools import lru_cache

from gitmem.engines.features import Features, describe, stem_word, zh_name
from gitmem.engines.lexicon import ANTONYMS, QUANTIFIER_DEFAULTS, UNITS, ZH_OPPOSITES
from gitmem.engines.roles import swapped_roles

__all__ = ["COMPARE_CHARS", "DENSE_THRESHOLD", "DUPLICATE_THRESHOLD", "conflict", "contradiction", "find_duplicate", "is_duplicate", "similarity"]

# Chosen by measurement, on tests/fixtures/dedupe_pairs.jsonl plus ~100 more
# pairs kept out of the fixture: different facts with no conflict to catch
# ("importer crashes" vs "exporter crashes") scored at most 0.59, duplicates
# that add, drop, reorder or abbreviate words at least 0.67. Every threshold
# from 0.60 to 0.66 gave the same result; 0.62 sits inside that band.
# Paraphrases that swap a verb for an unknown synonym score 0.4-0.6, as low
# as different facts do, and are left unmerged: a missed reinforcement only
# costs a duplicate, a false merge loses a fact.
DUPLICATE_THRESHOLD = 0.62

# The embedding model's cosine at or above which two texts count as similar
# (``find_duplicate``'s ``cosines``), chosen with ``bench/dedupe.py --model`` on
# the tuned pairs only.
DENSE_THRESHOLD = 0.85

# The longest text compared word by word. Longer ones are the same memory
# only when equal: a cap may make the answer "different", never "duplicate"
# for two texts it did not compare in full. Every step below is linear in the
# text but one (aligning Chinese runs), and memories are sentences, not files.
COMPARE_CHARS = 4_096

_TOKEN_WEIGHT = 0.5  # word overlap vs. spelling overlap in the blend
_SWAP_PENALTY = 0.3  # share of the score a swapped word costs

# Compared by stem, so "enabled" meets "enable" and "approved" meets "approve".
_ANTONYM_STEMS = tuple((stem_word(x), stem_word(y)) for x, y in ANTONYMS)


def _dice(a: frozenset[str], b: frozenset[str]) -> float:
    if not a and not b:
        return 1.0
    return 2 * len(a & b) / (len(a) + len(b))


def _explained(token: str, others: frozenset[str], other_text: str) -> bool:
    """Is an unmatched token a variant of one on the other side, not a new word?"""
    if not token.isascii() and all(ch in other_text for ch in token):
        return True  # a Chinese bigram cut differently by reordered words
    for other in others:
        short, long_ = sorted((token, other), key=len)
        if len(short) >= 3 and (short in long_ or token[:4] == other[:4]):
            return True  # "reach"/"reachabl", "bas"/"databas", "decid"/"decision"
    return False


def _substituted(fa: Features, fb: Features) -> bool:
    """Did a word on one side replace an unrelated word on the other?"""
    left, right = fa.tokens - fb.tokens, fb.tokens - fa.tokens
    new_left = any(not _explained(t, right, fb.cjk) for t in left)
    new_right = any(not _explained(t, left, fa.cjk) for t in right)
    return new_left and new_right


def similarity(a: str, b: str) -> float:
    """Lexical similarity of two texts in [0, 1], symmetric, 1.0 for equal texts.

    A blend of word overlap (stemmed, stop words and remember-phrases dropped,
    Chinese as character bigrams) and spelling overlap (character trigrams),
    so reordered words, filler words and inflections cost little. A word
    swapped for an unrelated one ("importer" vs "exporter") costs more than a
    word added, because a swap usually states a different fact.
    """
    fa, fb = describe(a), describe(b)
    if not fa.tokens and not fb.tokens:
        return 1.0 if fa.empty_key == fb.empty_key else 0.0
    if not fa.tokens or not fb.tokens:
        return 0.0
    score = _TOKEN_WEIGHT * _dice(fa.tokens, fb.tokens) + (1 - _TOKEN_WEIGHT) * _dice(fa.grams, fb.grams)
    if _substituted(fa, fb):
        score *= 1 - _SWAP_PENALTY
    return max(0.0, min(1.0, score))


def _show(values: Iterable[str]) -> str:
    return ", ".join(sorted(values)) or "none"


def _multiset_diff(a: tuple[str, ...], b: tuple[str, ...]) -> tuple[list[str], list[str]]:
    ca, cb = Counter(a), Counter(b)
    return sorted((ca - cb).elements()), sorted((cb - ca).elements())


def _opposites(fa: Features, fb: Features) -> str | None:
    for x, y in _ANTONYM_STEMS:
        for p, q in ((x, y), (y, x)):
            if p in fa.forms and q in fb.forms and p not in fb.forms and q not in fa.forms:
                return f"{p} vs {q}"
    for x, y in ZH_OPPOSITES:
        for p, q in ((x, y), (y, x)):
            if p in fa.cjk and q in fb.cjk and p not in fb.cjk and q not in fa.cjk:
                return f"{p} vs {q}"
    return None


def _zh_names(fa: Features, fb: Features) -> str | None:
    matcher = difflib.SequenceMatcher(None, fa.cjk, fb.cjk, autojunk=False)
    for op, i1, i2, j1, j2 in matcher.get_opcodes():
        if op != "replace":
            continue
        left, right = fa.cjk[i1:i2].strip(), fb.cjk[j1:j2].strip()
        if left and right and zh_name(left, fa.cjk, i1) and zh_name(right, fb.cjk, j1):
            return f"{left} vs {right}"
    return None


def _names(fa: Features, fb: Features, additions: bool = True) -> str | None:
    left_strong, right_strong = fa.strong - fb.forms, fb.strong - fa.forms
    left_weak, right_weak = fa.weak - fb.forms, fb.weak - fa.forms
    # A name only one side has is new information (a second owner, another
    # tool); two different weak names (sentence-initial capitals) are a swap.
    one_sided = not (left_strong | left_weak) or not (right_strong | right_weak)
    if (left_strong or right_strong or (left_weak and right_weak)) and (additions or not one_sided):
        left, right = left_strong | left_weak, right_strong | right_weak
        if (left | right) <= UNITS:
            return f"number differs: unit {_show(left)} vs {_show(right)}"
        return f"name differs: {_show(left)} vs {_show(right)}"
    zh_name = _zh_names(fa, fb)
    return f"name differs: {zh_name}" if zh_name else None


def _quantifiers(fa: Features, fb: Features) -> str | None:
    families = {family for family, _ in fa.quantifiers + fb.quantifiers}
    for family in sorted(families):
        left = Counter(v for f, v in fa.quantifiers if f == family)
        right = Counter(v for f, v in fb.quantifiers if f == family)
        if left == right:
            continue
        # "always run tests" restates "run tests"; "always" vs "sometimes" does not
        one_sided = not left or not right
        if one_sided and set(left + right) <= QUANTIFIER_DEFAULTS:
            continue
        return f"quantifier differs: {_show(left)} vs {_show(right)}"
    return None


def conflict(a: str, b: str) -> str | None:
    """Why two texts must not be merged even if they look alike, or None.

    Reasons start with "date differs", "number differs", "negation differs",
    "quantifier differs" (all/some, at most/at least, always/sometimes,
    must/may), "name differs" or "role differs" (the two ends of a relation
    swapped: "A calls B" vs "B calls A"), followed by the differing values,
    e.g. ``"number differs: 5432 vs 5433"``.
    """
    if not _comparable(a, b):
        return None if a == b else f"too long to compare: over {COMPARE_CHARS} characters"
    return _conflict(a, b, additions=True)


def _comparable(a: str, b: str) -> bool:
    return len(a) <= COMPARE_CHARS and len(b) <= COMPARE_CHARS


def contradiction(a: str, b: str) -> str | None:
    """Why two texts state the same thing two incompatible ways, or None.

    The conflicts of ``conflict`` less the one-sided ones: a number, date or
    name only one text has adds information ("push timed out" vs "push timed
    out after 30 s"), while "port 5432" vs "port 5433", a negation, a
    quantifier or swapped roles contradict. Reflect never folds such texts
    into one pattern. Only texts about the same thing contradict: at least
    half of their words (numbers and dates aside) in common.
    """
    if not _comparable(a, b):
        return None if a == b else f"too long to compare: over {COMPARE_CHARS} characters"
    if _dice(_words(a), _words(b)) < _SAME_TOPIC:
        return None
    return _conflict(a, b, additions=False)


_SAME_TOPIC = 0.5


@lru_cache(maxsize=8192)
def _words(text: str) -> frozenset[str]:
    """The words of ``text`` a topic is made of: no ids, no numbers (reflect asks once per pair)."""
    return frozenset(t for t in describe(text).tokens if not t.startswith("@") and not any(c.isdigit() for c in t))


def _values(kind: str, left: Iterable[str], right: Iterable[str], additions: bool) -> str | None:
    left, right = sorted(left), sorted(right)
    if not additions and (not left or not right):
        return None
    return f"{kind} differs: {_show(left)} vs {_show(right)}"


def _conflict(a: str, b: str, additions: bool) -> str | None:
    fa, fb = describe(a), describe(b)
    if fa.dates != fb.dates:
        found = _values("date", *_multiset_diff(fa.dates, fb.dates), additions)
        if found:
            return found
    if fa.numbers != fb.numbers:
        found = _values("number", *_multiset_diff(fa.numbers, fb.numbers), additions)
        if found:
            return found
    # counted, not just present: "never B, no" adds a negation to "B, no"
    if len(fa.negations) != len(fb.negations):
        return f"negation differs: {', '.join(fa.negations) or 'none'} vs {', '.join(fb.negations) or 'none'}"
    opposite = _opposites(fa, fb)
    if opposite:
        return f"negation differs: {opposite}"
    quantifier = _quantifiers(fa, fb)
    if quantifier:
        return quantifier
    names = _names(fa, fb, additions)
    if names:
        return names
    if fa.digits != fb.digits:  # digits inside words: "v2" vs "v3", "s3"
        found = _values("number", *_multiset_diff(fa.digits, fb.digits), additions)
        if found:
            return found
    return swapped_roles(a, b)


def is_duplicate(a: str, b: str, threshold: float = DUPLICATE_THRESHOLD) -> bool:
    """True when ``b`` restates ``a``: similar enough and no conflict.

    A text over ``COMPARE_CHARS`` restates only an equal text.
    """
    if not _comparable(a, b):
        return a == b and threshold <= 1.0
    return similarity(a, b) >= threshold and conflict(a, b) is None


def find_duplicate(
    text: str, candidates: Iterable[tuple[str, str]], threshold: float = DUPLICATE_THRESHOLD,
    cosines: Mapping[str, float] | None = None, dense_threshold: float = DENSE_THRESHOLD,
) -> str | None:
    """The id of the candidate that ``text`` duplicates best, or None.

    ``candidates`` are (id, text) pairs; ties go to the earliest candidate.
    A text over ``COMPARE_CHARS`` (either side) matches only an equal text.
    With ``cosines`` (the embedding model's, by candidate id), a candidate at
    or above ``dense_threshold`` counts as similar too (a paraphrase, a
    translation); a conflict still keeps it apart.
    """
    best_id, best_score = None, threshold
    for cand_id, cand_text in candidates:
        if not _comparable(text, cand_text):
            if text == cand_text and best_id is None and threshold <= 1.0:
                best_id, best_score = cand_id, 1.0
            continue
        score = similarity(text, cand_text)
        dense = cosines.get(cand_id) if cosines is not None else None
        if dense is not None and dense >= dense_threshold:
            score = max(score, threshold, dense)
        better = best_id is None or score > best_score
        if score >= best_score and better and conflict(text, cand_text) is None:
            best_id, best_score = cand_id, score
    return best_id
