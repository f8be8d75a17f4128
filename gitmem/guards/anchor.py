"""The anchor constraints of sedimentation: what no promotion may change, whatever its source.

The loop's own rules, the priority formula and the guards live in gitmem's code
and in these files of a memory repository: gitmem.yaml (threshold, type
weights, limits), CLAUDE.md (its Layers 1 and 4 above all), the repository's
hooks and merge setup, gitmem's own state beyond the engine state and the
queue, and the sedimentation skill's own file. A write made by sedimentation
(its event is ``sedimentation.*``, or it accepts a ``sediment-`` review) that
touches one of them is refused by the writer's chain.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping

from gitmem.store import enginestate

SEDIMENT_EVENT = "sedimentation."
SEDIMENT_REVIEW = "gitmem/review/sediment-"
ANCHORED_FILES = ("gitmem.yaml", "CLAUDE.md", ".pre-commit-config.yaml", ".gitattributes")
ANCHORED_DIRS = ("skills/skill_sedimentation/", "skills/sedimentation/", ".gitmem/")
ENGINE_OWN = (enginestate.STATE_FILE, ".gitmem/pending/")   # the engine's own state and the growth queue


def is_sediment(event: str, trailers: Iterable[tuple[str, str]]) -> bool:
    """Whether a write is sedimentation's own (by its event, or the review it accepts)."""
    return event.startswith(SEDIMENT_EVENT) or any(
        k == "Gitmem-Review" and v.startswith(SEDIMENT_REVIEW) for k, v in trailers)


def anchored(path: str) -> bool:
    """Whether ``path`` is one no promotion may change."""
    if path.startswith(ENGINE_OWN):
        return False
    return path in ANCHORED_FILES or path.endswith("/CLAUDE.md") or path.startswith(ANCHORED_DIRS)


def problems(changes: Mapping[str, object], event: str, trailers: Iterable[tuple[str, str]]) -> list[str]:
    """The anchored paths a sedimentation write would change (empty: none, or not sedimentation's)."""
    if not is_sediment(event, trailers):
        return []
    return sorted(p for p in changes if anchored(p))
