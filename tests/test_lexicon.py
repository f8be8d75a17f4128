"""Tests for gitmem.engines.lexicon: the word tables agree with the fold, the stemmer and each other."""

from __future__ import annotations

import re

import pytest

from gitmem.base import text
from gitmem.engines import lexicon
from gitmem.engines.features import stem_word

WORD_SETS = {
    "FILLER": text.FILLER,
    "FILLER_FR": text.FILLER_FR,
    "FACT_WORDS": text.FACT_WORDS,
    "CLAUSE_STOPS": text.CLAUSE_STOPS,
    "VERBS": lexicon.VERBS,
    "NEGATIONS": lexicon.NEGATIONS,
    "NAMED": lexicon.NAMED,
    "UNITS": lexicon.UNITS,
    "MONTH_ALONE": lexicon.MONTH_ALONE,
}


@pytest.mark.parametrize("name", sorted(WORD_SETS))
def test_word_sets_are_folded_lowercase_words(name: str) -> None:
    words = WORD_SETS[name]
    assert words, name
    for word in words:
        assert word == text.fold(word) == word.strip(), (name, word)
        assert " " not in word


def test_the_comparison_stop_list_is_built_on_the_shared_one() -> None:
    assert text.FILLER <= text.STATEMENT_STOP
    assert text.FILLER_FR <= text.STATEMENT_STOP_FR <= text.STATEMENT_STOP
    assert text.FACT_WORDS <= text.STOP_WORDS
    assert not text.FACT_WORDS & text.STATEMENT_STOP
    assert text.STOP_WORDS - text.FACT_WORDS <= text.STATEMENT_STOP


def test_negation_words_stay_visible_to_the_comparison() -> None:
    for word in ("not", "no", "never", "without", "cannot"):
        assert word in lexicon.NEGATIONS and word not in text.STATEMENT_STOP


# "own" is a stop word ("my own"), so "owns", "owner" and "responsible for"
# are dropped with it: who owns what is compared through the names instead.
_DROPPED_CANONICAL = {"own"}


def test_synonyms_never_map_to_a_stop_word() -> None:
    assert lexicon.SYNONYMS
    for word, canonical in lexicon.SYNONYMS.items():
        assert word == text.fold(word), word
        assert canonical not in text.STATEMENT_STOP or canonical in _DROPPED_CANONICAL, (word, canonical)


def test_phrases_compile_and_name_a_canonical_word() -> None:
    assert lexicon.PHRASES
    for pattern, canonical in lexicon.PHRASES:
        re.compile(pattern)
        assert canonical and (canonical not in text.STATEMENT_STOP or canonical in _DROPPED_CANONICAL)


def test_antonyms_keep_distinct_stems() -> None:
    # the stemmer must not collapse a pair into one word: "enable"/"enabled" meet, "enable"/"disable" not
    assert lexicon.ANTONYMS
    for a, b in lexicon.ANTONYMS:
        assert a != b
        assert stem_word(a) != stem_word(b), (a, b)


def test_antonym_inflections_meet_their_stem() -> None:
    assert stem_word("enabled") == stem_word("enable")
    assert stem_word("approved") == stem_word("approve")


def test_named_things_are_not_verbs_or_negations() -> None:
    assert not lexicon.NAMED & lexicon.NEGATIONS
    assert lexicon.UNITS <= lexicon.NAMED


def test_number_words() -> None:
    assert lexicon.EN_NUMBERS["twenty"] == 20
    assert lexicon.EN_NUMBERS["cinquante"] == 50
    assert all(isinstance(v, int) and v >= 0 for v in lexicon.EN_NUMBERS.values())
    assert set(lexicon.NUMBER_GLUE) == {"one", "un", "une", "and", "et"}


def test_calendar_tables() -> None:
    assert sorted(set(lexicon.MONTHS.values())) == list(range(1, 13))
    assert sorted(set(lexicon.WEEKDAYS.values())) == sorted(
        ["monday", "tuesday", "wednesday", "thursday", "friday", "saturday", "sunday"])
    assert set(lexicon.ZH_WEEKDAYS.values()) == set(lexicon.WEEKDAYS.values())
    assert "may" not in lexicon.MONTH_ALONE  # the verb wins
    assert lexicon.PERIODS["hebdomadaire"] == lexicon.PERIODS["weekly"] == "weekly"


def test_chinese_tables() -> None:
    assert text.ZH_FUNCTION_CHARS <= text.ZH_KEYWORD_SPLIT
    assert all(len(ch) == 1 for ch in text.ZH_FUNCTION_CHARS)
    assert all(a != b for a, b in lexicon.ZH_OPPOSITES)
    assert lexicon.ZH_DIGITS["两"] == 2
    assert lexicon.ZH_UNITS == {"十": 10, "百": 100, "千": 1000}


def test_elisions_expand_to_words_or_nothing() -> None:
    assert lexicon.ELISIONS["j"] == "je" and lexicon.ELISIONS["n"] == "ne"
    assert all(v in ("", "je", "ne") for v in lexicon.ELISIONS.values())


@pytest.mark.parametrize(
    "phrase",
    ["remember this:", "please remember", "don't forget that", "keep in mind", "note to self",
     "retiens bien que", "n'oublie pas que", "souviens-toi", "请记住", "别忘了"],
)
def test_explicit_triggers_match_each_language(phrase: str) -> None:
    assert re.fullmatch(lexicon.EXPLICIT_TRIGGERS, phrase, re.IGNORECASE)
