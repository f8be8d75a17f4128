"""Recall and the core: memories ranked for a query, the core loaded at a session start, and
HIPPOCAMPUS_CORE.md with Layers 2 and 3 of CLAUDE.md kept in sync.

Recall is the hot path of every face: ``recall_at`` and ``recall_many`` take the
repository's root, not a ``Context``, so a process that only recalls never loads
the config schema or the writer. Every face builds its filters here (``filters``).
They open the index (``gitmem.store.current``), have the engine rank, and write
the access log of the hits.
"""

from __future__ import annotations

TYPE_CHECKING = False  # typing and dataclasses cost ~10 ms of every recall process: none is imported here

if TYPE_CHECKING:
    import builtins
    from collections.abc import Iterable, Sequence
    from datetime import datetime
    from pathlib import Path

    from gitmem.api.context import Context
    from gitmem.base.gitio.project import Project
    from gitmem.engines.recall import Dense, Recalled
    from gitmem.engines.render import CoreItem, Rendered
    from gitmem.writer.plan import Written
    from gitmem.store.index import Filters, Index


def filters(type: str | None = None, domain: str | None = None, tier: str | None = None, band: str | None = None,
            include_archive: bool = False, include_background: bool = False,
            project: str | None = None) -> Filters:
    """The one reading of a recall's filters: ``tier="archive"`` searches archived memories (background ones
    too), a background or fading ``band`` searches that band; ``project`` is an id or a display name, or a
    directory whose project is meant."""
    from gitmem.base.kinds import DOMAINS, RESULT_TYPES, check_choice
    from gitmem.store.index import Filters

    check_choice("type", type, RESULT_TYPES)
    check_choice("domain", domain, DOMAINS)
    return Filters(type=type, domain=domain, tier=tier, band=band,
                   include_archive=include_archive or tier == "archive",
                   include_background=include_background or band in ("background", "fading") or tier == "archive",
                   project=_project_id(project))


def _project_id(project: str | None) -> str | None:
    """``project`` as given (an id or a name), or the id of the project holding it when it names a folder."""
    import os

    if not project or not os.path.isdir(project):
        return project or None
    from gitmem.base.gitio.project import identify

    found: Project | None = identify(project)
    return found.id if found is not None else project


def check_k(k: int) -> int:
    """``k`` when it is a sensible number of results (1 to 1000), else a usage error."""
    from gitmem.base.errors import ArgumentError

    if k < 1 or k > 1000:
        raise ArgumentError("-k must be between 1 and 1000")
    return k


ACCESS_LOG = "access.jsonl"   # the clone's recall hits, under its state folder; decay folds them


def recall_at(root: Path | str, query: str, k: int = 10, found_by: Filters | None = None, at: str | None = None,
              expand: bool = False, now: datetime | None = None, here: Path | str | None = None,
              log: bool = True) -> builtins.list[Recalled]:
    """Memories of the repository at ``root`` ranked by relevance, importance and recency; hits go to the
    access log (not with ``log`` False, nor when recalling the past with ``at``). ``here`` (a directory)
    scopes them to its project when ``found_by`` names none (global memories always come)."""
    from gitmem.base import clock
    from gitmem.engines import recall as engine
    from gitmem.store.current import open_index

    k, now = check_k(k), now or clock.now()
    index = open_index(root, at)
    try:
        found = engine.search(index, query, k, _kept(root, index, found_by, here), now, expand, dense(root, index))
    finally:
        index.close()
    if log and at is None:
        log_access(root, (r.id for r in found if r.type != "episode"), now)
    return found


def recall_many(root: Path | str, queries: Sequence[str], k: int, found_by: Filters | None = None,
                at: str | None = None, expand: bool = False, now: datetime | None = None,
                here: Path | str | None = None) -> Iterable[tuple[str, builtins.list[Recalled]]]:
    """Many queries over one open index (``recall --batch``), each with its results; hits go to the access log."""
    from gitmem.base import clock
    from gitmem.engines import recall as engine
    from gitmem.store.current import open_index

    k, now = check_k(k), now or clock.now()
    index = open_index(root, at)
    try:
        kept, near = _kept(root, index, found_by, here), dense(root, index, everything=True)
        for q in queries:
            found = engine.search(index, q, k, kept, now, expand, near)
            if at is None:
                log_access(root, (r.id for r in found if r.type != "episode"), now)
            yield q, found
    finally:
        index.close()


def dense(root: Path | str, index: Index, everything: bool = False) -> Dense | None:
    """The embedding model's ranking over ``index`` when ``gitmem.embed-model`` names one, else None. The
    memories without a vector are encoded first: all of them with ``everything`` (a batch), else one
    recall's bounded share (``embedding.RECALL_BUDGET``)."""
    from gitmem.api import embedding

    return embedding.dense(root, index, None if everything else embedding.RECALL_BUDGET)


def _kept(root: Path | str, index: Index, found_by: Filters | None, here: Path | str | None) -> Filters:
    """``found_by`` with the config's never_forget unless the caller set one, scoped to the project of ``here``
    when it names none."""
    from gitmem.store.current import never_forget, project_here, viewer
    from gitmem.store.index import Filters

    found_by = found_by if found_by is not None else Filters()
    if found_by.never_forget is None:
        found_by = found_by._replace(never_forget=never_forget(root, index))
    if found_by.person is None:
        found_by = found_by._replace(person=viewer(root, index))
    if here is not None and found_by.project is None:
        found_by = found_by._replace(project=project_here(index, here))
    return found_by


