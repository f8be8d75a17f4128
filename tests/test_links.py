"""Typed links: relation names, inverses, idempotent linking, and the graph both ends share."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from hypothesis import given
from hypothesis import strategies as st

from gitmem.api import MemoryRepo
from gitmem.base import clock
from gitmem.base.errors import ValidationError
from gitmem.base.model import Link, Memory
from gitmem.engines import links
from tests.conftest import NOW, run_cli

T = clock.parse_time(NOW)


@pytest.mark.parametrize("relation", ["cause", "supports", "related", "part_of", "x", "a1-b_c", "a" * 40,
                                      "因果", "解决方案", "é", "ursache", "причина"])
def test_check_relation_accepts_short_lower_case_words(relation: str) -> None:
    assert links.check_relation(relation) == relation


@pytest.mark.parametrize("relation", ["", "Cause", "1cause", "-x", "two words", "a" * 41, "É", "x\n", "a/b",
                                      "因果\u200b", "\u202e因果", "因 果", "_x"])
def test_check_relation_refuses_with_a_hint(relation: str) -> None:
    with pytest.raises(ValidationError) as info:
        links.check_relation(relation)
    assert info.value.message == f"invalid relation {relation!r}"
    assert info.value.hint is not None and "cause, supports" in info.value.hint


def test_relations_in_the_seeds_own_words_link_both_ends(repo_dir: Path, capsys: pytest.CaptureFixture[str]) -> None:
    base = ["--repo", str(repo_dir), "--now", NOW]
    err_id = run_cli([*base, "remember", "--type", "error", "--content", "飞书 API 频繁调用会 429"], capsys)[1].strip()
    fix_id = run_cli([*base, "remember", "--type", "skill", "--content", "飞书 API 要分段请求，间隔5秒"], capsys)[1].strip()
    code, out, err = run_cli([*base, "link", err_id, fix_id, "--relation", "解决方案"], capsys)
    assert code == 0, err
    assert out.strip() == f"linked {err_id} -解决方案-> {fix_id}"
    shown = json.loads(run_cli([*base, "show", err_id, "--json"], capsys)[1])
    assert {"to": fix_id, "relation": "解决方案"} in shown["links"]
    other = json.loads(run_cli([*base, "show", fix_id, "--json"], capsys)[1])
    assert {"to": err_id, "relation": "解决方案_of"} in other["links"]


@pytest.mark.parametrize("a, b", [("cause", "caused_by"), ("supports", "supported_by"), ("part_of", "has_part"),
                                  ("depends_on", "needed_by"), ("supersedes", "superseded_by"),
                                  ("example_of", "has_example")])
def test_known_relations_have_named_inverses_both_ways(a: str, b: str) -> None:
    assert links.inverse(a) == b and links.inverse(b) == a


@pytest.mark.parametrize("relation", ["related", "contradicts", "same_as"])
def test_symmetric_relations_are_their_own_inverse(relation: str) -> None:
    assert links.inverse(relation) == relation


def test_unknown_relations_get_an_of_inverse_and_back() -> None:
    assert links.inverse("inspires") == "inspires_of"
    assert links.inverse("inspires_of") == "inspires"


def test_inverse_table_is_an_involution() -> None:
    assert links.INVERSE
    for relation, other in links.INVERSE.items():
        assert links.INVERSE[other] == relation


@given(st.from_regex(links.RELATION_RE, fullmatch=True))
def test_inverse_of_the_inverse_is_the_relation_for_unknown_words(relation: str) -> None:
    if relation in links.INVERSE or relation.endswith("_of"):
        return
    assert links.inverse(links.inverse(relation)) == relation


def test_linked_adds_once() -> None:
    m = Memory(id="a", content="x")
    once = links.linked(m, "b", "cause")
    assert once.links == (Link("b", "cause"),)
    assert links.linked(once, "b", "cause") is once
    twice = links.linked(once, "b", "supports")
    assert twice.links == (Link("b", "cause"), Link("b", "supports"))
    assert m.links == ()


def _mem(mid: str, *to: tuple[str, str], content: str = "some text") -> Memory:
    return Memory(id=mid, content=content, links=tuple(Link(t, r) for t, r in to))


def test_graph_keeps_one_edge_per_link_pair() -> None:
    a = _mem("a", ("b", "cause"))
    b = _mem("b", ("a", "caused_by"))
    g = links.graph([a, b])
    assert g.edges == (("a", "b", "cause"),)
    assert {n["id"] for n in g.nodes} == {"a", "b"}


def test_graph_leaves_out_unlinked_memories_and_dangling_links() -> None:
    g = links.graph([_mem("a", ("gone", "cause")), _mem("b"), _mem("c", ("a", "related"))])
    assert g.edges == (("c", "a", "related"),)
    assert [n["id"] for n in g.nodes] == ["a", "c"]


def test_graph_of_nothing_is_empty() -> None:
    g = links.graph([])
    assert g.nodes == () and g.edges == ()
    assert json.loads(g.to_json()) == {"nodes": [], "edges": []}
    assert g.to_dot() == "digraph gitmem {\n  node [shape=box];\n}\n"


def test_graph_labels_are_one_line_and_at_most_sixty_characters() -> None:
    long = "word\n" * 40
    g = links.graph([_mem("a", ("b", "related"), content=long), _mem("b")])
    label = next(n["label"] for n in g.nodes if n["id"] == "a")
    assert "\n" not in label and len(label) == 60


def test_graph_json_names_from_to_and_relation() -> None:
    g = links.graph([_mem("a", ("b", "supports")), _mem("b", content="café")])
    data = json.loads(g.to_json())
    assert data["edges"] == [{"from": "a", "to": "b", "relation": "supports"}]
    assert {"id", "type", "domain", "label"} == set(data["nodes"][0])
    assert "café" in g.to_json()    # not escaped to \\u sequences


def test_dot_escapes_quotes_and_backslashes_in_labels() -> None:
    g = links.graph([_mem("a", ("b", "related"), content='say "hi" \\ bye'), _mem("b")])
    dot = g.to_dot()
    assert '[label="say \\"hi\\" \\\\ bye"]' in dot
    assert '"a" -> "b" [label="related"];' in dot
    assert dot.startswith("digraph gitmem {") and dot.endswith("}\n")


def test_edges_are_sorted_for_stable_output() -> None:
    mems = [_mem("c", ("a", "related")), _mem("a", ("b", "cause")), _mem("b")]
    assert list(links.graph(mems).edges) == sorted(links.graph(list(reversed(mems))).edges)


# --- links and graph -----------------------------------------------------------------

def test_link_records_both_ends_and_graph_exports(repo: MemoryRepo, repo_dir: Path, capsys: pytest.CaptureFixture[str]) -> None:
    a = repo.remember("tests are slow", now=T)
    b = repo.remember("the suite spins up postgres for every test", now=T)
    w = repo.link(b.id, a.id, "cause", now=T)
    assert w.commit
    ma, mb = repo.show(a.id), repo.show(b.id)
    assert [(l.to, l.relation) for l in mb.links] == [(a.id, "cause")]
    assert [(l.to, l.relation) for l in ma.links] == [(b.id, "caused_by")]
    assert repo.link(b.id, a.id, "cause", now=T).commit is None
    g = repo.graph()
    assert g.edges == ((b.id, a.id, "cause"),) or g.edges == ((a.id, b.id, "caused_by"),)
    code, out, _ = run_cli(["--repo", str(repo_dir), "graph", "--dot"], capsys)
    assert code == 0 and out.startswith("digraph") and "->" in out
    code, out, _ = run_cli(["--repo", str(repo_dir), "graph", "--json"], capsys)
    assert len(json.loads(out)["edges"]) == 1


# --- direction and labels ---------------------------------------------------------------

@pytest.mark.parametrize("relation", ["cause", "caused_by", "supports", "supported_by", "depends_on", "needed_by",
                                      "blocks", "blocks_of", "related"])
def test_graph_prints_each_link_the_way_it_was_made(repo: MemoryRepo, repo_dir: Path, relation: str,
                                                    capsys: pytest.CaptureFixture[str]) -> None:
    texts = ["the nightly export job times out", "the export query scans the whole events table",
             "standup moved to ten thirty", "the standup room has no projector"]
    ids = [repo.remember(t, now=T).id for t in texts]
    made = [(ids[1], ids[0]), (ids[2], ids[3])]     # from the later memory, and from the earlier one
    for a, b in made:
        repo.link(a, b, relation, now=T)
    edges = repo.graph().edges
    code, out, _ = run_cli(["--repo", str(repo_dir), "graph"], capsys)
    for a, b in made:
        assert (a, b, relation) in edges
        assert code == 0 and f"{a} -{relation}-> {b}" in out.splitlines()


def test_graph_without_history_points_along_the_forward_name() -> None:
    for mems in ([_mem("a", ("b", "caused_by")), _mem("b", ("a", "cause"))],
                 [_mem("b", ("a", "cause")), _mem("a", ("b", "caused_by"))]):
        assert links.graph(mems).edges == (("b", "a", "cause"),)
    made = frozenset({("a", "b", "caused_by")})
    assert links.graph([_mem("b", ("a", "cause")), _mem("a", ("b", "caused_by"))], made).edges == (
        ("a", "b", "caused_by"),)


@pytest.mark.parametrize("text", [
    "The deployment pipeline occasionally stalls when the artifact registry is unreachable from CI",
    "a" * 80,
    "short label",
    "Unicode café déjà vu " * 5,
    "word\nwrapped\tacross   lines and then some more words to pass the limit of sixty",
])
def test_graph_labels_end_between_words(text: str) -> None:
    label = links.label(text)
    flat = " ".join(text.split())
    assert len(label) <= 60 and "\n" not in label
    if len(flat) <= 60:
        assert label == flat
    else:
        assert label.endswith("…")
        kept = label[:-1]
        assert flat.startswith(kept)
        assert " " not in flat[:60] or flat[len(kept)] == " "
