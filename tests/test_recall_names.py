"""Recall of names and identifiers: a query word finds the names that contain it or that it abbreviates,
by the store's own vocabulary (gitmem.base.text.identifiers, gitmem.store.vocabulary), through the CLI
on a real repository and on the index."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from gitmem.base.text import identifiers
from gitmem.store import vocabulary
from gitmem.store.index import Index, IndexRow
from tests.test_index import row
from tests.conftest import NOW, run_cli

FACTS = {
    "pg": "The orders service keeps its data in PostgreSQL 16.",
    "k8s": "Staging deploys to k8s with helm charts.",
    "kube": "The kubernetes cluster runs three worker nodes.",
    "camel": "Call getUserName before the page renders.",
    "snake": "The helper get_user_name lives in the utils module.",
    "dotted": "The frontend is built with node.js 20.",
    "post": "Letters go out from the post office on Fridays.",
}


def _row(mid: str, content: str) -> IndexRow:
    return row(mid, content, path=f"memory/project/{mid}.md", domain="project")


@pytest.fixture
def index() -> Index:
    ix = Index(":memory:")
    ix.upsert(_row(mid, content) for mid, content in FACTS.items())
    return ix


def _found(ix: Index, query: str) -> list[str]:
    return [h.id for h in ix.search(query, k=5)]


def test_recall_postgres_finds_postgresql_through_the_cli(repo_dir: Path, capsys: pytest.CaptureFixture[str]) -> None:
    for content in ("The orders service keeps its data in PostgreSQL 16.", "Lunch is at noon on Fridays."):
        assert run_cli(["--repo", str(repo_dir), "--now", NOW, "remember", content], capsys)[0] == 0
    code, out, _ = run_cli(["--repo", str(repo_dir), "--now", NOW, "recall", "postgres", "--json"], capsys)
    assert code == 0
    assert [r["content"] for r in json.loads(out)] == ["The orders service keeps its data in PostgreSQL 16."]


@pytest.mark.parametrize("query, expected", [
    ("postgres", "pg"),              # a name that begins with the word
    ("postgresql", "pg"),
    ("sql", "pg"),                   # a case part of the name
    ("nodejs", "dotted"),            # the closed form of a dotted name
    ("get_user_name", "camel"),      # snake case finds camel case, and the other way round
    ("getUserName", "snake"),
])
def test_a_word_finds_the_names_that_hold_it(index: Index, query: str, expected: str) -> None:
    assert expected in _found(index, query)


def test_a_numeronym_and_its_word_find_each_other_where_the_store_holds_both(index: Index) -> None:
    assert _found(index, "k8s")[:2] == ["k8s", "kube"]          # the written form first, at full weight
    assert _found(index, "kubernetes")[:2] == ["kube", "k8s"]


def test_a_short_word_or_a_plain_word_is_no_abbreviation(index: Index) -> None:
    """"post" is a word of its own, not the start of PostgreSQL; "worker" finds no more than its word."""
    assert _found(index, "post") == ["post"]
    assert _found(index, "work") == []


def test_an_exact_match_outranks_an_expansion(index: Index) -> None:
    index.upsert([_row("schema", "The API types live in GraphQLSchema."), _row("plain", "The API speaks graphql.")])
    assert _found(index, "graphql")[:2] == ["plain", "schema"]


def test_a_deleted_memorys_words_expand_to_nothing(index: Index) -> None:
    index.delete(["pg"])
    assert _found(index, "postgres") == []
    assert index.search("postgres orders", k=5) == []


def test_a_rebuild_fills_the_vocabulary_as_upserts_do() -> None:
    rows = [_row(mid, content) for mid, content in FACTS.items()]
    with Index(":memory:") as filled, Index(":memory:") as upserted:
        filled.fill(rows)
        upserted.upsert(rows)
        for query in ("postgres", "k8s", "kubernetes", "getUserName", "nodejs"):
            assert _found(filled, query) == _found(upserted, query), query


def test_identifier_parts_closed_forms_and_numeronyms() -> None:
    assert identifiers.split_names("Use PostgreSQL, XMLHttpRequest and iOS") == {
        "postgresql": ("postgre", "sql"), "xmlhttprequest": ("xml", "http", "request"), "ios": ("os",)}
    assert identifiers.parts("plain words and NASA") == []
    assert identifiers.closed("node.js, get_user_name, pre-commit-hook, v1.2.3, 2026-01-01") == (
        "nodejs", "getusername", "precommithook")
    assert identifiers.numeronym("kubernetes") == "k8s"
    assert identifiers.numeronym("internationalization") == "i18n"
    assert identifiers.numeronym("short") is None
    assert [w for w in ("k8s", "i18n", "a11y", "b2b", "e2e", "k8") if identifiers.is_numeronym(w)] == [
        "k8s", "i18n", "a11y"]


def test_vocabulary_marks_what_the_store_writes_as_a_name() -> None:
    entries = {w: (stem, short, name) for w, stem, short, name in vocabulary.entries("PostgreSQL runs kubernetes")}
    assert entries["postgresql"][2] == 1 and entries["kubernetes"] == ("kubernet", "k8s", 0)
    merged = {w: name for w, _, _, name in vocabulary.rows(["postgresql is lowercase here", "PostgreSQL"])}
    assert merged["postgresql"] == 1


def test_a_long_word_no_memory_holds_finds_the_stored_word_it_begins_with() -> None:
    with Index(":memory:") as ix:
        ix.upsert([_row("pg", "Our laptops run postgres locally."), _row("other", "Tests run in CI.")])
        assert [h.id for h in ix.search("postgresql", k=5)] == ["pg"]


def test_a_term_in_most_memories_is_not_asked_beside_a_rarer_one(monkeypatch: pytest.MonkeyPatch) -> None:
    """The cost of a word in half the store is bounded: it only weighs the candidates the rarer words bring."""
    from gitmem.store import ranking

    monkeypatch.setattr(ranking, "FREQUENT_FLOOR", 0)
    rows = [_row(f"m{n}", f"The project note number {n}.") for n in range(10)]
    rows.append(_row("rare", "The project deploys with helm."))
    rows.append(_row("helm", "Helm charts live in deploy/."))
    with Index(":memory:") as ix:
        ix.upsert(rows)
        assert [h.id for h in ix.search("project helm", k=5)] == ["rare", "helm"]   # coverage still counts it
        assert len(ix.search("project", k=5)) == 5                                  # alone, it is asked


def test_expanded_drops_only_the_frequent_phrases_and_keeps_one() -> None:
    from gitmem.store import ranking

    query = ranking.parse_query("project helm")
    assert query is not None
    many = ranking.FREQUENT_FLOOR
    assert ranking.expanded(query, {}, {"project": many, "helm": 1}, many).fts == '"helm"'
    assert ranking.expanded(query, {}, {"project": many, "helm": many}, many).fts == '"project" OR "helm"'
    assert ranking.expanded(query, {}, {"project": many}, many).fts == '"project" OR "helm"'   # helm held by none
    assert ranking.expanded(query, {}, {"project": 9, "helm": 1}, 10).fts == '"project" OR "helm"'  # a small store


def test_a_query_word_longer_than_any_name_is_not_expanded() -> None:
    """Its prefixes would cost the square of its length: a memory at the size cap, searched for its
    duplicates, is one query word of a mebibyte (that took gigabytes)."""
    import sqlite3

    from gitmem.store import vocabulary

    db = sqlite3.connect(":memory:")
    for statement in vocabulary.SCHEMA:
        db.execute(statement)
    db.executemany(vocabulary.INSERT, vocabulary.rows(["x" * 40]))
    near = "x" * vocabulary.MAX_QUERY_WORD
    assert vocabulary.expansions(db, [near], unheld={near})[near]          # a long word still finds its head
    far = "x" * 5000
    assert vocabulary.expansions(db, [far], unheld={far}).get(far, []) == []
