"""``MemoryRepo``: every use case of gitmem, as one object whose methods return typed values.

The faces (the CLI, the hooks, the coming MCP server) are thin shells over it.
Its methods live by theme in ``memories`` (single memories), ``lifecycle`` (which builds
on them: recall, decay, reflect), ``sessions``, ``timeline`` (snapshots, rollback, drift), ``patterns`` and ``reviews`` (the
Hebbian review loop), ``status`` and ``purging`` (a leak rewritten out of history); each
composes engine planners with the one write path (``gitmem.writer``).
"""

from __future__ import annotations

from datetime import datetime
from pathlib import Path

from gitmem.base import clock

from gitmem.api.jobs import Jobs
from gitmem.api.purging import Purging
from gitmem.api.insight import Insight
from gitmem.engines.initrepo import InitResult, init as init_repo
from gitmem.base.state import find_root



class MemoryRepo(Jobs, Purging, Insight):
    """A memory repository: every use case of gitmem as a method returning values."""

    @classmethod
    def open(cls, repo: str | Path | None = None) -> "MemoryRepo":
        """Open the memory repository named by --repo, GITMEM_DIR or the working folder."""
        return cls(find_root(repo))

    setup: InitResult | None = None
    """What ``init`` did (created, hooks installed, its message); None on a repository opened with ``open``."""

    @classmethod
    def init(cls, path: str | Path, now: datetime | None = None, install_hooks: bool = True) -> "MemoryRepo":
        """Create a memory repository (or complete an existing one) and open it; ``setup`` says what was done."""
        result = init_repo(Path(path), now or clock.now(), install_hooks)
        repo = cls(result.path)
        repo.setup = result
        return repo

    def recover(self) -> bool:
        """Finish (or undo) a write a killed gitmem left half done; True when there was one.

        Every write does this first; a person whose `git commit` refused
        because of gitmem's ``index.lock`` runs it (``gitmem recover``).
        """
        return self.writer.recover()
