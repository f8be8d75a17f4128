"""Tests for gitmem.store.ranking: the FTS5 query of a question and the score of each candidate."""

from __future__ import annotations

import math
import sqlite3

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from gitmem.store import ranking
from gitmem.store.ranking import Candidate, Filters, Query

# ------------------------------------------------------------------ parse_query


def test_query_words_are_asked_as_their_stems() -> None:
    parsed = ranking.parse_query("When was Caroline researching Généalogie?")
    assert parsed is not None
    # the index holds gitmem's stems (no stemming tokenizer): a query asks the same stems it ranks by
    assert parsed.fts == '"carolin" OR "research" OR "genealogi"'
    assert parsed.terms == ("carolin", "research", "genealogi")


def test_stop_word_only_query_is_none() -> None:
    assert ranking.parse_query("what was it that you did?") is None
    assert ranking.parse_query("") is None
    assert ranking.parse_query("?!") is None


def test_single_letters_drop_but_single_digits_stay() -> None:
    parsed = ranking.parse_query("x 7 y python")
    assert parsed is not None
    assert parsed.fts == '"7" OR "python"'


def test_repeated_words_are_asked_once() -> None:
    parsed = ranking.parse_query("deploy deploy DEPLOY staging")
    assert parsed is not None
    assert parsed.fts == '"deploi" OR "stage"'


def test_neighbouring_stems_make_the_pairs() -> None:
    parsed = ranking.parse_query("staging database port")
    assert parsed is not None
    assert parsed.pairs == frozenset({("stage", "databas"), ("databas", "port")})


def test_cjk_runs_become_bigrams_and_lone_characters_prefixes() -> None:
    parsed = ranking.parse_query("我的咖啡店 茶")
    assert parsed is not None
    assert parsed.fts == '"的咖" OR "咖啡" OR "啡店" OR "茶"*'
    assert parsed.prefixes == ("茶",)
    assert "我的" not in parsed.terms  # a grammar-only bigram


@pytest.mark.parametrize(
    "hostile",
    ['a" OR "b', "content:secret", "NEAR(a b)", "x*", "^start", "a AND b NOT c", "(((", '"'],
)
def test_fts_syntax_in_a_question_is_taken_literally(hostile: str) -> None:
    parsed = ranking.parse_query(hostile)
    db = sqlite3.connect(":memory:")
    db.execute("CREATE VIRTUAL TABLE t USING fts5(content, tokenize='porter unicode61 remove_diacritics 2')")
    db.execute("INSERT INTO t VALUES ('start and secret content')")
    if parsed is not None:
        db.execute("SELECT rowid FROM t WHERE t MATCH ?", (parsed.fts,)).fetchall()  # never a syntax error


@settings(max_examples=200, deadline=None)
@given(st.text(max_size=60))
def test_any_text_makes_a_valid_match_expression(question: str) -> None:
    parsed = ranking.parse_query(question)
    if parsed is None:
        return
    db = sqlite3.connect(":memory:")
    db.execute("CREATE VIRTUAL TABLE t USING fts5(content, tokenize='porter unicode61 remove_diacritics 2')")
    db.execute("SELECT rowid FROM t WHERE t MATCH ?", (parsed.fts,)).fetchall()
    assert parsed.terms


# ------------------------------------------------------------------ terms


def test_terms_are_padded_stems_without_stop_words() -> None:
    assert ranking.terms("The cats were running home", "") == " cat run home "


def test_terms_append_cjk_terms() -> None:
    assert ranking.terms("coffee 咖啡店", "咖啡 啡店 店") == " coffe 咖啡 啡店 店 "


def test_terms_of_an_empty_text() -> None:
    assert ranking.terms("", "") == "  "


def test_terms_and_query_stems_meet() -> None:
    parsed = ranking.parse_query("researched generalizations")
    assert parsed is not None
    row_terms = ranking.terms("She researches generalization daily", "")
    assert all(f" {t} " in row_terms for t in parsed.terms)


# ------------------------------------------------------------------ lexical_sql


def test_lexical_sql_asks_one_needle_per_term_and_pair() -> None:
    query = Query('"a"', ("alpha", "beta"), frozenset({("alpha", "beta")}), ())
    sql, needles = ranking.lexical_sql(query)
    assert needles == (" alpha ", " beta ", " alpha beta ")
    assert sql.count("instr(m.terms, ?)") == 3