def log_access(root: Path | str, ids: Iterable[str | None], now: datetime) -> None:
    """Record recall hits; the next decay folds them into last_accessed (no commit now)."""
    import os

    from gitmem.base import state

    hits = [i for i in ids if i is not None]
    if not hits:
        return
    path = os.path.join(state.shared_dir_name(root), ACCESS_LOG)   # no pathlib in a recall process
    stamp = now.replace(microsecond=0).isoformat().replace("+00:00", "Z")
    for memory_id in hits:
        state.append(path, {"id": memory_id, "at": stamp})


def recall(ctx: Context, query: str, k: int = 10, *, type: str | None = None, domain: str | None = None,
           tier: str | None = None, band: str | None = None, include_archive: bool = False,
           include_background: bool = False, at: str | None = None, expand: bool = False,
           now: datetime | None = None, project: str | None = None,
           here: str | Path | None = None) -> builtins.list[Recalled]:
    """Memories ranked by relevance, importance and recency; hits go to the access log.

    Up to 3 matching episodes (``type`` "episode") follow the ``k`` memories;
    ``type="episode"`` returns only episodes, ``k`` of them.

    ``project`` (an id or display name) keeps to global memories and that
    project's; without it, ``here`` (a directory) does the same for the
    project holding it when memories carry that project; neither: every project.
    """
    from pathlib import Path

    found_by = filters(type, domain, tier, band, include_archive, include_background, project)
    return recall_at(ctx.root, query, k, found_by, at, expand, now, Path(here) if here is not None else None)


def core_items(ctx: Context, project: str | None = None, here: str | Path | None = None,
               personal: bool = True) -> builtins.list[CoreItem]:
    """Core-band memories and those at or above ``never_forget``, best first (importance, then most recently used).

    ``project`` and ``here`` scope them as in ``recall``: global memories always come. A project's
    memories load only there: from a folder of another project, or of none, ``here`` loads no project's.
    In a team repository a person gets the shared ones and their own folder's (``personal`` False:
    the shared ones only, as the committed HIPPOCAMPUS_CORE.md holds them).
    """
    from gitmem.base import people
    from gitmem.engines.render import CoreItem
    from gitmem.store.current import open_index, project_here

    index = open_index(ctx.root)
    try:
        scoped = bool(project) or here is not None
        if not project and here is not None:
            project = project_here(index, here)
        keep = ctx.cfg.memory.never_forget   # at or above it: always loaded, whatever the band
        rows = [r for r in index.rows() if r.tier != "archive" and r.type != "episode"
                and (r.band == "core" or r.importance >= keep)
                and (r.project is None or not scoped or bool(project) and project in (r.project, r.project_name))]
        viewer = people.whoami(ctx.root, ctx.cfg.sharing)
        if viewer is not None:
            rows = [r for r in rows if people.visible(r.path, viewer if personal else people.NOBODY)]
    finally:
        index.close()
    rows.sort(key=lambda r: (-r.importance, _neg(r.last_accessed), r.id))
    return [CoreItem(r.id, r.type, r.domain, r.importance, r.content) for r in rows]


def load_core(ctx: Context, max_chars: int | None = None, project: str | None = None,
              here: str | Path | None = None, personal: bool = True) -> Rendered:
    """Core memories for a session start, whole items within ``max_chars`` (default budgets.core_chars).

    ``project`` and ``here`` scope them as in ``recall``.
    """
    from gitmem.base.errors import ArgumentError
    from gitmem.engines import render

    limit = max_chars if max_chars is not None else ctx.cfg.budgets.core_chars
    if limit < 200:
        raise ArgumentError("--max-chars must be at least 200")
    return render.load_core(core_items(ctx, project, here, personal), limit)


def sync_core(ctx: Context, now: datetime | None = None) -> Written[None]:
    """Write HIPPOCAMPUS_CORE.md and regenerate Layers 2 and 3 of CLAUDE.md (one commit)."""
    from gitmem.api import patterns
    from gitmem.base import clock
    from gitmem.base.errors import NotFoundError
    from gitmem.writer.plan import Plan
    from gitmem.store import store

    now = now or clock.now()
    core = load_core(ctx, personal=False)   # committed for everyone: no one's personal memories

    def plan(parent: str | None) -> Plan[None] | None:
        pats = store.all_patterns(ctx.git, parent) if parent else []
        _, text = patterns.claude_md(ctx, parent, pats) if parent else (None, None)
        if text is None:
            raise NotFoundError("CLAUDE.md is missing from the repository", hint="restore it from a fresh `gitmem init`")
        changes = {"HIPPOCAMPUS_CORE.md": core.text.encode("utf-8"), "CLAUDE.md": text}
        return Plan(changes, f"gitmem: sync core ({len(core.included)} core memories, {len(pats)} patterns)",
                    "render.sync_core", auto=True)

    return ctx.writer.write(plan, now)


def _neg(stamp: str) -> str:
    """Sort key putting later ISO times first."""
    return "".join(chr(0x10FFFF - ord(c)) for c in stamp)
