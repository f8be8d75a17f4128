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
INVERSE.update({v: k for k, v in list(INVERSE.items())})
RELATION_RE = re.compile(r"[a-z][a-z0-9_-]{0,39}")


def check_relation(relation: str) -> str:
    if not RELATION_RE.fullmatch(relation):
        raise ValidationError(f"invalid relation {relation!r}", hint="use a short lower-case word such as cause, supports, related")
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


def graph(memories: list[Memory]) -> Graph:
    """Nodes for linked memories (all memories when ``include_all``) and one edge per link pair."""
    ids = {m.id for m in memories}
    edges: set[tuple[str, str, str]] = set()
    for m in memories:
        for l in m.links:
            if l.to not in ids:
                continue
            back = (l.to, m.id, inverse(l.relation))
            if back not in edges:
                edges.add((m.id, l.to, l.relation))
    touched = {a for a, _, _ in edges} | {b for _, b, _ in edges}
    nodes = tuple({"id": m.id, "type": m.type, "domain": m.domain, "label": " ".join(m.content.split())[:60]}
                  for m in memories if m.id in touched)
    return Graph(nodes, tuple(sorted(edges)))
