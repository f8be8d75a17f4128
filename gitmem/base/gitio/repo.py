"""Reading trees and writing commits with pygit2 (imported here, lazily).

Commits are built from the parent tree by rewriting only the trees along the
changed paths (a one-file commit costs the same at 1k and 100k files) and the
ref moves by compare-and-swap: ``create_commit`` fails when the branch tip is
no longer the parent we built on, so a concurrent writer is never lost.

pygit2 is imported inside the functions: importing it costs ~80 ms, which a
recall served by a fresh index and the hooks never pay.
"""

from __future__ import annotations

from collections import namedtuple

from gitmem.base.errors import CasFailed, ConflictError, NotFoundError
from gitmem.base.gitio.command import check_ref_name
from gitmem.base.gitio.heads import common_dir
from gitmem.base.gitio.trees import build
from gitmem.base.gitio.trailers import read_commits
from gitmem.base.gitio.worktree import WorkTree

TYPE_CHECKING = False  # typing costs milliseconds on the recall path: annotations only
if TYPE_CHECKING:
    from collections.abc import Iterable, Iterator, Mapping, Sequence
    from datetime import datetime
    from pathlib import Path

    import pygit2

    from gitmem.base.gitio.trailers import Trailers

DEFAULT_NAME = "gitmem"
DEFAULT_EMAIL = "gitmem@localhost"


class CommitInfo(namedtuple("CommitInfo", "id message author time parents")):
    """One commit: ``id``, ``message``, ``author`` ("Name <email>"), ``time`` (ISO, UTC) and ``parents`` (ids)."""

    __slots__ = ()

    @property
    def subject(self) -> str:
        """The first line of the message."""
        return str(self.message).split("\n", 1)[0]


class PathChange(namedtuple("PathChange", "status path")):
    """One file of a diff: ``status`` "A", "M" or "D", and its ``path``."""

    __slots__ = ()


def init(root: Path, branch: str = "main") -> "Git":
    """Create a new non-bare repository with ``branch`` as its unborn HEAD."""
    import pygit2

    pygit2.init_repository(str(root), bare=False, initial_head=branch)
    return Git(root)


def discover(start: Path) -> Path | None:
    """The work tree root of the git repository containing ``start``."""
    import pygit2

    found = pygit2.discover_repository(str(start))
    if not found:
        return None
    from pathlib import Path

    repo = pygit2.Repository(found)
    return Path(repo.workdir) if repo.workdir else None


