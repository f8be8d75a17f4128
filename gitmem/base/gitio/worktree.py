"""The work tree and the index of one repository: what a write changes beside the commit.

A commit (``gitmem.base.gitio.repo``) moves the branch; the files a person
sees and git's index follow it here, under git's own ``index.lock``
(``gitmem.base.gitio.staging``): lock, stage, move the branch, write the
files, publish. ``Git.worktree`` is the one ``WorkTree`` of a ``Git``.
"""

from __future__ import annotations

from gitmem.base.gitio.command import changed_in_index
from gitmem.base.gitio.staging import drop as drop_index_lock, owner_gone, prepare, publish, stage, take, write_files

TYPE_CHECKING = False  # typing costs milliseconds on the recall path: annotations only
if TYPE_CHECKING:
    from collections.abc import Iterable, Mapping
    from pathlib import Path

    import pygit2

LARGE_INDEX_BYTES = 100 * 1024   # about 2k entries: from here git's C code beats reading the index into libgit2


class WorkTree:
    """The work tree at ``root`` and the index in ``git_dir`` of the repository ``repo`` (pygit2's)."""

    def __init__(self, root: Path, git_dir: Path, repo: pygit2.Repository) -> None:
        self.root = root
        self.git_dir = git_dir
        self._repo = repo

    def file_hash(self, path: str) -> str | None:
        """Blob id of the work tree file at ``path`` (None when absent)."""
        import os

        import pygit2

        full = os.path.join(self.root, path)   # a string: a large change hashes 100k files
        try:
            if os.path.islink(full):
                return "symlink"
            with open(full, "rb") as fh:
                return str(pygit2.hash(fh.read()))
        except (FileNotFoundError, IsADirectoryError, NotADirectoryError):
            return None

    def staged_changes(self, rev: str | None, paths: list[str]) -> set[str]:
        """Paths whose index entry differs from their blob at ``rev`` (a person staged something)."""
        if rev is not None and _index_size(self.git_dir) > LARGE_INDEX_BYTES:
            found = changed_in_index(self.root, rev, paths)
            if found is not None:
                return set(found)
        import pygit2

        from gitmem.base.gitio.trees import entry_ids

        at = entry_ids(self._repo[rev].peel(pygit2.Tree) if rev is not None else None, paths)
        return {p for p in paths if self.index_hash(p) != at[p]}

    def index_hash(self, path: str) -> str | None:
        """Blob id of ``path`` in the index (None when it is not staged)."""
        idx = self._repo.index
        idx.read(False)
        entry = idx[path] if path in idx else None
        return str(entry.id) if entry is not None else None

    def write_files(self, changes: Mapping[str, bytes | None], skip: frozenset[str] = frozenset()) -> None:
        """Write changed paths into the work tree (None deletes; ``skip``: already right), each by rename."""
        write_files(self.root, self.git_dir, changes, skip)

    # The next index is prepared in a file of its own (gitio.staging), then
    # swapped in under git's own index.lock just before the branch moves; a kill
    # while the lock is held makes a person's `git commit` refuse, never delete.
    def lock_index(self) -> None:
        """Take ``index.lock`` (a copy of the index in it); IndexLocked when another program holds it."""
        take(self.git_dir)

    def stage_index(self, tree: str, paths: Iterable[str]) -> None:
        """Set the entries of ``paths`` in the held ``index.lock`` to what tree (or commit) ``tree`` holds."""
        stage(self.git_dir, self.root, self._entries(tree, paths),
                      large=_index_size(self.git_dir) > LARGE_INDEX_BYTES)

    def stage_entries(self, entries: Mapping[str, tuple[str, int] | None]) -> None:
        """Set entries (path -> (blob id, mode), None removes) in the held ``index.lock``."""
        stage(self.git_dir, self.root, entries, large=_index_size(self.git_dir) > LARGE_INDEX_BYTES)

    def prepare_index(self, tree: str, paths: Iterable[str]) -> tuple[Path, tuple[int, int, int] | None]:
        """The next index (``paths`` as tree or commit ``tree`` holds them) staged in a file of its own,
        without ``index.lock``: its path and the stamp of the index it starts from."""
        return prepare(self.git_dir, self.root, self._entries(tree, paths),
                       large=_index_size(self.git_dir) > LARGE_INDEX_BYTES)

    def publish_index(self) -> None:
        """Rename the held ``index.lock`` over the index."""
        publish(self.git_dir)

    def unlock_index(self) -> None:
        """Drop gitmem's ``index.lock`` unused."""
        drop_index_lock(self.git_dir)

    def index_lock_abandoned(self) -> bool:
        """True when ``index.lock`` is gitmem's and no write of it is under way (its writer is dead)."""
        return owner_gone(self.git_dir)

    def sync(self, changes: Mapping[str, bytes | None], index_only: frozenset[str] = frozenset()) -> bool:
        """Write changed paths into the work tree and the index (outside a commit: a new repository).

        Paths in ``index_only`` already hold the right content and only need
        the index. IndexLocked when another program holds the index.
        """
        import pygit2
        from pygit2.enums import FileMode

        self.lock_index()
        try:
            entries = {path: (None if data is None else (str(pygit2.hash(data)), int(FileMode.BLOB)))
                       for path, data in changes.items()}
            self.stage_entries(entries)
            self.write_files(changes, index_only)
        except BaseException:
            self.unlock_index()
            raise
        self.publish_index()
        return True

    def _entries(self, rev: str, paths: Iterable[str]) -> dict[str, tuple[str, int] | None]:
        """(blob id, mode) of each of ``paths`` in tree or commit ``rev`` (None: absent)."""
        import pygit2

        from gitmem.base.gitio.trees import blob_entries

        return blob_entries(self._repo[rev].peel(pygit2.Tree), paths)


def _index_size(git_dir: Path) -> int:
    try:
        return (git_dir / "index").stat().st_size
    except OSError:
        return 0
