"""The daemon: one background process per clone that runs the unattended jobs on a schedule.

Its record (pid file, log, schedule, start and stop) is ``api.daemons``. Its state lives in the work tree's state folder (``base.state.worktree_dir``):
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

import os
import signal
import sys
import time
from datetime import datetime
from pathlib import Path

from gitmem.api.daemons import (LOG_FILE, PID_FILE, SCHEDULED, DaemonInfo, claim, intervals, log_path, pid_path,
                                 read_file, release, running, start, stop, wall, write)
from gitmem.base.errors import GitmemError

TYPE_CHECKING = False
if TYPE_CHECKING:
    from gitmem.api import MemoryRepo

__all__ = ["LOG_FILE", "PID_FILE", "SCHEDULED", "DaemonInfo", "Loop", "intervals", "log_path", "pid_path", "running",
           "span", "start", "stop"]

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
        sys.stdout.write(f"{wall(time.time())} {text}\n")
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
            release(self.pidfile)

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
        info = read_file(self.pidfile)
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
        info = read_file(self.pidfile)
        if info is None or info.pid != os.getpid():
            return
        stamp, mono = time.time(), time.monotonic()
        nxt = {job: wall(stamp + max(due - mono, 0.0)) for job, due in self.due.items()}
        try:
            write(self.pidfile, DaemonInfo(info.pid, info.start, info.since, self.every, nxt))
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



