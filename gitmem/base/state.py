"""Per-clone state: where gitmem keeps what is never committed, and its JSON-lines logs.

Every path is found through git, so linked work trees and submodules work:

- shared by every work tree of a clone, under ``git rev-parse --git-common-dir``
  /gitmem/: the write lock, the work-tree journal, the event log, the access
  log and working memory (one writer, one history of events);
- private to one work tree, under ``git rev-parse --git-dir``/gitmem/: the
  recall index (it mirrors that work tree's HEAD) and the config cache (it
  mirrors that work tree's gitmem.yaml).

The git dirs are read from the ``.git`` file or folder (one ``git rev-parse``
only when that fails) and kept for the life of the process: recall and the
hooks pay no git process and no pygit2.

Also here: finding the memory repository (``--repo``, GITMEM_DIR, the nearest
parent folder holding gitmem.yaml).
"""

from __future__ import annotations

import os

from gitmem.base.errors import NotARepoError

TYPE_CHECKING = False  # typing and pathlib cost milliseconds on the hook path: annotations only
if TYPE_CHECKING:
    from os import PathLike
    from pathlib import Path
    from typing import Any, Iterator

STATE_DIR = "gitmem"
CONFIG_FILE = "gitmem.yaml"
EVENTS_LOG = "events.jsonl"
INDEX_FILE = "index.sqlite"
CONFIG_CACHE = "config.json"
WRITE_LOCK = "write.lock"
JOURNAL_FILE = "worktree-journal.json"

_dirs: dict[str, tuple[str, str]] = {}


def git_dirs(root: str | PathLike[str]) -> tuple[Path, Path]:
    """(git dir, common git dir) of the work tree at ``root``, cached per process; NotARepoError outside git."""
    from pathlib import Path

    git_dir, common = _git_dirs(root)
    return Path(git_dir), Path(common)


def _git_dirs(root: str | PathLike[str]) -> tuple[str, str]:
    key = os.path.abspath(root)
    found = _dirs.get(key)
    if found is None:
        dot = os.path.join(key, ".git")
        if os.path.isdir(dot):
            # A main work tree: its .git folder is both (only a linked work tree's has a
            # commondir), and the hooks are spared importing gitio for it.
            _dirs[key] = found = (dot, dot)
            return found
        from gitmem.base.gitio.heads import read_git_dirs

        found = read_git_dirs(key)
        if found is None:
            raise NotARepoError(f"{os.fspath(root)} is not a git repository", hint=f"gitmem init {os.fspath(root)}")
        _dirs[key] = found
    return found


def forget_git_dirs() -> None:
    """Drop the cached git dirs (after a repository was created or moved in this process)."""
    _dirs.clear()


def shared_dir(root: str | PathLike[str]) -> Path:
    """``<common git dir>/gitmem/``, shared by every work tree of the clone; created on demand."""
    return _made(git_dirs(root)[1] / STATE_DIR)


def git_dir_names(root: str | PathLike[str]) -> tuple[str, str]:
    """``git_dirs`` as strings, without loading pathlib (the recall process)."""
    return _git_dirs(root)


def shared_dir_name(root: str | PathLike[str]) -> str:
    """``shared_dir`` as a string, without loading pathlib (the recall process); created on demand."""
    path = os.path.join(_git_dirs(root)[1], STATE_DIR)
    os.makedirs(path, exist_ok=True)
    return path


def index_file(root: str | PathLike[str]) -> str:
    """``index_path`` as a string, without loading pathlib (the recall process); its folder is created on demand."""
    path = os.path.join(_git_dirs(root)[0], STATE_DIR)
    os.makedirs(path, exist_ok=True)
    return os.path.join(path, INDEX_FILE)


def worktree_dir(root: str | PathLike[str]) -> Path:
    """``<git dir>/gitmem/``, private to the work tree at ``root``; created on demand."""
    return _made(git_dirs(root)[0] / STATE_DIR)


def index_path(root: str | PathLike[str]) -> Path:
    """The recall index of the work tree at ``root`` (it mirrors that work tree's HEAD)."""
    return worktree_dir(root) / INDEX_FILE


def config_cache_path(root: str | PathLike[str]) -> str:
    """The validated-config cache of the work tree at ``root`` (keyed by gitmem.yaml's digest).

    A ``str``, and no folder is created: the hooks read it without importing pathlib.
    """
    return os.path.join(_git_dirs(root)[0], STATE_DIR, CONFIG_CACHE)


