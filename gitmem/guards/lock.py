"""An exclusive lock across processes and threads, with a timeout."""

from __future__ import annotations

import fcntl
import os
import time
from contextlib import contextmanager
from pathlib import Path
from typing import Iterator

from gitmem.base.errors import ConflictError


@contextmanager
def exclusive(path: Path, timeout: float = 120.0) -> Iterator[None]:
    """Hold ``path`` locked (flock) for the block; the kernel frees it if we die."""
    path.parent.mkdir(parents=True, exist_ok=True)
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
                    raise ConflictError(f"another gitmem writer held {path.name} for {timeout:.0f} s",
                                        hint="wait for it to finish, or look for a stuck gitmem process") from None
                time.sleep(delay)
                delay = min(delay * 2, 0.05)
        yield
    finally:
        os.close(fd)
