"""The daemon's record, from any process: its pid file (claimed under a lock, a stale one removed), its
log, its schedule from gitmem.yaml, and starting or stopping it in the background. The loop itself is
the face ``faces.daemon``."""

from __future__ import annotations

import json
import os
import signal
import sys
import time
from dataclasses import dataclass, field
from datetime import datetime, timezone
from pathlib import Path
from typing import TYPE_CHECKING

from gitmem.base.errors import ConflictError, GitmemError

if TYPE_CHECKING:
    from gitmem.base.config import Config

PID_FILE = "daemon.pid"
LOG_FILE = "daemon.log"
LOCK_FILE = "daemon.lock"
LOG_KEEP = 1_048_576   # bytes: a longer log is moved to daemon.log.1 when the daemon starts
SCHEDULED = ("harvest", "reflect", "decay", "snapshot")
"""The jobs the daemon runs, in the order of a round (the weight proposal rides on harvest)."""


@dataclass(frozen=True)
class DaemonInfo:
    """What the pid file says about a running daemon."""

    pid: int
    start: str | None           # the process start time (Linux /proc), to tell a reused pid
    since: str                  # wall-clock UTC time it started
    every: dict[str, float] = field(default_factory=dict)   # seconds between runs, by job
    next: dict[str, str] = field(default_factory=dict)      # wall-clock UTC time of each job's next run

    def to_json(self) -> dict[str, object]:
        """The pid file's content."""
        return {"pid": self.pid, "start": self.start, "since": self.since, "every": self.every, "next": self.next}

    @classmethod
    def from_json(cls, data: object) -> DaemonInfo | None:
        """The record of a pid file, or None when it is not one."""
        if not isinstance(data, dict) or not isinstance(data.get("pid"), int) or isinstance(data.get("pid"), bool):
            return None
        start = data.get("start")
        every, nxt = data.get("every"), data.get("next")
        every = every if isinstance(every, dict) else {}
        nxt = nxt if isinstance(nxt, dict) else {}
        return cls(int(data["pid"]), start if isinstance(start, str) else None, str(data.get("since", "")),
                   {str(k): float(v) for k, v in every.items() if isinstance(v, (int, float))},
                   {str(k): str(v) for k, v in nxt.items() if isinstance(v, str)})


def pid_path(root: Path) -> Path:
    """The daemon's pid file for the work tree at ``root``."""
    from gitmem.base import state

    return state.worktree_dir(root) / PID_FILE


def log_path(root: Path) -> Path:
    """The daemon's log for the work tree at ``root``."""
    from gitmem.base import state

    return state.worktree_dir(root) / LOG_FILE


def _lock_path(root: Path) -> Path:
    from gitmem.base import state

    return state.worktree_dir(root) / LOCK_FILE


def _read(root: Path) -> DaemonInfo | None:
    return read_file(pid_path(root))


def read_file(path: Path) -> DaemonInfo | None:
    """The record in the pid file at ``path``, or None."""
    try:
        return DaemonInfo.from_json(json.loads(path.read_text("utf-8")))
    except (OSError, ValueError):
        return None


def _alive(info: DaemonInfo) -> bool:
    from gitmem.base.gitio.reflocks import alive

    return alive(info.pid, info.start)


def write(path: Path, info: DaemonInfo) -> None:
    """Write ``info`` to the pid file at ``path`` (atomically)."""
    from gitmem.base import files

    files.write_atomic(path, json.dumps(info.to_json(), sort_keys=True))


def running(root: Path) -> DaemonInfo | None:
    """The running daemon of the work tree at ``root``, or None; a stale pid file is removed."""
    from gitmem.guards.lock import exclusive

    info = _read(root)
    if info is not None and _alive(info):
        return info
    if not pid_path(root).exists():
        return None
    with exclusive(_lock_path(root), timeout=10.0):
        info = _read(root)     # again under the lock: a daemon may have just claimed the file
        if info is not None and _alive(info):
            return info
        pid_path(root).unlink(missing_ok=True)
    return None


def claim(root: Path, every: dict[str, float]) -> DaemonInfo:
    """Write this process's pid file; ConflictError when a daemon already runs here."""
    from gitmem.base.gitio.reflocks import process_start
    from gitmem.guards.lock import exclusive

    with exclusive(_lock_path(root), timeout=10.0):
        other = _read(root)
        if other is not None and other.pid != os.getpid() and _alive(other):
            raise ConflictError(f"the daemon is already running (pid {other.pid})", hint="gitmem daemon stop")
        info = DaemonInfo(os.getpid(), process_start(os.getpid()), wall(time.time()), dict(every))
        write(pid_path(root), info)
    return info


