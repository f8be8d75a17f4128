"""The index of a work tree, rewritten under git's own ``index.lock``.

gitmem takes ``index.lock`` exactly as git does (created exclusively, so a
person's ``git commit`` or ``git add`` meanwhile refuses instead of racing),
writes the new index into it and renames it over ``index``. The write path
holds it while changed tracked files are rewritten, the next index goes in
and the branch moves (``gitmem.writer.worktree``): a person's commit meanwhile
refuses, and can never commit an index that lacks what the branch already
holds. A writer killed holding it has it released by its watchdog
(``gitmem.writer.watchdog``), or else by ``gitmem recover``.

Beside the lock, gitmem keeps a record of its own (pid, host, process start,
when it took the lock) in ``<git dir>/gitmem/index-writer.json``. A lock whose
record shows its writer dead is gitmem's to finish or drop; any other lock
belongs to someone else and is never deleted, by age or otherwise: it is
waited for, then reported with the command to remove it.
"""

from __future__ import annotations

import os

from gitmem.base.errors import IndexLocked
import gitmem.base.gitio.reflocks as reflocks

TYPE_CHECKING = False
if TYPE_CHECKING:
    from collections.abc import Callable, Mapping, Sequence
    from typing import Any
    from pathlib import Path

LOCK = "index.lock"
RECORD = ("gitmem", "index-writer.json")


def lock_path(git_dir: Path) -> Path:
    """``<git dir>/index.lock``, git's own lock of the index."""
    return git_dir / LOCK


def record_path(git_dir: Path) -> Path:
    """Where gitmem says which of its processes holds ``index.lock``."""
    return git_dir.joinpath(*RECORD)


def take(git_dir: Path, copy: bool = True) -> Path:
    """Create ``index.lock`` holding a copy of the index (empty unless ``copy``: the new index was
    prepared beside it, ``prepare``), and record this process as its writer.

    A lock already there is removed first only when gitmem's own record shows
    its writer dead (``owner_gone``); otherwise IndexLocked is raised at once
    (the caller waits with nothing held, and retries).
    """
    lock = lock_path(git_dir)
    record = record_path(git_dir)
    record.parent.mkdir(parents=True, exist_ok=True)
    for _ in range(3):
        if os.path.lexists(lock):
            if not owner_gone(git_dir):
                raise IndexLocked(str(lock))
            drop(git_dir)
        reflocks.write_record(record)   # before the lock: a kill right after creating it still names us
        try:
            fd = os.open(lock, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o644)
        except FileExistsError:
            record.unlink(missing_ok=True)   # someone else's lock appeared meanwhile
            continue
        # Only a stage into index.lock (ours, held) makes index.lock.lock: one left there is
        # a killed gitmem writer's, and would make this stage fail.
        lock.with_name(LOCK + ".lock").unlink(missing_ok=True)
        try:
            with os.fdopen(fd, "wb") as fh:
                try:
                    if copy:
                        with open(git_dir / "index", "rb") as src:
                            fh.write(src.read())
                except FileNotFoundError:
                    pass   # no index yet: an empty lock file stands for an empty index
        except BaseException:
            drop(git_dir)
            raise
        return lock
    raise IndexLocked(str(lock))


def owner_gone(git_dir: Path) -> bool:
    """True when ``index.lock`` is gitmem's and its writer is dead (or is this very process,
    which only a caller holding gitmem's write lock asks: then no write of ours is under way).

    gitmem's record is written just before the lock is made, and the lock is
    rewritten (by rename) only while it is staged, so a lock of ours dates from
    within a minute after its record; any other lock is someone else's.
    """
    return reflocks.lock_owner(record_path(git_dir), lock_path(git_dir)) in ("self", "dead")


def stamp(git_dir: Path) -> tuple[int, int, int] | None:
    """What tells one version of the index from another (inode, size, mtime); None when there is none."""
    try:
        st = os.stat(git_dir / "index")
    except FileNotFoundError:
        return None
    return st.st_ino, st.st_size, st.st_mtime_ns


