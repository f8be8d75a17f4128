"""Words as the recall index sees them: one fold, one tokenizer, one stop list, one stemmer.

The recall index lets SQLite's FTS5 tokenize stored text with ``porter
unicode61 remove_diacritics 2``. This module gives Python the same view of
words, so that a query can be cleaned before it reaches FTS5 (stop words out,
syntax characters neutralised), candidates can be reranked by which query
stems they hold, and the dedupe engine compares texts word by word:

- ``fold`` lower-cases and strips Latin diacritics the way unicode61 does
  (only the marks that compose Latin letters; Greek and Cyrillic keep theirs;
  no compatibility mapping, so a full-width letter stays full-width);
- ``words`` splits at every character that unicode61 does not keep in a
  token (letters, digits and private-use characters stay; ``_`` and ``'``
  split);
- ``stem`` is Porter's 1980 algorithm from PyStemmer, the one FTS5's
  ``porter`` applies; like FTS5 it leaves words of one or two letters alone;
- ``STOP_WORDS`` is the English and French function words, folded.

Stems are for Python-side comparisons only: a MATCH expression must carry
the folded words, because FTS5's porter stems what it is given again.

Chinese and Japanese are written without spaces and unicode61 turns a whole
run of ideographs into one token, so a run is indexed (and queried) as its
overlapping character bigrams instead, the usual dictionary-free way to
search CJK text.

Time, as words say it: ``states_time`` (a text names a moment: "yesterday",
"last week", "in May", "2022"), ``asks_when`` (a question asks for one) and
``named_period`` (the calendar day, month or year a question names, as a
pattern over ISO 8601 timestamps). Recall uses them to favour, for a "when"
question, the memories that state a time, and the memories made in the
period a question names.

Two checks on what a person types sit here too: ``is_blank`` (a text of only
spaces and invisible characters is empty) and ``printable_label`` (a tag,
source or commit subject without control or bidirectional-override characters).
"""

from __future__ import annotations

import re
from functools import lru_cache

from gitmem.base.porter import stem

__all__ = [
    "CJK_STOP_CHARS",
    "ENGLISH_STOP_WORDS",
    "FRENCH_STOP_WORDS",
    "STOP_WORDS",
    "bigrams",
    "cjk_runs",
    "cjk_terms",
    "closed_compounds",
    "fold",
    "is_blank",
    "is_stop_bigram",
    "asks_when",
    "named_period",
    "states_time",
    "printable_label",
    "stem",
    "stems",
    "unaccent",
    "words",
]

# Han ideographs, kana and Hangul: scripts whose words are not space separated
# (Hangul is, but its particles glue onto nouns, so bigrams help there too).
_CJK_RANGES = (
    "\u3040-\u30ff"  # hiragana, katakana
    "\u3400-\u4dbf"  # CJK extension A
    "\u4e00-\u9fff"  # CJK unified ideographs
    "\uac00-\ud7af"  # Hangul syllables
    "\uf900-\ufaff"  # CJK compatibility ideographs
)
# After folding, a word is a run of letters or digits that is not CJK. The
# Unicode patterns cost milliseconds to compile (their character sets span
# tens of thousands of code points), so they are compiled for the first text
# that needs them; ASCII text, the usual query, never does.
_ASCII_WORD = re.compile("[a-z0-9]+")


@lru_cache(maxsize=None)
def _unicode_pattern(kind: str) -> re.Pattern[str]:
    if kind == "word":
        return re.compile(f"[^\\W_{_CJK_RANGES}]+")
    if kind == "hyphenated":
        return re.compile(r"(?<![\w-])([^\W\d_]+)-([^\W\d_]+)(?![\w-])")
    return re.compile(f"[{_CJK_RANGES}]+")


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

# English function words plus the question words and auxiliaries a person
# types when asking ("when did", "what was"). Questions are where recall
# queries come from, and these words carry no topic.
ENGLISH_STOP_WORDS = frozenset(
    """
    a about above after again against ago all almost already also am an and any are
    around as at away be because been before being below between both but by can
    could did do does doing done down during each either else even ever every few
    for from further get gets got had has have having he her here hers herself
    him himself his how i if in into is it its itself just least less let lets
    like ll many may me might mine more most much must my myself neither never
    no nor not now of off often on once only onto or other others ought our ours
    ourselves out over own per quite rather re really s same several shall
    she should since so some still such t than that the their theirs them themselves
    then there these they this those though through thru thus to too toward towards
    under until up upon us use used using ve very via was we were what whatever
    when whenever where whereas wherever whether which while who whoever whom
    whose why will with within without would yet you your yours yourself
    yourselves
    d m o y isn aren wasn weren don doesn didn hasn haven hadn won wouldn
    shouldn couldn cannot mustn
    """.split()
)

# French function words, folded: users write memories and questions in French
# too. "car" and "ai" are left out, English topic words first ("car", "AI");
# "son", "ton" and "comment" stay, as recall has always dropped them (made
# topic words, "son" cost two questions of the LoCoMo dev split their rank).
FRENCH_STOP_WORDS = frozenset(
    """
    alors au aussi aux avait avez avec avons bien c ca ce ceci cela ces cet cette
    chaque chez comme d dans de des deja donc dont du elle elles en encore entre es
    est et etaient etait ete etes etre eu il ils j je juste l la le les leur leurs lui
    ma mais me meme mes moi mon n ne ni nos notre nous on ont ou par pas pour pourquoi
    puis qu quand que quel quelle quelles quels qui quoi s sa se ses si sommes sont
    sous suis sur ta te tes toi tous tout toute toutes tres tu un une vers vos votre
    vous y son ton comment
    """.split()
)

STOP_WORDS = ENGLISH_STOP_WORDS | FRENCH_STOP_WORDS

