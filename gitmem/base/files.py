"""Replacing a file whole: a temporary file beside it renamed over it, so a reader or a kill never sees half.

Used for every file gitmem rewrites outside git: per-clone state (job marks, the
daemon's pid file, learned names, the config cache) and a person's own files
(Claude Code settings, a crontab file, the dashboard page).
"""

from __future__ import annotations

import errno
import os
import stat
import threading

TYPE_CHECKING = False
if TYPE_CHECKING:
    from collections.abc import Iterable


def temp_beside(path: str | os.PathLike[str]) -> str:
    """A name beside ``path`` for a file about to replace it, unique to this process and thread
    (threads of one process, an MCP server's, write at once)."""
    folder, name = os.path.split(os.fspath(path))
    return os.path.join(folder, f".{name}.{os.getpid()}-{threading.get_ident():x}.tmp")


def write_atomic(path: str | os.PathLike[str], data: str | bytes, make_folders: bool = False) -> None:
    """Replace ``path`` with ``data`` (text as UTF-8, bytes as they are) in one step.

    A symlink's target is replaced, so a linked dotfile stays linked; the file keeps its
    permission bits. Anything but a regular file (a device such as /dev/full, a pipe) is refused with
    an OSError, as is a symbolic link loop (ELOOP). A missing folder is made with ``make_folders``, else the write fails
    (the caller's to refuse). The temporary file is removed when the write fails, and the
    error raised.
    """
    target = os.path.realpath(path)
    try:
        mode = os.stat(target).st_mode
    except FileNotFoundError:
        mode = None
    if mode is not None and not stat.S_ISREG(mode):   # renaming over /dev/full would replace the device
        raise OSError(errno.EINVAL, "not a regular file (a device, a pipe or a folder)", os.fspath(path))
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


def confined(path: str | os.PathLike[str], folders: Iterable[str | os.PathLike[str]]) -> bool:
    """The one rule for a path that gitmem reads on someone else's word (an import, the unattended harvest,
    an agent's hook or MCP call): True only when ``path`` as given has no ``..`` part and its real path,
    every symbolic link resolved, is one of ``folders`` or lies inside one (their links resolved too).
    A link inside a folder that points out is outside."""
    given = os.path.expanduser(os.fspath(path))
    if ".." in given.split(os.sep):
        return False
    try:
        real = os.path.realpath(given)
        bases = [os.path.realpath(os.path.expanduser(os.fspath(f))) for f in folders]
    except (OSError, ValueError):   # a NUL in the name, a name too long for the system
        return False
    return any(real == base or real.startswith(base.rstrip(os.sep) + os.sep) for base in bases)
