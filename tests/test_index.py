"""Tests of the derived recall index: upkeep, filters, ranking, query safety."""

from __future__ import annotations

import sqlite3
from datetime import datetime, timedelta, timezone
from pathlib import Path

import pytest

from gitmem.base.errors import GitmemError, IndexCorrupt
from gitmem.store.index import Filters, Index, IndexRow

NOW = datetime(2026, 11, 29, 12, 0, tzinfo=timezone.utc)


def stamp(moment: datetime) -> str:
    return moment.strftime("%Y-%m-%dT%H:%M:%SZ")


def row(mid: str, content: str, **fields: object) -> IndexRow:
    base = IndexRow(
        id=mid,
        path=f"memory/user/{mid}.md",
        content=content,
        type="fact",
        domain="user",
        tier="short",
        band="active",
        importance=0.5,
        created=stamp(NOW - timedelta(days=3)),
        last_accessed=stamp(NOW - timedelta(days=1)),
    )
    return base._replace(**fields)


def ids(ix: Index, query: str, **kw: object) -> list[str]:
    return [h.id for h in ix.search(query, now=NOW, **kw)]  # type: ignore[arg-type]


@pytest.fixture
def ix() -> Index:
    index = Index(":memory:")
    index.upsert(
        [
            row("m-port", "The staging database listens on port 5432", keywords=("postgres",)),
            row("m-tabs", "I prefer tabs over spaces in Python code"),
            row("m-coffee", "我每天早上喝咖啡"),
            row("m-old", "Archived: the staging database used port 5433", tier="archive"),
            row("m-faint", "A faint note about the staging cluster", band="background"),
            row("m-fading", "A fading note about the staging cluster", band="fading"),
        ]
    )
    return index


# ---------------------------------------------------------------- upkeep


def test_upsert_then_search_finds_by_stem(ix: Index) -> None:
    assert ids(ix, "Which port is the database listening?")[0] == "m-port"


def test_upsert_replaces_by_id(ix: Index) -> None:
    ix.upsert([row("m-tabs", "I prefer spaces now")])
    assert ix.count() == 6
    assert ids(ix, "tabs") == []
    assert ids(ix, "spaces") == ["m-tabs"]


def test_delete_removes_rows_and_postings(ix: Index) -> None:
    assert ix.delete(["m-port", "m-missing"]) == 1
    assert ix.count() == 5
    assert ids(ix, "port database") == []


def test_clear_keeps_a_usable_index(ix: Index) -> None:
    ix.set_meta("commit", "abc")
    ix.clear()
    assert ix.count() == 0 and ix.get_meta("commit") is None
    ix.upsert([row("m-new", "fresh start")])
    assert ids(ix, "fresh") == ["m-new"]


def test_rows_round_trip_every_field(ix: Index) -> None:
    full = row("m-full", "links and tags", keywords=("a", "b c"), tags=("t",), source_id="import:x#L3", links=("m-port",))
    ix.upsert([full])
    assert {r.id: r for r in ix.rows()}["m-full"] == full


def test_get_returns_the_row_or_none(ix: Index) -> None:
    found = ix.get("m-port")
    assert found is not None and found.keywords == ("postgres",)
    assert ix.get("m-nope") is None


def test_caller_meta_named_schema_does_not_clash(tmp_path: Path) -> None:
    path = tmp_path / "index.sqlite"
    with Index(path) as ix:
        ix.set_meta("schema", "99")
    with Index(path) as ix:
        assert ix.get_meta("schema") == "99"


def test_meta_round_trip_and_overwrite(tmp_path: Path) -> None:
    path = tmp_path / "index.sqlite"
    with Index(path) as ix:
        assert ix.get_meta("commit") is None
        ix.set_meta("commit", "1" * 40)
        ix.set_meta("commit", "2" * 40)
    with Index(path) as ix:
        assert ix.get_meta("commit") == "2" * 40


def test_meta_commits_with_upsert_in_one_transaction(tmp_path: Path) -> None:
    ix = Index(tmp_path / "index.sqlite")
    ix.upsert([row("m-a", "alpha")], meta={"commit": "c1"})
    with pytest.raises(RuntimeError):
        with ix.transaction():
            ix.upsert([row("m-b", "beta")])
            ix.set_meta("commit", "c2")
            raise RuntimeError("crash before commit")
    assert ix.get_meta("commit") == "c1"
    assert [r.id for r in ix.rows()] == ["m-a"]


