"""The git command line: every git process gitmem starts is started here.

``subprocess`` is imported inside the functions: recall and most hooks never
start a git process, and the import is not free.
"""

from __future__ import annotations

import sys

TYPE_CHECKING = False  # typing costs an import on the hooks' hot path: annotations only
if TYPE_CHECKING:
    from collections.abc import Iterable, Mapping, Sequence
    from pathlib import Path

TIMEOUT = 120  # seconds; a git command over a memory repository takes milliseconds
SCISSORS = "------------------------ >8 ------------------------"
END = "--end-of-options"   # git (2.24 on) reads nothing after it as an option: `--receive-pack=CMD` stays a name


def check_ref_name(name: str, what: str = "ref") -> str:
    """``name`` when it is a ref name git accepts (git check-ref-format's rules, one-level names allowed);
    else a UsageError. A name never starts with ``-``, so it cannot become an option either."""
    from gitmem.base.errors import UsageError

    parts = name.split("/")
    bad = (not name or name.startswith("-") or name == "@" or name.endswith((".", "/", ".lock")) or ".." in name
           or "@{" in name or "//" in name or any(c in name for c in " ~^:?*[\\\x7f")
           or any(ord(c) < 32 for c in name) or any(p.startswith(".") or p.endswith(".lock") for p in parts))
    if bad:
        raise UsageError(f"{what} name {name.encode('unicode_escape').decode('ascii')[:80]!r} is not a valid git name",
                         hint="use letters, digits, '-', '_', '.' and '/' (no leading '-', no '..')")
    return name


def check_remote(remote: str) -> str:
    """``remote`` when it can only be a remote's name or URL, never an option or two arguments; else a UsageError."""
    from gitmem.base.errors import UsageError

    if not remote or remote.startswith("-") or any(ord(c) < 33 or c == "\x7f" for c in remote):
        raise UsageError(f"remote {remote.encode('unicode_escape').decode('ascii')[:80]!r} is not a remote's name or URL",
                         hint="see `git remote -v` for the names this repository knows")
    return remote


def run(root: Path | str, *args: str, stdin: bytes | None = None, env: Mapping[str, str] | None = None) -> bytes:
    """Output of ``git ARGS`` run in ``root`` (``env``: variables added to ours); a failure is a GitError quoting git."""
    import os
    import subprocess

    from gitmem.base.errors import GitError

    try:
        done = subprocess.run(["git", *args], cwd=root, input=stdin, capture_output=True, timeout=TIMEOUT,
                              env={**os.environ, **env} if env else None)
    except (OSError, subprocess.TimeoutExpired) as exc:
        raise GitError(f"git {args[0] if args else ''} could not run: {exc}",
                       hint="check that git is installed and on PATH") from None
    if done.returncode != 0:
        message = done.stderr.decode("utf-8", "replace").strip() or f"exit code {done.returncode}"
        raise GitError(f"git {args[0] if args else ''} failed: {message}",
                       hint="check the repository with `git status`")
    return done.stdout


def attempt(root: Path | str, *args: str, stdin: bytes | None = None) -> bytes | None:
    """Output of ``git ARGS``, or None when git is missing, times out or fails."""
    from gitmem.base.errors import GitError

    try:
        return run(root, *args, stdin=stdin)
    except GitError:
        return None


def split_nul(data: bytes) -> list[str]:
    """The names of a ``-z`` listing (empty names dropped)."""
    return [p for p in data.decode("utf-8", "surrogateescape").split("\0") if p]


def read_blobs(root: Path | str, revs: Sequence[str]) -> list[bytes | None]:
    """Contents of ``rev:path``-style objects through one ``git cat-file --batch``; None where missing."""
    safe = [rev for rev in revs if "\n" not in rev]
    out = run(root, "cat-file", "--batch", stdin="".join(f"{rev}\n" for rev in safe).encode()) if safe else b""
    found: dict[str, bytes | None] = {}
    pos = 0
    for rev in safe:
        end = out.index(b"\n", pos)
        header = out[pos:end].split()
        pos = end + 1
        if len(header) == 3 and header[1] != b"missing":
            size = int(header[2])
            found[rev] = out[pos:pos + size]
            pos += size + 1  # the content is followed by a newline
        else:
            found[rev] = None
    # `cat-file --batch` reads one name per line, so a path holding a newline
    # (legal in git, absurd in a memory repository) is read on its own.
    for rev in revs:
        if rev not in found:
            found[rev] = attempt(root, "cat-file", "blob", rev)
    return [found[rev] for rev in revs]


def staged_names(root: Path | str, *pathspecs: str) -> list[str]:
    """Paths whose staged version differs from HEAD (renames as a deletion and an addition)."""
    spec = ("--", *pathspecs) if pathspecs else ()
    return split_nul(run(root, "diff", "--cached", "--name-only", "-z", "--no-renames", *spec))


