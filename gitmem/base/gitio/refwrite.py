"""A branch moved the way git's files backend moves it: ``<ref>.lock`` written, then renamed.

libgit2 moves a ref the same way, but inside one call: whatever the caller
must do at the very moment the ref moves (drop ``index.lock``, which must be
held until then so that a person's ``git commit`` cannot start on the old
HEAD) only runs after it has returned. Here the rename of the ref's lock and
the caller's release are two system calls back to back, so a writer killed
after its branch moved almost never leaves ``index.lock`` behind.

The lock is created exclusively (a live git holding it makes this fail at
once, as libgit2 does), the tip is compared under it, and the reflogs
(``logs/<ref>``, and ``logs/HEAD`` when this work tree's HEAD names the ref)
get their line before the rename, as git writes them. Only the files
backend is written this way; ``supported`` says when to leave it to libgit2.
"""

from __future__ import annotations

import os

TYPE_CHECKING = False
if TYPE_CHECKING:
    from collections.abc import Callable
    from pathlib import Path

    import pygit2


class RefMoved(Exception):
    """The ref no longer points at the expected commit, or someone else holds its lock."""


def supported(ref_storage: str | None) -> bool:
    """True when refs live in files (``extensions.refStorage``, given, is unset or ``files``): this module applies."""
    return ref_storage is None or ref_storage.strip().lower() == "files"


def commit_files(common_dir: Path, git_dir: Path, branch: str, oid: str, parent: str | None,
                 sig: pygit2.Signature, message: str, tip: Callable[[], str | None],
                 log_setting: Callable[[], str | None], bare: bool, release: tuple[str, ...]) -> str:
    """``Git.create_commit`` where refs are files: move ``branch`` from ``parent`` to the commit
    ``oid`` (``tip``: where the branch points now; ``log_setting``: ``core.logAllRefUpdates``, read
    only when the branch has no reflog yet). CasFailed when the branch moved or its lock is held."""
    from gitmem.base.errors import CasFailed
    from gitmem.base.gitio.reflocks import clear_stale, lock_path, record_writer, release_record

    ref = f"refs/heads/{branch}"
    common = str(common_dir)
    if os.path.exists(os.path.join(common, ref + ".lock")):   # judged by its writer's record, before ours replaces it
        clear_stale(common_dir, ref)   # a dead writer's lock goes; a live one's is waited for
    record = record_writer(common_dir, ref)   # before the ref is locked: a kill leaves it
    log = None
    if wants_log(log_setting, common, ref, bare):
        log = f"{sig.name} <{sig.email}> {sig.time} +0000\t{reflog_message(message, parent)}"
    try:
        move(common, str(git_dir), ref, oid, parent, log, release)
    except RefMoved:
        release_record(record)
        if lock_path(common_dir, ref).exists() and tip() == parent:
            clear_stale(common_dir, ref)
        raise CasFailed(branch) from None
    except BaseException:
        release_record(record)
        raise
    release_record(record)
    return oid


def current(common_dir: str, ref: str) -> str | None:
    """What ``ref`` points at, loose file first, then packed-refs; None when it does not exist."""
    try:
        with open(os.path.join(common_dir, ref), encoding="ascii", errors="replace") as fh:
            value = fh.read().strip()
        return value or None
    except (FileNotFoundError, NotADirectoryError):
        pass
    try:
        with open(os.path.join(common_dir, "packed-refs"), encoding="utf-8", errors="replace") as fh:
            for line in fh:
                value, _, name = line.rstrip("\n").partition(" ")
                if name == ref:
                    return value
    except FileNotFoundError:
        pass
    return None


def move(common_dir: str, git_dir: str, ref: str, new: str, old: str | None, log_line: str | None,
         release: tuple[str, ...] = ()) -> None:
    """Point ``ref`` at ``new`` if it still points at ``old`` (None: it must not exist); ``log_line``
    ("<who> <time> <tz>\\t<message>") goes to its reflogs (None: no reflog). The files ``release``
    are removed, in order, by the system calls right after the rename that moves the ref. RefMoved
    when the tip differs or the ref is locked by someone else."""
    path = os.path.join(common_dir, ref)
    lock = path + ".lock"
    try:
        fd = _create(lock)
    except FileExistsError:
        raise RefMoved(ref) from None
    try:
        try:
            os.write(fd, (new + "\n").encode("ascii"))
        finally:
            os.close(fd)
        if current(common_dir, ref) != old:
            raise RefMoved(ref)
        if log_line is not None:
            zero = "0" * len(new)
            entry = f"{old or zero} {new} {log_line}\n".encode("utf-8")
            for log in _reflogs(common_dir, git_dir, ref):
                try:
                    logged = os.open(log, os.O_WRONLY | os.O_APPEND | os.O_CREAT, 0o666)
                except FileNotFoundError:
                    os.makedirs(os.path.dirname(log), exist_ok=True)
                    logged = os.open(log, os.O_WRONLY | os.O_APPEND | os.O_CREAT, 0o666)
                try:
                    os.write(logged, entry)
                finally:
                    os.close(logged)
        # the ref's old file stays linked until the release is done: a rename that frees the file it
        # replaces returns only after the freeing (milliseconds on ext4, with the new ref already
        # visible), and a kill then would leave the release undone
        kept = _keep(common_dir, ref, path)
    except BaseException:
        os.unlink(lock)
        raise
    os.rename(lock, path)
    for done in release:
        try:
            os.unlink(done)
        except FileNotFoundError:
            pass
    if kept is not None:
        os.unlink(kept)