def test_lexical_sql_without_pairs_has_no_adjacency_factor() -> None:
    sql, needles = ranking.lexical_sql(Query('"a"', ("alpha",), frozenset(), ()))
    assert needles == (" alpha ",)
    assert sql.count("instr") == 1


def test_lexical_sql_leaves_a_prefix_open() -> None:
    _, needles = ranking.lexical_sql(Query('"茶"*', ("茶",), frozenset(), ("茶",)))
    assert needles == (" 茶",)


def test_lexical_sql_computes_coverage_in_sqlite() -> None:
    sql, needles = ranking.lexical_sql(Query("", ("alpha", "beta"), frozenset(), ()))
    db = sqlite3.connect(":memory:")
    rows = db.execute(
        f"SELECT {sql} FROM (SELECT -2.0 AS b) AS f, (SELECT ? AS terms) AS m", (*needles, " alpha gamma ")
    ).fetchall()
    assert rows[0][0] == pytest.approx(2.0 * 1.5)  # half the terms covered


def test_a_when_question_weighs_memories_that_state_a_time() -> None:
    query = Query('"a"', ("alpha",), frozenset(), (), when=True)
    sql, needles = ranking.lexical_sql(query)
    db = sqlite3.connect(":memory:")
    found = [db.execute(f"SELECT {sql} FROM (SELECT -2.0 AS b) AS f, (SELECT ? AS terms, ? AS dated) AS m",
                        (*needles, " alpha ", dated)).fetchone()[0] for dated in (0, 1)]
    assert found == [pytest.approx(4.0), pytest.approx(4.0 * (1 + ranking._TIME_STATED_WEIGHT))]
    assert "dated" not in ranking.lexical_sql(query._replace(when=False))[0]


def test_a_named_period_weighs_memories_made_in_it() -> None:
    query = Query('"a"', ("alpha",), frozenset(), (), period="2023-10-*")
    sql, needles = ranking.lexical_sql(query)
    assert needles == (" alpha ", "2023-10-*")
    db = sqlite3.connect(":memory:")
    found = [db.execute(f"SELECT {sql} FROM (SELECT -2.0 AS b) AS f, (SELECT ? AS terms, ? AS created) AS m",
                        (*needles, " alpha ", created)).fetchone()[0]
             for created in ("2023-09-30T23:59:59Z", "2023-10-13T10:00:00Z", "2024-10-01T00:00:00Z")]
    assert found == [pytest.approx(4.0), pytest.approx(4.0 * (1 + ranking._PERIOD_WEIGHT)), pytest.approx(4.0)]


def test_rarity_weighs_rare_terms_more_and_absent_terms_nothing() -> None:
    common, rare, absent = ranking.rarity([500, 3, 0], 1000)
    assert rare > common > 0 and absent == 0.0


def test_coverage_weighed_by_rarity() -> None:
    query = Query('"a"', ("alpha", "beta"), frozenset(), ())
    sql, needles = ranking.lexical_sql(query, [3.0, 1.0])
    db = sqlite3.connect(":memory:")
    got = [db.execute(f"SELECT {sql} FROM (SELECT -2.0 AS b) AS f, (SELECT ? AS terms) AS m",
                      (*needles, terms)).fetchone()[0] for terms in (" alpha ", " beta ")]
    assert got == [pytest.approx(2.0 * 1.75), pytest.approx(2.0 * 1.25)]
    # no weight at all (no term in the store): every term counts alike
    assert ranking.lexical_sql(query, [0.0, 0.0]) == ranking.lexical_sql(query)


def test_parse_query_reads_when_and_the_named_period() -> None:
    parsed = ranking.parse_query("When did Melanie go camping in June?")
    assert parsed is not None and parsed.when and parsed.period == "[0-9][0-9][0-9][0-9]-06-*"
    parsed = ranking.parse_query("camping trip")
    assert parsed is not None and not parsed.when and parsed.period is None


# ------------------------------------------------------------------ relevance


def test_a_follower_gains_half_of_its_predecessor_and_gives_a_tenth_back() -> None:
    candidates = {1: Candidate(0.5, None, 10.0, 2), 2: Candidate(0.5, None, 0.0, None)}
    assert ranking.relevance(candidates) == {1: 10.0, 2: 5.0}
    candidates = {1: Candidate(0.5, None, 10.0, 2), 2: Candidate(0.5, None, 4.0, None)}
    assert ranking.relevance(candidates) == {1: pytest.approx(10.4), 2: pytest.approx(9.0)}


