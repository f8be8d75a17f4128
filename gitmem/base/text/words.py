"""Words as the recall index cuts them: one fold, one tokenizer, one stemmer; and the other named tokenizers.

- ``fold`` lower-cases and strips Latin diacritics the way unicode61 does
  (only the marks that compose Latin letters; Greek and Cyrillic keep theirs;
  no compatibility mapping, so a full-width letter stays full-width);
- ``words`` splits at every character that unicode61 does not keep in a
  token (letters, digits and private-use characters stay; ``_`` and ``'``
  split);
- ``stem`` is Porter's algorithm from PyStemmer; words of one or two letters
  and words outside ASCII stay as they are. The index stores these stems
  itself (its FTS5 table tokenizes with plain unicode61): gitmem once shadowed
  FTS5's own porter tokenizer word for word instead, which a plain stemmer
  matches on the LoCoMo dev split and the near-miss pairs exactly (same
  R@5, R@10, MRR@10 and the same pair verdicts, ``bench/recall_quality.py``,
  ``bench/dedupe.py``);
- ``cjk_runs``, ``bigrams`` and ``cjk_terms``: a run of CJK characters is
  indexed and asked as its overlapping character bigrams.

Two more tokenizers for other reading purposes live here too, so that every
engine cuts text with the same script ranges: ``statement_token`` (a memory
statement as the comparison reads it: code spans whole, CJK runs, and words
that keep their inner dots, dashes and slashes, "node.js", "v1.2") and
``role_token`` (the relation reading: arrows and clause punctuation are
tokens of their own).
"""

from __future__ import annotations

import re
from functools import lru_cache

TYPE_CHECKING = False
if TYPE_CHECKING:
    from collections.abc import Callable

from gitmem.base.text.scripts import CJK
from gitmem.base.text.stops import CJK_STOP_CHARS, STOP_WORDS

__all__ = ["bigrams", "cjk_runs", "cjk_terms", "closed_compounds", "content_stems",
           "fold", "is_stop_bigram", "role_token", "statement_token", "stem", "stems", "unaccent",
           "words"]

# After folding, a word is a run of letters or digits that is not CJK. The
# Unicode patterns cost milliseconds to compile (their character sets span
# tens of thousands of code points), so they are compiled for the first text
# that needs them; ASCII text, the usual query, never does.
_ASCII_WORD = re.compile("[a-z0-9]+")


@lru_cache(maxsize=None)
def _unicode_pattern(kind: str) -> re.Pattern[str]:
    if kind == "word":
        return re.compile(f"[^\\W_{CJK}]+")
    if kind == "hyphenated":
        return re.compile(r"(?<![\w-])([^\W\d_]+)-([^\W\d_]+)(?![\w-])")
    return re.compile(f"[{CJK}]+")


_stem_word: Callable[[str], str] | None = None


def _stemmer() -> Callable[[str], str]:
    # PyStemmer is imported on first use: a recall whose index is fresh stems
    # its few query words, a hook never stems at all.
    global _stem_word
    if _stem_word is None:
        import Stemmer  # type: ignore[import-not-found]  # PyStemmer ships no type information

        _stem_word = Stemmer.Stemmer("porter").stemWord
    return _stem_word


@lru_cache(maxsize=65536)
def stem(word: str) -> str:
    """The Porter stem of one folded word ("researching" -> "research"), by PyStemmer.

    Words of one or two letters and words outside ASCII are returned as they
    are. The recall index stores these stems itself (its FTS5 table has no
    stemming tokenizer), so the index and the reranker agree word for word.
    """
    if len(word) <= 2 or not word.isascii():
        return word
    return str(_stemmer()(word))


# The combining marks that compose Latin letters (the marks found in the
# canonical decompositions of U+00C0..U+024F and U+1E00..U+1EFF). unicode61
# drops exactly these inside a word; any other mark ends the word.
_LATIN_MARKS = frozenset(
    "\u0300\u0301\u0302\u0303\u0304\u0306\u0307\u0308\u0309\u030a\u030b\u030c\u030f"
    "\u0311\u031b\u0323\u0324\u0325\u0326\u0327\u0328\u032d\u032e\u0330\u0331"
)
# Composed letters unicode61 keeps whole although they decompose to a Latin
# letter and marks (its table has no entry for them).
_KEPT_WHOLE = frozenset("\u01e0\u01e1")
# Where unicode61 and str.casefold() part: the Greek iota subscript mark is
# no letter to unicode61, and "ẛ" loses its dot and its long s at once.
_FOLD_SPECIAL = {"\u0345": "\u0345", "\u1e9b": "s"}


