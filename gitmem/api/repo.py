"""``MemoryRepo``: every use case of gitmem, as one object whose methods return typed values.

The faces (the CLI, the hooks, the coming MCP server) are thin shells over it.
Its methods live by theme in ``memories`` (single memories), ``lifecycle`` (which builds
on them: recall, decay, reflect), ``sessions``, ``timeline`` (snapshots, rollback, drift), ``patterns`` and ``reviews`` (the
Hebbian review loop), ``status`` and ``purging`` (a leak rewritten out of history); each
composes engine planners with the one write path (``gitmem.writer``).
"""

from __future__ import annotations

import builtins
from datetime import datetime
from pathlib import Path

from gitmem.base import clock

from gitmem.api.jobs import Jobs
from gitmem.api.purging import Purging
from gitmem.api.insight import Insight
from gitmem.engines.initrepo import InitResult, init as init_repo
from gitmem.base.state import find_root

TYPE_CHECKING = False
if TYPE_CHECKING:
    from gitmem.api.findings import Allowed, Refused, Shown



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

    # --- false alarms of the secret scan (gitmem.api.findings) ---------------------------

    def refused_sessions(self) -> builtins.list[Refused]:
        """Every session a secret refused in this clone and not harvested since, with its finding ids."""
        from gitmem.api.findings import refused

        return refused(self.root)

    def pii_show(self, finding: str, file: str | Path | None = None) -> Shown:
        """Where a refused session's finding is (file, line, kind, context), its value masked; ``file`` names a
        transcript outside the session folders."""
        from gitmem.api.findings import folders_of, show

        return show(self.root, folders_of(self.cfg), finding, Path(file) if file else None)

    def pii_allow(self, finding: str, reason: str = "", shared: bool = False, now: datetime | None = None,
                  file: str | Path | None = None) -> Allowed:
        """Record a finding as not a secret (a salted hash of its value): per clone, or committed with ``shared``."""
        from gitmem.api.findings import allow, folders_of

        return allow(self.root, self.writer, self.redactor, folders_of(self.cfg), finding, reason, shared, now or clock.now(),
                     Path(file) if file else None)