def _keep(common_dir: str, ref: str, path: str) -> str | None:
    """A second link to the loose file of ``ref`` (None when it has none), which ``move`` removes last
    (one name per ref: only the holder of the ref's lock makes it)."""
    kept = os.path.join(common_dir, "gitmem", "ref-writers", ref.replace("/", "%") + ".old")
    try:
        os.link(path, kept)
    except FileExistsError:   # a killed writer's
        os.unlink(kept)
        os.link(path, kept)
    except (FileNotFoundError, NotADirectoryError):
        if not os.path.isfile(path):
            return None   # a new ref, or one in packed-refs only
        os.makedirs(os.path.dirname(kept), exist_ok=True)
        os.link(path, kept)
    return kept


def _create(lock: str) -> int:
    """Create ``lock`` exclusively, and the folders on its way when missing (FileExistsError: it is held)."""
    try:
        return os.open(lock, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o666)
    except FileNotFoundError:
        os.makedirs(os.path.dirname(lock), exist_ok=True)
        return os.open(lock, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o666)


def _reflogs(common_dir: str, git_dir: str, ref: str) -> list[str]:
    """The reflog files a move of ``ref`` appends to: its own, and HEAD's when this work tree is on it."""
    logs = [os.path.join(common_dir, "logs", ref)]
    try:
        with open(os.path.join(git_dir, "HEAD"), encoding="utf-8", errors="replace") as fh:
            head = fh.read().strip()
    except OSError:
        head = ""
    if head == f"ref: {ref}":
        logs.append(os.path.join(git_dir, "logs", "HEAD"))
    return logs


def wants_log(setting: Callable[[], str | None], common_dir: str, ref: str, bare: bool) -> bool:
    """Whether git writes a reflog line for ``ref`` under ``core.logAllRefUpdates`` = ``setting()``
    (asked only when the ref has no reflog yet: one it has always gets the line)."""
    if os.path.exists(os.path.join(common_dir, "logs", ref)):
        return True
    value = (setting() or "").strip().lower()
    if value == "always":
        return True
    if value in ("", "unset"):
        enabled = not bare
    else:
        enabled = value in ("true", "yes", "on", "1")
    return enabled and ref.startswith(("refs/heads/", "refs/remotes/", "refs/notes/"))

def commit_libgit2(repo: pygit2.Repository, common_dir: Path, tip: Callable[[], str | None], branch: str,
                   sig: pygit2.Signature, message: str, tree: str, parents: list[pygit2.Oid],
                   release: tuple[str, ...]) -> str:
    """``Git.create_commit`` where refs are not plain files (reftable): libgit2 moves the ref
    (``tip``: where the branch points now)."""
    import pygit2

    from gitmem.base.errors import CasFailed
    from gitmem.base.gitio.reflocks import clear_stale, lock_path, record_writer, release_record

    ref = f"refs/heads/{branch}"
    parent = str(parents[0]) if parents else None
    if tip() != parent:   # libgit2 moves the ref without comparing: compared here, under the write lock
        raise CasFailed(branch)
    if lock_path(common_dir, ref).exists():
        clear_stale(common_dir, ref)   # a dead writer's lock goes; a live one's is waited for
    record = record_writer(common_dir, ref)   # before libgit2 locks the ref: a kill leaves it
    try:
        oid = repo.create_commit(ref, sig, sig, message, pygit2.Oid(hex=tree), parents)
    except (pygit2.GitError, OSError):
        # Lost the race: another writer moved the branch (or holds its lock: libgit2
        # raises OSError then) between our check and libgit2's. Told apart by the
        # refs and the lock file, not by libgit2's wording.
        release_record(record)
        if tip() != parent:
            raise CasFailed(branch) from None
        if lock_path(common_dir, ref).exists():
            clear_stale(common_dir, ref)
            raise CasFailed(branch) from None
        raise
    for done in release:
        remove(done)
    release_record(record)
    return str(oid)


def reflog_message(message: str, parent: str | None) -> str:
    """The reflog message libgit2 writes for a commit: ``commit[ (initial)]: <summary>``, the summary
    being the message's first paragraph on one line."""
    summary = " ".join(message.strip().split("\n\n", 1)[0].split())
    return f"commit{'' if parent else ' (initial)'}: {summary}"


def remove(path: str) -> None:
    try:
        os.unlink(path)
    except FileNotFoundError:
        pass
