"""The Porter stem of a word exactly as SQLite's FTS5 ``porter`` tokenizer makes it.

The index searches with FTS5's stems and ranks with gitmem's (``base.text.stems``): the two
must agree word for word, or a query term's rarity and coverage miss the rows FTS5 found.
PyStemmer does the stemming; the few words where its Porter and FTS5's differ are mended here.
"""

from __future__ import annotations

from functools import lru_cache

TYPE_CHECKING = False
if TYPE_CHECKING:
    from collections.abc import Callable


_stem_word: Callable[[str], str] | None = None


def _stemmer() -> Callable[[str], str]:
    # PyStemmer is imported on first use: a recall whose index is fresh stems
    # its few query words, a hook never stems at all.
    global _stem_word
    if _stem_word is None:
        import Stemmer  # type: ignore[import-not-found]  # PyStemmer ships no type information

        porter = Stemmer.Stemmer("porter")

        def stem_one(word: str) -> str:
            return str(porter.stemWord(word))

        _stem_word = stem_one
    return _stem_word


@lru_cache(maxsize=65536)
def stem(word: str) -> str:
    """The Porter stem of one folded word ("researching" -> "research").

    Words of one or two letters and words outside ASCII are returned as they
    are, as FTS5's porter tokenizer leaves them.
    """
    if len(word) <= 2 or not word.isascii():
        return word
    if word in _BARE_SUFFIXES:
        return word[:-1]  # FTS5 strips "ies" and "sses" only after a stem; alone, only the "s"
    if word.endswith(("ed", "ing")) or "bl" in word[-6:] or "log" in word[-7:]:
        return _stemmer()(_fts5_step1_differs(word) or word)
    return _stemmer()(word)


_BARE_SUFFIXES = frozenset(("ies", "sses"))

# PyStemmer's "porter" is Snowball's reading of Porter (1980); SQLite's FTS5 porter tokenizer, which
# indexes the text, differs from it in three places, all inside or right after step 1:
#   - step 1b drops one letter of any doubled consonant but l, s, z left by "-ed"/"-ing" ("acced"
#     -> "ac"); Snowball only of bb dd ff gg mm nn pp rr tt ("acc");
#   - step 2 has Porter's later rules "bli" -> "ble" and "logi" -> "log" ("probably" -> "probabl",
#     "technology" -> "technolog"; Snowball: "probabli", "technologi");
#   - the bare word "eed" loses "ed" ("e").
# For those words FTS5's step 1 is run here (as fts5_tokenize.c writes it) and its result, with the
# step-2 rule applied, given to Snowball, on which Snowball's step 1 does nothing: the stem is then
# FTS5's. tests/test_text.py compares the two on random words.
_SNOWBALL_DOUBLES = frozenset("bdfgmnprt")


def _fts5_step1_differs(word: str) -> str | None:
    """What to give Snowball instead of ``word`` so its stem is FTS5's, or None when ``word`` will do."""
    w, dropped = _fts5_step1(word)
    if w.endswith("bli") and _m_gt0(w[:-3]):
        return w[:-3] + "ble"
    if w.endswith("logi") and _m_gt0(w[:-4]):
        return w[:-4] + "log"
    if dropped not in ("", *_SNOWBALL_DOUBLES) or word == "eed":
        return w
    return None


def _vowel(c: str, y_is_vowel: bool) -> bool:
    return c in "aeiou" or (y_is_vowel and c == "y")


def _consonant(c: str, prev_consonant: bool) -> bool:
    return not (c in "aeiou" or (c == "y" and prev_consonant))


def _has_vowel(stem: str) -> bool:
    return any(_vowel(c, i > 0) for i, c in enumerate(stem))


def _measure(stem: str) -> int:
    """Porter's m: the number of vowel-consonant sequences of ``stem``."""
    m, cons, seen_vowel = 0, False, False
    for c in stem:
        now = _consonant(c, cons)
        if now and not cons and seen_vowel:
            m += 1
        seen_vowel = seen_vowel or not now
        cons = now
    return m


def _m_gt0(stem: str) -> bool:
    return _measure(stem) > 0


def _cvc(stem: str) -> bool:
    """Porter's *o: the stem ends consonant-vowel-consonant, the last not w, x or y."""
    if len(stem) < 3:
        return False
    flags, cons = [], False
    for c in stem:
        cons = _consonant(c, cons)
        flags.append(cons)
    return flags[-3] and not flags[-2] and flags[-1] and stem[-1] not in "wxy"


def _fts5_step1(word: str) -> tuple[str, str]:
    """FTS5's porter step 1 (1a, 1b, 1c) of ``word``, and the letter 1b dropped from a doubled consonant."""
    w = word
    if w.endswith("s"):
        if w.endswith("sses") or (len(w) > 3 and w.endswith("ies")):
            w = w[:-2]
        elif not w.endswith("ss"):
            w = w[:-1]
    dropped, stripped = "", None
    if len(w) > 3 and w.endswith("eed"):
        if _m_gt0(w[:-3]):
            w = w[:-1]
    elif len(w) > 2 and w.endswith("ed") and _has_vowel(w[:-2]):
        stripped = w[:-2]
    elif len(w) > 3 and w.endswith("ing") and _has_vowel(w[:-3]):
        stripped = w[:-3]
    if stripped is not None:
        w = stripped
        if w.endswith(("at", "bl", "iz")):
            w += "e"
        elif len(w) > 1 and w[-1] == w[-2] and not _vowel(w[-1], False) and w[-1] not in "lsz":
            dropped, w = w[-1], w[:-1]
        elif _measure(w) == 1 and _cvc(w):
            w += "e"
    if w.endswith("y") and _has_vowel(w[:-1]):
        w = w[:-1] + "i"
    return w, dropped
