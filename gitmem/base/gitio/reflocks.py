"""Ref locks: tell a ``<ref>.lock`` left by a killed gitmem writer from a live git's.

Before libgit2 locks a ref, gitmem writes a record (pid, host, process start)
under the common git dir; it removes the record when the commit is done. A
later writer that finds the ref locked removes the lock only when that record
shows its writer dead. A lock without a record belongs to someone else (a
person's git): it is waited for briefly and then reported with the command to
remove it, never deleted.
"""

from __future__ import annotations

import json
import os
import time

TYPE_CHECKING = False   # pathlib: annotations only (the hooks ask is_git_commit)
if TYPE_CHECKING:
    from pathlib import Path

from gitmem.base.errors import ConflictError

STALE_AFTER = 10.0   # seconds a foreign lock may be held before it is reported


def lock_path(common_dir: Path, ref: str) -> Path:
    """``<ref>.lock`` (branches live in the folder every work tree shares)."""
    return common_dir / (ref + ".lock")


def record_path(common_dir: Path, ref: str) -> Path:
    """Where gitmem says who is writing ``ref``."""
    return common_dir / "gitmem" / "ref-writers" / (ref.replace("/", "%") + ".json")


def record_writer(common_dir: Path, ref: str) -> Path:
    """Record this process as the writer of ``ref``; returns the record's path (the caller removes it)."""
    import socket   # here: the hooks import this module on every commit and never need it

    path = record_path(common_dir, ref)
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(json.dumps({"pid": os.getpid(), "host": socket.gethostname(),
                                "start": process_start(os.getpid())}))
    return path


def clear_stale(common_dir: Path, ref: str) -> None:
    """Remove ``<ref>.lock`` when gitmem's own record shows its writer dead; otherwise wait a
    moment (a live git holds a ref lock for milliseconds), and report a lock held too long."""
    import socket

    lock = lock_path(common_dir, ref)
    try:
        rec = json.loads(record_path(common_dir, ref).read_text())
    except (OSError, ValueError):
        rec = None
    if isinstance(rec, dict) and rec.get("host") == socket.gethostname() and not alive(rec.get("pid"), rec.get("start")):
        lock.unlink(missing_ok=True)
        record_path(common_dir, ref).unlink(missing_ok=True)
        return
    try:
        age = time.time() - lock.stat().st_mtime
    except OSError:
        return   # released meanwhile
    if age > STALE_AFTER:
        raise ConflictError(f"{lock} has been held for {age:.0f} s by a process gitmem does not know",
                            hint=f"if no git command is running in this repository, remove it: rm '{lock}'")
    time.sleep(0.1)


def clear_dead_writers(common_dir: str | os.PathLike[str]) -> list[str]:
    """Remove each ``<ref>.lock`` whose gitmem record shows its writer dead (killed between locking
    the ref and renaming the lock), and the dead writers' records; returns the refs whose lock went.

    A lock without a record, or with a live writer's, is never touched. Callers hold gitmem's write
    lock (``gitmem recover``, the pre-commit hook), so no gitmem writer starts meanwhile.
    """
    folder = os.path.join(common_dir, "gitmem", "ref-writers")
    try:
        names = os.listdir(folder)
    except OSError:
        return []
    import socket

    host = socket.gethostname()
    freed: list[str] = []
    for name in names:
        if not name.endswith(".json"):
            continue
        record = os.path.join(folder, name)
        try:
            with open(record, encoding="utf-8") as fh:
                rec = json.load(fh)
        except (OSError, ValueError):
            continue   # being written, or torn: a writer's own clear_stale decides later
        if not isinstance(rec, dict) or rec.get("host") != host or alive(rec.get("pid"), rec.get("start")):
            continue
        lock = os.path.join(common_dir, name[:-len(".json")].replace("%", "/") + ".lock")
        try:
            os.unlink(lock)
            freed.append(name[:-len(".json")].replace("%", "/"))
        except FileNotFoundError:
            pass
        except OSError:
            continue
        try:
            os.unlink(record)
        except OSError:
            pass
    return freed


def process_start(pid: int) -> str | None:
    """The start time of process ``pid`` as the kernel counts it (Linux), to tell a reused pid."""
    fields = _stat(pid)
    return fields[19] if fields is not None and len(fields) > 19 else None


def alive(pid: object, start: object) -> bool:
    """True while the process of a writer record still runs: the same process, not a zombie or a reused pid."""
    if not isinstance(pid, int) or isinstance(pid, bool) or pid <= 0:
        return False
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except PermissionError:
        return True
    fields = _stat(pid)
    if fields is None:
        return True   # no /proc: the pid alone answers
    if fields[0] in ("Z", "X"):
        return False
    return start is None or (len(fields) > 19 and fields[19] == start)


def git_commit_in(root: str | os.PathLike[str]) -> int | None:
    """The pid of a `git commit` running in the work tree at ``root``, or None (none, or no /proc).

    Such a commit read HEAD when it started and fails ("cannot lock ref 'HEAD'")
    if the branch moves before it ends: the write path waits for it.
    """
    try:
        pids = os.listdir("/proc")
    except OSError:
        return None
    top = os.path.realpath(root)
    ours = _ancestors()   # a commit whose hook runs this writer is not waited for
    for pid in pids:
        if not pid.isdigit() or int(pid) in ours:
            continue
        if not is_git_commit(int(pid)):
            continue
        try:
            cwd = os.readlink(f"/proc/{pid}/cwd")
        except OSError:
            continue
        if cwd == top or cwd.startswith(top + os.sep):
            return int(pid)
    return None


def is_git_commit(pid: int) -> bool:
    """True when process ``pid`` is a `git commit` (Linux /proc; False where there is none)."""
    try:
        with open(f"/proc/{pid}/cmdline", "rb") as fh:
            argv = fh.read().split(b"\0")
    except OSError:
        return False
    return os.path.basename(argv[0]) == b"git" and b"commit" in argv[1:6]


def _ancestors() -> set[int]:
    found, pid = set(), os.getpid()
    while pid > 1 and pid not in found:
        found.add(pid)
        fields = _stat(pid)
        if fields is None or len(fields) < 3 or not fields[1].isdigit():
            break
        pid = int(fields[1])
    return found


def _stat(pid: int) -> list[str] | None:
    # /proc/<pid>/stat after the command name: state, ppid, ..., starttime (the 20th field here)
    try:
        with open(f"/proc/{pid}/stat", encoding="ascii", errors="replace") as fh:
            return fh.read().rsplit(")", 1)[1].split()
    except (OSError, IndexError):
        return None
