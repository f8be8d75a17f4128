"""The agent hook actions: ``gitmem hook session-start | session-end | post-session | cron``.

Claude Code runs the first two (SessionStart, SessionEnd, with the hook JSON on stdin), the
detached hand-off and a person run ``post-session``, cron runs ``cron``. Nobody reads their exit
code: a failure never blocks a session. It exits 0 and is recorded as a ``job.error`` event,
which ``gitmem status`` shows and the next SessionStart shows once. Only wrong arguments exit 2.
``githooks.main`` dispatches here, lazily: the pre-commit hot path never imports this module.
"""

from __future__ import annotations

import os
import sys

from gitmem.faces.console import err, out

TYPE_CHECKING = False
if TYPE_CHECKING:
    from datetime import datetime
    from pathlib import Path
    from typing import Any

    from gitmem.api import MemoryRepo

INPUT_LIMIT = 1 << 20        # bytes of hook JSON read at most
INPUT_WAIT = 5.0             # seconds to wait for the hook JSON to end
LOG_LIMIT = 1 << 20          # a background log past this size is set aside (one older copy kept)
NOTICE_FILE = "hook-notice.json"   # per clone: the last job error a SessionStart has shown
SETTLE = 1.0                 # seconds a transcript must be still before post-session reads it
SETTLE_MAX = 5.0

# --- hook actions -----------------------------------------------------------------------------

def hook_action(name: str, argv: list[str], repo: str | None = None) -> int:
    """Run the agent hook action ``name`` (one of ``githooks.AGENT_HOOKS``) with its arguments; the exit code."""
    import argparse

    p = argparse.ArgumentParser(prog=f"gitmem hook {name}", allow_abbrev=False)
    p.add_argument("--repo", metavar="DIR", default=repo, help="memory repository")
    p.add_argument("--now", metavar="ISO8601", help="the clock (also GITMEM_NOW)")
    if name == "session-start":
        p.add_argument("--check", action="store_true", help=argparse.SUPPRESS)  # install's trial run
    if name == "post-session":
        p.add_argument("file", nargs="?", metavar="FILE", help="the transcript (default: the newest session log)")
    try:
        args = p.parse_args(argv)
    except SystemExit as exc:
        return exc.code if isinstance(exc.code, int) else 2
    actions = {"session-start": _session_start, "session-end": _session_end,
               "post-session": _post_session, "cron": _cron_hook}
    return actions[name](args)


def _root(args: Any) -> Path | None:
    """The memory repository the hook names, or None (said on stderr) when there is none to record in."""
    from gitmem.api.clone import find_root
    from gitmem.base.errors import GitmemError

    try:
        return find_root(args.repo)
    except GitmemError as exc:
        err(f"gitmem: error: {exc.message}")
        if exc.hint:
            err(f"hint: {exc.hint}")
        return None


def _begin(args: Any) -> tuple[Path, datetime, dict[str, object], str | None] | None:
    """What a Claude Code hook starts from: the memory repository (None when there is none: said on
    stderr, the hook exits 0), the clock, and the hook's JSON input with what was wrong with it."""
    root = _root(args)
    if root is None:
        return None
    now = _clock(args)
    data, problem = read_hook_input()
    return root, now, data, problem


def _clock(args: Any) -> datetime:
    from gitmem.base import clock

    return clock.now(args.now)


def record_error(root: str | os.PathLike[str], job: str, at: datetime, summary: str, hint: str | None = None) -> None:
    """Record a hook's failure as a ``job.error`` event (``gitmem status``, the next SessionStart)."""
    from gitmem.api.status import record_failure

    record_failure(root, job, at, summary, hint)


def read_hook_input() -> tuple[dict[str, object], str | None]:
    """The JSON object Claude Code writes on stdin, and ``None``; or ``{}`` and what was wrong with it.

    A terminal on stdin (a person running the hook by hand) is no input and no problem. Reading waits
    at most ``INPUT_WAIT`` seconds for the end of input and takes at most ``INPUT_LIMIT`` bytes.
    """
    import json
    import select
    import time

    stream = sys.stdin
    if stream is None:
        return {}, "no stdin"
    try:
        if stream.isatty():
            return {}, None
        fd = stream.fileno()
    except (OSError, ValueError):
        return {}, "stdin cannot be read"
    chunks: list[bytes] = []
    size = 0
    deadline = time.monotonic() + INPUT_WAIT
    while True:
        left = deadline - time.monotonic()
        if left <= 0:
            return {}, f"the hook input did not end within {INPUT_WAIT:g} s"
        ready, _, _ = select.select([fd], [], [], left)
        if not ready:
            continue
        chunk = os.read(fd, 65536)
        if not chunk:
            break
        size += len(chunk)
        if size > INPUT_LIMIT:
            return {}, f"the hook input is larger than {INPUT_LIMIT} bytes"
        chunks.append(chunk)
    raw = b"".join(chunks)
    if not raw.strip():
        return {}, "the hook input on stdin is empty"
    try:
        data = json.loads(raw.decode("utf-8"))
    except (UnicodeDecodeError, ValueError, RecursionError) as exc:
        return {}, f"the hook input is not JSON: {type(exc).__name__}"
    if not isinstance(data, dict):
        return {}, "the hook input is not a JSON object"
    return data, None


