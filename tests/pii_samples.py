"""Fabricated values and helpers shared by the tests of gitmem.guards.pii.

Every secret here and in fixtures/pii_corpus.jsonl is fabricated: random
characters with a real prefix and length, never a real credential.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from gitmem.guards import pii
from gitmem.guards.pii import Finding
from gitmem.guards.pii.kinds import Cand
from gitmem.guards.pii.view import View

CORPUS = Path(__file__).parent / "fixtures" / "pii_corpus.jsonl"

GHP = "ghp_Q7mZx2Lk9Rt4Vw8Yb1Nc6Hd3Fg5Js0KaP2qL"
AKIA = "AKIAQ3EGTZ7R2LWN5XHD"
AWS_SECRET = "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"
PASSWORD = "Xk9#mL2qP7zR"


def load_corpus() -> list[dict[str, Any]]:
    """The labelled corpus, never empty."""
    with CORPUS.open(encoding="utf-8") as fh:
        cases = [json.loads(line) for line in fh if line.strip()]
    assert cases, "the corpus fixture is empty"
    return cases


def kinds_at(text: str) -> list[tuple[str, str]]:
    """(kind, found text) of every finding of a full scan."""
    return [(f.kind, text[f.start : f.end]) for f in pii.scan(text)]


def only(text: str) -> Finding:
    """The one finding of a full scan."""
    found = pii.scan(text)
    assert len(found) == 1, [(f.kind, text[f.start : f.end]) for f in found]
    return found[0]


def detect(finder: Any, text: str) -> set[tuple[str, str]]:
    """(kind, text) of the candidates one detector adds for ``text``."""
    out: list[Cand] = []
    finder(View(text), out)
    return {(kind, text[s:e]) for _rank, s, e, kind in out}