class Git:
    """One repository opened by path; not shared between threads."""

    def __init__(self, root: Path) -> None:
        import pygit2

        try:
            self.repo = pygit2.Repository(str(root))
        except pygit2.GitError:
            raise NotFoundError(f"not a git repository: {root}") from None
        from pathlib import Path  # pathlib and pygit2 are only paid by a process that opens a Git

        self.root = Path(self.repo.workdir or root)
        self.git_dir = Path(self.repo.path)
        self.common_dir = Path(common_dir(self.git_dir))
        self._commits: dict[str, pygit2.Commit] = {}
        self.worktree = WorkTree(self.root, self.git_dir, self.repo)

    # --- reading -----------------------------------------------------------
    def head_branch(self) -> str | None:
        """Short name of the branch HEAD points at (born or not), or None when detached."""
        ref = self.repo.references.get("HEAD")
        target = ref.target if ref is not None else None
        if isinstance(target, str) and target.startswith("refs/heads/"):
            return target[len("refs/heads/"):]
        return None

    def tip(self, branch: str) -> str | None:
        """The commit ``branch`` points at, or None when it does not exist (yet)."""
        ref = self.repo.references.get(f"refs/heads/{check_ref_name(branch, 'branch')}")
        return str(ref.target) if ref is not None else None

    def commit(self, rev: str) -> CommitInfo:
        """The commit ``rev`` names (id, branch, tag, ``HEAD~2``…); NotFoundError when none."""
        c = self._commit(rev)
        return _info(c)

    def _commit(self, rev: str) -> pygit2.Commit:
        import pygit2

        # Commits are immutable: a full id resolves once (bulk reads ask thousands of times).
        cached = self._commits.get(rev)
        if cached is not None:
            return cached
        try:
            commit = self.repo.revparse_single(rev).peel(pygit2.Commit)
        except (KeyError, ValueError, pygit2.GitError):
            raise NotFoundError(f"no commit, branch or tag named {rev!r}",
                                hint="see `git log --oneline` or `git tag` for names") from None
        if len(rev) == 40:
            if len(self._commits) > 64:
                self._commits.clear()
            self._commits[rev] = commit
        return commit

    def tree_id(self, rev: str) -> str:
        """The id of the tree of commit ``rev``."""
        return str(self._commit(rev).tree.id)

    def read(self, path: str, rev: str) -> bytes | None:
        """Bytes of ``path`` at ``rev``, or None when it is not there."""
        import pygit2

        tree = self._commit(rev).tree
        try:
            entry = tree[path]
        except KeyError:
            return None
        return entry.data if isinstance(entry, pygit2.Blob) else None

    def read_many(self, paths: Iterable[str], rev: str | None) -> dict[str, bytes | None]:
        """Bytes of each of ``paths`` at ``rev`` (None when absent), each folder's tree loaded once."""
        from gitmem.base.gitio.trees import read_many

        return read_many(self._commit(rev).tree if rev else None, paths)

    def files(self, prefix: str, rev: str) -> Iterator[tuple[str, str]]:
        """(path, blob id) of every file under ``prefix`` at ``rev``."""
        for path, entry in self._entries(prefix, rev):
            yield path, str(entry.id)

    def blobs(self, prefix: str, rev: str) -> Iterator[tuple[str, bytes]]:
        """(path, content) of every file under ``prefix`` at ``rev`` (one object lookup each)."""
        for path, entry in self._entries(prefix, rev):
            yield path, entry.data

    def _entries(self, prefix: str, rev: str) -> Iterator[tuple[str, pygit2.Blob]]:
        import pygit2
        from pygit2.enums import FileMode

        tree = self._commit(rev).tree
        try:
            sub = tree[prefix] if prefix else tree
        except KeyError:
            return
        if not isinstance(sub, pygit2.Tree):
            return
        stack: list[tuple[str, pygit2.Tree]] = [(prefix.rstrip("/"), sub)]
        while stack:
            base, node = stack.pop()
            for entry in node:
                path = f"{base}/{entry.name}" if base else str(entry.name)
                if isinstance(entry, pygit2.Tree):
                    stack.append((path, entry))
                elif isinstance(entry, pygit2.Blob) and entry.filemode in (FileMode.BLOB, FileMode.BLOB_EXECUTABLE):
                    yield path, entry

    def blob(self, oid: str) -> bytes:
        """The content of the blob ``oid``."""
        return bytes(self.repo[oid].read_raw())

    def diff(self, old: str | None, new: str) -> list[PathChange]:
        """Files added, modified or deleted between two commits (old None: the empty tree)."""
        from pygit2.enums import DeltaStatus

        new_tree = self._commit(new).tree
        if old is None:
            diff = new_tree.diff_to_tree(swap=True)
        else:
            diff = self._commit(old).tree.diff_to_tree(new_tree)
        out = []
        for delta in diff.deltas:
            if delta.status == DeltaStatus.DELETED:
                out.append(PathChange("D", delta.old_file.path))
            elif delta.status == DeltaStatus.ADDED:
                out.append(PathChange("A", delta.new_file.path))
            else:
                if delta.old_file.path != delta.new_file.path:
                    out.append(PathChange("D", delta.old_file.path))
                out.append(PathChange("M", delta.new_file.path))
        return out

    def log(self, rev: str, path: str | tuple[str, ...] | None = None, limit: int | None = None) -> Iterator[CommitInfo]:
        """Commits reachable from ``rev``, newest first; with ``path`` (or several), only those that changed it."""
        from pygit2.enums import SortMode

        try:
            start = self._commit(rev).id
        except NotFoundError:
            return
        count = 0
        for c in self.repo.walk(start, SortMode.TOPOLOGICAL | SortMode.TIME):
            if path is not None and not any(_touches(c, p) for p in ((path,) if isinstance(path, str) else path)):
                continue
            yield _info(c)
            count += 1
            if limit is not None and count >= limit:
                return

    def trailers(self, ids: Sequence[str]) -> dict[str, Trailers]:
        """The trailers of each commit in ``ids``, read by git's trailer parser (one process)."""
        return read_commits(self.root, ids)

    def patch(self, rev: str, path: str | None = None) -> str:
        """Unified diff of a commit against its first parent (optionally one path)."""
        c = self._commit(rev)
        parent_tree = c.parents[0].tree if c.parents else None
        diff = (parent_tree.diff_to_tree(c.tree) if parent_tree is not None else c.tree.diff_to_tree(swap=True))
        text = []
        for p in diff:
            if p is not None and (path is None or p.delta.new_file.path == path or p.delta.old_file.path == path):
                text.append(p.text or "")
        return "".join(text)

    def branches(self, prefix: str = "") -> list[str]:
        """Local branch names starting with ``prefix``, sorted."""
        return sorted(b for b in self.repo.branches.local if b.startswith(prefix))

    def merge_base(self, a: str, b: str) -> str | None:
        """The best common ancestor of two commits (None when they share none)."""
        found = self.repo.merge_base(self._commit(a).id, self._commit(b).id)
        return str(found) if found is not None else None

    def refs(self, prefix: str) -> list[str]:
        """Full ref names starting with ``prefix`` (e.g. ``refs/gitmem/rejected/``), sorted."""
        return sorted(r for r in self.repo.references if r.startswith(prefix))

    def tags(self, prefix: str = "") -> list[str]:
        """Tag names starting with ``prefix``, sorted."""
        return sorted(r[len("refs/tags/"):] for r in self.repo.references if r.startswith("refs/tags/" + prefix))

    # --- writing -----------------------------------------------------------
    def build_tree(self, base_rev: str | None, changes: Mapping[str, bytes | None]) -> str:
        """Tree id of ``base_rev``'s tree with ``changes`` applied (None deletes); from ``PACK_THRESHOLD`` files, one pack."""
        from gitmem.base.gitio.packing import PACK_THRESHOLD, build as build_packed

        if len(changes) >= PACK_THRESHOLD:
            return build_packed(self.root, self.repo, str(self._commit(base_rev).id) if base_rev else None, changes)
        base = self._commit(base_rev).tree if base_rev else None
        return str(build(self.repo, base, {tuple(p.split("/")): d for p, d in changes.items()}))

    def signature(self, when: datetime, config: pygit2.Config | None = None) -> pygit2.Signature:
        """The configured identity (or gitmem's own) at ``when`` (a naive time is UTC); ``config``:
        the repository's configuration when the caller has read it already."""
        import pygit2

        cfg = config if config is not None else self.repo.config
        name, email = _setting(cfg, "user.name"), _setting(cfg, "user.email")
        if name is None or email is None:
            name, email = DEFAULT_NAME, DEFAULT_EMAIL
        from datetime import timezone

        stamp = int(when.replace(tzinfo=when.tzinfo or timezone.utc).timestamp())
        return pygit2.Signature(name, email, stamp, 0)

    def create_commit(self, branch: str, tree: str, parent: str | None, message: str, when: datetime,
                      merged: Sequence[str] = (), release: tuple[str, ...] = (), written: str | None = None) -> str:
        """Commit ``tree`` on ``branch`` if its tip is still ``parent``; else raise CasFailed.

        ``merged`` names a merge commit's other parents; ``written``, the commit ``write_commit``
        made of the same arguments, so that only the branch's move is left. ``release``: files removed the moment the
        branch has moved (the write path's ``index.lock`` and its record), by the very next system calls."""
        import pygit2

        from gitmem.base.gitio import refwrite

        config = self.repo.config   # read once for the identity, the ref backend and the reflog
        sig = self.signature(when, config)
        parents = [pygit2.Oid(hex=p) for p in ([parent] if parent else []) + list(merged)]
        if not refwrite.supported(_setting(config, "extensions.refStorage")):
            return refwrite.commit_libgit2(self.repo, self.common_dir, lambda: self.tip(branch), branch, sig, message,
                                           tree, parents, release)
        # refs in files: the tip is compared under the ref's lock, so it is not read here first
        oid = written or str(self.repo.create_commit(None, sig, sig, message, pygit2.Oid(hex=tree), parents))
        return refwrite.commit_files(self.common_dir, self.git_dir, branch, oid, parent, sig, message,
                                     lambda: self.tip(branch), lambda: _setting(config, "core.logAllRefUpdates"),
                                     self.repo.is_bare, release)

    def write_commit(self, tree: str, parent: str | None, message: str, when: datetime,
                     merged: Sequence[str] = ()) -> str:
        """The commit object ``create_commit`` would make, written without moving any branch."""
        import pygit2

        sig = self.signature(when)
        return str(self.repo.create_commit(None, sig, sig, message, pygit2.Oid(hex=tree),
                                           [pygit2.Oid(hex=p) for p in ([parent] if parent else []) + list(merged)]))

    def set_ref(self, name: str, target: str, old: str | None) -> None:
        """Point ``name`` at ``target`` if it still points at ``old`` (None: must not exist)."""
        import pygit2

        refs = self.repo.references
        current = refs.get(check_ref_name(name))
        if (str(current.target) if current is not None else None) != old:
            raise CasFailed(name)
        refs.create(name, pygit2.Oid(hex=target), force=current is not None)

    def delete_ref(self, name: str) -> None:
        """Delete the ref ``name`` when it exists."""
        ref = self.repo.references.get(check_ref_name(name))
        if ref is not None:
            ref.delete()

    def create_tag(self, name: str, rev: str, message: str, when: datetime) -> str:
        """An annotated tag on ``rev``; ConflictError when ``name`` exists."""
        import pygit2
        from pygit2.enums import ObjectType

        target = self._commit(rev).id
        try:
            return str(self.repo.create_tag(check_ref_name(name, "tag"), target, ObjectType.COMMIT, self.signature(when), message))
        except (ValueError, pygit2.GitError, pygit2.AlreadyExistsError):
            raise ConflictError(f"tag {name!r} exists already") from None

    # --- trees by entry ------------------------------------------------------
    def tree_entry_hash(self, rev: str | None, path: str) -> str | None:
        """Blob id of ``path`` at ``rev`` (None when absent or ``rev`` is None)."""
        if rev is None:
            return None
        try:
            return str(self._commit(rev).tree[path].id)
        except KeyError:
            return None

    def tree_entry_hashes(self, rev: str | None, paths: Iterable[str]) -> dict[str, str | None]:
        """:meth:`tree_entry_hash` of each of ``paths``, each folder's tree loaded once."""
        from gitmem.base.gitio.trees import entry_ids

        return entry_ids(self._commit(rev).tree if rev else None, paths)

    def tree_entries(self, rev: str, paths: Iterable[str]) -> dict[str, tuple[str, int] | None]:
        """(blob id, mode) of each of ``paths`` in tree or commit ``rev`` (None: absent)."""
        import pygit2

        from gitmem.base.gitio.trees import blob_entries

        return blob_entries(self.repo[rev].peel(pygit2.Tree), paths)


def _setting(config: pygit2.Config, key: str) -> str | None:
    """The value of ``key`` in git's configuration, or None when it is not set."""
    import pygit2

    try:
        return str(config[key])
    except (KeyError, pygit2.GitError):
        return None


def _touches(c: pygit2.Commit, path: str) -> bool:
    def entry(tree: pygit2.Tree) -> str | None:
        try:
            return str(tree[path].id)
        except KeyError:
            return None

    mine = entry(c.tree)
    if not c.parents:
        return mine is not None
    return any(entry(p.tree) != mine for p in c.parents)


def _info(c: pygit2.Commit) -> CommitInfo:
    from datetime import datetime, timezone

    when = datetime.fromtimestamp(c.commit_time, timezone.utc).isoformat().replace("+00:00", "Z")
    return CommitInfo(str(c.id), c.message, f"{c.author.name} <{c.author.email}>", when,
                      tuple(str(p) for p in c.parent_ids))