def prepare(git_dir: Path, root: Path, entries: Mapping[str, tuple[str, int] | None],
            large: bool) -> tuple[Path, tuple[int, int, int] | None]:
    """The next index, staged in a file of its own beside the index, without taking ``index.lock``:
    (its path, the ``stamp`` of the index it was copied from). ``install`` puts it in place, under
    the lock, as long as the index is still that one."""
    folder = git_dir / "gitmem"
    folder.mkdir(parents=True, exist_ok=True)
    target = folder / f"index.{os.getpid()}.next"
    for _ in range(3):
        before = stamp(git_dir)
        try:
            with open(git_dir / "index", "rb") as src:
                data = src.read()
        except FileNotFoundError:
            data = b""
        if stamp(git_dir) == before:
            break
    with open(target, "wb") as fh:
        fh.write(data)
    try:
        stage(git_dir, root, entries, large, target)
    except BaseException:
        target.unlink(missing_ok=True)
        raise
    return target, before


def keep(git_dir: Path, copy: Path) -> None:
    """A hard link to the index as it is (``put_back`` restores it); none when there is no index."""
    copy.unlink(missing_ok=True)
    try:
        os.link(git_dir / "index", copy)
    except FileNotFoundError:
        pass


def swap(git_dir: Path, prepared: Path) -> None:
    """Rename the ``prepare``d index over the index, ``index.lock`` still held (``drop`` ends it)."""
    os.replace(prepared, git_dir / "index")


def put_back(git_dir: Path, copy: Path) -> None:
    """The index ``keep`` kept, back in place (``index.lock`` held); no index when none was kept."""
    if copy.exists():
        os.replace(copy, git_dir / "index")
    else:
        (git_dir / "index").unlink(missing_ok=True)


def stage(git_dir: Path, root: Path, entries: Mapping[str, tuple[str, int] | None], large: bool,
          into: Path | None = None) -> None:
    """Write ``entries`` (path -> (blob id, mode), None removes) into the held ``index.lock`` (or the
    index file ``into``).

    Entries carry no file stat (git re-reads such files once, as after
    ``read-tree``); the rest of the index is kept as it was.
    """
    lock = into if into is not None else lock_path(git_dir)
    if large:
        from gitmem.base.gitio.command import update_index_info

        update_index_info(root, lock, entries)
        return
    import pygit2
    from pygit2.enums import FileMode

    empty = lock.stat().st_size == 0   # no index before: libgit2 starts one beside the lock
    target = lock.with_name(f"index.{os.getpid()}.new") if empty else lock
    if empty:
        target.unlink(missing_ok=True)   # a leftover of a killed writer
    idx = pygit2.Index(str(target))
    for path, entry in entries.items():
        if entry is None:
            if path in idx:
                idx.remove(path)
        else:
            idx.add(pygit2.IndexEntry(path, pygit2.Oid(hex=entry[0]), FileMode(entry[1])))
    idx.write()   # libgit2 writes <target>.lock and renames it over the target
    if empty:
        os.replace(target, lock)


def publish(git_dir: Path) -> None:
    """Rename the held ``index.lock`` over ``index``: the new index is in place, the lock released."""
    os.replace(lock_path(git_dir), git_dir / "index")
    record_path(git_dir).unlink(missing_ok=True)


def release_paths(git_dir: Path) -> tuple[str, str]:
    """``index.lock`` and gitmem's record of it, in the order a release removes them."""
    return str(lock_path(git_dir)), str(record_path(git_dir))


def drop(git_dir: Path) -> None:
    """Give up gitmem's own ``index.lock`` (the index stays as it was)."""
    lock_path(git_dir).unlink(missing_ok=True)
    record_path(git_dir).unlink(missing_ok=True)


