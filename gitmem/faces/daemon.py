"""The daemon: one background process per clone that runs the unattended jobs on a schedule.

Its state lives in the work tree's state folder (``base.state.worktree_dir``):
``daemon.pid`` (JSON: pid, the process start time as the kernel counts it, when it
started, each job's interval and next run) and ``daemon.log`` (one line per job run).
A pid file whose process is gone, or whose pid now belongs to another program (its
start time differs), is stale and removed by whoever finds it.

The schedule (``daemon.*`` in gitmem.yaml): harvest of the session folders every
``harvest_minutes`` (it proposes a weight update when new sessions arrived),
reflect every ``reflect_minutes`` (the job skips when nothing was written since),
decay every ``decay_hours``, and a snapshot when the month turns (checked at
harvest's pace; retried there after a failure). Jobs run one at a time in this
process; a failure is recorded by the job (``job.error``) and the loop goes on;
SIGTERM and SIGINT stop it between jobs. Intervals are measured on the monotonic
clock, so ``--now``/GITMEM_NOW (the clock the jobs see) never freezes the schedule.
The intervals are read when the daemon starts (a changed gitmem.yaml needs a restart);
each job opens the repository afresh, so it sees the current session folders and HEAD.
"""

from __future__ import annotations

import json
import os
import signal
import sys
import time
from dataclasses import dataclass, field
from datetime import datetime, timezone
from pathlib import Path

from gitmem.base.errors import ConflictError, GitmemError

TYPE_CHECKING = False
if TYPE_CHECKING:
    from gitmem.api import MemoryRepo
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
    return _read_file(pid_path(root))


def _read_file(path: Path) -> DaemonInfo | None:
    try:
        return DaemonInfo.from_json(json.loads(path.read_text("utf-8")))
    except (OSError, ValueError):
        return None


def _alive(info: DaemonInfo) -> bool:
    from gitmem.base.gitio.reflocks import alive

    return alive(info.pid, info.start)


def _write(path: Path, info: DaemonInfo) -> None:
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
        info = DaemonInfo(os.getpid(), process_start(os.getpid()), _wall(time.time()), dict(every))
        _write(pid_path(root), info)
    return info


def _release(path: Path) -> None:
    info = _read_file(path)
    if info is not None and info.pid == os.getpid():
        path.unlink(missing_ok=True)


def _wall(stamp: float) -> str:
    return datetime.fromtimestamp(stamp, timezone.utc).strftime("%Y-%m-%dT%H:%M:%SZ")


# --- the schedule ------------------------------------------------------------------

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


def _delay(last: dict[str, object] | None, every: float, now: datetime) -> float:
    """Seconds until a job is due, from its last recorded run (a restart does not rerun decay at once)."""
    from gitmem.base.clock import parse_time

    if last is None or not isinstance(last.get("at"), str):
        return 0.0
    try:
        age = (now - parse_time(str(last["at"]))).total_seconds()
    except GitmemError:
        return 0.0
    return min(max(every - age, 0.0), every)


