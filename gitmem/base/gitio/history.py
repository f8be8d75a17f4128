"""What the history of a repository reaches: its roots (every ref, reflog entry and head file) and every text it holds.

``gitmem purge`` looks for a value in every text (``texts``) and rewrites the
history from the same roots (``gitmem.base.gitio.rewrite``); the reflogs and
head files then name the new ids (``rewrite_log``).
"""

from __future__ import annotations

from pathlib import Path
from typing import Any, Iterator

from gitmem.base.gitio.heads import read_git_dirs

# Files of a git dir that name commits (mapped to the new ids like reflogs) or
# hold the last messages written (cleaned of the value).
_HEAD_FILES = ("ORIG_HEAD", "FETCH_HEAD", "COMMIT_EDITMSG", "MERGE_MSG", "SQUASH_MSG", "TAG_EDITMSG")


def git_dirs(root: Path, repo: Any) -> tuple[Path, Path]:
    """The git dir and the common git dir of the repository at ``root`` (opened as ``repo``)."""
    dirs = read_git_dirs(root)
    return (Path(dirs[0]), Path(dirs[1])) if dirs else (Path(repo.path), Path(repo.path))


def texts(root: Path) -> Iterator[str]:
    """Every text the history of ``root`` holds, once each: file contents, file names,
    commit and tag messages and identities, from every ref and reflog entry."""
    import pygit2
    from pygit2.enums import ObjectType, SortMode

    repo = pygit2.Repository(str(root))
    git_dir, common = git_dirs(root, repo)
    roots = [oid for _, oid in ref_targets(repo)] + [oid for p in reflog_files(git_dir, common) for oid in log_ids(p)]
    obj: Any
    walker = repo.walk(None, SortMode.TOPOLOGICAL)
    seen: set[str] = set()
    for oid in roots:
        obj = repo.get(oid)
        while obj is not None and obj.type == ObjectType.TAG:
            if str(obj.id) not in seen:
                seen.add(str(obj.id))
                yield repo.odb.read(obj.id)[1].decode("utf-8", "replace")
            obj = repo.get(obj.target)
        if obj is not None and obj.type == ObjectType.COMMIT:
            walker.push(obj.id)
    if not roots:
        return
    for c in walker:
        yield repo.odb.read(c.id)[1].decode("utf-8", "replace")
        yield from _tree_texts(repo, c.tree_id, seen)



def _tree_texts(repo: Any, oid: Any, seen: set[str]) -> Iterator[str]:
    from pygit2.enums import ObjectType

    if str(oid) in seen:
        return
    seen.add(str(oid))
    for entry in repo[oid]:
        yield entry.name
        if entry.type == ObjectType.TREE:
            yield from _tree_texts(repo, entry.id, seen)
        elif entry.type == ObjectType.BLOB and str(entry.id) not in seen:
            seen.add(str(entry.id))
            yield repo[entry.id].data.decode("utf-8", "replace")



def ref_targets(repo: Any) -> list[tuple[str, str]]:
    """(name, target id) of every direct ref; symbolic refs (HEAD, origin/HEAD) follow their target."""
    from pygit2.enums import ReferenceType

    out = []
    for name in repo.references:
        ref = repo.references.get(name)
        if ref is not None and ref.type == ReferenceType.DIRECT:
            out.append((name, str(ref.target)))
    return sorted(out)



def reflog_files(git_dir: Path, common: Path) -> list[Path]:
    folders = {git_dir / "logs", common / "logs", *(p / "logs" for p in (common / "worktrees").glob("*"))}
    found: set[Path] = set()
    for folder in folders:
        if folder.is_dir():
            found.update(path for path in folder.rglob("*") if path.is_file())
    return sorted(found)



def log_ids(path: Path) -> Iterator[str]:
    """The object ids a reflog line, ORIG_HEAD, FETCH_HEAD or a detached HEAD file names."""
    for line in path.read_bytes().split(b"\n"):
        for part in line.replace(b"\t", b" ").split(b" ", 2)[:2]:
            if len(part) == 40 and part.strip(b"0") and all(c in b"0123456789abcdef" for c in part):
                yield part.decode()



def head_files(git_dir: Path, common: Path) -> list[Path]:
    """ORIG_HEAD, FETCH_HEAD and the message files of every work tree, and the HEAD files of
    linked work trees (ids when detached)."""
    folders = {git_dir, common, *(p for p in (common / "worktrees").glob("*") if p.is_dir())}
    found = [folder / name for folder in sorted(folders) for name in _HEAD_FILES]
    found += [p / "HEAD" for p in (common / "worktrees").glob("*") if p.is_dir()]
    return [p for p in found if p.is_file()]



def rewrite_log(path: Path, ids: dict[str, str], value: bytes, replacement: bytes) -> None:
    """A reflog (or ORIG_HEAD, FETCH_HEAD, a HEAD file) with its ids mapped and the value replaced.

    The ids lead each line (two in a reflog line, one elsewhere); the value is
    replaced only in the rest, so a value that looks like part of an id cannot
    break one.
    """
    data = path.read_bytes()
    out = []
    for line in data.split(b"\n"):
        lead = 0
        for _ in range(2):
            part = line[lead:lead + 40]
            if len(part) == 40 and all(c in b"0123456789abcdef" for c in part):
                line = line[:lead] + ids.get(part.decode(), part.decode()).encode() + line[lead + 40:]
                lead += 41
            else:
                break
        out.append(line[:lead] + line[lead:].replace(value, replacement))
    new = b"\n".join(out)
    if new != data:
        path.write_bytes(new)