def write_lock_path(root: str | PathLike[str]) -> str:
    """gitmem's write lock of the clone (a ``str``, no folder created: the hooks take it too)."""
    return os.path.join(_git_dirs(root)[1], STATE_DIR, WRITE_LOCK)


def journal_path(root: str | PathLike[str]) -> str:
    """The journal of a write whose work tree and index may not have followed yet (a ``str``)."""
    return os.path.join(_git_dirs(root)[1], STATE_DIR, JOURNAL_FILE)


def pending_write(root: str | PathLike[str]) -> bool:
    """True while the journal of a killed write names the branch checked out at ``root`` and that
    branch has not moved: the work tree may hold files the index lacks.

    A write brings the index and its changed tracked files along before its branch moves, so a journal
    whose branch has moved past its parent is all that is left of a write killed after its commit, with
    at most some deletions not yet made (files the index no longer tracks): the commit goes on, and the
    journal stays for `gitmem recover` or the next write to finish them. Only read: during `git commit
    -a` git points the hooks at a temporary index (GIT_INDEX_FILE) that gitmem's writer ignores.
    A write killed before its branch moved that had only written new files (its journal's ``held``
    lists no tracked file) left nothing a commit could pick up but untracked files: not pending either.
    """
    path = journal_path(root)
    try:
        with open(path, encoding="utf-8") as fh:
            journal = _json().load(fh)
        branch, parent, held = journal.get("branch"), journal.get("parent"), journal.get("held", True)
    except FileNotFoundError:
        return False
    except (OSError, ValueError, AttributeError):
        return True   # torn: `gitmem recover` drops it
    gdir = _git_dirs(root)[0]
    try:
        with open(os.path.join(gdir, "HEAD"), encoding="utf-8") as fh:
            if fh.read().strip() != f"ref: refs/heads/{branch}":
                return False
    except OSError:
        return True
    from gitmem.base.gitio.heads import head_commit

    tip = head_commit(gdir)
    return (tip is None or tip == parent) and bool(held)


def events_path(root: str | PathLike[str]) -> Path:
    """The event log (alerts, writes) of the clone."""
    return shared_dir(root) / EVENTS_LOG


def _made(path: Path) -> Path:
    path.mkdir(parents=True, exist_ok=True)
    return path


# --- JSON-lines logs ---------------------------------------------------------------

def append(path: str | PathLike[str], record: dict[str, Any]) -> None:
    """Append one JSON line; a single write() call so concurrent appenders do not interleave."""
    line = (_plain_line(record) or _json().dumps(record, ensure_ascii=False, sort_keys=True) + "\n").encode()
    fd = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_APPEND, 0o600)
    try:
        os.write(fd, line)
    finally:
        os.close(fd)


def _plain_line(record: dict[str, Any]) -> str | None:
    """The line ``json.dumps(record, ensure_ascii=False, sort_keys=True)`` gives, with its newline, when every
    key and value is a string with nothing to escape (a recall's access records), without importing json
    (~2 ms of a recall process); None otherwise."""
    for key, value in record.items():
        if (type(key) is not str or type(value) is not str or not key.isprintable() or not value.isprintable()
                or '"' in key + value or "\\" in key + value):
            return None
    return "{" + ", ".join(f'"{key}": "{record[key]}"' for key in sorted(record)) + "}\n"


def _json() -> Any:
    import json   # not at import: the recall path writes its access records without it

    return json


def set_aside(log: Path, aside: Path) -> None:
    """Move ``log``'s records to ``aside`` (appending if it exists); new appends start a fresh log.

    Folding a log into a commit works on the set-aside file, which is removed
    only once the commit has landed: a crash in between loses no record.
    """
    if not log.exists():
        return
    if not aside.exists():
        os.replace(log, aside)
        return
    from gitmem.base.files import temp_beside

    moving = temp_beside(aside)
    os.replace(log, moving)
    with aside.open("ab") as dst, open(moving, "rb") as src:
        dst.write(src.read())
    os.unlink(moving)


def read(path: Path) -> Iterator[dict[str, Any]]:
    """Records of a JSON-lines log; a torn last line is skipped."""
    try:
        with path.open(encoding="utf-8") as fh:
            for line in fh:
                try:
                    record = _json().loads(line)
                except ValueError:
                    continue
                if isinstance(record, dict):
                    yield record
    except FileNotFoundError:
        return


def log_event(root: str | PathLike[str], event: str, at: str, **fields: Any) -> None:
    """Record an event (``secret.rejected``, ``write``, …) in the clone's events.jsonl."""
    log_event_to(events_path(root), event, at, **fields)


