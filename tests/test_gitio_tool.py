"""Processes other than git: gitmem detached in the background, and system programs run to completion."""

from __future__ import annotations

import os
import sys
import time
from pathlib import Path

from gitmem.base.gitio.tool import run_program, spawn_detached


def test_a_detached_process_outlives_its_caller_in_its_own_session(tmp_path: Path) -> None:
    log = tmp_path / "job.log"
    code = "import os, time; time.sleep(0.2); print(os.getsid(0), flush=True)"
    pid = spawn_detached([sys.executable, "-c", code], str(log))
    assert pid > 0 and os.getsid(pid) == pid       # a session of its own: a closed terminal does not stop it
    for _ in range(100):
        if log.read_text().strip():
            break
        time.sleep(0.05)
    assert log.read_text().strip() == str(pid)
    os.waitpid(pid, 0)


def test_run_program_reports_exit_codes_a_missing_program_and_a_timeout() -> None:
    assert run_program([sys.executable, "-c", "import sys; sys.stdout.write(sys.stdin.read())"], b"in") == (0, b"in", b"")
    code, _, err = run_program(["gitmem-no-such-program"])
    assert code == 127 and b"cannot start" in err
    code, _, err = run_program([sys.executable, "-c", "import time; time.sleep(5)"], timeout=0.3)
    assert code == 124 and b"ran past" in err