# Single characters that carry grammar rather than topic in Chinese; a query
# bigram made only of them ("我的", "是不") is dropped like a stop word.
CJK_STOP_CHARS = frozenset("的了是在我你他她它们这那有和与就也都不吗呢吧啊个之")


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


# Letters that draw nothing: Hangul fillers, the braille blank. Format characters
# (zero-width space, joiners, bidi controls, BOM) are found by their category.
_INVISIBLE_LETTERS = frozenset("\u115f\u1160\u3164\uffa0\u2800")


def is_blank(text: str) -> bool:
    """True when ``text`` shows nothing: only whitespace, control, format or filler characters."""
    import unicodedata

    return all(ch.isspace() or ch in _INVISIBLE_LETTERS or unicodedata.category(ch) in ("Cc", "Cf", "Zs", "Zl", "Zp")
               for ch in text)


def printable_label(text: str) -> str:
    """``text`` on one line with control characters as spaces and format characters (bidi overrides,
    zero-width characters) removed, so a label shows what it says; spacing collapsed."""
    import unicodedata

    kept = []
    for ch in text:
        cat = unicodedata.category(ch)
        if cat == "Cc" or cat in ("Zl", "Zp"):
            kept.append(" ")
        elif cat not in ("Cf", "Cs"):
            kept.append(ch)
    return " ".join("".join(kept).split())


# ------------------------------------------------------------------ time in words

MONTHS = ("january", "february", "march", "april", "may", "june", "july", "august", "september", "october",
          "november", "december")
_WEEKDAYS = ("monday", "tuesday", "wednesday", "thursday", "friday", "saturday", "sunday")
# Folded words that place a statement in time, relative ("yesterday", "two
# weeks ago", "last year", "lately") or on the calendar (a month, a weekday).
# "may" and "march" stay out: as verbs they are far more common than as months.
TIME_WORDS = frozenset((*(m for m in MONTHS if m not in ("may", "march")), *_WEEKDAYS, "yesterday", "today", "tonight", "tomorrow", "ago", "day", "days",
                        "week", "weeks", "weekend", "month", "months", "year", "years", "last", "next", "recently",
                        "lately", "hier", "demain", "semaine", "mois", "annee", "dernier", "derniere"))
# Question words that ask for a moment.
_WHEN_WORDS = frozenset(("when", "quand"))
_MONTH_NAMES = "|".join(m.capitalize() for m in MONTHS)
# A calendar date as people write it: "October 13, 2023", "13 October 2023",
# "in June", "June 2023"; month names are capitalised in English, which tells
# the month "May" from the verb. ISO dates ("2023-10-13", "2023-10") too.
_NAMED_DATE = (
    rf"(?:\b(?P<day1>\d{{1,2}})(?:st|nd|rd|th)?\s+(?:of\s+)?)?\b(?P<month>{_MONTH_NAMES})\b"
    r"(?:\s+(?P<day2>\d{1,2})(?:st|nd|rd|th)?\b)?(?:,?\s+(?P<year>(?:19|20)\d\d)\b)?"
)
_ISO_DATE = r"\b(?P<year>(?:19|20)\d\d)-(?P<month>0[1-9]|1[0-2])(?:-(?P<day>0[1-9]|[12]\d|3[01]))?\b"
_MONTH_CAPITALS = tuple(m.capitalize() for m in MONTHS)
# "May" and "March" are verbs too: alone they name a month only after "in"
# ("in May"), or with a day or a year beside them.
_AMBIGUOUS_MONTHS = frozenset(("May", "March"))
_ANY_YEAR = "[0-9][0-9][0-9][0-9]"


@lru_cache(maxsize=2)
def _date_pattern(pattern: str) -> re.Pattern[str]:
    return re.compile(pattern)


def states_time(text: str) -> bool:
    """True when ``text`` names a moment: a relative time word, a month, a weekday or a year."""
    said = words(text)
    return not TIME_WORDS.isdisjoint(said) or any(len(w) == 4 and w[:2] in ("19", "20") and w.isdigit() for w in said)


def asks_when(query: str) -> bool:
    """True when ``query`` asks for a moment ("When did ...", "quand ...")."""
    return not _WHEN_WORDS.isdisjoint(words(query))


def named_period(query: str) -> str | None:
    """A GLOB pattern over ISO 8601 timestamps for the first calendar date ``query`` names, or None.

    "October 13, 2023" gives ``2023-10-13*``; "in June" gives June of any
    year; "2023-10" gives ``2023-10-*``. A bare year names no period (a
    question about "2022" is often answered by a memory of 2023 that says
    "last year").
    """
    plain = unaccent(query)
    if not any(ch.isdigit() for ch in plain) and not any(m in plain for m in _MONTH_CAPITALS):
        return None   # the usual question names no date: no pattern compiled in a recall process
    found = _date_pattern(_ISO_DATE).search(plain)
    if found is not None:
        year, month, day = found.group("year"), found.group("month"), found.group("day")
        return f"{year}-{month}-{day}*" if day else f"{year}-{month}-*"
    for found in _date_pattern(_NAMED_DATE).finditer(plain):
        day = found.group("day1") or found.group("day2")
        year = found.group("year")
        month_name = found.group("month")
        if month_name in _AMBIGUOUS_MONTHS and not (day or year) and \
                not plain[:found.start("month")].rstrip().lower().endswith(("in", "of", "since", "during")):
            continue
        if day is not None and not 1 <= int(day) <= 31:
            day = None
        month = f"{MONTHS.index(month_name.lower()) + 1:02d}"
        stamp = f"{year or _ANY_YEAR}-{month}-"
        return f"{stamp}{int(day):02d}*" if day else f"{stamp}*"
    return None
