"""Roles: the two ends of an asymmetric relation, and whether two texts swap them.

"Copy the production database to staging" and "copy staging to the
production database" share every word, yet state opposite operations; so do
"A calls B" and "B calls A", "rename X to Y" and "rename Y to X", "X over Y"
and "Y over X". For each relation word (``ROLE_MARKERS``: to, from, into,
over, than, before, after, instead of, calls, depends on, ...) the words
just before it are one role and the words just after it the other. Two texts
swap roles when, around the same relation word, a word on the left in one is
on the right in the other *and* a word on the right in one is on the left in
the other: moving a clause ("before committing, run lint") moves one side
only, and stays a paraphrase.
"""

from __future__ import annotations

import functools
import re
from collections import defaultdict

from gitmem.base.text import CLAUSE_STOPS, HAN, STATEMENT_STOP, role_token
from gitmem.engines.features import latin_words, normalize, stem_word, strip_triggers
from gitmem.engines.lexicon import NEGATIONS, ROLE_MARKERS, SYNONYMS, ZH_ROLE_MARKERS

__all__ = ["Roles", "roles", "swapped_roles"]

# One role is at most this many words on each side of its relation word:
# enough for "the production database", short enough to stay in one clause.
_WINDOW = 4
_TOKEN_RE = role_token()
_PUNCT = frozenset(",.;:!?()[]\"")
_CJK_RUN_RE = re.compile(f"[{HAN}]+")   # Chinese relation words sit in ideograph runs
_ZH_MARKER_RE = re.compile("|".join(sorted(ZH_ROLE_MARKERS, key=len, reverse=True)))
_MARKERS = frozenset(ROLE_MARKERS)
_LONGEST = max(len(m) for m in ROLE_MARKERS)

# marker -> (words on its left, words on its right), each side less what both share
Roles = dict[str, tuple[frozenset[str], frozenset[str]]]


def _word(token: str) -> str | None:
    """The role word a token stands for, or None for function words and punctuation."""
    if len(token) == 1 and token.isalpha() and token.isupper() and token != "I":
        return token  # "service A calls service B": the letters are the names
    low = token.casefold()
    if low in STATEMENT_STOP or low in NEGATIONS or low in CLAUSE_STOPS or low in _PUNCT or not low[:1].isalnum():
        return None
    return stem_word(SYNONYMS.get(low, low))


def _side(tokens: list[str], start: int, step: int) -> set[str]:
    words: set[str] = set()
    i = start
    while 0 <= i < len(tokens) and len(words) < _WINDOW:
        token = tokens[i]
        if token in _PUNCT or token.casefold() in CLAUSE_STOPS:
            break
        word = _word(token)
        if word is not None:
            words.add(word)
        i += step
    return words


def _latin(text: str, found: dict[str, tuple[set[str], set[str]]]) -> None:
    tokens = _TOKEN_RE.findall(text)
    lowered = [t.casefold() for t in tokens]
    i = 0
    while i < len(tokens):
        for size in range(min(_LONGEST, len(tokens) - i), 0, -1):
            marker = tuple(lowered[i: i + size])
            if marker in _MARKERS:
                left = _side(tokens, i - 1, -1)
                right = _side(tokens, i + size, 1)
                sides = found[" ".join(marker)]
                sides[0].update(left)
                sides[1].update(right)
                i += size - 1
                break
        i += 1


def _cjk(text: str, found: dict[str, tuple[set[str], set[str]]]) -> None:
    for run in _CJK_RUN_RE.findall(text):
        for match in _ZH_MARKER_RE.finditer(run):
            left = run[max(0, match.start() - _WINDOW): match.start()]
            right = run[match.end(): match.end() + _WINDOW]
            sides = found[match.group()]
            sides[0].update(left)
            sides[1].update(right)


@functools.lru_cache(maxsize=4096)
def roles(text: str) -> Roles:
    """Each relation word of ``text`` with the words on its left and on its right.

    A word found on both sides of the same relation word plays no role and is
    dropped from both ("service A calls service B": A and B).
    """
    found: dict[str, tuple[set[str], set[str]]] = defaultdict(lambda: (set(), set()))
    folded = normalize(strip_triggers(text))
    _latin(folded, found)
    _cjk(folded, found)
    return {m: (frozenset(left - right), frozenset(right - left)) for m, (left, right) in found.items()}


