"""The promotion priority (the seed's formula):
``score x type weight + explicit likes x 10 + 5 when the same error class failed twice in a row``."""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from gitmem.base.config import TypeWeights
    from gitmem.engines.sediment.entry import Reflection

LIKE = 10.0
REPEAT = 5.0


@dataclass(frozen=True)
class Priority:
    """A reflection's priority and how it was computed, in words (``promotions.md`` records it)."""

    value: float
    formula: str


def priority(r: Reflection, weights: TypeWeights) -> Priority:
    """The priority of reflection ``r`` with the configured type weights."""
    weight = {"error_fix": weights.error_fix, "process": weights.process, "preference": weights.preference,
              "routine": weights.routine}[r.kind]
    value = r.score * weight + r.likes * LIKE + (REPEAT if r.repeat else 0.0)
    formula = f"{r.score} x {weight:g} ({r.kind}) + {r.likes} like(s) x {LIKE:g} + {REPEAT if r.repeat else 0:g} (repeat failure) = {value:g}"
    return Priority(value, formula)


def due(value: float, threshold: float) -> bool:
    """Promote when the priority reaches the threshold (exactly 15 against 15 promotes)."""
    return value >= threshold
