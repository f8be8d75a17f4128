"""Typed links between memories (both ends see them) and the graph they form."""

from __future__ import annotations

import json
import re
from dataclasses import dataclass

from gitmem.base.errors import ValidationError
from gitmem.base.model import Link, Memory

INVERSE = {
    "cause": "caused_by", "supports": "supported_by", "supersedes": "superseded_by", "part_of": "has_part",
    "depends_on": "needed_by", "example_of": "has_example", "contradicts": "contradicts", "related": "related",
    "same_as": "same_as",
}
# The names a person links with; their inverses are what the other end records.
FORWARD = frozenset(INVERSE)
INVERSE.update({v: k for k, v in list(INVERSE.items())})
_LABEL_CHARS = 60
# A word in any script (因果, 解决方案, ursache): letters, digits, _ and -, starting with a letter;
# never a space, a control, format or direction character, so a relation reads as it is stored.
RELATION_RE = re.compile(r"[^\W\d_][\w-]{0,39}")


def check_relation(relation: str) -> str:
    """``relation`` (NFC) if it is a valid relation name, else a ValidationError."""
    import unicodedata

    relation = unicodedata.normalize("NFC", relation)
    if not RELATION_RE.fullmatch(relation) or relation != relation.lower():
        raise ValidationError(f"invalid relation {relation!r}",
                              hint="use a short lower-case word in any language, such as cause, supports, 因果")
    return relation


def inverse(relation: str) -> str:
    """The relation as the other end sees it."""
    return INVERSE.get(relation, f"{relation}_of" if not relation.endswith("_of") else relation[:-3])


def linked(memory: Memory, to: str, relation: str) -> Memory:
    """``memory`` with a link added (idempotent)."""
    link = Link(to, relation)
    if link in memory.links:
        return memory
    return memory.with_(links=memory.links + (link,))


@dataclass(frozen=True)
class Graph:
    nodes: tuple[dict[str, str], ...]
    edges: tuple[tuple[str, str, str], ...]     # (from, to, relation), each link once

    def to_json(self) -> str:
        return json.dumps({"nodes": list(self.nodes),
                           "edges": [{"from": a, "to": b, "relation": r} for a, b, r in self.edges]},
                          ensure_ascii=False)

    def to_dot(self) -> str:
        lines = ["digraph gitmem {", "  node [shape=box];"]
        for n in self.nodes:
            label = str(n["label"]).replace("\\", "\\\\").replace('"', '\\"')
            lines.append(f'  "{n["id"]}" [label="{label}"];')
        for a, b, r in self.edges:
            lines.append(f'  "{a}" -> "{b}" [label="{r}"];')
        lines.append("}")
        return "\n".join(lines) + "\n"


def _forward(relation: str) -> bool:
    """Is ``relation`` the name a link is made with, rather than the one its other end records?"""
    if relation in INVERSE:
        return relation in FORWARD
    return not relation.endswith("_of")


def label(text: str, limit: int = _LABEL_CHARS) -> str:
    """``text`` on one line, at most ``limit`` characters, cut between words ("…" marks a cut)."""
    flat = " ".join(text.split())
    if len(flat) <= limit:
        return flat
    cut = flat[: limit - 1]
    if flat[limit - 1] != " " and " " in cut:
        cut = cut.rsplit(" ", 1)[0]
    return cut.rstrip() + "…"


def graph(memories: list[Memory], made: frozenset[tuple[str, str, str]] = frozenset()) -> Graph:
    """Nodes for linked memories and one edge per link pair, in the direction it was made.

    ``made`` holds (from, to, relation) as a person linked them (``history.links_made``);
    a link not found there points the way its forward name reads ("cause", not "caused_by").
    """
    ids = {m.id for m in memories}
    edges: dict[tuple[frozenset[str], frozenset[str]], tuple[str, str, str]] = {}
    for m in memories:
        for l in m.links:
            if l.to not in ids:
                continue
            edge = (m.id, l.to, l.relation)
            back = (l.to, m.id, inverse(l.relation))
            key = (frozenset((m.id, l.to)), frozenset((l.relation, inverse(l.relation))))
            if back in made or (edge not in made and not _forward(l.relation) and _forward(back[2])):
                edge = back
            if key not in edges or edge in made or (edges[key] not in made and edge < edges[key]):
                edges[key] = edge
    touched = {a for a, _, _ in edges.values()} | {b for _, b, _ in edges.values()}
    nodes = tuple({"id": m.id, "type": m.type, "domain": m.domain, "label": label(m.content)}
                  for m in memories if m.id in touched)
    return Graph(nodes, tuple(sorted(set(edges.values()))))