def log_event_to(log: str | PathLike[str], event: str, at: str, **fields: Any) -> None:
    """:func:`log_event` into the event log at ``log`` (a writer that knows it already: no lookup per event)."""
    append(log, {"event": event, "at": at, **fields})


# --- user names, kept as salted hashes only -------------------------------------------

SALT_FILE = "salt"
NAMES_FILE = "names.json"
PII_ALLOWED_FILE = "pii-allowed.json"            # findings a person allowed for this clone (``pii allow``)
SHARED_PII_ALLOWED = ".gitmem/pii-allowed.json"  # committed: allowed for every clone (``pii allow --shared``)


def salt(root: str | PathLike[str]) -> bytes:
    """The clone's own random salt for hashing what gitmem must recognise but never keep
    (user names); made on first use, readable by its owner only."""
    path = shared_dir(root) / SALT_FILE
    try:
        return path.read_bytes()
    except FileNotFoundError:
        pass
    from gitmem.base.files import temp_beside

    tmp = temp_beside(path)
    fd = os.open(tmp, os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o600)
    try:
        os.write(fd, os.urandom(16).hex().encode())
    finally:
        os.close(fd)
    try:
        os.link(tmp, path)   # the first writer's salt wins; a racing one reads it
    except FileExistsError:
        pass
    finally:
        os.unlink(tmp)
    return path.read_bytes()


def known_names(root: str | PathLike[str]) -> frozenset[str]:
    """The salted hashes of user names learned so far (never the names)."""
    try:
        data = _json().loads((shared_dir(root) / NAMES_FILE).read_text())
    except (FileNotFoundError, ValueError):
        return frozenset()
    return frozenset(h for h in data if isinstance(h, str)) if isinstance(data, list) else frozenset()


def add_known_names(root: str | PathLike[str], hashes: frozenset[str]) -> None:
    """Keep ``hashes`` (salted hashes of user names) with those learned before."""
    old = known_names(root)
    if hashes <= old:
        return
    from gitmem.base.files import write_atomic

    write_atomic(shared_dir(root) / NAMES_FILE, _json().dumps(sorted(old | hashes)))


# --- finding the memory repository ---------------------------------------------------

def is_memory_repo(path: str | PathLike[str]) -> bool:
    """True when ``path`` holds a gitmem.yaml."""
    return os.path.isfile(os.path.join(path, CONFIG_FILE))


def find_root(explicit: str | PathLike[str] | None = None, cwd: str | PathLike[str] | None = None) -> Path:
    """The memory repository to use: ``explicit`` (--repo), then ``GITMEM_DIR``, then the nearest
    parent of ``cwd`` holding gitmem.yaml and ``.git``.

    NotARepoError with a hint when there is none. ``GITMEM_DIR`` is read here, where the
    repository is found, so the recall path need not load the config schema to find it.
    """
    from pathlib import Path

    return Path(root_path(explicit, cwd))


def root_path(explicit: str | PathLike[str] | None = None, cwd: str | PathLike[str] | None = None) -> str:
    """``find_root`` as a resolved path string, without loading pathlib (a recall handed to the daemon)."""
    given = explicit if explicit is not None else (os.environ.get("GITMEM_DIR") or None)
    if given is not None:
        path = os.path.normpath(os.path.expanduser(os.fspath(given)))
        try:
            found = is_memory_repo(path)
        except (OSError, ValueError):   # a name too long for the system, or holding a NUL
            found = False
        if not found:
            shown = path[:200]
            raise NotARepoError(f"not a memory repository: {shown}", hint=f"gitmem init {shown}")
        if not os.path.exists(os.path.join(path, ".git")):
            # gitmem.yaml without its own git: writing would land in whatever repository encloses it
            raise NotARepoError(f"{path} holds gitmem.yaml but is not the top of its own git repository",
                                hint=f"gitmem init a new folder and move the files there, or `git init {path}`")
        return os.path.realpath(path)
    here = folder = os.path.realpath(os.getcwd() if cwd is None else cwd)
    while True:
        if is_memory_repo(folder) and os.path.exists(os.path.join(folder, ".git")):
            return folder
        parent = os.path.dirname(folder)
        if parent == folder:
            break
        folder = parent
    raise NotARepoError(f"no memory repository here or in any parent folder of {here}",
                        hint="gitmem init DIR, then run from inside it, or pass --repo DIR (or set GITMEM_DIR)")
