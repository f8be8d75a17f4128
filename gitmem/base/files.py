"""Replacing a file whole: a temporary file beside it renamed over it, so a reader or a kill never sees half.

Used for every file gitmem rewrites outside git: per-clone state (job marks, the
daemon's pid file, learned names, the config cache) and a person's own files
(Claude Code settings, a crontab file, the dashboard page).
"""

from __future__ import annotations

import os
import threading


def temp_beside(path: str | os.PathLike[str]) -> str:
    """A name beside ``path`` for a file about to replace it, unique to this process and thread
    (threads of one process, an MCP server's, write at once)."""
    folder, name = os.path.split(os.fspath(path))
    return os.path.join(folder, f".{name}.{os.getpid()}-{threading.get_ident():x}.tmp")


def write_atomic(path: str | os.PathLike[str], data: str | bytes, make_folders: bool = False) -> None:
    """Replace ``path`` with ``data`` (text as UTF-8, bytes as they are) in one step.

    A symlink's target is replaced, so a linked dotfile stays linked; the file keeps its
    permission bits. A missing folder is made with ``make_folders``, else the write fails
    (the caller's to refuse). The temporary file is removed when the write fails, and the
    error raised.
    """
    target = os.path.realpath(path)
    if make_folders:
        os.makedirs(os.path.dirname(target), exist_ok=True)
    tmp = temp_beside(target)
    try:
        with open(tmp, "wb") as fh:
            fh.write(data.encode("utf-8") if isinstance(data, str) else data)
        try:
            os.chmod(tmp, os.stat(target).st_mode & 0o7777)
        except FileNotFoundError:
            pass
        os.replace(tmp, target)
    except BaseException:
        try:
            os.unlink(tmp)
        except OSError:
            pass
        raise
