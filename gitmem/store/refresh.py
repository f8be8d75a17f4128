"""Keeps the derived recall index in step with git: sync by tree diff, rebuild from a tree.

The index (``.git/gitmem/index.sqlite``) is never committed. It records the
commit it reflects; bringing it to another commit applies the tree diff
between the two (a few rows), and anything odd — a missing or corrupt file, an
indexed commit that no longer exists — rebuilds it from the tree.
"""

from __future__ import annotations

from pathlib import Path
from collections.abc import Iterable

from gitmem.store import documents, store
from gitmem.base.errors import DocumentError, GitmemError, IndexCorrupt
from gitmem.base import state
from gitmem.base.gitio import Git
from gitmem.base import mdio
from gitmem.base.kinds import GLOBAL_DOMAINS
from gitmem.store.index import EPISODE, ROWS_VERSION, Index, IndexRow
from gitmem.base.model import ARCHIVE_DIR, MEMORY_DIR, Memory

META_COMMIT = "commit"
SCHEMA = ROWS_VERSION  # old indexes rebuild themselves when what rows carry changes


def index_file(git: Git, name: str = "index.sqlite") -> Path:
    """Where this clone keeps the index file ``name`` (its folder is created)."""
    return state.worktree_dir(git.root) / name


def row(m: Memory) -> IndexRow:
    """A memory as an index row (a memory of a global domain has no project)."""
    project = None if m.domain in GLOBAL_DOMAINS else m.project
    return IndexRow(id=m.id, path=m.path, content=m.content, type=m.type, domain=m.domain, tier=m.tier,
                    band=m.band, importance=m.importance, created=m.created, last_accessed=m.last_accessed,
                    keywords=m.keywords, tags=m.tags, links=tuple(l.to for l in m.links),
                    # a numbered source (session:<id>#L120, import:<file>#L3) orders the memories
                    # of one source, which recall uses as context around a hit
                    source_id=m.source_id or (m.source if m.source[-1:].isdigit() else None),
                    project=project, project_name=(m.project_name or project) if project else None)


def episode_row(path: str, data: bytes) -> IndexRow:
    """An episode as an index row of type "episode": its title, summary and outcome are its content,
    the files it touched and its tags its keywords (raises DocumentError when unreadable)."""
    meta, body = documents.split(path, documents.decode(path, data))
    parts = {s.heading.casefold(): s.text for s in mdio.sections(body)}
    summary = " ".join(parts.get("summary", "").split())
    files = tuple(item.strip("` ") for item, _ in mdio.list_items(parts.get("files touched", ""))
                  if not item.startswith(("…", "_None")))
    title = str(meta.get("title") or "").strip()
    content = summary if not title or title.rstrip("…") in summary else f"{title}. {summary}"
    started = str(meta.get("started") or meta.get("date") or "")
    project = meta.get("project")
    return IndexRow(id=path.rsplit("/", 1)[-1][:-3], path=path, content=content or title or path, type=EPISODE,
                    domain="project", tier="long", band="active", importance=0.5, created=started,
                    last_accessed=str(meta.get("ended") or started), keywords=files,
                    tags=tuple(str(t) for t in meta.get("tags") or ()),
                    project=str(project) if project else None,
                    project_name=str(meta.get("project_name") or project) if project else None)


def _is_memory_path(path: str) -> bool:
    return path.endswith(".md") and path.startswith((MEMORY_DIR + "/", ARCHIVE_DIR + "/", store.EPISODE_DIR + "/"))


def _read_row(path: str, data: bytes) -> IndexRow:
    if path.startswith(store.EPISODE_DIR + "/"):
        return episode_row(path, data)
    return row(documents.read_memory(path, data))


def _remove(path: Path) -> None:
    for suffix in ("", "-wal", "-shm", "-journal"):
        Path(str(path) + suffix).unlink(missing_ok=True)


def _open(path: Path) -> Index:
    try:
        return Index(path)
    except IndexCorrupt:
        _remove(path)
        return Index(path)


def rebuild_file(git: Git, rev: str | None) -> Index:
    """Delete the index file and build it anew from the tree at ``rev``."""
    path = index_file(git)
    _remove(path)
    index = Index(path)
    rebuild(index, git, rev)
    return index


def _rows(git: Git, rev: str, paths: Iterable[str]) -> tuple[list[IndexRow], list[str]]:
    rows, problems = [], []
    for path, data in git.read_many(paths, rev).items():   # each folder's tree loaded once
        if data is None:
            continue
        try:
            rows.append(_read_row(path, data))
        except DocumentError as exc:
            problems.append(store.skipped(exc))
    return rows, problems


def rebuild(index: Index, git: Git, rev: str | None) -> int:
    """Empty the index and fill it from the tree at ``rev``.

    Every document is read and parsed first, then the rows replace the old
    ones in one transaction by one bulk insert (readers see the old rows until
    it commits).
    """
    if rev is None:
        index.clear()
        index.set_meta(META_COMMIT, "")
        return 0
    rows = [row(m) for m, _ in store.read_memories(git, rev, include_archive=True)]
    for path, data in git.blobs(store.EPISODE_DIR, rev):
        if not path.endswith(".md"):
            continue
        try:
            rows.append(_read_row(path, data))
        except DocumentError:
            continue  # an unreadable episode is not recallable; `gitmem list` reports memories
    with index.transaction():
        index.clear()
        return index.fill(rows, meta={META_COMMIT: rev, "schema": SCHEMA})


def sync(index: Index, git: Git, rev: str | None) -> int:
    """Bring ``index`` to ``rev`` incrementally; returns the number of rows touched."""
    indexed = index.get_meta(META_COMMIT)
    if indexed == (rev or "") and index.get_meta("schema") == SCHEMA:
        return 0
    if not indexed or rev is None or index.get_meta("schema") != SCHEMA:
        return rebuild(index, git, rev)
    try:
        changes = [c for c in git.diff(indexed, rev) if _is_memory_path(c.path)]
    except GitmemError:
        return rebuild(index, git, rev)
    deleted = {c.path for c in changes if c.status == "D"}
    upserts, _ = _rows(git, rev, [c.path for c in changes if c.status != "D"])
    gone = {p.rsplit("/", 1)[-1][:-3] for p in deleted} - {r.id for r in upserts}
    with index.transaction():
        index.delete(gone)
        index.upsert(upserts, meta={META_COMMIT: rev})
    return len(gone) + len(upserts)


def open_synced(git: Git, rev: str | None) -> Index:
    """The clone's index brought to ``rev`` (rebuilt when missing or corrupt)."""
    index = _open(index_file(git))
    try:
        sync(index, git, rev)
    except IndexCorrupt:
        index.close()
        index = _open(index_file(git))
        rebuild(index, git, rev)
    return index


def open_at(git: Git, rev: str) -> Index:
    """A separate index of the memory as it was at ``rev`` (cached per commit)."""
    commit = git.commit(rev).id
    index = _open(index_file(git, f"at-{commit[:16]}.sqlite"))
    if index.get_meta(META_COMMIT) != commit:
        rebuild(index, git, commit)
    return index
