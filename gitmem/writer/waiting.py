"""Waiting, with nothing held, for what a person's git runs: another program's ``index.lock``,
or a ``git commit`` under way in the work tree (its hooks may be waiting for our write lock)."""

from __future__ import annotations

import os
import time
from pathlib import Path

INDEX_WAIT = 60.0   # seconds a write waits for another program's index.lock (a `git commit` in its editor)


def wait_exit(pid: int, deadline: float) -> bool:
    """Wait until process ``pid`` has ended; False when ``deadline`` (time.monotonic) passes first."""
    from gitmem.base.gitio.reflocks import alive, process_start

    start = process_start(pid)
    while time.monotonic() < deadline:
        if not alive(pid, start):
            return True
        time.sleep(0.01)
    return False


def wait_gone(lock: Path, deadline: float) -> bool:
    """Wait until ``lock`` is gone; False when ``deadline`` (time.monotonic) passes first."""
    delay = 0.005
    while time.monotonic() < deadline:
        if not os.path.lexists(lock):
            return True
        time.sleep(delay)
        delay = min(delay * 2, 0.1)
    return False