def write_files(root: Path, git_dir: Path, changes: Mapping[str, bytes | None], skip: frozenset[str]) -> None:
    """Write changed paths into the work tree at ``root`` (None deletes; ``skip``: already right).

    Files are written to a temporary name under the work tree's git dir
    (``gitmem/tmp``, beside the work tree's other private files) and renamed
    into place, so a reader (or a crash) never sees half a file. Folders left
    empty are removed.
    """
    # plain strings and os calls: a decay moves 100k files, and pathlib's objects cost more than the calls
    tmp_dir = os.path.join(git_dir, "gitmem", "tmp")
    os.makedirs(tmp_dir, exist_ok=True)
    top = str(root)
    todo = [(os.path.join(top, path), data) for path, data in changes.items() if path not in skip]
    gone = [full for full, data in todo if data is None]
    _each(_unlink, gone)   # deletions first: a file may give way to a folder of its name
    made: set[str] = set()
    placed = []
    prefix = os.path.join(tmp_dir, f"{os.getpid()}-")
    for n, (full, data) in enumerate(todo):
        if data is None:
            continue
        folder = full.rpartition("/")[0]
        if folder not in made:
            os.makedirs(folder, exist_ok=True)
            made.add(folder)
        placed.append((full, data, f"{prefix}{n}.tmp"))
    _each(_place, placed)
    emptied = {full.rpartition("/")[0] for full in gone}
    # the deepest first; by threads too: whoever empties a parent last removes it
    _each(lambda folder: _prune_empty(folder, top), sorted(emptied - made, key=lambda f: f.count("/"), reverse=True))


PARALLEL_FROM = 256   # files from which a change is written by several threads
MAX_WORKERS = 8       # the waits are the file system's (journal, block bitmaps), not the CPU's


def workers() -> int:
    """Threads for a large change: two per processor this process may run on, at most ``MAX_WORKERS``.
    The waits are the disk's, so one per processor is too few (bench/writer_pool.py on 2 cores: 2 threads
    1.13x the time of 8, 4 threads 0.95x), and 8 on 2 cores only add contention."""
    try:
        usable = len(os.sched_getaffinity(0))   # the affinity a container or taskset leaves, where there is one
    except (AttributeError, OSError):
        usable = os.cpu_count() or 1
    return max(1, min(MAX_WORKERS, 2 * usable))


def _each(fn: Callable[[Any], None], items: Sequence[Any]) -> None:
    """``fn`` over ``items``; a large change by a few threads, whose system calls overlap their waits."""
    threads = workers()
    if len(items) < PARALLEL_FROM or threads == 1:
        for item in items:
            fn(item)
        return
    from concurrent.futures import ThreadPoolExecutor

    def run(chunk: Sequence[Any]) -> None:
        for item in chunk:
            fn(item)

    # a thread pool ignores map's chunksize: one task per slice, not per file (a task costs more than a write)
    size = max(64, -(-len(items) // (threads * 4)))
    with ThreadPoolExecutor(threads) as pool:
        for _ in pool.map(run, [items[i:i + size] for i in range(0, len(items), size)]):   # the first error is raised here
            pass


def _unlink(full: str) -> None:
    try:
        os.unlink(full)
    except FileNotFoundError:
        pass


_CREATE = os.O_WRONLY | os.O_CREAT | os.O_TRUNC | getattr(os, "O_BINARY", 0) | getattr(os, "O_CLOEXEC", 0)


def _place(job: tuple[str, bytes, str]) -> None:
    full, data, tmp = job
    fd = os.open(tmp, _CREATE, 0o666)   # the umask applies, as for open(); no buffered file object
    try:
        view = memoryview(data)
        while view:
            view = view[os.write(fd, view):]
    finally:
        os.close(fd)
    os.replace(tmp, full)


def _prune_empty(folder: str, root: str) -> None:
    while folder != root and os.path.isdir(folder):
        try:
            os.rmdir(folder)
        except OSError:
            return
        folder = folder.rpartition("/")[0]