def blob_id(data: bytes) -> str:
    """git's SHA-1 object id of a blob holding ``data``, without git or pygit2."""
    try:  # CPython's builtin module: hashlib would load OpenSSL first
        from _sha1 import sha1  # type: ignore[import-not-found]  # CPython's private module has no stub
    except ImportError:
        from hashlib import sha1
    return str(sha1(b"blob %d\0" % len(data) + data).hexdigest())


def staged_blobs(root: Path | str) -> list[tuple[str, str | None]]:
    """(path, staged blob id) of every path whose staged version differs from HEAD; None: deleted."""
    out = run(root, "diff", "--cached", "--raw", "-z", "--no-renames", "--no-abbrev")
    fields = out.decode("utf-8", "surrogateescape").split("\0")
    found = []
    for meta, path in zip(fields[0::2], fields[1::2]):
        parts = meta.split()
        if len(parts) >= 5 and path:
            found.append((path, None if parts[4] == "D" or set(parts[3]) == {"0"} else parts[3]))
    return found


def staged_patch(root: Path | str, paths: Sequence[str]) -> str:
    """``git diff --cached`` of ``paths`` as plain unified diff text (no colour, textconv or external diff)."""
    patch = run(root, "diff", "--cached", "--no-renames", "--no-ext-diff", "--no-color", "--no-textconv",
                "--", *paths)
    return patch.decode("utf-8", "surrogateescape")


def changed_in_index(root: Path | str, rev: str, paths: Sequence[str]) -> list[str] | None:
    """Paths whose index entry differs from ``rev``; None when git fails."""
    if len(paths) > 1000:   # more would overflow the command line: ask about every path, keep these
        out = attempt(root, "diff-index", "--cached", "--name-only", "-z", "--no-renames", rev)
        wanted = set(paths)
        return None if out is None else [p for p in split_nul(out) if p in wanted]
    out = attempt(root, "diff-index", "--cached", "--name-only", "-z", rev, "--", *paths)
    return None if out is None else split_nul(out)


def changed_in_worktree(root: Path | str, paths: Sequence[str]) -> set[str] | None:
    """Those of ``paths`` whose work-tree file differs from the index as git sees it (its filters applied:
    a CRLF text file git normalises is no change); None when git fails."""
    out = attempt(root, "diff-files", "--name-only", "-z", "--", *paths[:1000])
    if out is None or len(paths) > 1000:
        return None
    return set(split_nul(out))


def update_index(root: Path | str, paths: Iterable[str]) -> bool:
    """``git update-index`` for ``paths`` (added, changed or removed); False when git fails."""
    listing = "".join(f"{p}\0" for p in paths).encode("utf-8", "surrogateescape")
    return attempt(root, "update-index", "--add", "--remove", "-z", "--stdin", stdin=listing) is not None


def update_index_info(root: Path | str, index_file: Path | str, entries: Mapping[str, tuple[str, int] | None]) -> None:
    """``git update-index --index-info`` on the index file ``index_file`` (GIT_INDEX_FILE):
    path -> (blob id, mode) sets an entry, None removes it; a failure is a GitError."""
    zero = "0" * 40
    listing = "".join(f"{entry[1]:o} {entry[0]}\t{path}\0" if entry is not None else f"0 {zero}\t{path}\0"
                      for path, entry in entries.items())
    run(root, "update-index", "-z", "--index-info", stdin=listing.encode("utf-8", "surrogateescape"),
        env={"GIT_INDEX_FILE": str(index_file)})


def use_index_v4(root: Path | str) -> bool:
    """Switch a repository's index to version 4 (path compression: half the bytes to rewrite)."""
    return attempt(root, "update-index", "--index-version", "4") is not None


def toplevel(cwd: str) -> str | None:
    """The top of the work tree holding ``cwd``, or None outside one."""
    out = attempt(cwd, "rev-parse", "--show-toplevel")
    return out.decode("utf-8", "surrogateescape").strip() if out else None


def git_dirs(path: Path | str) -> tuple[str, str] | None:
    """(git dir, common git dir) of the repository holding ``path``, absolute; None outside one."""
    out = attempt(path, "rev-parse", "--path-format=absolute", "--git-dir", "--git-common-dir")
    if out is None:
        return None
    found = out.decode("utf-8", "surrogateescape").splitlines()
    return (found[0], found[1]) if len(found) == 2 else None


def hooks_dir(root: Path | str) -> str | None:
    """Where git looks for hooks in ``root`` (core.hooksPath and linked work trees respected)."""
    out = attempt(root, "rev-parse", "--path-format=absolute", "--git-path", "hooks")
    return out.decode("utf-8", "surrogateescape").strip() if out else None