def test_index_survives_reopen(tmp_path: Path) -> None:
    path = tmp_path / "index.sqlite"
    with Index(path) as ix:
        ix.upsert([row("m-a", "persistent memory about kubernetes")])
    with Index(path) as ix:
        assert ids(ix, "kubernetes") == ["m-a"]


# ---------------------------------------------------------------- corruption


def test_garbage_file_raises_index_corrupt(tmp_path: Path) -> None:
    path = tmp_path / "index.sqlite"
    path.write_bytes(b"this is not a database at all" * 200)
    with pytest.raises(IndexCorrupt) as err:
        Index(path)
    assert isinstance(err.value, GitmemError)
    assert err.value.hint and "rebuild" in err.value.hint
    assert err.value.path == str(path)
    assert err.value.problem


def test_foreign_sqlite_file_raises_index_corrupt(tmp_path: Path) -> None:
    path = tmp_path / "index.sqlite"
    with sqlite3.connect(path) as db:
        db.execute("CREATE TABLE something (x)")
    with pytest.raises(IndexCorrupt):
        Index(path)


def test_other_schema_version_raises_index_corrupt(tmp_path: Path) -> None:
    path = tmp_path / "index.sqlite"
    Index(path).close()
    with sqlite3.connect(path) as db:
        db.execute("UPDATE meta SET value = '0' WHERE key LIKE '%schema%'")
    with pytest.raises(IndexCorrupt):
        Index(path)


def test_an_empty_file_is_no_index_and_the_opener_makes_it_anew(tmp_path: Path) -> None:
    from gitmem.store import refresh

    path = tmp_path / "index.sqlite"
    path.touch()   # a maker killed between creating the file and its tables (an index is made whole now)
    with pytest.raises(IndexCorrupt):
        Index(path)
    with refresh._open(path) as ix:
        assert ix.count() == 0


# ---------------------------------------------------------------- filters


def test_archive_and_background_hidden_by_default(ix: Index) -> None:
    found = ids(ix, "staging database cluster port")
    assert "m-port" in found
    assert not {"m-old", "m-faint", "m-fading"} & set(found)


def test_include_archive_brings_archived_back(ix: Index) -> None:
    assert "m-old" in ids(ix, "staging database port", filters=Filters(include_archive=True))


def test_include_background_brings_background_and_fading_back(ix: Index) -> None:
    found = ids(ix, "staging cluster", filters=Filters(include_background=True))
    assert {"m-faint", "m-fading"} <= set(found)


def test_explicit_tier_or_band_filter_opts_in(ix: Index) -> None:
    assert ids(ix, "staging", filters=Filters(tier="archive")) == ["m-old"]
    assert ids(ix, "staging", filters=Filters(band="background")) == ["m-faint"]


def test_type_and_domain_filters(ix: Index) -> None:
    ix.upsert([row("m-dec", "We decided the staging database moves", type="decision", domain="project")])
    assert ids(ix, "staging database", filters=Filters(type="decision")) == ["m-dec"]
    assert ids(ix, "staging database", filters=Filters(domain="project")) == ["m-dec"]
    assert "m-dec" not in ids(ix, "staging database", filters=Filters(domain="user"))


def test_filters_hold_when_hidden_rows_crowd_the_top_matches() -> None:
    ix = Index(":memory:")
    ix.upsert([row(f"m-a{i:03d}", "deploy deploy deploy notes", tier="archive") for i in range(80)])
    ix.upsert([row("m-live", "deploy notes, long version with many other words in it")])
    assert ids(ix, "deploy") == ["m-live"]


# ---------------------------------------------------------------- ranking


def test_importance_breaks_a_relevance_tie() -> None:
    ix = Index(":memory:")
    ix.upsert([row("m-low", "the build uses gradle", importance=0.3), row("m-high", "the build uses gradle", importance=0.9)])
    assert ids(ix, "gradle build") == ["m-high", "m-low"]


def test_recency_breaks_a_relevance_tie() -> None:
    ix = Index(":memory:")
    old = stamp(NOW - timedelta(days=60))
    new = stamp(NOW - timedelta(hours=2))
    ix.upsert([row("m-old", "the build uses gradle", last_accessed=old), row("m-new", "the build uses gradle", last_accessed=new)])
    assert ids(ix, "gradle build") == ["m-new", "m-old"]


