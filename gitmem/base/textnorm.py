"""Text normalisation for recall: word tokens, stems, stop words, CJK bigrams.

The recall index lets SQLite's FTS5 (``porter unicode61``) tokenize stored
text. This module gives Python the same view of words so that recall can
clean a query before it reaches FTS5 (stop words out, syntax characters
neutralised) and rerank candidates by which query stems they hold and where.
The stemmer is M. F. Porter's 1980 algorithm, the one FTS5's ``porter``
tokenizer applies, written here from the published description; both sides
only have to agree with themselves, so small differences from SQLite's copy
cost nothing but a missed rerank feature.

Chinese and Japanese are written without spaces and ``unicode61`` turns a
whole run of ideographs into one token, so a run is indexed (and queried) as
its overlapping character bigrams instead, the usual dictionary-free way to
search CJK text.
"""

from __future__ import annotations

import re
import unicodedata
from functools import lru_cache

# Han ideographs, kana and Hangul: scripts whose words are not space separated
# (Hangul is, but its particles glue onto nouns, so bigrams help there too).
_CJK_RANGES = (
    "\u3040-\u30ff"  # hiragana, katakana
    "\u3400-\u4dbf"  # CJK extension A
    "\u4e00-\u9fff"  # CJK unified ideographs
    "\uac00-\ud7af"  # Hangul syllables
    "\uf900-\ufaff"  # CJK compatibility ideographs
)
_CJK_RUN = re.compile(f"[{_CJK_RANGES}]+")
# A word is a run of letters or digits that is not CJK; an apostrophe inside
# it ("caroline's", "don't") splits it the way unicode61 does.
_WORD = re.compile(f"[^\\W_{_CJK_RANGES}]+")

# English function words plus the question words and auxiliaries a person
# types when asking ("when did", "what was"). Questions are where recall
# queries come from, and these words carry no topic.
ENGLISH_STOP_WORDS = frozenset(
    """
    a about above after again against ago all almost also am an and any are
    around as at be because been before being below between both but by can
    could did do does doing done down during each either else ever every few
    for from further get gets got had has have having he her here hers herself
    him himself his how i if in into is it its itself just least less let lets
    like ll many may me might mine more most much must my myself neither never
    no nor not now of off often on once only or other others ought our ours
    ourselves out over own per quite rather re really s same several shall
    she should since so some such t than that the their theirs them themselves
    then there these they this those though through thus to too toward towards
    under until up upon us use used using ve very was we were what whatever
    when whenever where whereas wherever whether which while who whoever whom
    whose why will with within without would yet you your yours yourself
    yourselves
    d m o y isn aren wasn weren don doesn didn hasn haven hadn won wouldn
    shouldn couldn can't cannot mustn
    """.split()
)

# French function words: users write memories and questions in French too.
FRENCH_STOP_WORDS = frozenset(
    """
    au aux avec ce ces cette dans de des du elle elles en est et être eu il ils
    je la le les leur leurs lui ma mais me mes moi mon ne nos notre nous on ou
    où par pas pour qu que quel quelle quels quelles qui quoi sa se ses son sont
    sur ta te tes toi ton tu un une vos votre vous été était étaient avait ont
    sont comment quand pourquoi c j l n s d y
    """.split()
)

STOP_WORDS = ENGLISH_STOP_WORDS | FRENCH_STOP_WORDS

# Single characters that carry grammar rather than topic in Chinese; a query
# bigram made only of them ("我的", "是不") is dropped like a stop word.
CJK_STOP_CHARS = frozenset("的了是在我你他她它们这那有和与就也都不吗呢吧啊个之")


def fold(text: str) -> str:
    """Lower-case and strip diacritics, as unicode61 ``remove_diacritics 2`` does."""
    lowered = text.lower()
    if lowered.isascii():  # the common case has nothing to strip
        return lowered
    decomposed = unicodedata.normalize("NFKD", lowered)
    return "".join(ch for ch in decomposed if not unicodedata.combining(ch))


def words(text: str) -> list[str]:
    """The non-CJK word tokens of ``text``, folded, in order."""
    return _WORD.findall(fold(text))


def cjk_runs(text: str) -> list[str]:
    """The runs of CJK characters in ``text``, in order."""
    return [] if text.isascii() else _CJK_RUN.findall(text)


def bigrams(run: str) -> list[str]:
    """Overlapping character bigrams of one CJK run (a lone character stays)."""
    if len(run) < 2:
        return [run] if run else []
    return [run[i : i + 2] for i in range(len(run) - 1)]


def cjk_terms(text: str) -> str:
    """The CJK terms of ``text`` as one space-separated string, for indexing.

    Each run gives its bigrams and its last character alone, so a query of a
    single character, searched as a prefix, finds it at every position.
    """
    out: list[str] = []
    for run in cjk_runs(text):
        out.extend(bigrams(run))
        if len(run) > 1:
            out.append(run[-1])
    return " ".join(out)


def is_stop_bigram(gram: str) -> bool:
    """True when every character of a CJK bigram is a grammar character."""
    return all(ch in CJK_STOP_CHARS for ch in gram)