def _session_start(args: Any) -> int:
    from pathlib import Path

    begun = _begin(args)
    if begun is None:
        return 0
    root, now, data, problem = begun
    if problem:
        record_error(root, "session-start", now, problem, "Claude Code sends one JSON object on stdin")
    cwd = data.get("cwd")
    here = Path(cwd) if isinstance(cwd, str) and cwd and os.path.isdir(cwd) else Path.cwd()
    if _from_daemon(root, args, here, now):
        return 0
    from gitmem.api import MemoryRepo
    from gitmem.base.errors import GitmemError

    try:
        repo = MemoryRepo.open(root)
        sys.stdout.write(session_start_text(repo, here, mark=not args.check))
    except (GitmemError, OSError) as exc:
        message = exc.message if isinstance(exc, GitmemError) else f"{type(exc).__name__}: {exc}"
        record_error(root, "session-start", now, message, getattr(exc, "hint", None))
        err(f"gitmem: error: {message}")
    return 0


def _from_daemon(root: Path, args: Any, here: Path, now: datetime) -> bool:
    """Whether the running daemon printed the SessionStart text (it keeps the index and config warm);
    False when no daemon answers, and the hook makes the text itself."""
    from gitmem.faces import daemon_recall

    argv = ["--repo", str(root), *(["--now", args.now] if args.now else []), "load-core", "--session-start",
            *(["--no-mark"] if args.check else [])]
    code = daemon_recall.ask(argv, cwd=str(here))
    if code is None:
        return False
    if code != 0:   # the daemon said why on stderr; recorded as the in-process failure would be
        record_error(root, "session-start", now, f"the daemon's load-core exited {code}")
    return True


def session_start_text(repo: MemoryRepo, here: Path | None, mark: bool = True) -> str:
    """What SessionStart adds to the agent's context: a job error not shown before (once), the core memories
    as quoted data for the project of ``here``, and two lines on what is worth keeping and the commands that
    keep and recall it; the whole within ``budgets.core_chars``. ``mark`` records the error as shown."""
    limit = repo.cfg.budgets.core_chars
    project = str(here) if here is not None and repo.project_of(here) is not None else None
    # a long repository or project path, a small budget: the lines without the paths, else the one short line
    choices = [how_text(str(repo.root), project), how_text(None, None), how_text(None, None, short=True)]
    how = "\n" + next((c for c in choices if len(c) + 2 <= limit - 200), choices[-1]) + "\n"
    notice, key = _unseen_error(repo.root)
    if limit - len(notice) - len(how) < 200:
        notice = ""
    budget = limit - len(notice) - len(how)
    core = repo.load_core(budget, here=here).text.rstrip("\n") + "\n" if budget >= 200 else ""
    if mark and notice and key:
        _mark_shown(repo.root, key)
    return notice + core + how


# What an agent should keep of a session itself; the MCP `remember` tool says the same.
WORTH_KEEPING = ("a rule or preference the user states, a decision and its reason, a fact about the project, "
                 "the cause of a failure and the fix that worked")


def how_text(root: str | None, project: str | None, short: bool = False) -> str:
    """Two lines: what is worth keeping, and the exact commands that keep it (a user's rule for every project,
    the rest for ``project``, a folder) and recall more, with the interpreter and repository this runs with.
    ``short``: one line of the two commands, for the smallest budgets."""
    import shlex

    cmd = f"{shlex.quote(sys.executable)} -m gitmem" + (f" --repo {shlex.quote(root)}" if root else "")
    if short:
        return f'Memory commands: `{cmd} remember --type TYPE "..."` keeps a lesson; `{cmd} recall "..."` finds more.'
    scope = f" --domain project --project {shlex.quote(project)}" if project else ""
    return (f"Worth keeping, as it happens, one short statement in your own words (never a secret, never pasted "
            f"output): {WORTH_KEEPING}.\n"
            f'Memory commands: `{cmd} remember --type preference --domain user "..."` keeps a rule of the user\'s; '
            f'`{cmd} remember --type decision{scope} "..."` (or --type fact, --type error) keeps one of this project; '
            f'`{cmd} recall "what to look for"` finds more.')


def _unseen_error(root: Path) -> tuple[str, str]:
    """The last job error as quoted text, and its key; ("", "") when there is none or it was shown."""
    from gitmem.api.status import unseen_job_error

    return unseen_job_error(root, NOTICE_FILE)


