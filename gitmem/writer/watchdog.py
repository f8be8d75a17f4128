"""A writer killed holding ``index.lock`` has it released at once, by a watchdog process.

The first write of a process starts one small process (``python -c`` running
:func:`watch`) whose standard input is the read end of a pipe; only the writer
holds the write end, and writes to it, NUL-separated, the work trees it
writes to. The pipe reaches end-of-file when the writer exits, however it
exits: SIGKILL closes it too. The watchdog then settles each work tree under
gitmem's write lock: after a normal exit there is nothing to do (one stat per
file), after a kill it does what the writer would have done next
(:func:`release`): drops the lock of a write whose branch moved, or puts the
index back and drops it for one whose branch did not, and removes the files
the journal says are the write's own. A lock whose record does not show a
dead gitmem writer is never touched.

The watchdog imports only the light modules below (no pygit2): it is ready
well before a writer reaches ``index.lock``, and a person's ``git add`` right
after the kill finds the index free.
"""

from __future__ import annotations

import json
import os
import sys
from pathlib import Path

from gitmem.base import state
from gitmem.base.gitio import refwrite, staging
from gitmem.base.gitio.command import blob_id
from gitmem.base.gitio.heads import read_git_dirs
from gitmem.base.gitio.reflocks import clear_dead_writers, lock_owner
from gitmem.guards.lock import exclusive

SETTLE_WAIT = 30.0   # seconds the watchdog waits for gitmem's write lock before leaving the work to the next writer

_pipe: tuple[int, int] | None = None   # (pid of the process that started the watchdog, the pipe's write end)
_roots: set[str] = set()

SCRIPT = ("import sys; sys.path.insert(0, sys.argv[1]); from gitmem.writer.watchdog import watch; "
          "watch(int(sys.argv[2]))")


def start(root: str | os.PathLike[str]) -> None:
    """Have this process's watchdog settle ``root`` when the process ends (started on the first call of
    each process; a forked child starts its own). Best effort: a watchdog that cannot start or has died
    leaves the recovery to ``gitmem recover`` and the next write, as before."""
    global _pipe
    top = os.fspath(root)
    if _pipe is None or _pipe[0] != os.getpid():
        from gitmem.base.gitio.tool import spawn_detached

        r, w = os.pipe()
        try:
            spawn_detached([sys.executable, "-c", SCRIPT, os.path.dirname(os.path.dirname(os.path.dirname(__file__))),
                            str(os.getpid())], os.devnull, stdin=r)
        except OSError:
            os.close(w)
            return
        finally:
            os.close(r)
        _pipe = (os.getpid(), w)
        _roots.clear()
    if top in _roots:
        return
    try:
        os.write(_pipe[1], os.fsencode(top) + b"\0")
    except OSError:
        return
    _roots.add(top)


def watch(writer: int) -> None:
    """The watchdog's process: read work trees until end-of-file (process ``writer`` has exited), then
    settle each."""
    prime()   # while the writer works: a kill is then settled by system calls alone
    data = b""
    while chunk := os.read(0, 65536):
        data += chunk
    for root in dict.fromkeys(os.fsdecode(r) for r in data.split(b"\0") if r):
        try:
            settle(root, writer)
        except Exception:   # a watchdog never fails loudly: what it leaves, recover finishes
            pass


def prime() -> None:
    """Load now what settling loads on first use (the host's name for the lock records, SHA-1 for
    the files): a watchdog woken by a kill, on a busy machine, spent some 25 ms importing them before
    it dropped the lock, and a person's `git add` right after the kill met it."""
    import socket

    socket.gethostname()
    blob_id(b"")


def settle(root: str, writer: int) -> bool:
    """Release what the killed process ``writer`` left in the work tree at ``root`` (its index.lock,
    its ref locks, its journal's files); True when there was something. Only what names ``writer``
    (its journal, or a lock record) makes it look further: another process's state is not its own."""
    dirs = read_git_dirs(root)
    if dirs is None:
        return False
    git_dir, common_dir = dirs
    journal_file = state.journal_path(root)
    folder = os.path.join(common_dir, "gitmem", "ref-writers")
    try:
        records = [os.path.join(folder, n) for n in os.listdir(folder) if n.endswith(".json")]
    except OSError:
        records = []
    if not any(_names(path, writer) for path in (journal_file, str(staging.record_path(Path(git_dir))), *records)):
        return False   # a normal exit, or another process's write: nothing of this writer's left
    with exclusive(state.write_lock_path(root), timeout=SETTLE_WAIT):
        freed = bool(clear_dead_writers(common_dir))   # a ref lock of the writer would fail the person's commit
        if not _names(journal_file, writer):
            return freed
        with open(journal_file, encoding="utf-8") as fh:
            journal = json.load(fh)
        ours = lock_owner(staging.record_path(Path(git_dir)), staging.lock_path(Path(git_dir))) == "dead"
        return release(root, git_dir, common_dir, journal, ours) or freed