def test_relevance_dominates_importance() -> None:
    ix = Index(":memory:")
    ix.upsert(
        [
            row("m-exact", "the gradle build cache lives in the home folder", importance=0.2),
            row("m-vague", "a cache somewhere", importance=1.0),
        ]
    )
    assert ids(ix, "where does the gradle build cache live")[0] == "m-exact"


def test_scores_are_ordered_and_relevance_normalised(ix: Index) -> None:
    hits = ix.search("staging database port", now=NOW, filters=Filters(include_archive=True, include_background=True))
    assert [h.score for h in hits] == sorted((h.score for h in hits), reverse=True)
    assert max(h.relevance for h in hits) == pytest.approx(1.0)
    assert all(0 < h.relevance <= 1 for h in hits)


def test_keyword_not_in_content_finds_the_memory(ix: Index) -> None:
    assert ids(ix, "postgres") == ["m-port"]


def test_memory_covering_more_query_terms_ranks_first() -> None:
    ix = Index(":memory:")
    ix.upsert(
        [
            row("m-one", "coffee coffee coffee coffee"),
            row("m-all", "coffee with oat milk every morning"),
        ]
    )
    assert ids(ix, "oat milk coffee")[0] == "m-all"


def test_answer_after_a_matching_question_is_recalled() -> None:
    # the reply shares no word with the query; its source position links it
    ix = Index(":memory:")
    ix.upsert(
        [
            row("m-q", "Alice: How long have you been married?", source_id="chat-7:L1"),
            row("m-a", "Bob: Five years already, time flies!", source_id="chat-7:L2"),
            row("m-x", "Carol: Unrelated remark about lunch", source_id="chat-7:L3"),
        ]
    )
    found = ids(ix, "How long has she been married?")
    assert found[:2] == ["m-q", "m-a"] or found[:2] == ["m-a", "m-q"]
    assert "m-x" not in found


def test_follower_found_across_gaps_in_line_numbers() -> None:
    # harvested memories carry transcript lines: the next one may be far on
    ix = Index(":memory:")
    ix.upsert(
        [
            row("m-q", "Which port did we pick for the staging database?", source_id="session:ab12#L40"),
            row("m-a", "We settled on 6543 after the clash.", source_id="session:ab12#L97"),
            row("m-z", "Nothing else to say here.", source_id="session:ab12#L130"),
        ]
    )
    assert set(ids(ix, "staging database port")) == {"m-q", "m-a"}


def test_hidden_follower_is_not_returned() -> None:
    ix = Index(":memory:")
    ix.upsert(
        [
            row("m-q", "How long have you been married?", source_id="chat-7:L1"),
            row("m-a", "Five years already", source_id="chat-7:L2", tier="archive"),
        ]
    )
    assert ids(ix, "married") == ["m-q"]


def test_k_limits_the_hits(ix: Index) -> None:
    everything = Filters(include_archive=True, include_background=True)
    assert len(ix.search("staging", k=2, filters=everything, now=NOW)) == 2
    assert ix.search("staging", k=0, now=NOW) == []


# ---------------------------------------------------------------- query safety


def test_stop_word_only_query_returns_nothing(ix: Index) -> None:
    assert ix.search("what is the", now=NOW) == []
    assert ix.search("", now=NOW) == []
    assert ix.search("   ?! ", now=NOW) == []


@pytest.mark.parametrize(
    "query",
    [
        '"unbalanced quote',
        'port"5432',
        "postg*",
        "*",
        "-port",
        "port -database",
        "content:port",
        "keys : postgres",
        "(port OR",
        "port)",
        "NEAR(port database, 2)",
        "port AND",
        "AND OR NOT",
        "^port",
        "port + database",
        "{content keys}: port",
        "port\x00database",
        "'; DROP TABLE memory; --",
    ],
)
def test_fts_syntax_in_queries_never_raises(ix: Index, query: str) -> None:
    hits = ix.search(query, now=NOW)
    assert all(h.id for h in hits)
    assert ix.count() == 6


def test_syntax_words_are_searched_literally(ix: Index) -> None:
    ix.upsert([row("m-near", "The office is near the station")])
    assert ids(ix, "NEAR station") == ["m-near"]


def test_cjk_query_finds_cjk_content(ix: Index) -> None:
    assert ids(ix, "咖啡") == ["m-coffee"]
    assert ids(ix, "我喜欢喝咖啡吗") == ["m-coffee"]


