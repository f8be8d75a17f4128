"""What a staged change does to each file, read from git. The only module that imports unidiff.

Two views, because the pre-commit hooks must stay fast:

- ``staged_line_counts`` reads the HEAD and staged blobs through one
  ``git cat-file --batch`` and counts lines. Net growth is all the amplitude
  limit needs (lines added minus lines removed is new minus old), and this
  path imports nothing beyond ``subprocess``.
- ``staged_stats`` parses ``git diff --cached`` with unidiff for the added and
  removed lines of each file. Importing unidiff costs several milliseconds,
  so callers use it only to explain a failure or outside the hooks.
"""

from __future__ import annotations

import subprocess
from collections.abc import Iterable, Sequence
from dataclasses import dataclass

# typing and pathlib cost imports on the hooks' hot path; annotations only
TYPE_CHECKING = False
if TYPE_CHECKING:
    from pathlib import Path


@dataclass(frozen=True)
class LineCounts:
    """Lines of a file at HEAD and in the index; None where it does not exist."""

    path: str
    old: int | None
    new: int | None


@dataclass(frozen=True)
class FileStat:
    """One file of a unified diff: lines added and removed, and whether it is new or gone."""

    path: str
    added: int
    removed: int
    is_new: bool
    is_deleted: bool


def count_lines(data: bytes | str) -> int:
    """Lines as git counts them: a last line without a newline still counts."""
    newline = b"\n" if isinstance(data, bytes) else "\n"
    return data.count(newline) + (1 if data and not data.endswith(newline) else 0)  # type: ignore[arg-type]


def git(root: Path | str, *args: str, stdin: bytes | None = None) -> bytes:
    """Run git in ``root`` and return its output; a failure is a GitmemError quoting git."""
    done = subprocess.run(["git", *args], cwd=root, input=stdin, capture_output=True)
    if done.returncode != 0:
        from gitmem.base.errors import GitmemError

        message = done.stderr.decode("utf-8", "replace").strip() or f"exit code {done.returncode}"
        raise GitmemError(f"git {args[0]} failed: {message}", hint="check the repository with `git status`")
    return done.stdout


def read_blobs(root: Path | str, revs: Sequence[str]) -> list[bytes | None]:
    """Contents of ``rev:path``-style objects in one git process; None where missing."""
    safe = [rev for rev in revs if "\n" not in rev]
    out = git(root, "cat-file", "--batch", stdin="".join(f"{rev}\n" for rev in safe).encode()) if safe else b""
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
            done = subprocess.run(["git", "cat-file", "blob", rev], cwd=root, capture_output=True)
            found[rev] = done.stdout if done.returncode == 0 else None
    return [found[rev] for rev in revs]


def staged_line_counts(root: Path | str, paths: Iterable[str]) -> list[LineCounts]:
    """Line counts of each path at HEAD and in the index (the staged version)."""
    paths = list(paths)
    revs = [rev for path in paths for rev in (f"HEAD:{path}", f":{path}")]
    blobs = read_blobs(root, revs)
    counts = []
    for i, path in enumerate(paths):
        old, new = blobs[2 * i], blobs[2 * i + 1]
        counts.append(LineCounts(path, None if old is None else count_lines(old),
                                 None if new is None else count_lines(new)))
    return counts


def staged_stats(root: Path | str, paths: Sequence[str]) -> list[FileStat]:
    """Added and removed lines per file of ``git diff --cached`` over ``paths``."""
    if not paths:
        return []
    patch = git(root, "diff", "--cached", "--no-renames", "--no-ext-diff", "--no-color",
                "--no-textconv", "--", *paths)
    return parse_patch(patch.decode("utf-8", "surrogateescape"))


def parse_patch(text: str) -> list[FileStat]:
    """Per-file counts of a unified diff (git's or any other), parsed with unidiff."""
    from unidiff import PatchSet  # several ms to import: only paid when a diff is parsed

    stats = []
    for patched in PatchSet(text):
        path = patched.path
        stats.append(FileStat(path, patched.added, patched.removed,
                              patched.is_added_file, patched.is_removed_file))
    return stats
