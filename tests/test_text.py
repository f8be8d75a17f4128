"""Tests for gitmem.base.text: words as FTS5's ``unicode61 remove_diacritics 2`` sees them, and their stems."""

from __future__ import annotations

import sqlite3
import subprocess
import sys
import unicodedata
from collections.abc import Iterator
from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from gitmem.base import text


# Letters newer than the Unicode tables of the SQLite this runs on: unicode61
# does not know their case yet. And two composed letters its diacritic table
# lacks (U+01E0, U+01E1) are kept whole by both sides, tested apart.
_NEWER_THAN_SQLITE = frozenset("\u037f\u0528\u052a\u052c\u052e")


def _fts_tokens(texts: list[str], tokenizer: str) -> list[list[str]]:
    """The tokens SQLite's FTS5 makes of each text, in order."""
    db = sqlite3.connect(":memory:")
    db.execute(f"CREATE VIRTUAL TABLE t USING fts5(c, tokenize='{tokenizer}')")
    db.execute("CREATE VIRTUAL TABLE v USING fts5vocab(t, 'instance')")
    db.executemany("INSERT INTO t (rowid, c) VALUES (?, ?)", list(enumerate(texts)))
    found: dict[int, list[tuple[int, str]]] = {}
    for term, doc, _col, offset in db.execute("SELECT term, doc, col, offset FROM v"):
        found.setdefault(doc, []).append((offset, term))
    db.close()
    return [[t for _, t in sorted(found.get(i, []))] for i in range(len(texts))]


def _unicode61(texts: list[str]) -> list[list[str]]:
    return _fts_tokens(texts, "unicode61 remove_diacritics 2")


def _letters() -> Iterator[str]:
    """Latin, Greek and Cyrillic, punctuation and full-width forms: the scripts users write here."""
    ranges = [(0x20, 0x530), (0x1E00, 0x1F00), (0x2000, 0x2070), (0xFF00, 0xFF60)]
    for lo, hi in ranges:
        for cp in range(lo, hi):
            ch = chr(cp)
            if unicodedata.category(ch) not in ("Cn", "Cf", "Cs") and ch not in _NEWER_THAN_SQLITE:
                yield ch


# ------------------------------------------------------------------ fold


@pytest.mark.parametrize(
    ("raw", "folded"),
    [
        ("Réunion à l'ÉCOLE", "reunion a l'ecole"),
        ("İstanbul", "istanbul"),  # dotted capital I: its dot is a diacritic
        ("straße", "straße"),  # one character stays one, unlike casefold's "ss"
        ("ſ", "s"),  # long s
        ("µ", "μ"),  # micro sign folds to Greek mu, as unicode61 does
        ("Ά", "ά"),  # Greek keeps its accents
        ("Ё", "ё"),  # so does Cyrillic
        ("ǕǠ", "uǡ"),  # two marks go; the one letter unicode61 keeps whole stays
        ("ＡＢＣ", "ａｂｃ"),  # no compatibility mapping
        ("e\u0301", "e"),  # a decomposed accent joins its letter
        ("PLAIN ascii", "plain ascii"),
    ],
)
def test_fold_matches_unicode61(raw: str, folded: str) -> None:
    assert text.fold(raw) == folded


def test_every_letter_folds_and_splits_as_unicode61_does() -> None:
    letters = list(_letters())
    assert len(letters) > 1500
    samples = [f"x{ch}x" for ch in letters]
    expected = _unicode61(samples)
    wrong = [(hex(ord(ch)), exp, text.words(s)) for ch, s, exp in zip(letters, samples, expected)
             if text.words(s) != exp]
    assert wrong == []


@settings(max_examples=300, deadline=None)
@given(st.text(alphabet=st.sampled_from(list("aZéÉçÇñßøæœ'’-_. 09ıİſǖĳ\u0301\u0308ÅåΆά")), max_size=40))
def test_words_equal_unicode61_tokens(sample: str) -> None:
    assert text.words(sample) == _unicode61([sample])[0]


@settings(max_examples=500, deadline=None)
@given(st.text(alphabet=st.sampled_from(list("abcdeilnorstuyAEIOU ing'ed.s-éÉßİ09_")), max_size=60))
def test_the_index_tokenizer_keeps_every_stem_as_it_is(sample: str) -> None:
    # the recall index stores gitmem's stems in a column FTS5 tokenizes with plain unicode61: each
    # stem must come out as one unchanged token, so FTS5's terms and rarity are the reranker's stems
    stems = text.stems(sample)
    assert _unicode61([" ".join(stems)])[0] == stems


