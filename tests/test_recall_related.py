"""Memories that share rare terms with the best hits (gitmem.store.related): one bounded hop, asked with
``related`` on the index and ``--expand`` on the command line."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from gitmem.store import related
from gitmem.store.index import Index, IndexRow
from tests.test_index import row
from tests.conftest import NOW, run_cli

TURNS = {
    "trip": "We went camping by Lake Tahoe last summer.",
    "paint": "Since Tahoe I paint sunrises every weekend.",
    "noise": "I paint the fence every spring.",
    "other": "The kids started school in September.",
}


def _row(mid: str, content: str) -> IndexRow:
    return row(mid, content, path=f"memory/world/{mid}.md", domain="world")


@pytest.fixture
def index() -> Index:
    ix = Index(":memory:")
    ix.upsert(_row(mid, content) for mid, content in TURNS.items())
    return ix


def test_a_memory_sharing_a_rare_term_with_the_best_hit_comes_with_related(index: Index) -> None:
    """"camping" reaches the trip; the painting memory shares "tahoe" with it, not a word of the question."""
    plain = [h.id for h in index.search("where did we go camping", k=3)]
    assert plain == ["trip"]
    found = index.search("where did we go camping", k=3, related=True)
    assert [h.id for h in found] == ["trip", "paint"]
    assert found[1].score < found[0].score


def test_related_keeps_the_first_hits_in_their_order_and_within_k(index: Index) -> None:
    first = [h.id for h in index.search("paint kids", k=2)]
    with_related = [h.id for h in index.search("paint kids", k=2, related=True)]
    assert len(with_related) == 2
    assert [i for i in with_related if i in first] == first[:len([i for i in with_related if i in first])]


def test_shared_terms_skip_asked_terms_and_terms_no_other_memory_holds() -> None:
    docs = {"tahoe": 2, "lake": 1, "kid": 2, "camp": 1, "summer": 3}
    assert related.shared_terms([["camp", "lake", "tahoe", "summer", "kid"]], {"camp"}, docs) == ["kid", "tahoe",
                                                                                                   "summer"]
    assert related.shared_terms([["lake"]], set(), docs) == []


def test_recall_expand_brings_the_related_memory_through_the_cli(repo_dir: Path,
                                                                capsys: pytest.CaptureFixture[str]) -> None:
    for content in TURNS.values():
        assert run_cli(["--repo", str(repo_dir), "--now", NOW, "remember", content], capsys)[0] == 0
    base = ["--repo", str(repo_dir), "--now", NOW, "recall", "where did we go camping", "--json", "-k", "3"]
    plain = [r["content"] for r in json.loads(run_cli(base, capsys)[1])]
    expanded = [r["content"] for r in json.loads(run_cli([*base, "--expand"], capsys)[1])]
    assert plain == [TURNS["trip"]]
    assert expanded[:2] == [TURNS["trip"], TURNS["paint"]]
