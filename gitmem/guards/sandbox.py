"""Step 1 of the write path: every path stays inside the allowed folders."""

from __future__ import annotations

import os
from pathlib import Path
from typing import Iterable

from gitmem.base.errors import SecurityError

_HINT = "memory writes stay inside the repository's allowed folders (paths.allowed_dirs in gitmem.yaml)"


def _within(path: str, entry: str) -> bool:
    entry = entry.strip("/")
    return path == entry or path.startswith(entry + "/")


def check_path(path: str, allowed: Iterable[str], narrowed: Iterable[str] | None, root: Path | None,
               check_folders: bool = True) -> str:
    """Return ``path`` if it is safe to write, else raise SecurityError (nothing written).

    With a work tree ``root``, no part of the path may be a symlink; a caller that
    already checked the folders (many files in one folder) passes ``check_folders=False``.
    """
    if not isinstance(path, str) or not path:
        raise SecurityError("empty path", _HINT)
    if "\x00" in path or "\\" in path:
        raise SecurityError(f"path has a NUL or backslash: {path!r}", _HINT)
    if path.startswith("/") or (len(path) > 1 and path[1] == ":"):
        raise SecurityError(f"absolute path refused: {path!r}", _HINT)
    parts = path.split("/")
    if any(p in ("", ".", "..") for p in parts):
        raise SecurityError(f"path with '..', '.' or an empty part refused: {path!r}", _HINT)
    if any(p.lower() == ".git" for p in parts):
        raise SecurityError(f"path inside .git refused: {path!r}", _HINT)
    if not any(_within(path, a) for a in allowed):
        raise SecurityError(f"path outside the allowed folders: {path!r}", _HINT)
    if narrowed is not None and not any(_within(path, a) for a in narrowed):
        raise SecurityError(f"path outside GITMEM_ALLOWED_DIRS: {path!r}", "widen GITMEM_ALLOWED_DIRS or unset it")
    if root is not None:
        _check_symlinks(root, parts, path, 0 if check_folders else len(parts) - 1)
    return path


def _check_symlinks(root: Path, parts: list[str], path: str, start: int = 0) -> None:
    current = os.path.join(root, *parts[:start])   # strings: a large change checks 100k paths
    for part in parts[start:]:
        current = os.path.join(current, part)
        if os.path.islink(current):
            real_root = os.path.realpath(root)
            target = os.path.realpath(current)
            if not (target == real_root or target.startswith(real_root + os.sep)):
                raise SecurityError(f"refusing to write through a symlink leading out of the repository: {path!r}",
                                    "remove the symlink, or point it inside the repository")
            raise SecurityError(f"refusing to write through a symlink: {path!r}", "replace the symlink with a real folder or file")
        if not os.path.exists(current):
            return