def test_stem_is_pystemmers_porter_beyond_two_ascii_letters() -> None:
    import random

    import Stemmer  # type: ignore[import-not-found]

    porter = Stemmer.Stemmer("porter")
    rng = random.Random(20261201)
    tails = ("ed", "ing", "s", "ies", "ly", "bly", "logy", "ation", "ness", "y", "eed", "")
    words = sorted({"".join(rng.choice("abcdefghijklmnopqrstuvwxyz") for _ in range(rng.randint(1, 7)))
                    + rng.choice(tails) for _ in range(5_000)})
    assert [w for w in words if text.stem(w) != (porter.stemWord(w) if len(w) > 2 else w)] == []
    assert text.stem("researching") == "research" and text.stem("is") == "is"
    assert text.stem("café") == "café"  # outside ASCII: as it is


def test_unaccent_keeps_case() -> None:
    assert text.unaccent("Élodie préfère Ça") == "Elodie prefere Ca"
    assert text.unaccent("Plain") == "Plain"
    assert text.unaccent("が") == "が"  # a Japanese voicing mark is part of the letter


def test_fold_is_idempotent_on_a_mixed_sample() -> None:
    sample = "Ça déborde: Straße, İzmir, ΆΛΦΑ, café au lait ﬁn"
    assert text.fold(text.fold(sample)) == text.fold(sample)


# ------------------------------------------------------------------ words


def test_words_split_at_apostrophes_underscores_and_punctuation() -> None:
    assert text.words("Caroline's snake_case, v2.1 don't") == ["caroline", "s", "snake", "case", "v2", "1", "don", "t"]


def test_words_leave_cjk_to_bigrams() -> None:
    assert text.words("meeting 会議 café") == ["meeting", "cafe"]
    assert text.cjk_runs("meeting 会議 and 咖啡店") == ["会議", "咖啡店"]
    assert text.cjk_runs("ascii only") == []


def test_words_of_empty_and_symbol_only_text() -> None:
    assert text.words("") == []
    assert text.words("--- !!! ???") == []


# ------------------------------------------------------------------ stems


@pytest.mark.parametrize(
    ("word", "expected"),
    [
        ("researching", "research"),
        ("agencies", "agenc"),
        ("relational", "relat"),
        ("hopping", "hop"),
        ("happy", "happi"),
        ("caresses", "caress"),
        ("generalizations", "gener"),
    ],
)
def test_porter_stems(word: str, expected: str) -> None:
    assert text.stem(word) == expected


@pytest.mark.parametrize("word", ["as", "is", "us", "a", "i", "x1"])
def test_short_words_are_not_stemmed(word: str) -> None:
    # one- and two-letter words stay whole, as they always have; PyStemmer would cut "as" to "a"
    assert text.stem(word) == word


def test_non_ascii_words_are_not_stemmed() -> None:
    assert text.stem("straßen") == "straßen"
    assert text.stem("λέξεις") == "λέξεις"


def test_stems_keep_stop_words_and_order() -> None:
    assert text.stems("The cats were running") == ["the", "cat", "were", "run"]


def test_the_stemmer_is_imported_on_first_use_only() -> None:
    code = (
        "import sys; from gitmem.base import text; before = 'Stemmer' in sys.modules; "
        "text.stem('running'); print(before, 'Stemmer' in sys.modules)"
    )
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert out.stdout.split() == ["False", "True"]


# ------------------------------------------------------------------ stop words


def test_stop_list_is_one_folded_list_of_both_languages() -> None:
    assert text.ENGLISH_STOP_WORDS and text.FRENCH_STOP_WORDS
    assert text.ENGLISH_STOP_WORDS | text.FRENCH_STOP_WORDS == text.STOP_WORDS
    for word in text.STOP_WORDS:
        assert text.words(word) == [word], word  # folded, one token, as a query word would be


@pytest.mark.parametrize("word", ["what", "when", "did", "the", "quand", "pourquoi", "etre", "ete", "ou"])
def test_question_and_function_words_are_stop_words(word: str) -> None:
    assert word in text.STOP_WORDS


@pytest.mark.parametrize("word", ["car", "ai", "python", "tabs", "deploy"])
def test_topic_words_are_not_stop_words(word: str) -> None:
    assert word not in text.STOP_WORDS


def test_accented_french_stop_words_match_after_folding() -> None:
    # "été" folds to "ete": a list of accented words would never match a folded word
    assert [w for w in text.words("été être où était") if w not in text.STOP_WORDS] == []


