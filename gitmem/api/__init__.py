"""The use-case layer: one module of plain functions per use case, each taking a ``Context`` first
and returning values; ``MemoryRepo`` is the facade that holds a context and delegates to them.

Floor 5 of the house: it imports engines, guards, the store and base, and is
imported only by the faces. ``MemoryRepo`` loads on first use, so a face that
imports one light use case (recall) pays for no other.
"""

from __future__ import annotations

TYPE_CHECKING = False
if TYPE_CHECKING:
    from gitmem.api.repo import MemoryRepo

__all__ = ["MemoryRepo"]


def __getattr__(name: str) -> object:
    # PEP 562: the facade imports every use case; the recall path imports only its own
    if name == "MemoryRepo":
        from gitmem.api.repo import MemoryRepo

        return MemoryRepo
    raise AttributeError(f"module 'gitmem.api' has no attribute {name!r}")
