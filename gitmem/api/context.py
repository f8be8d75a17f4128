"""What every use case shares: the repository, its config and write path, the tip memory is read from,
and the reinforce-or-create lookup."""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING, Callable, Sequence

from gitmem.base import config as config_mod
from gitmem.base.config import Config
from gitmem.base.kinds import GLOBAL_DOMAINS
from gitmem.base.model import Memory
from gitmem.engines import memorize
from gitmem.guards.writepath import Store
from gitmem.store import formats, store



if TYPE_CHECKING:
    from gitmem.base.gitio.project import Project

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

    def similar_memory(self, text: str, domain: str, rev: str, keywords: Sequence[str],
                       project: str | None = None) -> Memory | None:
        """The live memory of ``domain`` at ``rev`` that ``text`` duplicates, if any (reinforce it instead).

        With ``project``, a memory of another project is never the duplicate.
        """
        from gitmem.engines import similarity
        from gitmem.store.index import Filters
        from gitmem.store.refresh import open_synced

        index = open_synced(self.git, rev)
        try:
            query = " ".join(keywords) or text
            hits = index.search(query, k=25, filters=Filters(domain=domain, include_background=True, project=project))
        finally:
            index.close()
        threshold = self.cfg.memory.reinforce_similarity or None
        cands = [(h.id, h.row.content) for h in hits if h.row.tier != "archive"]
        found = similarity.find_duplicate(text, cands, threshold or similarity.DUPLICATE_THRESHOLD)
        return store.load(self.git, rev, found, include_archive=False) if found else None

    def project_of(self, directory: str | Path | None) -> Project | None:
        """The project of the git repository holding ``directory`` (its name PII-stripped), or None."""
        from gitmem.base.gitio.project import identify
        from gitmem.guards import redact

        found = identify(directory) if directory else None
        if found is None:
            return None
        return found._replace(name=redact.strip(found.name, redact.allowlist(self.cfg)))

    def resolve_project(self, value: str | None) -> Project | None:
        """A project named on the command line: a directory, a known id or name, else a new id of that name."""
        from gitmem.base.gitio.project import Project
        from gitmem.store.refresh import open_synced

        if not value:
            return None
        if Path(value).is_dir():
            here = self.project_of(value)
            if here is not None:
                return here
        index = open_synced(self.git, self.head)
        try:
            known = index.projects()
        finally:
            index.close()
        if value in known:
            return Project(value, known[value])
        named = sorted(pid for pid, name in known.items() if name == value)
        return Project(named[0], value) if named else Project(value, value)

    def _lookup(self, parent: str | None, project: Project | None = None) -> memorize.Lookup | None:
        """The stored-duplicate lookup at ``parent`` that the reinforce-or-create rule asks (within ``project``)."""
        if parent is None:
            return None

        def scope(mem: Memory) -> str | None:
            if mem.project is not None or mem.domain in GLOBAL_DOMAINS:
                return mem.project
            return project.id if project is not None else None

        return lambda mem: self.similar_memory(mem.content, mem.domain, parent, mem.keywords, scope(mem))

    def _changes(self, batch: memorize.Batch, parent: str | None,
                 project: Project | None = None) -> dict[str, bytes | None]:
        """The file changes that write a batch: new files rendered, reinforced ones rewritten in place.

        A new memory of a project domain carries ``project``; user, self and
        relationship memories stay global.
        """
        changes: dict[str, bytes | None] = {}
        for planned in batch.planned.values():
            if planned.stored is None or parent is None:
                mem = planned.memory
                if project is not None and mem.domain not in GLOBAL_DOMAINS and mem.project is None:
                    mem = mem.with_(project=project.id, project_name=project.name)
                changes[mem.path] = store.render(mem)
            else:
                changes[planned.stored.path] = store.rewrite(self.git, parent, planned.stored, planned.memory)
        return changes