# ------------------------------------------------------------------ CJK


def test_cjk_terms_are_bigrams_and_the_last_character() -> None:
    assert text.cjk_terms("ok 咖啡店 x 茶") == "咖啡 啡店 店 茶"
    assert text.cjk_terms("plain ascii") == ""


def test_bigrams_of_short_runs() -> None:
    assert text.bigrams("") == []
    assert text.bigrams("茶") == ["茶"]
    assert text.bigrams("咖啡") == ["咖啡"]


def test_stop_bigrams_are_grammar_only() -> None:
    assert text.is_stop_bigram("我的")
    assert not text.is_stop_bigram("咖啡")
    assert not text.is_stop_bigram("的咖")


def test_content_stems_leave_out_stop_words_and_add_cjk_bigrams() -> None:
    from gitmem.base import text

    assert text.content_stems("Deploy the services to staging") == ["deploi", "servic", "stage"]
    assert "数据" in text.content_stems("数据库的配置")
    assert text.content_stems("the and of") == []


# ------------------------------------------------------------------ time in words


@pytest.mark.parametrize("said", [
    "I went to the pottery class yesterday", "We went camping two weeks ago", "Back in October we moved",
    "I painted that lake sunrise last year", "See you on Friday!", "It was 2022, I think", "Hier, on a fini",
    "We did it last weekend", "I've been painting lately",
])
def test_a_text_that_names_a_moment_states_a_time(said: str) -> None:
    assert text.states_time(said)


@pytest.mark.parametrize("said", [
    "It may rain, but we march on", "I love painting landscapes", "Port 5432 is open", "", "the 1800 bus",
    "我每天早上喝咖啡",
])
def test_a_text_without_a_moment_states_no_time(said: str) -> None:
    assert not text.states_time(said)


def test_when_questions_ask_for_a_moment() -> None:
    assert text.asks_when("When did Caroline go to the support group?")
    assert text.asks_when("Quand a-t-elle déménagé ?")
    assert text.asks_when("and when was that")
    assert not text.asks_when("What did Caroline paint?")
    assert not text.asks_when("Whenever it rains, what do we do?")


@pytest.mark.parametrize(("question", "period"), [
    ("What painting did she show on October 13, 2023?", "2023-10-13*"),
    ("What happened on 13th of October 2023?", "2023-10-13*"),
    ("What did we decide on 2 March?", "[0-9][0-9][0-9][0-9]-03-02*"),
    ("When did Melanie go camping in June?", "[0-9][0-9][0-9][0-9]-06-*"),
    ("What setback did she face in October 2023?", "2023-10-*"),
    ("What happened in May?", "[0-9][0-9][0-9][0-9]-05-*"),
    ("notes of 2024-02-29 please", "2024-02-29*"),
    ("the 2024-02 release", "2024-02-*"),
    ("Qu'a-t-on fait en Août 2023 ?", None),  # French month names are lower-case words: not read as dates
    ("Anything from October 45?", "[0-9][0-9][0-9][0-9]-10-*"),
])
def test_a_question_names_a_period(question: str, period: str | None) -> None:
    assert text.named_period(question) == period


@pytest.mark.parametrize("question", [
    "May I ask what you painted?", "March forward, what then?", "what did you do in 2022?", "how may we help",
    "version 2023-13-01 of the file", "", "The june bug",
])
def test_verbs_years_and_impossible_dates_name_no_period(question: str) -> None:
    assert text.named_period(question) is None


def test_hyphenated_compounds_are_joined() -> None:
    assert text.closed_compounds("Running to de-stress; e-mail my Co-Worker") == ["destress", "email", "coworker"]
    # numbers, single letters on both sides and chains are no compounds
    assert text.closed_compounds("pages 3-4, x-y axis, a well-to-do family") == []
    assert text.closed_compounds("plain words only") == []


def test_a_query_joins_short_open_neighbours_too() -> None:
    assert text.closed_compounds("What happened on their road trip?", open_pairs=True) == ["roadtrip"]
    assert text.closed_compounds("sun set at the camp fire", open_pairs=True) == ["sunset", "campfire"]
    # long words are no parts of a compound; stop words and numbers are never joined
    assert text.closed_compounds("deploy staging database", open_pairs=True) == []
    assert text.closed_compounds("the road 66 trip", open_pairs=True) == []
    assert text.closed_compounds("road trip", open_pairs=False) == []
