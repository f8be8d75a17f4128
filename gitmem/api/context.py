"""What every use case shares: the repository, its config, writer and caller redaction, the tip memory is read from,
and the reinforce-or-create lookup."""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING, Callable, Iterable, NamedTuple, Sequence

from gitmem.api.redaction import Redactor
from gitmem.base import config as config_mod
from gitmem.base.config import Config
from gitmem.base.kinds import GLOBAL_DOMAINS
from gitmem.base.model import Memory
from gitmem.engines import memorize
from gitmem.store import formats, store
from gitmem.writer.commit import Writer



if TYPE_CHECKING:
    from gitmem.base.gitio.project import Project
    from gitmem.store.documents import Pattern

Progress = Callable[[int, int], None]
"""A progress callback: (done, total)."""


class Prescan(NamedTuple):
    """The duplicate a text had at ``rev``, found before taking the write lock."""

    rev: str | None
    found: Memory | None


class Context:
    """A memory repository opened for use: root, config, the writer, the caller redaction and git."""

    def __init__(self, root: Path, cfg: Config | None = None) -> None:
        self.root = Path(root)
        self.cfg = cfg if cfg is not None else config_mod.load(self.root)
        self.writer = Writer(self.root, self.cfg)
        self.redactor = Redactor(self.root, self.cfg)
        self.git = self.writer.git
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
        cands = [(h.id, h.row.content) for h in hits if h.row.tier != "archive"]
        found = similarity.find_duplicate(text, cands, self._threshold())
        return store.load(self.git, rev, found, include_archive=False) if found else None

    def _claude_md(self, rev: str, patterns: Iterable[Pattern]) -> tuple[bytes | None, bytes | None]:
        """(CLAUDE.md at ``rev``, the same with Layers 2 and 3 regenerated from ``patterns`` and the
        episodes at ``rev``); (None, None) when there is no CLAUDE.md."""
        from gitmem.engines import render

        claude = self.git.read("CLAUDE.md", rev)
        if claude is None:
            return None, None
        episodes = [render.EpisodeLine(*row) for row in store.episode_rows(self.git, rev)]
        text = render.claude_md(claude.decode("utf-8", "replace"), render.pattern_lines(patterns), episodes,
                                self.cfg.budgets.claude_md_lines)
        return claude, text.encode("utf-8")

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

    def _threshold(self) -> float:
        from gitmem.engines import similarity

        return self.cfg.memory.reinforce_similarity or similarity.DUPLICATE_THRESHOLD

    def prescan(self, text: str, domain: str, keywords: Sequence[str], rev: str | None = None,
                project: str | None = None) -> Prescan:
        """The duplicate of ``text`` at ``rev`` (default the tip), searched and scored without the write lock.

        The slow part of reinforce-or-create is read-only; a write then only
        re-checks what changed since ``rev`` (``_rechecked``).
        """
        rev = rev or self.head
        return Prescan(rev, self.similar_memory(text, domain, rev, keywords, project) if rev else None)

    def _rechecked_each(self, scans: dict[str, Prescan], parent: str | None) -> memorize.Lookup | None:
        """``_rechecked`` for a batch: each memory's own prescan, by memory id."""
        if parent is None:
            return None
        full = self._lookup(parent)

        def lookup(mem: Memory) -> Memory | None:
            scan = scans.get(mem.id)
            each = self._rechecked(scan, parent) if scan is not None else full
            return each(mem) if each is not None else None
        return lookup

    def _rechecked(self, scan: Prescan, parent: str | None, project: str | None = None) -> memorize.Lookup | None:
        """The lookup at ``parent`` from a prescan: its answer when the tip has not moved, else
        that answer checked again and the memories written since scored."""
        if parent is None:
            return None
        if scan.rev is None:
            return self._lookup(parent)
        if parent == scan.rev:
            return lambda mem: scan.found
        rev = scan.rev

        def lookup(mem: Memory) -> Memory | None:
            from gitmem.base.errors import GitmemError
            from gitmem.base.model import MEMORY_DIR
            from gitmem.engines import similarity
            from gitmem.store import documents

            cands = {scan.found.path: scan.found} if scan.found is not None else {}
            for change in self.git.diff(rev, parent):
                cands.pop(change.path, None)
                if change.status == "D" or not change.path.startswith(f"{MEMORY_DIR}/{mem.domain}/"):
                    continue
                try:
                    found = documents.read_memory(change.path, self.git.read(change.path, parent) or b"")
                except GitmemError:
                    continue  # a bad file is reported by the readers, never a duplicate
                if found.domain == mem.domain and not found.archived and found.project in (None, project):
                    cands[change.path] = found
            best = similarity.find_duplicate(mem.content, [(m.id, m.content) for m in cands.values()],
                                             self._threshold())
            return next((m for m in cands.values() if m.id == best), None)
        return lookup

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
