"""The exclusive write lock: one holder at a time across threads and processes, with a timeout."""

from __future__ import annotations

import subprocess
import sys
import threading
import time
from pathlib import Path

import pytest

from gitmem.base.errors import ConflictError
from gitmem.guards.lock import exclusive
from tests.conftest import ROOT


def test_lock_creates_its_folder_and_file_private(tmp_path: Path) -> None:
    path = tmp_path / "a" / "b" / "write.lock"
    with exclusive(path, timeout=1):
        assert path.exists()
    assert path.stat().st_mode & 0o777 == 0o600


def test_lock_is_released_after_the_block_and_after_an_exception(tmp_path: Path) -> None:
    path = tmp_path / "write.lock"
    with pytest.raises(RuntimeError):
        with exclusive(path, timeout=1):
            raise RuntimeError("boom")
    with exclusive(path, timeout=0.5):
        pass


def test_second_holder_times_out_with_a_conflict_naming_the_lock(tmp_path: Path) -> None:
    path = tmp_path / "write.lock"
    with exclusive(path, timeout=1):
        started = time.monotonic()
        with pytest.raises(ConflictError) as info:
            with exclusive(path, timeout=0.2):
                pass  # pragma: no cover - never reached
        assert time.monotonic() - started >= 0.2
    assert "write.lock" in info.value.message
    assert info.value.hint is not None and "stuck gitmem process" in info.value.hint


def test_threads_hold_the_lock_one_at_a_time(tmp_path: Path) -> None:
    path = tmp_path / "write.lock"
    inside = 0
    most = 0
    guard = threading.Lock()

    def work() -> None:
        nonlocal inside, most
        for _ in range(5):
            with exclusive(path, timeout=10):
                with guard:
                    inside += 1
                    most = max(most, inside)
                time.sleep(0.002)
                with guard:
                    inside -= 1

    threads = [threading.Thread(target=work) for _ in range(4)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert most == 1 and inside == 0


def test_waiter_gets_the_lock_when_another_process_lets_go(tmp_path: Path) -> None:
    path = tmp_path / "write.lock"
    code = ("import sys, time\nsys.path.insert(0, sys.argv[2])\nfrom pathlib import Path\n"
            "from gitmem.guards.lock import exclusive\n"
            "with exclusive(Path(sys.argv[1])):\n    print('held', flush=True)\n    time.sleep(0.3)\n")
    proc = subprocess.Popen([sys.executable, "-c", code, str(path), str(ROOT)], stdout=subprocess.PIPE, text=True)
    assert proc.stdout is not None and proc.stdout.readline().strip() == "held"
    with exclusive(path, timeout=10):
        assert proc.wait(timeout=10) == 0


def test_lock_of_a_killed_process_is_freed_by_the_kernel(tmp_path: Path) -> None:
    path = tmp_path / "write.lock"
    code = ("import sys, time\nsys.path.insert(0, sys.argv[2])\nfrom pathlib import Path\n"
            "from gitmem.guards.lock import exclusive\n"
            "with exclusive(Path(sys.argv[1])):\n    print('held', flush=True)\n    time.sleep(60)\n")
    proc = subprocess.Popen([sys.executable, "-c", code, str(path), str(ROOT)], stdout=subprocess.PIPE, text=True)
    assert proc.stdout is not None and proc.stdout.readline().strip() == "held"
    proc.kill()
    proc.wait(timeout=10)
    with exclusive(path, timeout=5):
        pass