def release(path: Path) -> None:
    """Remove the pid file at ``path`` when it is this process's."""
    info = read_file(path)
    if info is not None and info.pid == os.getpid():
        path.unlink(missing_ok=True)


def wall(stamp: float) -> str:
    """A ``time.time()`` stamp as UTC ISO 8601 (seconds)."""
    return datetime.fromtimestamp(stamp, timezone.utc).strftime("%Y-%m-%dT%H:%M:%SZ")


def intervals(cfg: Config, overrides: dict[str, float] | None = None) -> dict[str, float]:
    """Seconds between runs of each job: gitmem.yaml's ``daemon`` section, then GITMEM_DAEMON_TICK
    (every job that often), then ``overrides`` (per job). Snapshot is checked at harvest's pace."""
    from gitmem.base.config import env_daemon_tick

    d = cfg.daemon
    every = {"harvest": d.harvest_minutes * 60.0, "reflect": d.reflect_minutes * 60.0, "decay": d.decay_hours * 3600.0}
    tick = env_daemon_tick()
    if tick is not None:
        every = dict.fromkeys(every, tick)
    every.update(overrides or {})
    every.setdefault("snapshot", every["harvest"])
    return every



def start(root: Path, extra: list[str], wait: float = 15.0) -> DaemonInfo:
    """Start ``gitmem daemon run`` on ``root`` in the background (``extra``: its options); its record.

    ConflictError when one runs already; GitmemError when it exits at once (its log says why).
    """
    from gitmem.base.gitio.tool import spawn_detached

    other = running(root)
    if other is not None:
        raise ConflictError(f"the daemon is already running (pid {other.pid})", hint="gitmem daemon stop")
    log = log_path(root)
    try:
        if log.stat().st_size > LOG_KEEP:
            os.replace(log, log.with_name(LOG_FILE + ".1"))
    except FileNotFoundError:
        pass
    argv = [sys.executable, "-m", "gitmem", "--repo", str(root), "daemon", "run", *extra]
    pid = spawn_detached(argv, str(log))
    deadline = time.monotonic() + wait
    while time.monotonic() < deadline:
        info = _read(root)
        if info is not None and info.pid == pid:
            return info
        if info is not None and info.pid != pid and _alive(info):
            raise ConflictError(f"the daemon is already running (pid {info.pid})", hint="gitmem daemon stop")
        if not _pid_alive(pid):
            break
        time.sleep(0.05)
    raise GitmemError(f"the daemon did not start: {_last_line(log) or 'no output'}", hint=f"read its log: {log}")


def _pid_alive(pid: int) -> bool:
    from gitmem.base.gitio.reflocks import alive

    try:
        if os.waitpid(pid, os.WNOHANG)[0] == pid:   # our own child: reap it, or it lingers as a zombie
            return False
    except ChildProcessError:
        pass
    return alive(pid, None)


def _last_line(path: Path) -> str:
    try:
        lines = path.read_text("utf-8", errors="replace").strip().splitlines()
    except OSError:
        return ""
    errors = [line for line in lines if line.startswith("gitmem: ")]   # what `guarded` printed, else the end
    return (errors or lines or [""])[-1][:300]


def stop(root: Path, timeout: float = 60.0) -> DaemonInfo | None:
    """Send SIGTERM to the running daemon and wait until it has exited (it finishes its current job
    and removes its pid file); its record, or None when none was running. ConflictError on timeout."""
    info = running(root)
    if info is None:
        return None
    try:
        os.kill(info.pid, signal.SIGTERM)
    except ProcessLookupError:
        pass
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        if not _pid_alive(info.pid) or not _alive(info):
            current = _read(root)
            if current is not None and current.pid == info.pid:
                pid_path(root).unlink(missing_ok=True)   # it died without cleaning up
            return info
        time.sleep(0.05)
    raise ConflictError(f"the daemon (pid {info.pid}) did not stop within {timeout:g} s",
                        hint=f"it finishes its current job first: wait and run `gitmem daemon stop` again, or kill {info.pid}")
