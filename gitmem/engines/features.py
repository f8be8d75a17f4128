"""The features of one statement: its words, names, numbers, dates and negation.

Texts mix English, French and Chinese. A statement is read once
(``describe``, cached: a ``remember`` compares a new text with ~50
candidates): NFKC and Latin accents folded, remember-phrases and known
phrases canonicalised, numbers and dates turned into tokens, then each word
is mapped to its canonical form (synonyms), stemmed with the one stemmer of
``gitmem.base.text``, and classed as content, name or function word.
"""

from __future__ import annotations

import functools
import re
import unicodedata
from dataclasses import dataclass
from typing import Literal

from gitmem.base.text import STATEMENT_STOP, STATEMENT_STOP_FR, ZH_FUNCTION_CHARS, statement_token, stem, unaccent
from gitmem.engines.lexicon import (
    ELISIONS,
    EN_NUMBERS,
    EXPLICIT_TRIGGERS,
    NAMED,
    NEGATIONS,
    PHRASES,
    QUANTIFIERS,
    SYNONYMS,
    VERBS,
    ZH_NOT_NEGATION,
    ZH_SURNAMES,
    ZH_SYNONYMS,
)
from gitmem.engines.quantities import ascii_digits, canon_number, cut_dates, prepare_numbers
TOKEN_RE = statement_token()
_IS_NUMBER = re.compile(r"\d+(?:[.,]\d+)*")


def nfkc(text: str) -> str:
    """NFKC with one apostrophe: how every text is read first."""
    text = unicodedata.normalize("NFKC", text)
    return text.replace("\u2019", "'").replace("\u2018", "'").replace("\u02bc", "'")


# Accented words that would fold into an English stop word.
_ACCENTED_RE = re.compile(r"\bth[éÉ]s?\b")


def normalize(text: str) -> str:
    """NFKC, one apostrophe, Latin accents dropped; case kept."""
    return unaccent(_ACCENTED_RE.sub("tea", nfkc(text)))


def stem_word(form: str) -> str:
    """The stem of a canonical word; identifiers and numbers stay whole ("node.js")."""
    return stem(form) if form.isalpha() else form


@dataclass(frozen=True)
class Word:
    """One Latin token: its canonical form and whether it looks like a name."""

    form: str  # lowercase, accent-free, synonym-mapped, unstemmed
    stem: str
    name: Literal["", "weak", "strong"]
    content: bool


def _classify(raw: str, low: str, form: str, initial: bool, code: bool) -> Literal["", "weak", "strong"]:
    if low in STATEMENT_STOP or low in VERBS or low in NEGATIONS or low in EN_NUMBERS or form in STATEMENT_STOP:
        return ""
    if _IS_NUMBER.fullmatch(form):
        return ""
    if code or low in NAMED or form in NAMED:
        return "strong"
    if low in SYNONYMS:
        return ""  # "DB", "BDD", "repo": abbreviations of common words
    if any(not c.isalpha() for c in low):  # identifiers, file names, versions
        return "strong"
    if len(raw) > 1 and any(c.isupper() for c in raw[1:]):
        return "strong"  # MySQL, GitHub, AWS
    if raw[:1].isupper():
        # At a sentence start capitals prove nothing; mid-sentence they do.
        return "weak" if initial else "strong"
    return ""


def _split_word(raw: str) -> list[str]:
    """Contractions, elisions and hyphenated words into plain words."""
    low = raw.casefold()
    if "'" in low:
        head, _, tail = low.partition("'")
        if tail == "t" and head.endswith("n"):
            base = {"can": "can", "won": "will", "don": "do", "shan": "shall"}.get(head, head[:-1])
            return [base, "not"]
        if head in ELISIONS and tail:
            return [w for w in (ELISIONS[head],) if w] + _split_word(raw[len(head) + 1:])
        if unaccent(low) == "aujourd'hui":
            return [low]
        return [head] + ([] if tail in ("s", "m", "re", "ve", "ll", "d") else [tail])
    if "-" in low and all(part.isalpha() for part in low.split("-")):
        return low.split("-")
    return [low]


_OPENERS = frozenset(" \t\"'([*->#")