# ---------------------------------------------------------------- Porter 1980

_VOWELS = frozenset("aeiou")


def _is_consonant(word: str, i: int) -> bool:
    ch = word[i]
    if ch in _VOWELS:
        return False
    if ch == "y":
        # y after a consonant sounds like a vowel ("happy"), at the start not
        return i == 0 or not _is_consonant(word, i - 1)
    return True


def _measure(stem: str) -> int:
    """Porter's m: the number of vowel-consonant sequences in ``stem``."""
    m, prev_vowel = 0, False
    for i in range(len(stem)):
        cons = _is_consonant(stem, i)
        if cons and prev_vowel:
            m += 1
        prev_vowel = not cons
    return m


def _has_vowel(stem: str) -> bool:
    return any(not _is_consonant(stem, i) for i in range(len(stem)))


def _double_consonant(word: str) -> bool:
    return len(word) >= 2 and word[-1] == word[-2] and _is_consonant(word, len(word) - 1)


def _cvc(word: str) -> bool:
    """Ends consonant-vowel-consonant, the last not w, x or y ("hop", not "snow")."""
    if len(word) < 3:
        return False
    n = len(word)
    return (
        _is_consonant(word, n - 3)
        and not _is_consonant(word, n - 2)
        and _is_consonant(word, n - 1)
        and word[-1] not in "wxy"
    )


def _step1ab(w: str) -> str:
    if w.endswith("sses"):
        w = w[:-2]
    elif w.endswith("ies"):
        w = w[:-2]
    elif w.endswith("ss"):
        pass
    elif w.endswith("s"):
        w = w[:-1]
    if w.endswith("eed"):
        if _measure(w[:-3]) > 0:
            w = w[:-1]
        return w
    for suffix in ("ed", "ing"):
        if w.endswith(suffix) and _has_vowel(w[: -len(suffix)]):
            w = w[: -len(suffix)]
            if w.endswith(("at", "bl", "iz")):
                return w + "e"
            if _double_consonant(w) and w[-1] not in "lsz":
                return w[:-1]
            if _measure(w) == 1 and _cvc(w):
                return w + "e"
            return w
    return w


def _step1c(w: str) -> str:
    if w.endswith("y") and _has_vowel(w[:-1]):
        return w[:-1] + "i"
    return w


_STEP2 = (
    ("ational", "ate"), ("tional", "tion"), ("enci", "ence"), ("anci", "ance"),
    ("izer", "ize"), ("abli", "able"), ("alli", "al"), ("entli", "ent"),
    ("eli", "e"), ("ousli", "ous"), ("ization", "ize"), ("ation", "ate"),
    ("ator", "ate"), ("alism", "al"), ("iveness", "ive"), ("fulness", "ful"),
    ("ousness", "ous"), ("aliti", "al"), ("iviti", "ive"), ("biliti", "ble"),
)  # fmt: skip
_STEP3 = (
    ("icate", "ic"), ("ative", ""), ("alize", "al"), ("iciti", "ic"),
    ("ical", "ic"), ("ful", ""), ("ness", ""),
)  # fmt: skip
_STEP4 = (
    "al", "ance", "ence", "er", "ic", "able", "ible", "ant", "ement", "ment",
    "ent", "ion", "ou", "ism", "ate", "iti", "ous", "ive", "ize",
)  # fmt: skip


# the longest suffix wins; sorting here keeps the tables above readable
_STEP2 = tuple(sorted(_STEP2, key=lambda r: -len(r[0])))
_STEP3 = tuple(sorted(_STEP3, key=lambda r: -len(r[0])))
_STEP4 = tuple(sorted(_STEP4, key=len, reverse=True))


def _apply_rules(w: str, rules: tuple[tuple[str, str], ...], min_m: int) -> str:
    for suffix, repl in rules:
        if w.endswith(suffix):
            stem = w[: len(w) - len(suffix)]
            return stem + repl if _measure(stem) > min_m else w
    return w


def _step4(w: str) -> str:
    for suffix in _STEP4:
        if w.endswith(suffix):
            stem = w[: -len(suffix)]
            if _measure(stem) > 1 and (suffix != "ion" or stem.endswith(("s", "t"))):
                return stem
            return w
    return w


def _step5(w: str) -> str:
    if w.endswith("e"):
        stem = w[:-1]
        m = _measure(stem)
        if m > 1 or (m == 1 and not _cvc(stem)):
            w = stem
    if w.endswith("ll") and _measure(w) > 1:
        w = w[:-1]
    return w


@lru_cache(maxsize=65536)
def stem(word: str) -> str:
    """The Porter stem of one folded word ("researching" -> "research")."""
    if len(word) <= 2 or not word.isascii() or not word.isalpha():
        return word
    w = _step1c(_step1ab(word))
    w = _apply_rules(w, _STEP2, 0)
    w = _apply_rules(w, _STEP3, 0)
    return _step5(_step4(w))


def stems(text: str) -> list[str]:
    """The stems of every word of ``text``, stop words included, in order."""
    return [stem(w) for w in words(text)]