_SEQUENCE_WORDS = 256  # content words an exchange is looked for in; past them, texts are long anyway


_CLAUSE_BREAK = re.compile(r"[,;:!?\u3001\u3002\uff0c\uff1a\uff1b]|\.\s|\s[-\u2013\u2014]\s")


@functools.lru_cache(maxsize=4096)
def _sequence(text: str) -> tuple[str, ...]:
    """The content words of a one-clause text in order; () for a text of several clauses,
    where a clause moved ("CI failed again: flaky login test") is no exchange of roles."""
    folded = normalize(strip_triggers(text)).strip().rstrip(".!?")
    if _CLAUSE_BREAK.search(folded):
        return ()
    words = latin_words(folded)
    return tuple(w.stem for w, _ in words if w.content)[:_SEQUENCE_WORDS]


@functools.lru_cache(maxsize=4096)
def _forms(text: str) -> tuple[str, ...]:
    """The content words of a one-clause text in order, unstemmed: "http" and "https" stay two words."""
    folded = normalize(strip_triggers(text)).strip().rstrip(".!?")
    if _CLAUSE_BREAK.search(folded):
        return ()
    return tuple(w.form for w, _ in latin_words(folded) if w.content)[:_SEQUENCE_WORDS]


def _exchanged_forms(a: str, b: str) -> tuple[str, str] | None:
    """(X, Y) when two words that share a stem (http, https) trade places and nothing else changes."""
    fa, fb = _forms(a), _forms(b)
    if not fa or fa == fb or sorted(fa) != sorted(fb) or _sequence(a) != _sequence(b):
        return None
    i = next(k for k in range(len(fa)) if fa[k] != fb[k])
    return fa[i], fb[i]


def _exchanged(sa: tuple[str, ...], sb: tuple[str, ...]) -> tuple[str, str, str] | None:
    """(X, M, Y) when ``sb`` is ``sa`` with two runs of words X and Y exchanged around a middle M.

    "Carol mentors Dave" / "Dave mentors Carol": X Carol, M mentors, Y Dave.
    An empty middle is a moved clause ("before pushing, run the tests"), not an exchange.
    """
    if not sa or sa == sb or sorted(sa) != sorted(sb):
        return None
    i = next(k for k in range(len(sa)) if sa[k] != sb[k])
    j = max(k for k in range(len(sa)) if sa[k] != sb[k])
    for start in {0, i}:
        for end in {j + 1, len(sa)}:
            seg_a, seg_b = sa[start:end], sb[start:end]
            if any(seg_b == seg_a[k:] + seg_a[:k] for k in range(1, len(seg_a))):
                return None  # a moved clause: the same words in the same order, from another start
    left, right = sa[i: j + 1], sb[i: j + 1]
    for x in range(1, len(left)):
        for y in range(1, len(left) - x):
            mid = left[x: len(left) - y]
            if left[:x] == right[-x:] and left[-y:] == right[:y] and right[y: len(right) - x] == mid:
                return " ".join(left[:x]), " ".join(mid), " ".join(left[-y:])
    return None


def swapped_roles(a: str, b: str) -> str | None:
    """Why ``a`` and ``b`` state a relation with its two ends swapped, or None.

    E.g. ``"role differs: production to staging vs staging to production"``.
    Besides the relation words, any two runs of words exchanged around the
    same middle swap roles ("Carol mentors Dave" vs "Dave mentors Carol").
    """
    near = _exchanged_forms(a, b)
    if near is not None:
        return f"role differs: {near[0]} and {near[1]} trade places"
    exchange = _exchanged(_sequence(a), _sequence(b))
    if exchange is not None:
        x, mid, y = exchange
        return f"role differs: {x} {mid} {y} vs {y} {mid} {x}"
    ra, rb = roles(a), roles(b)
    for marker in sorted(ra.keys() & rb.keys()):
        (la, ra_), (lb, rb_) = ra[marker], rb[marker]
        moved_right, moved_left = la & rb_, ra_ & lb
        if moved_right and moved_left:
            x, y = min(moved_right), min(moved_left)
            return f"role differs: {x} {marker} {y} vs {y} {marker} {x}"
    return None