class Loop:
    """The daemon's loop over one memory repository: ``run`` until SIGTERM or SIGINT."""

    def __init__(self, root: Path, overrides: dict[str, float] | None = None, now_text: str | None = None) -> None:
        self.root = root
        self.overrides = dict(overrides or {})
        self.now_text = now_text
        self.stopping = False
        self.due: dict[str, float] = {}
        self.every: dict[str, float] = {}
        self.snapshot_month: str | None = None
        self.pidfile = pid_path(root)   # kept: if the repository goes away, nothing is made again

    def _now(self) -> datetime:
        from gitmem.base import clock

        return clock.now(self.now_text)

    def _open(self) -> MemoryRepo:
        from gitmem.api import MemoryRepo

        return MemoryRepo.open(self.root)

    def _stop(self, signum: int, frame: object) -> None:
        self.stopping = True

    def _say(self, text: str) -> None:
        sys.stdout.write(f"{_wall(time.time())} {text}\n")
        sys.stdout.flush()

    def run(self) -> int:
        """Claim the pid file, run the jobs as they fall due, release it; the exit code."""
        from gitmem.api import MemoryRepo
        from gitmem.faces import daemon_recall

        repo = MemoryRepo.open(self.root)
        self.every = intervals(repo.cfg, self.overrides)
        info = claim(self.root, self.every)
        old = {s: signal.signal(s, self._stop) for s in (signal.SIGTERM, signal.SIGINT)}
        server = daemon_recall.serve(self.root)
        try:
            self._start_schedule(repo.job_runs())
            self._say(f"daemon started (pid {info.pid}) on {self.root}; every: "
                      + ", ".join(f"{j} {span(s)}" for j, s in self.every.items())
                      + ("; answering recall" if server is not None else "; recall runs in its own processes"))
            while not self.stopping:
                if not self._still_ours():
                    self._say("the pid file was removed or taken over: stopping")
                    return 1
                self._round()
                self._publish()
                self._sleep()
            self._say("daemon stopped")
            return 0
        finally:
            if server is not None:
                server.shutdown()
                server.server_close()
            for s, handler in old.items():
                signal.signal(s, handler)
            _release(self.pidfile)

    def _start_schedule(self, last: dict[str, dict[str, object]]) -> None:
        from gitmem.api.status import JOB_RUN

        now, mono = self._now(), time.monotonic()
        for job in SCHEDULED:
            if job == "snapshot":
                run = last.get("snapshot")
                if run is not None and run.get("event") == JOB_RUN and isinstance(run.get("at"), str):
                    self.snapshot_month = str(run["at"])[:7]
                self.due[job] = mono
            else:
                self.due[job] = mono + _delay(last.get(job), self.every[job], now)

    def _still_ours(self) -> bool:
        info = _read_file(self.pidfile)
        return info is not None and info.pid == os.getpid()

    def _round(self) -> None:
        for job in SCHEDULED:
            if self.stopping:
                return
            if time.monotonic() < self.due[job]:
                continue
            self.due[job] = time.monotonic() + self.every[job]
            now = self._now()
            if job == "snapshot" and self.snapshot_month == now.strftime("%Y-%m") and "snapshot" not in self.overrides:
                continue   # this month has its snapshot; checked again at harvest's pace
            self._run_one(job, now)

    def _run_one(self, job: str, now: datetime) -> None:
        try:
            repo = self._open()
            done = repo.run_job(job, now=now)
        except GitmemError as exc:   # the repository cannot be opened now (a broken gitmem.yaml): said, retried
            self._say(f"{job} failed: {exc.message}" + (f" ({exc.hint})" if exc.hint else ""))
            return
        except Exception:   # a bug in a job must not end the daemon: its traceback goes to the log
            import traceback

            self._say(f"{job} crashed (a bug in gitmem; please report it):")
            traceback.print_exc(file=sys.stdout)
            sys.stdout.flush()
            return
        if job == "snapshot" and done.ok:
            self.snapshot_month = now.strftime("%Y-%m")
        self._say(f"{job} {'ok' if done.ok else 'failed'}: {done.summary}")

    def _publish(self) -> None:
        info = _read_file(self.pidfile)
        if info is None or info.pid != os.getpid():
            return
        wall, mono = time.time(), time.monotonic()
        nxt = {job: _wall(wall + max(due - mono, 0.0)) for job, due in self.due.items()}
        try:
            _write(self.pidfile, DaemonInfo(info.pid, info.start, info.since, self.every, nxt))
        except OSError:
            pass   # the state folder went away: the next round sees the pid file gone and stops

    def _sleep(self) -> None:
        until = min(self.due.values())
        while not self.stopping and time.monotonic() < until:
            time.sleep(min(0.2, max(until - time.monotonic(), 0.0)))


def span(seconds: float) -> str:
    """``90`` -> ``1.5 min``: an interval as a person reads it."""
    if seconds < 120:
        return f"{round(seconds, 2):g} s"
    if seconds < 7200:
        return f"{round(seconds / 60, 1):g} min"
    return f"{round(seconds / 3600, 1):g} h"



# --- start and stop, from another process ---------------------------------------------

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
