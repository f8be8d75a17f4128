"""What a staged change does to each file. The only module that imports unidiff.

git's output comes from gitmem.base.gitio; this module counts and parses it.
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

from collections import namedtuple

from gitmem.base.gitio import read_blobs, staged_patch

# typing, dataclasses and pathlib cost imports on the hooks' hot path: named tuples, annotations only
TYPE_CHECKING = False
if TYPE_CHECKING:
    from collections.abc import Callable, Iterable, Sequence
    from pathlib import Path


class LineCounts(namedtuple("LineCounts", "path old new")):
    """Lines of a file at HEAD (``old``) and in the index (``new``); None where it does not exist."""

    __slots__ = ()


class FileStat(namedtuple("FileStat", "path added removed is_new is_deleted")):
    """One file of a unified diff: lines ``added`` and ``removed``, ``is_new``, ``is_deleted``."""

    __slots__ = ()


def count_lines(data: bytes | str) -> int:
    """Lines as git counts them: a last line without a newline still counts."""
    if isinstance(data, bytes):
        return data.count(b"\n") + (1 if data and not data.endswith(b"\n") else 0)
    return data.count("\n") + (1 if data and not data.endswith("\n") else 0)


def staged_line_counts(root: Path | str, paths: Iterable[str],
                       measure: Callable[[str, str], str] | None = None) -> list[LineCounts]:
    """Line counts of each path at HEAD and in the index (the staged version), all read by one git
    process; with ``measure``, of ``measure(path, text)`` (the text decoded as UTF-8, bad bytes replaced)."""
    paths = list(paths)
    revs = [rev for path in paths for rev in (f"HEAD:{path}", f":{path}")]
    blobs = read_blobs(root, revs)

    def lines(path: str, blob: bytes | None) -> int | None:
        if blob is None:
            return None
        return count_lines(blob if measure is None else measure(path, blob.decode("utf-8", "replace")))
    return [LineCounts(path, lines(path, blobs[2 * i]), lines(path, blobs[2 * i + 1])) for i, path in enumerate(paths)]


def staged_stats(root: Path | str, paths: Sequence[str]) -> list[FileStat]:
    """Added and removed lines per file of ``git diff --cached`` over ``paths``."""
    if not paths:
        return []
    return parse_patch(staged_patch(root, paths))


def parse_patch(text: str) -> list[FileStat]:
    """Per-file counts of a unified diff (git's or any other), parsed with unidiff."""
    from unidiff.patch import PatchSet  # several ms to import: only paid when a diff is parsed

    stats = []
    for patched in PatchSet(text):
        path = patched.path
        stats.append(FileStat(path, patched.added, patched.removed,
                              patched.is_added_file, patched.is_removed_file))
    return stats