def test_the_answer_to_a_question_gains_all_of_its_score() -> None:
    # a memory that asks something is answered by the next one: all its score passes on, not half
    candidates = {1: Candidate(0.5, None, 10.0, 2, True), 2: Candidate(0.5, None, 0.0, None)}
    assert ranking.relevance(candidates) == {1: 10.0, 2: 10.0}
    candidates = {1: Candidate(0.5, None, 10.0, 2, True), 2: Candidate(0.5, None, 4.0, None)}
    assert ranking.relevance(candidates) == {1: pytest.approx(10.4), 2: pytest.approx(14.0)}


def test_a_follower_outside_the_candidates_changes_nothing() -> None:
    candidates = {1: Candidate(0.5, None, 3.0, 99)}
    assert ranking.relevance(candidates) == {1: 3.0}


def test_relevance_of_no_candidates() -> None:
    assert ranking.relevance({}) == {}


# ------------------------------------------------------------------ scores


def test_score_weights_sum_to_one() -> None:
    assert ranking.W_RELEVANCE + ranking.W_IMPORTANCE + ranking.W_RECENCY == pytest.approx(1.0)


def test_score_of_a_perfect_fresh_important_memory_is_one() -> None:
    now = 1_000_000.0
    ((score, rel, rid),) = ranking.scores({1: 4.0}, 4.0, {1: Candidate(1.0, now, 4.0, None)}, now, 10)
    assert score == pytest.approx(1.0)
    assert (rel, rid) == (1.0, 1)


def test_recency_halves_every_week() -> None:
    now = 10_000_000.0
    week = ranking.RECENCY_HALF_LIFE_HOURS * 3600
    cands = {1: Candidate(0.0, now - week, 1.0, None), 2: Candidate(0.0, None, 1.0, None)}
    got = {rid: score for score, _, rid in ranking.scores({1: 1.0, 2: 1.0}, 1.0, cands, now, 10)}
    assert got[1] - got[2] == pytest.approx(ranking.W_RECENCY * 0.5)


def test_importance_is_clamped() -> None:
    cands = {1: Candidate(7.0, None, 1.0, None), 2: Candidate(-3.0, None, 1.0, None)}
    got = {rid: score for score, _, rid in ranking.scores({1: 1.0, 2: 1.0}, 1.0, cands, 0.0, 10)}
    assert got[1] == pytest.approx(ranking.W_RELEVANCE + ranking.W_IMPORTANCE)
    assert got[2] == pytest.approx(ranking.W_RELEVANCE)


def test_candidates_that_cannot_reach_the_top_k_are_skipped() -> None:
    relevances = {1: 10.0, 2: 9.0, 3: 0.5, 4: 0.0}
    cands = {rid: Candidate(1.0, None, rel, None) for rid, rel in relevances.items()}
    kept = [rid for _, _, rid in ranking.scores(relevances, 10.0, cands, 0.0, 2)]
    assert kept == [1, 2]


def test_a_future_access_time_counts_as_now() -> None:
    now = 5_000_000.0
    cands = {1: Candidate(0.0, now + 3600, 1.0, None)}
    (score, _, _), = ranking.scores({1: 1.0}, 1.0, cands, now, 1)
    assert score == pytest.approx(ranking.W_RELEVANCE + ranking.W_RECENCY)
    assert math.isfinite(score)


# ------------------------------------------------------------------ filter_sql


def test_default_filters_hide_archive_and_background() -> None:
    sql, params = ranking.filter_sql(Filters(), "m")
    assert sql == " AND m.tier NOT IN (?) AND m.type != ? AND m.band NOT IN (?,?)"
    assert params == ("archive", "episode", "background", "fading")


def test_naming_a_tier_or_band_shows_it() -> None:
    sql, params = ranking.filter_sql(Filters(tier="archive", band="fading"), "n")
    assert sql == " AND n.tier = ? AND n.band = ? AND n.type != ?"
    assert params == ("archive", "fading", "episode")


def test_flags_include_hidden_memories() -> None:
    sql, params = ranking.filter_sql(Filters(include_archive=True, include_background=True), "m")
    assert (sql, params) == (" AND m.type != ?", ("episode",))


def test_type_and_domain_filters() -> None:
    sql, params = ranking.filter_sql(Filters(type="fact", domain="user", include_archive=True,
                                             include_background=True), "m")
    assert sql == " AND m.type = ? AND m.domain = ?"
    assert params == ("fact", "user")
