"""Reinforce or create: the stored duplicate of a new memory, found before the write lock and checked again
under it, and the file changes that write a batch (shared by remember, import, session end and harvest)."""

from __future__ import annotations

from typing import TYPE_CHECKING, NamedTuple, Sequence

from gitmem.api.context import Context
from gitmem.base.kinds import GLOBAL_DOMAINS
from gitmem.base.model import Memory
from gitmem.engines import memorize
from gitmem.store import store

if TYPE_CHECKING:
    from gitmem.base.gitio.project import Project
    from gitmem.store.index import Filters, Index


class Prescan(NamedTuple):
    """The duplicate a text had at ``rev``, found before taking the write lock."""

    rev: str | None
    found: Memory | None


def similar_memory(ctx: Context, text: str, domain: str, rev: str, keywords: Sequence[str],
                   project: str | None = None) -> Memory | None:
    """The live memory of ``domain`` at ``rev`` that ``text`` duplicates, if any (reinforce it instead).

    With ``project``, a memory of another project is never the duplicate.
    """
    from gitmem.base import people
    from gitmem.engines import similarity
    from gitmem.store.index import Filters
    from gitmem.store.refresh import open_synced

    index = open_synced(ctx.git, rev)
    scope = Filters(domain=domain, include_background=True, project=project,
                    person=people.whoami(ctx.root, ctx.cfg.sharing))
    try:
        query = " ".join(keywords) or text
        hits = index.search(query, k=25, filters=scope)
        cands = [(h.id, h.row.content) for h in hits if h.row.tier != "archive"]
        cosines = _nearest(ctx, index, text, scope, cands)
    finally:
        index.close()
    found = similarity.find_duplicate(text, cands, threshold(ctx), cosines)
    return store.load(ctx.git, rev, found, include_archive=False) if found else None


def _nearest(ctx: Context, index: Index, text: str, scope: Filters,
             cands: list[tuple[str, str]]) -> dict[str, float] | None:
    """The embedding model's cosines of the memories nearest ``text`` (added to ``cands``), when one is
    configured; else None."""
    from gitmem.api import embedding

    rank = embedding.dense(ctx.root, index)
    if rank is None:
        return None
    near = dict(rank(text, _DENSE_CANDIDATES, scope))
    known = {key for key, _ in cands}
    for key in near:
        row = index.get(key) if key not in known else None
        if row is not None and row.tier != "archive":
            cands.append((row.id, row.content))
    return near


_DENSE_CANDIDATES = 10   # the model's nearest memories a new one is compared with, beside the lexical ones


def threshold(ctx: Context) -> float:
    """The similarity at or above which a new memory reinforces a stored one (config, else the default)."""
    from gitmem.engines import similarity

    return ctx.cfg.memory.reinforce_similarity or similarity.DUPLICATE_THRESHOLD


def prescan(ctx: Context, text: str, domain: str, keywords: Sequence[str], rev: str | None = None,
            project: str | None = None) -> Prescan:
    """The duplicate of ``text`` at ``rev`` (default the tip), searched and scored without the write lock.

    The slow part of reinforce-or-create is read-only; a write then only
    re-checks what changed since ``rev`` (``rechecked``).
    """
    rev = rev or ctx.head
    return Prescan(rev, similar_memory(ctx, text, domain, rev, keywords, project) if rev else None)


def rechecked_each(ctx: Context, scans: dict[str, Prescan], parent: str | None) -> memorize.Lookup | None:
    """``rechecked`` for a batch: each memory's own prescan, by memory id."""
    if parent is None:
        return None
    full = duplicate_lookup(ctx, parent)

    def lookup(mem: Memory) -> Memory | None:
        scan = scans.get(mem.id)
        each = rechecked(ctx, scan, parent) if scan is not None else full
        return each(mem) if each is not None else None
    return lookup


def rechecked(ctx: Context, scan: Prescan, parent: str | None, project: str | None = None) -> memorize.Lookup | None:
    """The lookup at ``parent`` from a prescan: its answer when the tip has not moved, else
    that answer checked again and the memories written since scored."""
    if parent is None:
        return None
    if scan.rev is None:
        return duplicate_lookup(ctx, parent)
    if parent == scan.rev:
        return lambda mem: scan.found
    rev = scan.rev

    def lookup(mem: Memory) -> Memory | None:
        from gitmem.base.errors import GitmemError
        from gitmem.base.model import MEMORY_DIR
        from gitmem.engines import similarity
        from gitmem.store import documents

        cands = {scan.found.path: scan.found} if scan.found is not None else {}
        for change in ctx.git.diff(rev, parent):
            cands.pop(change.path, None)
            if change.status == "D" or not change.path.startswith(f"{MEMORY_DIR}/{mem.domain}/"):
                continue
            try:
                found = documents.read_memory(change.path, ctx.git.read(change.path, parent) or b"")
            except GitmemError:
                continue  # a bad file is reported by the readers, never a duplicate
            if found.domain == mem.domain and not found.archived and found.project in (None, project):
                cands[change.path] = found
        best = similarity.find_duplicate(mem.content, [(m.id, m.content) for m in cands.values()],
                                         threshold(ctx))
        return next((m for m in cands.values() if m.id == best), None)
    return lookup


def duplicate_lookup(ctx: Context, parent: str | None, project: Project | None = None) -> memorize.Lookup | None:
    """The stored-duplicate lookup at ``parent`` that the reinforce-or-create rule asks (within ``project``)."""
    if parent is None:
        return None

    def scope(mem: Memory) -> str | None:
        if mem.project is not None or mem.domain in GLOBAL_DOMAINS:
            return mem.project
        return project.id if project is not None else None

    return lambda mem: similar_memory(ctx, mem.content, mem.domain, parent, mem.keywords, scope(mem))


def batch_changes(ctx: Context, batch: memorize.Batch, parent: str | None,
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
            changes[planned.stored.path] = store.rewrite(ctx.git, parent, planned.stored, planned.memory)
    return changes
