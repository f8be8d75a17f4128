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
def exclusive(path: str | PathLike[str], timeout: float = 120.0) -> Iterator[None]:
    """Hold ``path`` locked (flock) for the block; the kernel frees it if we die."""
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
        yield
    finally:
        os.close(fd)
