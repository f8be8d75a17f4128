"""gitmem: an AI agent's memory in a git repository, as Markdown and YAML.

``from gitmem import MemoryRepo`` is the library API; the ``gitmem`` command is a
thin shell over it. Heavy modules load on first use so hooks and ``--help``
start fast.
"""

from __future__ import annotations

TYPE_CHECKING = False  # the typing module costs milliseconds on every hook and --help

__version__ = "0.1.0"
__all__ = ["MemoryRepo", "GitmemError", "__version__"]

if TYPE_CHECKING:
    from gitmem.api import MemoryRepo
    from gitmem.base.errors import GitmemError


def __getattr__(name: str) -> object:
    if name == "MemoryRepo":
        from gitmem.api import MemoryRepo

        return MemoryRepo
    if name == "GitmemError":
        from gitmem.base.errors import GitmemError

        return GitmemError
    raise AttributeError(name)
