"""The use-case layer: ``MemoryRepo`` composes engine planners with the one write path and returns values.

Floor 6 of the house: it imports engines, the writer, guards, the store and base,
and is imported only by the faces.
"""

from __future__ import annotations

from gitmem.api.repo import MemoryRepo

__all__ = ["MemoryRepo"]
