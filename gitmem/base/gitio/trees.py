"""Trees: a commit's tree rebuilt along the changed paths only, and many files read with one load
of each folder (pygit2, imported lazily).

A one-file commit costs the same at 1k and 100k files: untouched subtrees are
reused by id.
"""

from __future__ import annotations

from gitmem.base.errors import ConflictError, SecurityError

TYPE_CHECKING = False
if TYPE_CHECKING:
    from collections.abc import Iterable, Iterator
    from typing import Any

    import pygit2


def build(repo: pygit2.Repository, base: pygit2.Tree | None, changes: dict[tuple[str, ...], bytes | None]) -> pygit2.Oid:
    """Write the tree of ``base`` with ``changes`` applied (path parts -> bytes, None deletes).

    Only the trees along changed paths are rewritten; a folder left empty is
    dropped, as git has no empty trees. Writing a file over a folder, a folder
    over a file, or anything under a symlink is refused.
    """
    return _build(repo, base, changes)[0]


def _build(repo: pygit2.Repository, base: pygit2.Tree | None,
           changes: dict[tuple[str, ...], bytes | None]) -> tuple[pygit2.Oid, int]:
    """:func:`build`, and how many entries the tree written has (0: a folder to drop; the builder
    counts them, so the tree just written is not read back)."""
    import pygit2
    from pygit2.enums import FileMode

    tb = repo.TreeBuilder(base) if base is not None else repo.TreeBuilder()
    nested: dict[str, dict[tuple[str, ...], bytes | None]] = {}
    for parts, data in changes.items():
        if len(parts) > 1:
            nested.setdefault(parts[0], {})[parts[1:]] = data
            continue
        name = parts[0]
        if data is None:
            if tb.get(name) is not None:
                tb.remove(name)
        else:
            existing = tb.get(name)
            if existing is not None and existing.filemode == FileMode.TREE:
                raise ConflictError(f"cannot write file {name!r}: a folder of that name exists")
            tb.insert(name, repo.create_blob(data), FileMode.BLOB)
    for name, sub in nested.items():
        entry = tb.get(name)
        if entry is not None and entry.filemode == FileMode.LINK:
            raise SecurityError(f"refusing to write under {name!r}: it is a symlink in the repository")
        if entry is not None and entry.filemode != FileMode.TREE:
            raise ConflictError(f"cannot create folder {name!r}: a file of that name exists")
        subtree = repo[entry.id] if entry is not None else None
        oid, count = _build(repo, subtree if isinstance(subtree, pygit2.Tree) else None, sub)
        if count == 0:
            if entry is not None:
                tb.remove(name)
        else:
            tb.insert(name, oid, FileMode.TREE)
    return tb.write(), len(tb)


def read_many(tree: pygit2.Tree | None, paths: Iterable[str]) -> dict[str, bytes | None]:
    """Bytes of each of ``paths`` in ``tree`` (None when absent). Each folder's tree is loaded once,
    so reading many files of one large folder costs one pass, not one per file."""
    import pygit2

    out: dict[str, bytes | None] = {}
    folders: dict[str, list[str]] = {}
    for path in paths:
        folder, _, name = path.rpartition("/")
        folders.setdefault(folder, []).append(name)
    for folder, names in folders.items():
        sub: object = None
        if tree is not None:
            try:
                sub = tree[folder] if folder else tree
            except KeyError:
                sub = None
        for name in names:
            entry = None
            if isinstance(sub, pygit2.Tree):
                try:
                    entry = sub[name]
                except KeyError:
                    entry = None
            out[f"{folder}/{name}" if folder else name] = entry.data if isinstance(entry, pygit2.Blob) else None
    return out


def entry_ids(tree: pygit2.Tree | None, paths: Iterable[str]) -> dict[str, str | None]:
    """The id of each of ``paths`` in ``tree`` (None when absent), each folder's tree loaded once."""
    return {path: None if entry is None else str(entry.id) for path, entry in _entries(tree, paths)}


def blob_entries(tree: pygit2.Tree | None, paths: Iterable[str]) -> dict[str, tuple[str, int] | None]:
    """(blob id, mode) of each of ``paths`` in ``tree`` (None when absent or not a file), each folder's tree loaded once."""
    import pygit2

    return {path: (str(entry.id), int(entry.filemode)) if isinstance(entry, pygit2.Blob) else None
            for path, entry in _entries(tree, paths)}


def _entries(tree: pygit2.Tree | None, paths: Iterable[str]) -> Iterator[tuple[str, Any]]:
    """(path, its object in ``tree`` or None) for each of ``paths``: one look-up per folder, one per name."""
    import pygit2

    folders: dict[str, object] = {}
    for path in paths:
        folder, _, name = path.rpartition("/")
        if folder not in folders:
            try:
                folders[folder] = (tree[folder] if folder else tree) if tree is not None else None
            except KeyError:
                folders[folder] = None
        sub = folders[folder]
        yield path, (sub[name] if isinstance(sub, pygit2.Tree) and name and name in sub else None)