def _is_initial(text: str, start: int) -> bool:
    # walk back over the openers only: slicing text[:start] for every word
    # made a long text cost the square of its length
    i = start - 1
    while i >= 0 and text[i] in _OPENERS:
        i -= 1
    return i < 0 or text[i] in ".!?:;\n"


def latin_words(text: str) -> list[tuple[Word, str]]:
    """(word, surface) pairs of the Latin part of ``text``; surfaces keep accents."""
    out: list[tuple[Word, str]] = []
    for match in TOKEN_RE.finditer(text):
        if match.group("cjk"):
            continue
        code = match.group("code") is not None
        pieces = TOKEN_RE.finditer(match.group("code")) if code else [match]
        initial = _is_initial(text, match.start())
        for piece in pieces:
            raw = piece.group("word")
            if not raw:
                continue
            for surface in _split_word(raw):
                low = surface if surface.isascii() else unaccent(surface)
                form = SYNONYMS.get(low, low)
                # An accented word is only a French stop word: "thé" is not "the".
                stop = STATEMENT_STOP_FR if low != surface else STATEMENT_STOP
                content = low not in stop and form not in stop and low not in NEGATIONS
                word = Word(form, stem_word(form), _classify(raw, low, form, initial, code), content)
                out.append((word, surface))
                initial = False
    return out


_ZH_NEGATION_RE = re.compile(
    r"不要|不用|不能|不会|不是|没有|从不|从来不|不|别|没|无|未|勿|莫|甭|禁止|避免|讨厌|拒绝|非"
)


def zh_clean(run: str) -> tuple[str, int]:
    """A CJK run with synonyms folded and negations blanked, and how many negations it had."""
    for old, new in ZH_SYNONYMS:
        run = run.replace(old, new)
    negations = 0

    def blank(match: re.Match[str]) -> str:
        nonlocal negations
        around = run[max(0, match.start() - 1): match.end() + 1]
        if any(word in around for word in ZH_NOT_NEGATION):
            return match.group()
        negations += 1
        return " "
    return _ZH_NEGATION_RE.sub(blank, run), negations


def zh_segments(run: str, split: frozenset[str] | set[str] = ZH_FUNCTION_CHARS) -> list[str]:
    """A CJK run cut at its function characters (and spaces) into content segments."""
    out, current = [], ""
    for ch in run + " ":
        if ch in split or ch == " ":
            if current:
                out.append(current)
            current = ""
        else:
            current += ch
    return out


def zh_bigrams(segment: str) -> list[str]:
    """Overlapping character bigrams of a segment; a one-character segment stays whole."""
    return [segment] if len(segment) == 1 else [segment[i: i + 2] for i in range(len(segment) - 1)]


def zh_name(segment: str, source: str, start: int) -> bool:
    """Does a swapped Chinese segment look like (part of) a person's name?"""
    before = source[start - 1] if start else ""
    if len(segment) <= 2 and before and (before in "小老阿" or before in ZH_SURNAMES):
        return True  # 小明/小红, 张三/张四: the given name changed
    return len(segment) <= 3 and segment[0] in ZH_SURNAMES  # 张伟/李娜, 王经理/李经理


def _negations(markers: list[str]) -> tuple[str, ...]:
    # "ne" (or "n'") only opens a French negation that "pas", "jamais" or
    # "rien" closes: it counts on its own only when nothing closes it
    counted = [m for m in markers if m not in ("n", "ne")]
    if len(counted) < len(markers) and not any(m in _FRENCH_CLOSERS for m in counted):
        counted.insert(0, "not")
    return tuple(counted)


_FRENCH_CLOSERS = frozenset(("pas", "jamais", "rien", "aucun", "aucune"))


@dataclass(frozen=True)
class Features:
    """What the comparison needs of one statement, computed once by ``describe``."""

    tokens: frozenset[str]  # stems, CJK bigrams, numbers, dates: the token view
    grams: frozenset[str]  # character trigrams and CJK characters: the spelling view
    forms: frozenset[str]  # every canonical word, stop words included
    strong: frozenset[str]
    weak: frozenset[str]
    dates: tuple[str, ...]
    numbers: tuple[str, ...]
    digits: tuple[str, ...]
    negations: tuple[str, ...]  # the negation markers, in order; French "ne ... pas" is one
    quantifiers: tuple[tuple[str, str], ...]  # (family, value) of each quantifier, frequency and modal, sorted
    cjk: str  # CJK text, for aligned substitutions
    empty_key: str


