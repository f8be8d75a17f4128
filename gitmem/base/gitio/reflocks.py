"""Ref locks: tell a ``<ref>.lock`` left by a killed gitmem writer from a live git's.

Before libgit2 locks a ref, gitmem writes a record (pid, host, process start)
under the common git dir; when the commit is done the record is blanked. A
later writer that finds the ref locked removes the lock only when that record
shows its writer dead. A lock without a record (or with a blank one) belongs to
someone else (a person's git): it is waited for briefly and then reported with
the command to remove it, never deleted.

A record is rewritten in place at a fixed size (``RECORD_BYTES``) rather than
made and removed on every commit: freeing a file's block is the dearest system
call of a commit on a disk mounted with ``discard`` (about 3 ms of a 10 ms
commit, measured with bench/commit.py), and the raw commit it is compared with
frees one block (the old ref), not two.
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
OURS_WITHIN = 60.0   # seconds after its record that a lock of gitmem's was made (or last rewritten)


def lock_path(common_dir: Path, ref: str) -> Path:
    """``<ref>.lock`` (branches live in the folder every work tree shares)."""
    return common_dir / (ref + ".lock")


RECORDS = os.path.join("gitmem", "ref-writers")   # under the common git dir


def record_path(common_dir: Path, ref: str) -> Path:
    """Where gitmem says who is writing ``ref``."""
    return common_dir / RECORDS / _record_name(ref)


def _record_name(ref: str) -> str:
    return ref.replace("/", "%") + ".json"


RECORD_BYTES = 512   # a record's fixed size: JSON padded with spaces (a host name has at most 255 bytes)
_BLANK = b"{}".ljust(RECORD_BYTES)
_me: tuple[int, bytes] | None = None   # this process's record (pid, bytes): the same on every commit


def record_writer(common_dir: str | os.PathLike[str], ref: str) -> str:
    """Record this process as the writer of ``ref``; returns the record's path (the caller blanks it
    with :func:`release_record` when the ref has moved or the write failed). Paths as strings: this
    runs on every commit."""
    path = os.path.join(common_dir, RECORDS, _record_name(ref))   # record_path, without pathlib
    try:
        write_record(path)
    except FileNotFoundError:
        os.makedirs(os.path.dirname(path), exist_ok=True)
        write_record(path)
    return path


def write_record(path: str | os.PathLike[str]) -> None:
    """Write, whole or not at all, the record naming this process (pid, host, process start) as the
    writer about to make the lock beside it: a kill right after the lock is made still names us.

    One ``pwrite`` of ``RECORD_BYTES`` at the start of the file, which it replaces whole: within one
    page a write is done entirely or not at all, and a torn one reads as no record (never as a dead
    writer's)."""
    global _me
    pid = os.getpid()
    if _me is None or _me[0] != pid:   # a forked child is another writer
        import socket   # here: the hooks import this module on every commit and never need it

        data = json.dumps({"pid": pid, "host": socket.gethostname(), "start": process_start(pid)})
        _me = (pid, data.encode("utf-8").ljust(RECORD_BYTES))
    _overwrite(path, _me[1])


def release_record(path: str | os.PathLike[str]) -> None:
    """Blank the record at ``path``: it names no writer any more (the file stays, to be rewritten)."""
    try:
        _overwrite(path, _BLANK, create=False)
    except FileNotFoundError:
        pass


def _overwrite(path: str | os.PathLike[str], data: bytes, create: bool = True) -> None:
    fd = os.open(path, os.O_WRONLY | (os.O_CREAT if create else 0), 0o666)
    try:
        os.pwrite(fd, data, 0)   # an older, shorter record is covered whole (a longer one reads as none)
    finally:
        os.close(fd)


def lock_owner(record: str | os.PathLike[str], lock: str | os.PathLike[str]) -> str | None:
    """Whose ``lock`` is, by gitmem's record beside it: ``"self"`` (this process), ``"dead"`` (a gitmem
    writer that died holding it), ``"live"`` (another running gitmem writer), or None when it is not
    gitmem's to judge: no lock, no readable record, another host, or a lock made long after the record
    (a person's git that took the lock after a killed writer left its record)."""
    import socket

    try:
        locked = os.stat(lock).st_mtime   # first: most records (blank, kept for the next commit) have no lock
        with open(record, encoding="utf-8") as fh:
            rec = json.load(fh)
            made = os.fstat(fh.fileno()).st_mtime
    except (OSError, ValueError):
        return None
    if not isinstance(rec, dict) or rec.get("host") != socket.gethostname():
        return None
    if not made - 1 <= locked <= made + OURS_WITHIN:
        return None
    pid, start = rec.get("pid"), rec.get("start")
    if pid == os.getpid() and start == process_start(os.getpid()):
        return "self"
    return "live" if alive(pid, start) else "dead"


def clear_stale(common_dir: Path, ref: str) -> None:
    """Remove ``<ref>.lock`` when gitmem's own record shows its writer dead; otherwise wait a
    moment (a live git holds a ref lock for milliseconds), and report a lock held too long."""
    lock = lock_path(common_dir, ref)
    if lock_owner(record_path(common_dir, ref), lock) == "dead":
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
        names = [n for n in os.listdir(folder) if n.endswith(".json")]
    except OSError:
        return []
    freed: list[str] = []
    for name in names:
        ref = name[:-len(".json")].replace("%", "/")
        record, lock = os.path.join(folder, name), os.path.join(common_dir, ref + ".lock")
        if lock_owner(record, lock) != "dead":
            continue   # no lock, a live writer's, or not gitmem's to judge
        try:
            os.unlink(lock)
            freed.append(ref)
            os.unlink(record)
        except OSError:
            continue
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
