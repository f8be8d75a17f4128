"""History rewriting: every ref of a repository with one byte string replaced (``gitmem purge``).

Commits are walked in topological order from every ref and every reflog
entry; each commit's tree (blobs and file names), message and identities are
rewritten with the value replaced, parents mapped to their rewritten ids, and
annotated tags re-made over the new commits. Objects are written with pygit2;
refs move in one ``git update-ref --stdin`` transaction (no hook runs for it), each with the id it
was read at (compare-and-swap), so a ref that moved meanwhile fails the whole
update. Reflogs, ``ORIG_HEAD`` and ``FETCH_HEAD`` are mapped to the new ids and
cleaned of the value, and the old objects are pruned, so nothing reachable
holds the value any more.
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path
from typing import Any, Iterator

from gitmem.base.gitio import command
from gitmem.base.gitio.history import git_dirs, head_files, log_ids, ref_targets, reflog_files, rewrite_log

# Commit header fields dropped in a rewritten commit: a signature would no longer match.
_DROPPED = (b"gpgsig", b"gpgsig-sha256", b"mergetag")


@dataclass(frozen=True)
class RefUpdate:
    """One ref moved by a rewrite: its name, the id it held and the id it holds now.

    ``source`` is the ref's former name when that name held the value (the ref
    was renamed); empty otherwise. It holds the value: never log it.
    """

    name: str
    old: str
    new: str
    source: str = ""


@dataclass(frozen=True)
class Rewrite:
    """What a rewrite did (or, not applied, would do).

    ``commits``: (old id, new id) of every commit rewritten, oldest first;
    ``refs``: the refs moved; ``applied``: whether the refs were moved.
    """

    commits: tuple[tuple[str, str], ...]
    refs: tuple[RefUpdate, ...]
    applied: bool


def rewrite(root: Path, value: str, replacement: str, apply: bool) -> Rewrite:
    """Rewrite every ref's history with ``value`` replaced by ``replacement``.

    With ``apply`` False the new objects are computed (and written, unreachable)
    but no ref, reflog or file moves: a dry run. Raises ``CasFailed`` when a ref
    moved while the rewrite ran.
    """
    import pygit2

    repo = pygit2.Repository(str(root))
    job = _Job(repo, value.encode("utf-8"), replacement.encode("utf-8"))
    git_dir, common = git_dirs(root, repo)
    logs = list(reflog_files(git_dir, common))
    heads = head_files(git_dir, common)
    tips = ref_targets(repo)
    roots = [oid for _, oid in tips] + [oid for path in logs + heads for oid in log_ids(path)]
    job.walk(roots)
    updates = []
    for name, oid in tips:
        new, new_name = job.object(oid), _ref_name(name, value, replacement)
        if new != oid or new_name != name:
            updates.append(RefUpdate(new_name, oid, new, name if new_name != name else ""))
    commits = tuple((old, new) for old, new in job.commit_order if old != new)
    if apply and updates:
        _move_refs(root, updates)
        _follow_renames(root, repo, updates)
    if apply and (updates or commits):
        ids = {**job.commits, **job.tags}
        for path in reflog_files(git_dir, common):
            rewrite_log(path, ids, job.value, job.replacement)
        for path in heads:
            rewrite_log(path, ids, job.value, job.replacement)
        if not repo.is_bare and not repo.head_is_unborn:
            command.run(root, "read-tree", "-u", "--reset", "HEAD")
        command.run(root, "gc", "--prune=now", "--quiet")
    return Rewrite(commits, tuple(updates), apply)


def _ref_name(name: str, value: str, replacement: str) -> str:
    """``name`` with the value replaced by a form of the placeholder a ref name may hold."""
    if value not in name:
        return name
    import re

    return name.replace(value, re.sub(r"[^A-Za-z0-9_-]+", "-", replacement).strip("-") or "purged")


def _follow_renames(root: Path, repo: Any, updates: list[RefUpdate]) -> None:
    """HEAD and branch settings follow a branch renamed because its name held the value."""
    for u in updates:
        if not u.source.startswith("refs/heads/"):
            continue
        head = repo.references.get("HEAD")
        if head is not None and head.type == _symbolic() and head.target == u.source:
            command.run(root, "symbolic-ref", "HEAD", u.name)
        old, new = u.source[len("refs/heads/"):], u.name[len("refs/heads/"):]
        command.attempt(root, "config", "--rename-section", f"branch.{old}", f"branch.{new}")


def _symbolic() -> Any:
    from pygit2.enums import ReferenceType

    return ReferenceType.SYMBOLIC


class _Job:
    """The object maps of one rewrite: old id -> new id, by kind."""

    def __init__(self, repo: Any, value: bytes, replacement: bytes) -> None:
        self.repo, self.value, self.replacement = repo, value, replacement
        self.name_value = value.decode("utf-8")
        self.name_replacement = replacement.decode("utf-8")
        self.blobs: dict[str, str] = {}
        self.trees: dict[str, str] = {}
        self.commits: dict[str, str] = {}
        self.tags: dict[str, str] = {}
        self.commit_order: list[tuple[str, str]] = []

    def walk(self, roots: list[str]) -> None:
        import pygit2
        from pygit2.enums import SortMode

        walker = self.repo.walk(None, SortMode.TOPOLOGICAL | SortMode.REVERSE)
        pushed = False
        for oid in roots:
            commit = self._peel(oid)
            if commit is not None:
                walker.push(pygit2.Oid(hex=commit))
                pushed = True
        if not pushed:
            return
        for c in walker:
            old = str(c.id)
            new = self._commit(c)
            self.commits[old] = new
            self.commit_order.append((old, new))

    def _peel(self, oid: str) -> str | None:
        from pygit2.enums import ObjectType

        obj = self.repo.get(oid)
        while obj is not None and obj.type == ObjectType.TAG:
            obj = self.repo.get(obj.target)
        return str(obj.id) if obj is not None and obj.type == ObjectType.COMMIT else None

    def object(self, oid: str) -> str:
        """The new id of a ref target: a commit, an annotated tag (chain), a tree or a blob."""
        from pygit2.enums import ObjectType

        obj = self.repo.get(oid)
        if obj is None:
            return oid
        if obj.type == ObjectType.COMMIT:
            return self.commits.get(oid, oid)
        if obj.type == ObjectType.TAG:
            return self._tag(oid)
        if obj.type == ObjectType.TREE:
            return self._tree(oid)
        return self._blob(oid)

    def _replace(self, data: bytes) -> bytes:
        return data.replace(self.value, self.replacement)

    def _blob(self, oid: str) -> str:
        if oid not in self.blobs:
            data = self.repo[oid].data
            self.blobs[oid] = str(self.repo.create_blob(self._replace(data))) if self.value in data else oid
        return self.blobs[oid]

    def _tree(self, oid: str) -> str:
        if oid in self.trees:
            return self.trees[oid]
        from pygit2.enums import ObjectType

        builder = self.repo.TreeBuilder()
        changed = False
        names = {entry.name for entry in self.repo[oid]}
        for entry in self.repo[oid]:
            name = entry.name
            if self.name_value in name:
                name = _free(name.replace(self.name_value, self.name_replacement).replace("/", "-"), names)
                names.add(name)
            eid = str(entry.id)
            if entry.type == ObjectType.TREE:
                new = self._tree(eid)
            elif entry.type == ObjectType.BLOB:
                new = self._blob(eid)
            else:
                new = eid  # a submodule's commit: another repository's history
            changed = changed or new != eid or name != entry.name
            builder.insert(name, new, entry.filemode)
        self.trees[oid] = str(builder.write()) if changed else oid
        return self.trees[oid]

    def _commit(self, c: Any) -> str:
        from pygit2.enums import ObjectType

        old = str(c.id)
        raw = self.repo.odb.read(c.id)[1]
        header, sep, message = raw.partition(b"\n\n")
        lines = []
        skipping = False
        for line in header.split(b"\n"):
            if line.startswith(b" ") and skipping:
                continue
            key = line.split(b" ", 1)[0]
            skipping = key in _DROPPED
            if skipping:
                continue
            if key == b"tree":
                line = b"tree " + self._tree(line[5:].decode()).encode()
            elif key == b"parent":
                parent = line[7:].decode()
                line = b"parent " + self.commits.get(parent, parent).encode()
            else:
                line = self._replace(line)
            lines.append(line)
        new_raw = b"\n".join(lines) + sep + self._replace(message)
        if new_raw == raw:
            return old
        return str(self.repo.odb.write(ObjectType.COMMIT, new_raw))

    def _tag(self, oid: str) -> str:
        if oid in self.tags:
            return self.tags[oid]
        from pygit2.enums import ObjectType

        raw = self.repo.odb.read(oid)[1]
        header, sep, message = raw.partition(b"\n\n")
        lines = []
        for line in header.split(b"\n"):
            if line.startswith(b"object "):
                line = b"object " + self.object(line[7:].decode()).encode()
            elif line.startswith(b"tag "):   # the tag's name, as its ref is renamed
                line = b"tag " + _ref_name(line[4:].decode("utf-8", "replace"), self.name_value,
                                           self.name_replacement).encode()
            elif not line.startswith(b"type "):
                line = self._replace(line)
            lines.append(line)
        body = self._replace(message)
        signed = body.find(b"-----BEGIN PGP SIGNATURE-----")
        if signed >= 0:
            body = body[:signed]
        new_raw = b"\n".join(lines) + sep + body
        self.tags[oid] = oid if new_raw == raw else str(self.repo.odb.write(ObjectType.TAG, new_raw))
        return self.tags[oid]


def uncommitted(root: Path) -> list[str]:
    """Paths with staged or unstaged edits in the work tree at ``root`` (untracked files are not edits)."""
    import pygit2
    from pygit2.enums import FileStatus

    repo = pygit2.Repository(str(root))
    if repo.is_bare:
        return []
    quiet = FileStatus.CURRENT | FileStatus.WT_NEW | FileStatus.IGNORED
    return sorted(path for path, flags in repo.status().items() if flags & ~quiet)


def remotes(root: Path) -> list[tuple[str, tuple[tuple[str, str], ...], tuple[str, ...]]]:
    """(remote name, ((local branch ref, ref on the remote) it tracks, …), its remote-tracking refs) of every remote."""
    import pygit2

    repo = pygit2.Repository(str(root))
    out = []
    for remote in repo.remotes:
        tracked = []
        for branch in repo.branches.local:
            try:
                remote_name = repo.config[f"branch.{branch}.remote"]
                merge = repo.config[f"branch.{branch}.merge"]
            except KeyError:
                continue
            if remote_name == remote.name:
                tracked.append((f"refs/heads/{branch}", str(merge)))
        prefix = f"refs/remotes/{remote.name}/"
        out.append((str(remote.name), tuple(tracked), tuple(n for n in repo.references if n.startswith(prefix))))
    return out


def _free(name: str, taken: set[str]) -> str:
    """``name``, or ``name~2``, ``name~3``… when another entry of the tree has it: nothing is overwritten."""
    n, candidate = 1, name
    while candidate in taken:
        n += 1
        candidate = f"{name}~{n}"
    return candidate


def _move_refs(root: Path, updates: list[RefUpdate]) -> None:
    from gitmem.base.errors import CasFailed, GitError

    lines = []
    for u in updates:
        if u.source:
            lines += [f"delete {u.source} {u.old}\n", f"create {u.name} {u.new}\n"]
        else:
            lines.append(f"update {u.name} {u.new} {u.old}\n")
    script = "start\n" + "".join(lines) + "prepare\ncommit\n"
    try:
        # gitmem's own write, like every ref it moves (refwrite): the reference-transaction hook, which
        # checks the commits an agent makes with git, would take each rewritten commit for a new one
        command.run(root, "-c", "core.hooksPath=/dev/null", "update-ref", "--stdin", stdin=script.encode())
    except GitError as exc:
        raise CasFailed(", ".join(u.name for u in updates)) from exc


__all__ = ["RefUpdate", "Rewrite", "remotes", "rewrite", "uncommitted"]