def merge_text(base: str, ours: str, theirs: str) -> tuple[str, bool]:
    """3-way merge of three texts by ``git merge-file`` (diff3 markers); (merged, clean)."""
    import os
    import subprocess
    import tempfile

    from gitmem.base.errors import GitError

    with tempfile.TemporaryDirectory(prefix="gitmem-merge-") as tmp:
        names = []
        for label, text in (("ours", ours), ("base", base), ("theirs", theirs)):
            path = os.path.join(tmp, label)
            with open(path, "w", encoding="utf-8", newline="") as fh:
                fh.write(text)
            names.append(path)
        done = subprocess.run(["git", "merge-file", "-p", "--diff3", "-L", "ours", "-L", "base", "-L", "theirs",
                               *names], capture_output=True, timeout=TIMEOUT)
    if done.returncode < 0 or done.returncode > 127:
        raise GitError(f"git merge-file failed: {done.stderr.decode('utf-8', 'replace').strip()}")
    return done.stdout.decode("utf-8", "replace"), done.returncode == 0


def uncommitted(root: Path | str) -> list[str]:
    """Tracked paths with staged or unstaged edits (``git status``, untracked files left out)."""
    out = run(root, "status", "--porcelain=v1", "-z", "--untracked-files=no")
    return [entry[3:] for entry in split_nul(out) if len(entry) > 3]


def person(root: Path | str) -> str | None:
    """The git identity of whoever runs gitmem here ("Name <email>"), None when git has none."""
    name = attempt(root, "config", "user.name")
    email = attempt(root, "config", "user.email")
    if not name or not name.strip():
        return None
    who = name.decode("utf-8", "replace").strip()
    return f"{who} <{email.decode('utf-8', 'replace').strip()}>" if email and email.strip() else who


def short_log(root: Path | str, count: int) -> str:
    """``git log --oneline`` of the last ``count`` commits; empty when there are none."""
    out = attempt(root, "log", "--oneline", "-n", str(count))
    return out.decode("utf-8", "replace").rstrip() if out else ""


def install_pre_commit(root: Path | str, hook_types: tuple[str, ...] = ("pre-commit",)) -> str | None:
    """``pre-commit install`` for ``hook_types`` (it writes git's hooks); None when done, else what it said."""
    import subprocess

    args = [a for t in hook_types for a in ("--hook-type", t)]
    try:
        done = subprocess.run([sys.executable, "-m", "pre_commit", "install", *args],
                              cwd=root, capture_output=True, timeout=TIMEOUT)
    except (OSError, subprocess.TimeoutExpired) as exc:
        return str(exc)
    if done.returncode == 0:
        return None
    said = (done.stderr or done.stdout).decode("utf-8", "replace").strip().splitlines()
    return said[-1] if said else f"exit {done.returncode}"


def strip_message(root: Path | str, message: str) -> str:
    """A commit message as git stores it: cut at the scissors line, comments stripped by git's rules."""
    kept = []
    for line in message.split("\n"):
        head, sep, rest = line.partition(" ")
        if sep and rest == SCISSORS and head and not head.isalnum():
            break  # everything below `# ---- >8 ----` is dropped, as `git commit --cleanup=scissors` does
        kept.append(line)
    return run(root, "stripspace", "--strip-comments", stdin="\n".join(kept).encode()).decode("utf-8", "replace")


def parse_trailers(root: Path | str, message: str) -> str:
    """``git interpret-trailers --parse --no-divider`` over ``message``: one ``Key: value`` a line."""
    return run(root, "interpret-trailers", "--parse", "--no-divider", stdin=message.encode()).decode("utf-8", "replace")


def commit_trailers(root: Path | str, ids: Sequence[str]) -> dict[str, str]:
    """Trailer lines of each commit, read by git's trailer parser in one process (``%(trailers)``)."""
    if not ids:
        return {}
    out = run(root, "log", "--no-walk=unsorted", "--stdin", "--format=%H%x00%(trailers:only,unfold)%x1e",
              stdin="".join(f"{i}\n" for i in ids).encode())
    found: dict[str, str] = {}
    for record in out.decode("utf-8", "replace").split("\x1e"):
        commit, sep, text = record.lstrip("\n").partition("\0")
        if sep:
            found[commit] = text
    return found



def newest_ref(root: Path | str, prefix: str) -> str | None:
    """The short name of the last ref under ``prefix`` in name order (``refs/tags/gitmem/snapshot/``), or None."""
    out = attempt(root, "for-each-ref", "--sort=-refname", "--count=1", "--format=%(refname:short)", END, prefix)
    name = out.decode("utf-8", "replace").strip() if out else ""
    return name or None


def diff_text(root: Path | str, old: str, new: str) -> str:
    """``git diff OLD NEW``: the unified diff between two commits."""
    return run(root, "diff", "--no-color", "--no-ext-diff", END, old, new, "--").decode("utf-8", "replace")


def push(root: Path | str, remote: str, refspecs: Sequence[str]) -> str:
    """``git push REMOTE REFSPEC...`` without force (credential helpers and ssh config apply); git's report."""
    from gitmem.base.errors import GitError

    for spec in refspecs:
        if spec.startswith("+"):
            raise GitError("gitmem never force-pushes", hint="push with git yourself if you mean to")
        for side in spec.split(":"):
            check_ref_name(side, "branch")
    return run(root, "push", "--porcelain", END, check_remote(remote), *refspecs).decode("utf-8", "replace")
