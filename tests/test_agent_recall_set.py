"""The coding agent's recall set in bench/agent-recall is consistent: every answer is a memory, every
memory has evidence and a source, both splits are there, and no transcript text is copied in."""

from __future__ import annotations

import json
from pathlib import Path

SET = Path(__file__).resolve().parent.parent / "bench" / "agent-recall"


def rows(name: str) -> list[dict[str, object]]:
    return [json.loads(line) for line in (SET / name).read_text("utf-8").splitlines() if line]


def test_every_answer_is_a_memory_with_evidence_and_a_source() -> None:
    memories = {m["id"]: m for m in rows("memories.jsonl")}
    queries = rows("queries.jsonl")
    sources = {s["session"]: s for s in rows("sources.jsonl")}
    assert len(memories) >= 60 and len(queries) >= 80
    for q in queries:
        assert q["answers"] and all(a in memories for a in q["answers"]), q   # type: ignore[attr-defined]
        assert q["split"] in ("dev", "holdout")
    for m in memories.values():
        assert m["evidence"] and all(len(str(e)) >= 8 for e in m["evidence"]), m   # type: ignore[attr-defined]
        assert m["session"] in sources
    for s in sources.values():
        assert len(str(s["commit"])) == 40 and len(str(s["blob"])) == 40 and "/" in str(s["repository"])
    splits = [q["split"] for q in queries]
    assert 0.15 <= splits.count("holdout") / len(splits) <= 0.35       # a real hold-out, not a token one
    answered = {a for q in queries for a in q["answers"]}  # type: ignore[attr-defined]
    assert answered == set(memories)                                   # no memory without a question


def test_questions_are_not_the_memories_restated() -> None:
    """A question that repeats its memory's words would measure nothing: most share few words with it."""
    memories = {m["id"]: str(m["content"]).lower() for m in rows("memories.jsonl")}
    overlaps = []
    for q in rows("queries.jsonl"):
        words = {w for w in str(q["question"]).lower().replace("?", " ").split() if len(w) > 3}
        text = memories[q["answers"][0]]  # type: ignore[index]
        overlaps.append(sum(w in text for w in words) / max(1, len(words)))
    assert sorted(overlaps)[len(overlaps) // 2] < 0.5