def _mark_shown(root: Path, key: str) -> None:
    from gitmem.api.status import mark_job_error_shown

    mark_job_error_shown(root, NOTICE_FILE, key)


def _log(root: Path, name: str) -> Path:
    """A background log under the clone's state folder; one past ``LOG_LIMIT`` is set aside first."""
    from gitmem.api.clone import log_file

    return log_file(root, name, LOG_LIMIT)


def _session_end(args: Any) -> int:
    from pathlib import Path

    from gitmem.api.clone import spawn

    begun = _begin(args)
    if begun is None:
        return 0
    root, now, data, problem = begun
    given = data.get("transcript_path")
    if problem is None and not (isinstance(given, str) and given):
        problem = "the hook input names no transcript_path"
    path = Path(str(given)).expanduser() if problem is None else None
    if path is not None and not path.is_file():
        problem = f"the session's transcript is not there: {path.name}"
    if path is not None and problem is None:
        problem = _outside_session_folders(root, path)
    if problem or path is None:
        record_error(root, "session-end", now, problem or "no transcript", "Claude Code sends one JSON object on stdin")
        return 0
    argv = [sys.executable, "-m", "gitmem", "hook", "post-session", str(path.resolve()), "--repo", str(root)]
    if args.now:
        argv += ["--now", args.now]
    log = _log(root, "post-session.log")
    try:
        pid = spawn(argv, str(log))
    except OSError as exc:
        record_error(root, "session-end", now, f"cannot start the background harvest: {exc.strerror or exc}")
        return 0
    out(f"gitmem: harvest of {path.name} handed off (pid {pid}, log {log})")
    return 0


def _outside_session_folders(root: Path, path: Path) -> str | None:
    """Why the hook must not harvest ``path`` (its real path lies outside daemon.session_folders), or None."""
    from gitmem.api.harvest import outside_folders_of

    return outside_folders_of(root, path)


def newest_session(folders: list[Path]) -> Path | None:
    """The main transcript, in ``folders``, of the session written to last (its sub-agent files count)."""
    from gitmem.api.harvest import newest_session as newest

    return newest(folders)


def _open(root: Path, job: str, now: datetime) -> MemoryRepo | None:
    """The memory repository, or None when it cannot be opened (a broken gitmem.yaml): recorded and said."""
    from gitmem.api import MemoryRepo
    from gitmem.base.errors import GitmemError

    try:
        return MemoryRepo.open(root)
    except GitmemError as exc:
        record_error(root, job, now, exc.message, exc.hint)
        err(f"gitmem: error: {exc.message}")
        return None


def _settle(path: Path) -> None:
    """Wait (at most ``SETTLE_MAX`` s) until ``path`` has not changed for ``SETTLE`` s: Claude Code writes
    the transcript asynchronously and it may lag the session's last turn."""
    import time

    deadline = time.monotonic() + SETTLE_MAX
    while time.monotonic() < deadline:
        try:
            age = time.time() - path.stat().st_mtime
        except OSError:
            return
        if age >= SETTLE:
            return
        time.sleep(min(SETTLE - age, 0.25) + 0.01)


def _post_session(args: Any) -> int:
    from pathlib import Path

    root = _root(args)
    if root is None:
        return 2
    now = _clock(args)
    path: Path | None = Path(args.file).expanduser() if args.file else None
    if path is not None and not path.exists():
        record_error(root, "harvest", now, f"post-session: no such transcript: {path.name}")
        err(f"gitmem: error: no such file: {args.file}")
        return 2
    repo = _open(root, "harvest", now)
    if repo is None:
        return 0
    if path is None:
        path = newest_session(repo.session_folders())
        if path is None:
            out("post-session: no session log in the configured folders (daemon.session_folders)")
            return 0
    _settle(path)
    run = repo.run_job("harvest", now, paths=[path])
    counts = run.details.get("counts")
    failed = not run.ok or (isinstance(counts, dict) and bool(counts) and set(counts) <= {"failed"})
    out(f"post-session: {'failed' if failed else 'ok'}: {run.summary}")
    if failed and not run.ok and run.details.get("hint"):
        out(f"hint: {run.details['hint']}")
    return 1 if failed else 0


def _cron_hook(args: Any) -> int:
    root = _root(args)
    if root is None:
        return 2
    _log(root, "cron.log")
    now = _clock(args)
    repo = _open(root, "harvest", now)
    if repo is None:
        return 0
    run = repo.run_job("harvest", now)
    out(f"cron: {run.at} {'ok' if run.ok else 'failed'}: {run.summary}")
    if repo.decay_due(now):   # daily (daemon.decay_hours), whether or not the daemon runs
        run = repo.run_job("decay", now)
        out(f"cron: {run.at} decay {'ok' if run.ok else 'failed'}: {run.summary}")
    return 0