@lru_cache(maxsize=8192)
def _fold_char(ch: str, lower: bool) -> str:
    """One character as unicode61 folds it; a Latin mark becomes ""."""
    if ch in _LATIN_MARKS:
        return ""
    folded = ch
    if lower:
        # casefold, as unicode61 ("ſ" -> "s", "ς" -> "σ"), but one character
        # stays one: "ß" is not "ss", and "İ" becomes "i" below
        folded = _FOLD_SPECIAL.get(ch) or ch.casefold()
        if len(folded) != 1:
            folded = ch.lower() if len(ch.lower()) == 1 else ch
    if ch.isascii() or ch in _KEPT_WHOLE:
        return folded
    import unicodedata  # only text outside ASCII gets here

    parts = unicodedata.normalize("NFD", ch)
    if len(parts) > 1 and parts[0].isascii() and all(p in _LATIN_MARKS for p in parts[1:]):
        return parts[0].lower() if lower else parts[0]  # "É" -> "e", "İ" -> "i"
    return folded


def fold(text: str) -> str:
    """Lower-case and strip Latin diacritics, as unicode61 ``remove_diacritics 2`` does."""
    if text.isascii():  # the common case has nothing to strip
        return text.lower()
    return "".join([_fold_char(ch, True) for ch in text])


def unaccent(text: str) -> str:
    """Strip Latin diacritics as ``fold`` does, keeping case ("Élodie" -> "Elodie")."""
    if text.isascii():
        return text
    return "".join([_fold_char(ch, False) for ch in text])


def words(text: str) -> list[str]:
    """The non-CJK word tokens of ``text``, folded, in order."""
    folded = fold(text)
    if folded.isascii():
        return _ASCII_WORD.findall(folded)
    return _unicode_pattern("word").findall(folded)


def cjk_runs(text: str) -> list[str]:
    """The runs of CJK characters in ``text``, in order."""
    return [] if text.isascii() else _unicode_pattern("cjk").findall(text)


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


# Two words joined by one hyphen: "de-stress", "e-mail", "co-worker" (not "well-to-do").
# The Unicode pattern costs milliseconds to compile: made for the first text outside ASCII.
_ASCII_HYPHENATED = re.compile(r"(?<![\w-])([a-z]+)-([a-z]+)(?![\w-])")
# Open compounds ("road trip", "sun set") are joined when both parts are short
# root words, as the parts of closed English compounds are ("roadtrip", "sunset").
_COMPOUND_PART = 5


def closed_compounds(text: str, open_pairs: bool = False) -> list[str]:
    """The closed forms of the compounds ``text`` writes hyphenated ("de-stress" -> "destress"), folded.

    People write one compound closed, open or hyphenated; unicode61 splits
    the hyphenated and open forms into two words, so the closed form is
    indexed and asked too. With ``open_pairs`` (a query), two neighbouring
    short words are joined as well ("road trip" -> "roadtrip").
    """
    folded = fold(text)
    found: list[str] = []
    if "-" in folded:
        pattern = _ASCII_HYPHENATED if folded.isascii() else _unicode_pattern("hyphenated")
        found = [a + b for a, b in pattern.findall(folded) if not (len(a) == 1 and len(b) == 1)]
    if open_pairs:
        said = words(folded)
        found.extend(a + b for a, b in zip(said, said[1:])
                     if len(a) <= _COMPOUND_PART and len(b) <= _COMPOUND_PART and a not in STOP_WORDS
                     and b not in STOP_WORDS and not (a.isdigit() or b.isdigit()) and len(a) + len(b) > 3)
    return list(dict.fromkeys(found))


def is_stop_bigram(gram: str) -> bool:
    """True when every character of a CJK bigram is a grammar character."""
    return all(ch in CJK_STOP_CHARS for ch in gram)


def stems(text: str) -> list[str]:
    """The stems of every word of ``text``, stop words included, in order."""
    return [stem(w) for w in words(text)]


def content_stems(text: str) -> list[str]:
    """The stems of ``text``'s words without stop words, then its CJK bigrams: the terms that carry meaning."""
    found = [stem(w) for w in words(text) if w not in STOP_WORDS]
    found.extend(g for run in cjk_runs(text) for g in bigrams(run) if not is_stop_bigram(g))
    return found



# The two patterns below span the Unicode word class: compiling one costs
# milliseconds, so each is made when a reader first asks for it (recall,
# which needs neither, never pays).
@lru_cache(maxsize=None)
def statement_token() -> re.Pattern[str]:
    """A statement as the comparison reads it: `code` whole (group ``code``), a CJK run (``cjk``), or a
    word with its inner punctuation (``word``: "node.js", "c++", "user@host")."""
    w = rf"[^\W{CJK}]"
    return re.compile(rf"`(?P<code>[^`\n]+)`|(?P<cjk>[{CJK}]+)|(?P<word>{w}+(?:[.\-/'@+#]{w}+)*[+#]*)")


@lru_cache(maxsize=None)
def role_token() -> re.Pattern[str]:
    """The relation reading: arrows and comparison signs, clause punctuation, and words."""
    return re.compile(r"->|=>|<-|>=|<=|[<>,.;:!?()\[\]\"]|[^\W_](?:[\w.\-/@+#']*[\w+#])?")
