"""gitmem: an AI agent's memory in a git repository, as Markdown and YAML.

``from gitmem import MemoryRepo`` is the library API; the ``gitmem`` command
(and every other face) is a thin shell over it. Heavy modules load on first
use so hooks and ``--help`` start fast.
"""

from __future__ import annotations

TYPE_CHECKING = False  # the typing module costs milliseconds on every hook and --help

__version__ = "0.2.0.dev0"
__all__ = ["GitmemError", "Memory", "MemoryRepo", "__version__"]

if TYPE_CHECKING:
    from gitmem.api import MemoryRepo
    from gitmem.base.errors import GitmemError
    from gitmem.base.model import Memory


def __getattr__(name: str) -> object:
    # PEP 562: the public names load on first use, so `import gitmem` stays cheap for the hooks
    if name == "MemoryRepo":
        from gitmem.api import MemoryRepo

        return MemoryRepo
    if name == "GitmemError":
        from gitmem.base.errors import GitmemError

        return GitmemError
    if name == "Memory":
        from gitmem.base.model import Memory

        return Memory
    raise AttributeError(f"module 'gitmem' has no attribute {name!r}")