def strip_triggers(folded: str) -> str:
    """Remember-phrases ("please remember:", "记住") blanked in place, offsets kept."""
    return _TRIGGER_RE.sub(lambda m: " " * len(m.group()), folded)


_PHRASE_RES = tuple((re.compile(rf"\b(?:{pattern})\b", re.IGNORECASE), canonical) for pattern, canonical in PHRASES)
_TRIGGER_RE = re.compile(EXPLICIT_TRIGGERS, re.IGNORECASE)


_LATIN_QUANTIFIERS = sorted((q for q in QUANTIFIERS if q.isascii() or "'" in q), key=len, reverse=True)
_CJK_QUANTIFIERS = sorted((q for q in QUANTIFIERS if q not in _LATIN_QUANTIFIERS), key=len, reverse=True)
# "can't" and "cannot" are negations, not the modal "can"; "May" is a month.
_QUANTIFIER_RE = re.compile(
    r"(?<![\w'-])(?:" + "|".join(re.escape(q) for q in _LATIN_QUANTIFIERS) + r")(?![\w-])|" + "|".join(_CJK_QUANTIFIERS),
    re.IGNORECASE)
_CAN_NOT_RE = re.compile(r"'t\b| ?not\b", re.IGNORECASE)


def quantifiers(folded: str) -> tuple[tuple[str, str], ...]:
    """The (family, value) of each quantifier, frequency and modal of a folded text, sorted."""
    found = []
    for match in _QUANTIFIER_RE.finditer(folded):
        word = match.group()
        if word == "May" and not _is_initial(folded, match.start()):
            continue  # the month, mid-sentence
        if word.casefold() == "can" and _CAN_NOT_RE.match(folded, match.end()):
            continue  # "can't" forbids: a negation, counted as one
        found.append(QUANTIFIERS[word.casefold()])
    return tuple(sorted(found))


def _phrases(text: str) -> str:
    for pattern, canonical in _PHRASE_RES:
        text = pattern.sub(canonical, text)
    return text


DESCRIBE_CHARS = 32_768


@functools.lru_cache(maxsize=4096)
def describe(text: str) -> Features:
    """The features of one statement (cached: a new text meets the same candidates often).

    Only the first ``DESCRIBE_CHARS`` characters are read: the cache stays
    bounded, and a duplicate decision never reads that far (it compares texts
    of at most ``similarity.COMPARE_CHARS`` and others only by equality).
    """
    folded = _phrases(strip_triggers(normalize(text[:DESCRIBE_CHARS])))
    quantified = quantifiers(folded)
    folded = prepare_numbers(folded)
    undated, dates = cut_dates(folded)
    numbers: list[str] = []
    tokens: set[str] = set()
    grams: set[str] = set()
    forms: set[str] = set()
    strong: set[str] = set()
    weak: set[str] = set()
    negations: list[str] = []
    for word, low in latin_words(undated):
        forms.update((word.form, word.stem, low))
        if low in NEGATIONS:
            negations.append(low)
        if _IS_NUMBER.fullmatch(word.form):
            numbers.append(canon_number(word.form))
        if word.name == "strong":
            strong.add(word.form)
        elif word.name == "weak":
            weak.add(word.form)
        if word.content:
            tokens.add(word.stem)
            padded = f" {word.form} "
            grams.update(padded[i: i + 3] for i in range(len(padded) - 2))
    cjk_parts: list[str] = []
    for match in TOKEN_RE.finditer(undated):
        if match.group("cjk"):
            cleaned, negated = zh_clean(match.group("cjk"))
            negations.extend(["不"] * negated)
            cjk_parts.append(cleaned)
            for segment in zh_segments(cleaned):
                tokens.update(zh_bigrams(segment))
                grams.update(segment)
    tokens.update(f"@{d}" for d in dates)
    grams.update(f"@{d}" for d in dates)
    digits = sorted(ascii_digits(d) for d in re.findall(r"\d+", undated))
    key = " ".join(folded.casefold().split())
    return Features(frozenset(tokens), frozenset(grams), frozenset(forms), frozenset(strong),
                     frozenset(weak), tuple(dates), tuple(sorted(numbers)), tuple(digits), _negations(negations),
                     quantified, " ".join(cjk_parts), key)