def test_single_cjk_character_finds_its_words(ix: Index) -> None:
    assert ids(ix, "啡") == ["m-coffee"]
    assert ids(ix, "喝") == ["m-coffee"]


def test_japanese_and_mixed_queries(ix: Index) -> None:
    ix.upsert([row("m-ja", "東京の会議は明日です, meeting in Tokyo")])
    assert ids(ix, "東京") == ["m-ja"]
    assert ids(ix, "meeting 会議") == ["m-ja"]


def test_diacritics_fold(ix: Index) -> None:
    ix.upsert([row("m-fr", "Réunion à l'école demain")])
    assert ids(ix, "reunion ecole") == ["m-fr"]


# ---------------------------------------------------------------- stems and folding


@pytest.fixture
def empty(tmp_path: Path) -> Index:
    return Index(tmp_path / "index.sqlite")


def test_terms_column_holds_stems_without_stop_words(empty: Index, tmp_path: Path) -> None:
    empty.upsert([row("m-1", "The researchers were generalizing", keywords=("Python",))])
    empty.close()
    with sqlite3.connect(tmp_path / "index.sqlite") as db:
        (terms,) = db.execute("SELECT terms FROM memory WHERE id = 'm-1'").fetchone()
    assert terms == " research gener python "


def test_a_question_in_another_inflection_finds_the_memory(empty: Index) -> None:
    empty.upsert([row("m-research", "She generalizes her research findings"), row("m-lunch", "Lunch at noon")])
    assert ids(empty, "generalization researching") == ["m-research"]
    assert empty.search("generalization researching", now=NOW)[0].relevance == 1.0


def test_coverage_counts_stems_both_sides_agree_on(empty: Index) -> None:
    # both memories match "deploy"; the one holding "weekly" too covers the whole question
    empty.upsert([row("m-often", "deploying deploying deploying"), row("m-weekly", "deployed weekly")])
    assert ids(empty, "deploys weekly")[0] == "m-weekly"


def test_upsert_replaces_the_terms_of_a_changed_memory(empty: Index) -> None:
    empty.upsert([row("m-1", "tabs for indentation")])
    empty.upsert([row("m-1", "spaces for indentation")])
    assert ids(empty, "tabs") == []
    assert ids(empty, "spaces") == ["m-1"]
    assert empty.count() == 1


def test_full_width_text_is_found_as_fts5_tokenizes_it(empty: Index) -> None:
    empty.upsert([row("m-1", "ＡＢＣ release")])
    assert ids(empty, "ａｂｃ") == ["m-1"]  # unicode61 folds case, not width


# ---------------------------------------------------------------- time, questions, names (issue 13 item 4)


def turn(mid: str, content: str, day: str, source: str | None = None) -> IndexRow:
    return row(mid, content, created=f"{day}T10:00:00Z", source_id=source)


def test_a_named_date_finds_the_turn_of_that_date() -> None:
    with Index(":memory:") as ix:
        ix.upsert([turn("m-june", "We went camping with the kids", "2023-06-20"),
                   turn("m-july", "We went camping with the kids", "2023-07-01"),
                   turn("m-aug", "We went camping with the kids", "2023-08-10")])
        assert ids(ix, "Where did we go camping on July 1, 2023?")[0] == "m-july"
        assert ids(ix, "What about camping in August?")[0] == "m-aug"
        assert ids(ix, "camping in 2023-06")[0] == "m-june"


def test_a_named_date_lifts_but_never_replaces_the_words() -> None:
    with Index(":memory:") as ix:
        ix.upsert([turn("m-words", "The pottery class was wonderful", "2023-05-02"),
                   turn("m-date", "Just an ordinary day at work", "2023-10-13")])
        assert ids(ix, "How was the pottery class on October 13, 2023?") == ["m-words"]


def test_a_when_question_favours_the_turn_that_states_a_time() -> None:
    with Index(":memory:") as ix:
        ix.upsert([row("m-plain", "Pottery class, so much fun"),
                   row("m-dated", "I signed up for the pottery class yesterday, with a friend of mine")])
        assert ids(ix, "pottery class")[0] == "m-plain"   # the shorter match, as bm25 says
        assert ids(ix, "When did she sign up for the pottery class?")[0] == "m-dated"
        assert ids(ix, "When was the pottery class?")[0] == "m-dated"


