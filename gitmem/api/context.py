"""What every use case shares: the repository, its config and write path, the tip memory is read from,
and the reinforce-or-create lookup."""

from __future__ import annotations

from pathlib import Path
from typing import Callable, Sequence

from gitmem.base import config as config_mod
from gitmem.base.config import Config
from gitmem.base.model import Memory
from gitmem.engines import memorize
from gitmem.guards.writepath import Store
from gitmem.store import formats, store



Progress = Callable[[int, int], None]
"""A progress callback: (done, total)."""


class Context:
    """A memory repository opened for use: root, config, the write path (``store``) and git."""

    def __init__(self, root: Path, cfg: Config | None = None) -> None:
        self.root = Path(root)
        self.cfg = cfg if cfg is not None else config_mod.load(self.root)
        self.store = Store(self.root, self.cfg)
        self.git = self.store.git
        self.format = formats.check(self.git.read(formats.STATE_FILE, self.head) if self.head else None)

    @property
    def head(self) -> str | None:
        """The commit memory is read from: the checked-out branch's tip (HEAD when detached)."""
        branch = self.git.head_branch()
        if branch is None:
            detached: str = self.git.commit("HEAD").id
            return detached
        return self.git.tip(branch)

    def _rev(self, at: str | None) -> str | None:
        return self.git.commit(at).id if at else self.head

    def similar_memory(self, text: str, domain: str, rev: str, keywords: Sequence[str]) -> Memory | None:
        """The live memory of ``domain`` at ``rev`` that ``text`` duplicates, if any (reinforce it instead)."""
        from gitmem.engines import similarity
        from gitmem.store.index import Filters
        from gitmem.store.refresh import open_synced

        index = open_synced(self.git, rev)
        try:
            query = " ".join(keywords) or text
            hits = index.search(query, k=25, filters=Filters(domain=domain, include_background=True))
        finally:
            index.close()
        threshold = self.cfg.memory.reinforce_similarity or None
        cands = [(h.id, h.row.content) for h in hits if h.row.tier != "archive"]
        found = similarity.find_duplicate(text, cands, threshold or similarity.DUPLICATE_THRESHOLD)
        return store.load(self.git, rev, found, include_archive=False) if found else None

    def _lookup(self, parent: str | None) -> memorize.Lookup | None:
        """The stored-duplicate lookup at ``parent`` that the reinforce-or-create rule asks."""
        if parent is None:
            return None
        return lambda mem: self.similar_memory(mem.content, mem.domain, parent, mem.keywords)

    def _changes(self, batch: memorize.Batch, parent: str | None) -> dict[str, bytes | None]:
        """The file changes that write a batch: new files rendered, reinforced ones rewritten in place."""
        changes: dict[str, bytes | None] = {}
        for planned in batch.planned.values():
            if planned.stored is None or parent is None:
                changes[planned.memory.path] = store.render(planned.memory)
            else:
                changes[planned.stored.path] = store.rewrite(self.git, parent, planned.stored, planned.memory)
        return changes
