"""The verb of the background process: daemon start, status, stop, and run (the foreground loop)."""

from __future__ import annotations

TYPE_CHECKING = False
if TYPE_CHECKING:
    from typing import Any

from gitmem.faces.console import command, emit_json, json_flag, out

JOBS = ("harvest", "reflect", "decay", "snapshot")   # faces.daemon.SCHEDULED, without importing it for --help

EVERY_HELP = ("run JOB every SECONDS instead of its configured interval (repeatable; JOB: "
              + ", ".join(JOBS) + "); for tests and demos. GITMEM_DAEMON_TICK=SECONDS does it for every job")

RUN_EPILOG = """\
Runs in the foreground until SIGTERM or SIGINT (it finishes the current job first);
`gitmem daemon start` runs this in the background. Use it under systemd or launchd.

schedule (gitmem.yaml, daemon.*):
  harvest   the session folders every harvest_minutes (default 5); a weight update
            is proposed for review when new sessions arrived
  reflect   every reflect_minutes (default 30), only after new writes
  decay     every decay_hours (default 24)
  snapshot  when the month turns (checked at harvest's pace)

shorter intervals (tests, demos):
  GITMEM_DAEMON_TICK=SECONDS   every job that often
  --every JOB=SECONDS          one job that often (wins over the variable)
"""


def _every(text: str) -> tuple[str, float]:
    import argparse

    job, sep, raw = text.partition("=")
    if not sep or job not in JOBS:
        raise argparse.ArgumentTypeError(f"expected JOB=SECONDS with JOB one of {', '.join(JOBS)}: {text!r}")
    try:
        seconds = float(raw)
    except ValueError:
        raise argparse.ArgumentTypeError(f"not a number of seconds: {raw!r}") from None
    if not 0.05 <= seconds <= 31_536_000:
        raise argparse.ArgumentTypeError(f"{seconds:g} s is out of range [0.05..31536000]")
    return job, seconds


def _timeout(text: str) -> float:
    import argparse
    import math

    try:
        seconds = float(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"not a number of seconds: {text!r}") from None
    if not (math.isfinite(seconds) and 0 < seconds <= 86400):
        raise argparse.ArgumentTypeError(f"{text!r} is out of range (0..86400] seconds")
    return seconds


def _daemon_args(p: Any) -> None:
    import argparse

    actions = p.add_subparsers(dest="action", metavar="ACTION", required=True)
    start = actions.add_parser("start", help="start the daemon in the background (pid file and log in the clone's state folder)",
                               epilog=RUN_EPILOG, formatter_class=argparse.RawDescriptionHelpFormatter)
    start.add_argument("--every", metavar="JOB=SECONDS", type=_every, action="append", default=[], help=EVERY_HELP)
    run = actions.add_parser("run", help="run the daemon's loop in the foreground (what start runs)",
                             epilog=RUN_EPILOG, formatter_class=argparse.RawDescriptionHelpFormatter)
    run.add_argument("--every", metavar="JOB=SECONDS", type=_every, action="append", default=[], help=EVERY_HELP)
    status = actions.add_parser("status", help="running or not, pid, since; each job's last run, result and next run "
                                               "(exit 0 running, 1 not running)")
    json_flag(status)
    stop = actions.add_parser("stop", help="stop the daemon after its current job (exit 0, also when it was not running)")
    stop.add_argument("--timeout", type=_timeout, default=60.0, metavar="SECONDS",
                      help="how long to wait for it to exit (default 60)")


@command("daemon", "run the background jobs on a schedule: daemon start | status | stop | run", _daemon_args)
def cmd_daemon(args: Any) -> int:
    from gitmem.faces.console import root_of

    root = root_of(args)
    if args.action == "run":
        from gitmem.faces.daemon import Loop

        return Loop(root, dict(args.every), getattr(args, "now", None)).run()
    if args.action == "start":
        return _start(root, args)
    if args.action == "stop":
        return _stop(root, args.timeout)
    return _status(root, args)


def _start(root: Any, args: Any) -> int:
    from gitmem.faces import daemon

    extra = [f"--every={job}={seconds:g}" for job, seconds in args.every]
    if getattr(args, "now", None):
        extra += ["--now", args.now]
    info = daemon.start(root, extra)
    out(f"daemon started (pid {info.pid}); log: {daemon.log_path(root)}")
    out("see it with `gitmem daemon status`, stop it with `gitmem daemon stop`")
    return 0


def _stop(root: Any, timeout: float) -> int:
    from gitmem.faces import daemon

    info = daemon.stop(root, timeout)
    if info is None:
        out("the daemon is not running")
    else:
        out(f"daemon stopped (pid {info.pid})")
    return 0


def _status(root: Any, args: Any) -> int:
    import time

    from gitmem.api import MemoryRepo
    from gitmem.api.status import JOB_RUN
    from gitmem.faces import daemon

    info = daemon.running(root)
    repo = MemoryRepo.open(root)
    last = repo.job_runs()
    every = info.every if info is not None and info.every else daemon.intervals(repo.cfg)
    nxt = info.next if info is not None else {}
    if args.json:
        emit_json({"running": info is not None, "pid": info.pid if info else None, "since": info.since if info else None,
                   "log": str(daemon.log_path(root)),
                   "jobs": {job: {"every": every.get(job), "last": last.get(job), "next": nxt.get(job)}
                            for job in daemon.SCHEDULED}})
        return 0 if info is not None else 1
    if info is None:
        out("daemon: not running (start it with `gitmem daemon start`)")
    else:
        out(f"daemon: running, pid {info.pid}, since {info.since}")
    out(f"log: {daemon.log_path(root)}")
    now = time.time()
    for job in daemon.SCHEDULED:
        run = last.get(job)
        result = "never ran" if run is None else \
            f"{run.get('at')} {'ok' if run.get('event') == JOB_RUN else 'FAILED'}: {run.get('summary', '')}"
        pace = f"every {daemon.span(every[job])}"
        if job == "snapshot":
            pace = f"when the month turns (checked every {daemon.span(every[job])})"
        out(f"  {job:<9} {pace}")
        out(f"            last: {result}")
        if job in nxt:
            out(f"            next: {nxt[job]} ({_until(nxt[job], now)})")
    return 0 if info is not None else 1


def _until(stamp: str, now: float) -> str:
    from datetime import datetime

    try:
        seconds = datetime.fromisoformat(stamp.replace("Z", "+00:00")).timestamp() - now
    except ValueError:
        return "unknown"
    from gitmem.faces.daemon import span

    return "due now" if seconds <= 0 else f"in {span(round(seconds))}"