def test_the_answer_follows_the_question_it_answers() -> None:
    with Index(":memory:") as ix:
        ix.upsert([
            row("t1", "Caroline: I loved the book about the lighthouse keeper", source_id="c:D1:1"),
            row("t2", "Melanie: What did you take away from the lighthouse book?", source_id="c:D1:2"),
            row("t3", "Caroline: It taught me patience and how to ask for help", source_id="c:D1:3"),
            row("t4", "Melanie: The lighthouse was closed, the book shop too", source_id="c:D1:4"),
            row("t5", "Caroline: Right, we saw it from the boat", source_id="c:D1:5"),
        ])
        found = ids(ix, "What did Caroline take away from the lighthouse book?")
        # the answer outranks a statement that shares the question's words, and the memory after it
        assert found.index("t3") < found.index("t4") < found.index("t5")


def test_an_entity_name_outranks_common_words() -> None:
    with Index(":memory:") as ix:
        ix.upsert([row(f"m-{n}", f"The project meeting ran long again, note {n}") for n in range(12)]
                  + [row("m-nicole", "Nicole said the budget is fine")])
        assert ids(ix, "What did Nicole say about the project meeting?")[0] == "m-nicole"


def test_an_exact_match_stays_first_against_every_boost() -> None:
    with Index(":memory:") as ix:
        ix.upsert([
            turn("m-exact", "We rotate the deploy key after each release", "2023-03-01"),
            turn("m-dated", "Yesterday the key was on my desk", "2023-10-13", "s:L1"),
            turn("m-ask", "Which deploy do you mean?", "2023-10-13", "s:L2"),
            turn("m-answer", "The one before lunch", "2023-10-13", "s:L3"),
        ])
        assert ids(ix, "When did we rotate the deploy key on October 13, 2023?")[0] == "m-exact"
        assert ids(ix, "rotate the deploy key")[0] == "m-exact"


def test_an_index_of_the_previous_layout_is_refused_for_a_rebuild(tmp_path: Path) -> None:
    path = tmp_path / "index.sqlite"
    with Index(path) as ix:
        ix.upsert([row("m-1", "made by an older gitmem")])
    db = sqlite3.connect(path)
    db.execute("ALTER TABLE memory DROP COLUMN dated")
    db.execute("UPDATE meta SET value = '3' WHERE key LIKE '%schema%'")
    db.commit()
    db.close()
    with pytest.raises(IndexCorrupt):
        Index(path)


def test_a_rare_name_counts_for_more_than_a_common_one_in_the_coverage() -> None:
    with Index(":memory:") as ix:
        ix.upsert([row(f"m-{n}", f"Caroline: note {n} about the weather and the garden") for n in range(20)]
                  + [row("m-common", "Caroline: the keeper of the garden shed, Caroline said"),
                     row("m-rare", "Melanie: Nicole keeps the lighthouse garden shed")])
        assert ids(ix, "What did Caroline say about Nicole and the shed?")[0] == "m-rare"


def test_a_compound_is_found_open_hyphenated_or_closed() -> None:
    with Index(":memory:") as ix:
        ix.upsert([row("m-trip", "That roadtrip this past weekend was wild"),
                   row("m-stress", "Running farther helps me de-stress"),
                   row("m-road", "The road to the trip planner was closed")])
        assert "m-trip" in ids(ix, "What happened on the road trip?")   # found at all; words first
        assert ids(ix, "How does she destress?") == ["m-stress"]
        assert ids(ix, "How does she de-stress?")[0] == "m-stress"


def test_a_compound_never_drowns_the_exact_words() -> None:
    with Index(":memory:") as ix:
        ix.upsert([row("m-exact", "Our road trip to the coast"), row("m-closed", "A roadtrip, once")])
        assert ids(ix, "road trip to the coast")[0] == "m-exact"


def test_threads_opening_a_new_index_at_once_all_get_it(tmp_path: Path) -> None:
    from tests.conftest import at_once

    def one(path: Path) -> Index:
        index = Index(path)
        index.upsert([row("m-1", "the staging database")])
        return index

    for n in range(20):   # a race: each round is one more chance to lose it
        path = tmp_path / f"index-{n}.sqlite"
        opened, errors = at_once(12, lambda: one(path))
        assert errors == [] and len(opened) == 12
        assert opened[0]._db.execute("PRAGMA journal_mode").fetchone()[0] == "wal"
        for index in opened:
            index.close()
    assert [p.name for p in tmp_path.iterdir() if ".tmp" in p.name] == []
