"""Tests for gitmem.engines.features: how one statement is read before it is compared."""

from __future__ import annotations

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from gitmem.engines import features
from gitmem.engines.features import describe, latin_words

# ------------------------------------------------------------------ normalising


def test_nfkc_unifies_apostrophes_and_compatibility_forms() -> None:
    assert features.nfkc("don’t ‘x’ ʼy ﬁle ＡＢ") == "don't 'x' 'y file AB"


def test_normalize_drops_latin_accents_and_keeps_case() -> None:
    assert features.normalize("Élodie préfère le Café") == "Elodie prefere le Cafe"


def test_normalize_keeps_the_tea_apart_from_the_article() -> None:
    # "thé" folds to "the", an English stop word: it is read as "tea" instead
    assert features.normalize("Je bois du thé") == "Je bois du tea"
    assert features.normalize("the thés") == "the tea"


def test_strip_triggers_blanks_remember_phrases_in_place() -> None:
    raw = "please remember: deploy on fridays"
    stripped = features.strip_triggers(raw)
    assert len(stripped) == len(raw)
    assert stripped.split() == ["deploy", "on", "fridays"]


def test_stem_word_keeps_identifiers_whole() -> None:
    assert features.stem_word("deploying") == features.stem_word("deploys") == "deploi"
    assert features.stem_word("node.js") == "node.js"
    assert features.stem_word("v2") == "v2"


# ------------------------------------------------------------------ Latin words


def forms(text: str) -> list[str]:
    return [w.form for w, _ in latin_words(text)]


def test_contractions_and_elisions_split() -> None:
    assert forms("don't") == ["do", "not"]
    assert forms("won't") == ["will", "not"]
    assert forms("l'école") == ["ecole"]
    assert forms("j'aime") == ["je", "prefer"]  # "aime" is a synonym of prefer
    assert forms("n'utilise") == ["ne", "use"]
    assert forms("Caroline's") == ["caroline"]


def test_hyphenated_words_split_and_identifiers_stay_whole() -> None:
    assert forms("well-known") == ["well", "known"]
    assert forms("config.yaml") == ["configuration.yaml"] or forms("config.yaml") == ["config.yaml"]
    assert forms("C++ and C#") == ["c++", "and", "c#"]


def test_synonyms_map_to_one_form() -> None:
    assert forms("db repo k8s prod") == ["database", "repository", "kubernetes", "production"]


def test_capitals_mid_sentence_are_strong_names_and_initial_ones_weak() -> None:
    words = {w.form: w.name for w, _ in latin_words("Deploy with Alice. Bob reviews MySQL")}
    assert words["deploy"] == ""  # a verb, never a name
    assert words["alice"] == "strong"  # a known first name
    assert words["bob"] == "strong"
    assert words["mysql"] == "strong"


def test_an_unknown_capitalised_word_at_a_sentence_start_is_weak() -> None:
    words = {w.form: w.name for w, _ in latin_words("Zorblat owns it. Then Quixel does")}
    assert words["zorblat"] == "weak"
    assert words["quixel"] == "strong"


def test_code_spans_are_strong_names() -> None:
    words = {w.form: w.name for w, _ in latin_words("run `zorp --fast` first")}
    assert words["zorp"] == "strong" and words["fast"] == "strong"
    assert words["run"] == ""


def test_stop_words_and_negations_are_not_content() -> None:
    content = {w.form: w.content for w, _ in latin_words("please never use the tabs")}
    assert content == {"please": False, "never": False, "use": True, "the": False, "tab": True}


def test_an_accented_word_is_only_a_french_stop_word() -> None:
    (word, surface), = latin_words("thé")
    assert surface == "thé" and word.content  # not the English "the"


# ------------------------------------------------------------------ Chinese


def test_zh_clean_counts_negations_and_blanks_them() -> None:
    cleaned, negations = features.zh_clean("不要用制表符")
    assert negations == 1
    assert "不要" not in cleaned
    assert features.zh_clean("我不要不用它")[1] == 2


def test_zh_clean_knows_words_that_only_look_negative() -> None:
    assert features.zh_clean("不错的方案")[1] == 0
    assert features.zh_clean("非常好")[1] == 0


def test_zh_clean_folds_synonyms() -> None:
    assert features.zh_clean("我更喜欢使用空格")[0] == "我喜欢用空格"


def test_zh_segments_cut_at_function_characters() -> None:
    assert features.zh_segments("我的数据库在服务器上") == ["数据库", "服务器上"]
    assert features.zh_segments("") == []


def test_zh_bigrams() -> None:
    assert features.zh_bigrams("数据库") == ["数据", "据库"]
    assert features.zh_bigrams("库") == ["库"]


@pytest.mark.parametrize(
    ("segment", "source", "start", "is_name"),
    [("明", "小明来了", 1, True), ("伟", "张伟负责", 1, True), ("张伟", "张伟负责", 0, True),
     ("数据", "数据库", 0, False)],
)
def test_zh_name(segment: str, source: str, start: int, is_name: bool) -> None:
    assert features.zh_name(segment, source, start) is is_name


# ------------------------------------------------------------------ describe


def test_describe_collects_numbers_dates_and_names() -> None:
    f = describe("Alice deploys v2 to staging on 2026-03-04 at 14:30 with 5 retries")
    assert f.dates == ("14:30", "2026-03-04")
    assert f.numbers == ("5",)
    assert "alice" in f.strong
    assert f.digits == ("2", "5")
    assert f.negations == ()


def test_describe_is_cached() -> None:
    describe.cache_clear()
    describe("a cached statement")
    describe("a cached statement")
    assert describe.cache_info().hits == 1


@pytest.mark.parametrize(
    ("statement", "count"),
    [
        ("use tabs", 0),
        ("never use tabs", 1),
        ("don't ever use tabs, no", 2),
        ("n'utilise pas les tabulations", 1),  # ne ... pas is one negation
        ("n'utilise jamais les tabulations", 1),
        ("ne les utilise plus", 1),  # ne alone, nothing closes it
        ("不要用制表符", 1),
        ("never 不要", 2),
    ],
)
def test_negations_are_counted(statement: str, count: int) -> None:
    assert len(describe(statement).negations) == count


def test_empty_key_compares_texts_without_tokens() -> None:
    assert describe("!!!").empty_key == describe("!!!").empty_key
    assert describe("  The   ").empty_key == "the"


def test_cjk_text_is_kept_for_alignment() -> None:
    f = describe("部署 to 服务器")
    assert f.cjk == "部署 服务器"
    assert {"部署", "服务", "务器"} <= f.tokens


@settings(max_examples=200, deadline=None)
@given(st.text(max_size=80))
def test_describe_reads_any_text(statement: str) -> None:
    f = describe(statement)
    assert f.tokens <= f.tokens | f.grams
    assert all(isinstance(n, str) for n in f.numbers)


def test_describe_reads_a_bounded_head_of_a_long_text() -> None:
    from gitmem.engines.features import DESCRIBE_CHARS, describe

    head = "deploy the staging database " * (DESCRIBE_CHARS // 28 + 1)
    found = describe(head + " on port 5432")
    assert found.numbers == () and "databas" in found.tokens
    assert describe("staging database on port 5432").numbers == ("5432",)


def test_sentence_start_is_found_without_reading_the_whole_prefix() -> None:
    from gitmem.engines.features import latin_words

    text = "alpha. Beta gamma " * 2000 + "Delta"
    words = latin_words(text)
    assert words[1][0].name == "weak" and words[-1][0].name == "strong"
