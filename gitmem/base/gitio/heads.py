"""Git's folders and HEAD, read from files the way git lays them out (no pygit2).

Importing pygit2 costs ~80 ms, which recall and the hooks must not pay (``bench/shortcuts.py``
prints the saving against pygit2 in one run; ``tests/test_gitio_heads.py`` checks these readers
against pygit2 on random ref layouts); this
module works on ``str`` paths with ``os.path`` so the hooks need no pathlib
either. A work tree's ``.git`` is a folder, or a file whose ``gitdir:`` line
points at one (linked work trees, submodules); a ``commondir`` file inside
that folder points at the folder shared by every work tree (refs, objects).
Anything unusual (a ``.git`` that is neither) is left to one ``git rev-parse``.
"""

from __future__ import annotations

import os

from gitmem.base.gitio.command import git_dirs

TYPE_CHECKING = False
if TYPE_CHECKING:
    from os import PathLike


def read_git_dirs(root: str | PathLike[str]) -> tuple[str, str] | None:
    """(git dir, common git dir) of the work tree at ``root``, absolute; None when it is not one."""
    root = os.path.abspath(root)
    dot = os.path.join(root, ".git")
    if os.path.isdir(dot):
        return dot, common_dir(dot)
    try:
        with open(dot, encoding="utf-8") as fh:
            text = fh.read().strip()
    except FileNotFoundError:
        return None  # not the top of a work tree: never the repository of a parent folder
    except (OSError, UnicodeDecodeError):
        text = ""
    if not text.startswith("gitdir:"):
        found = git_dirs(root)
        return (os.path.normpath(found[0]), os.path.normpath(found[1])) if found else None
    gdir = os.path.normpath(os.path.join(root, text[len("gitdir:"):].strip()))
    return (gdir, common_dir(gdir)) if os.path.isdir(gdir) else None


def common_dir(gdir: str | PathLike[str]) -> str:
    """The folder every work tree shares: named by ``commondir`` inside ``gdir``, else ``gdir`` itself."""
    gdir = os.path.abspath(gdir)
    text = _read(os.path.join(gdir, "commondir"))
    return os.path.normpath(os.path.join(gdir, text)) if text else gdir


def head_commit(gdir: str | PathLike[str]) -> str | None:
    """The commit id HEAD resolves to, or None (unborn, a symbolic chain, reftable…)."""
    head = _read(os.path.join(gdir, "HEAD"))
    if head is None:
        return None
    if not head.startswith("ref: "):
        return head if _is_id(head) else None
    return ref_tip(gdir, head[5:].strip())


def ref_tip(gdir: str | PathLike[str], ref: str) -> str | None:
    """The commit id the ref ``ref`` (``refs/heads/main``) names, loose or packed, or None."""
    common = common_dir(gdir)
    for base in (os.fspath(gdir), common):
        value = _read(os.path.join(base, ref))
        if value is not None:
            return value if _is_id(value) else None
    packed = _read(os.path.join(common, "packed-refs"))
    for line in (packed or "").splitlines():
        value, _, name = line.partition(" ")
        if name == ref and _is_id(value):
            return value
    return None


def ref_names(cdir: str | PathLike[str], prefix: str) -> list[str]:
    """Names of the refs under ``prefix`` (``refs/tags/gitmem/snapshot/``), loose and packed, read from
    files: no git process (a reftable repository reads as having none)."""
    cdir = os.fspath(cdir)
    found: set[str] = set()
    folder = os.path.join(cdir, *prefix.rstrip("/").split("/"))
    for base, _, names in os.walk(folder):
        rel = os.path.relpath(base, cdir).replace(os.sep, "/")
        found.update(f"{rel}/{n}" for n in names if not n.endswith(".lock"))
    packed = _read(os.path.join(cdir, "packed-refs")) or ""
    for line in packed.splitlines():
        parts = line.split(" ", 1)
        if len(parts) == 2 and parts[1].startswith(prefix):
            found.add(parts[1])
    return sorted(found)


def _read(path: str) -> str | None:
    try:
        with open(path, encoding="utf-8") as fh:
            return fh.read().strip()
    except (OSError, UnicodeDecodeError):
        return None


def _is_id(text: str) -> bool:
    return len(text) in (40, 64) and all(c in "0123456789abcdef" for c in text)
