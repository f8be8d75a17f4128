"""An exclusive lock across processes and threads, with a timeout."""

from __future__ import annotations

import fcntl
import os
import time
from contextlib import contextmanager

from gitmem.base.errors import ConflictError

TYPE_CHECKING = False   # typing and pathlib cost milliseconds on the hooks' path: annotations only
if TYPE_CHECKING:
    from collections.abc import Iterator
    from os import PathLike


@contextmanager
def exclusive(path: str | PathLike[str], timeout: float = 120.0) -> Iterator[int]:
    """Hold ``path`` locked (flock) for the block, which gets the file descriptor; the kernel
    frees it if we die (or when every process sharing the descriptor has closed it)."""
    os.makedirs(os.path.dirname(os.fspath(path)), exist_ok=True)
    fd = os.open(path, os.O_RDWR | os.O_CREAT, 0o600)
    deadline = time.monotonic() + timeout
    delay = 0.001
    try:
        while True:
            try:
                fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
                break
            except BlockingIOError:
                if time.monotonic() > deadline:
                    raise ConflictError(f"another gitmem writer held {os.path.basename(path)} for {timeout:.0f} s",
                                        hint="wait for it to finish, or look for a stuck gitmem process") from None
                time.sleep(delay)
                delay = min(delay * 2, 0.05)
        yield fd
    finally:
        os.close(fd)


HOLD_MAX = 100.0   # seconds: a process waiting longer (an editor left open) lets the others go on


def hold_until_exit(fd: int, pid: int, limit: float = HOLD_MAX) -> None:
    """Keep the lock held on ``fd`` until process ``pid`` exits (at most ``limit`` seconds).

    A child process keeps it: flock belongs to the open file, which the child
    shares, so the caller may exit (and close its descriptor) at once.
    """
    if os.fork():
        return
    try:
        os.setsid()
        null = os.open(os.devnull, os.O_RDWR)
        for std in (0, 1, 2):   # whoever reads the caller's output must not wait for this child
            os.dup2(null, std)
        from gitmem.base.gitio.reflocks import alive, process_start

        start = process_start(pid)
        deadline = time.monotonic() + limit
        while time.monotonic() < deadline and alive(pid, start):
            time.sleep(0.01)
    finally:
        os._exit(0)
