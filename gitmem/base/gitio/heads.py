"""Git's folders and HEAD, read from files the way git lays them out (no pygit2).

Importing pygit2 costs ~80 ms, which recall and the hooks must not pay. A
work tree's ``.git`` is a folder, or a file whose ``gitdir:`` line points at
one (linked work trees, submodules); a ``commondir`` file inside that folder
points at the folder shared by every work tree (refs, objects). Anything
unusual (a ``.git`` that is neither) is left to one ``git rev-parse``.
"""

from __future__ import annotations

from pathlib import Path

from gitmem.base.gitio.command import git_dirs


def read_git_dirs(root: Path) -> tuple[Path, Path] | None:
    """(git dir, common git dir) of the work tree at ``root``; None when it is not one."""
    dot = root / ".git"
    if dot.is_dir():
        gdir = dot
    else:
        try:
            text = dot.read_text(encoding="utf-8").strip()
        except FileNotFoundError:
            return None  # not the top of a work tree: never the repository of a parent folder
        except (OSError, UnicodeDecodeError):
            text = ""
        if not text.startswith("gitdir:"):
            return _asked_git_dirs(root)
        gdir = Path(text[len("gitdir:"):].strip())
        if not gdir.is_absolute():
            gdir = (root / gdir).resolve()
        if not gdir.is_dir():
            return None
    return gdir.absolute(), common_dir(gdir)


def _asked_git_dirs(path: Path) -> tuple[Path, Path] | None:
    found = git_dirs(path) if path.is_dir() else None
    return (Path(found[0]), Path(found[1])) if found else None


def common_dir(gdir: Path) -> Path:
    """The folder every work tree shares: named by ``commondir`` inside ``gdir``, else ``gdir`` itself."""
    try:
        text = (gdir / "commondir").read_text(encoding="utf-8").strip()
    except (OSError, UnicodeDecodeError):
        return gdir.absolute()
    path = Path(text)
    return (path if path.is_absolute() else (gdir / path)).resolve()


def head_commit(gdir: Path) -> str | None:
    """The commit id HEAD resolves to, or None (unborn, a symbolic chain, reftable…)."""
    try:
        head = (gdir / "HEAD").read_text(encoding="utf-8").strip()
    except (OSError, UnicodeDecodeError):
        return None
    if not head.startswith("ref: "):
        return head if _is_id(head) else None
    ref = head[5:].strip()
    common = common_dir(gdir)
    for base in (gdir, common):
        try:
            value = (base / ref).read_text(encoding="utf-8").strip()
        except (OSError, UnicodeDecodeError):
            continue
        return value if _is_id(value) else None
    try:
        packed = (common / "packed-refs").read_text(encoding="utf-8")
    except (OSError, UnicodeDecodeError):
        return None
    for line in packed.splitlines():
        value, _, name = line.partition(" ")
        if name == ref and _is_id(value):
            return value
    return None


def _is_id(text: str) -> bool:
    return len(text) in (40, 64) and all(c in "0123456789abcdef" for c in text)