def _names(path: str, pid: int) -> bool:
    """True when the JSON record (or journal) at ``path`` names process ``pid``."""
    try:
        with open(path, encoding="utf-8") as fh:
            found = json.load(fh)
    except (OSError, ValueError):
        return False
    return isinstance(found, dict) and found.get("pid") == pid


def release(root: str, git_dir: str, common_dir: str, journal: object, ours: bool) -> bool:
    """Finish, without taking ``index.lock``, a write killed at any moment of ``worktree.commit``, from
    its ``journal``; ``ours``: index.lock is the killed writer's. False (nothing done) when only the full
    recovery can finish it: an older journal, tracked files rewritten for a branch that did not move,
    or a branch some other commit moved.

    Branch moved to the write's commit: the index and the tracked files followed before the move; the
    lock goes, and the files the commit deletes that are still as they were. Branch not moved: the kept
    index goes back if the next one was swapped in, the lock goes, and the new files written before it
    (untracked) are removed. A file a person has changed since is left as it is.
    """
    if not isinstance(journal, dict):
        return False
    branch, parent, commit, nxt = (journal.get(k) for k in ("branch", "parent", "commit", "next"))
    new, gone, held = journal.get("new"), journal.get("gone"), journal.get("held")
    if not (isinstance(branch, str) and isinstance(commit, str) and isinstance(nxt, str) and "/" not in nxt
            and isinstance(new, dict) and isinstance(gone, dict) and isinstance(held, list)):
        return False
    try:
        with open(os.path.join(git_dir, "HEAD"), encoding="utf-8", errors="replace") as fh:
            if fh.read().strip() != f"ref: refs/heads/{branch}":
                return False   # the work tree is on another branch now
    except OSError:
        return False
    gdir = Path(git_dir)
    following = gdir / "gitmem" / nxt
    kept = following.with_suffix(".prev")
    tip = refwrite.current(common_dir, f"refs/heads/{branch}")
    if tip == commit:
        if ours:
            staging.drop(gdir)
        _remove_if(root, gdir, gone)
    elif not held and (tip == parent or (not ours and _never_moved_to(common_dir, branch, commit))):
        # not moved; or a person committed since, which the dead writer's lock would have stopped had
        # it still been held: the write's new files are still its own, untracked
        swapped = not following.exists()
        if ours:
            if swapped:
                staging.put_back(gdir, kept)
            staging.drop(gdir)
        elif swapped:
            return False   # the next index is in, the branch did not move, and the lock is not the writer's
        _remove_if(root, gdir, {p: h for p, h in new.items() if h is not None})
    else:
        return False
    for left in (following, kept, Path(state.journal_path(root))):
        left.unlink(missing_ok=True)
    return True


def _never_moved_to(common_dir: str, branch: str, commit: str) -> bool:
    """True when the reflog of ``branch`` shows it never pointed at ``commit`` (False when there is no
    reflog to tell)."""
    try:
        with open(os.path.join(common_dir, "logs", "refs", "heads", branch), encoding="utf-8", errors="replace") as fh:
            return not any(line.split(" ", 2)[1:2] == [commit] for line in fh)
    except OSError:
        return False


def _remove_if(root: str, git_dir: Path, blobs: dict[str, object]) -> None:
    """Remove each file under ``root`` whose content is the blob id ``blobs`` gives for its path
    (and the folders that leaves empty); any other file, a person's since, stays."""
    ours = []
    for path, blob in blobs.items():
        full = os.path.join(root, path)
        if not isinstance(blob, str) or ".." in path.split("/") or os.path.islink(full):
            continue
        try:
            with open(full, "rb") as fh:
                if blob_id(fh.read()) == blob:
                    ours.append(path)
        except (FileNotFoundError, IsADirectoryError, NotADirectoryError):
            continue
    staging.write_files(Path(root), git_dir, dict.fromkeys(ours), frozenset())
