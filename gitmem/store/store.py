"""What a tree holds: find, iterate and list memories and patterns at a commit.

Reading only: the writer (``gitmem.writer``) commits. Files a
person filed under a folder of their own naming are found too.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any, Iterator

from gitmem.base.errors import DocumentError, NotFoundError
from gitmem.base.gitio import Git
from gitmem.base.notice import warn
from gitmem.base.model import ARCHIVE_DIR, DOMAINS, MEMORY_DIR, Memory, check_id, legacy_path, memory_path
from gitmem.store import documents
from gitmem.store.documents import PATTERN_DIR, Pattern



def skipped(exc: DocumentError) -> str:
    """Report a file a reader skipped (file, line, what is wrong) as a warning; returns the line.

    Readers are values-only code: the CLI shows these records as ``warning:``
    lines on stderr, once per file and run, whichever readers met the file.
    """
    warn(f"skipped unreadable file {exc}")
    return str(exc)


def read_memories(git: Git, rev: str | None, include_archive: bool = False) -> Iterator[tuple[Memory, bytes]]:
    """(memory, file bytes) of every usable memory file at ``rev``; bad files are reported and skipped."""
    for path, data in iter_files(git, rev, include_archive):
        try:
            yield documents.read_memory(path, data), data
        except DocumentError as exc:
            skipped(exc)


def read_memories_shaped(git: Git, rev: str | None) -> Iterator[tuple[Memory, bytes, bool]]:
    """:func:`read_memories` (live ones), with whether each file is exactly as gitmem renders it
    (see ``documents.read_memory_shaped``; :func:`rewrite` takes it)."""
    for path, data in iter_files(git, rev):
        try:
            memory, shaped = documents.read_memory_shaped(path, data)
        except DocumentError as exc:
            skipped(exc)
            continue
        yield memory, data, shaped


@dataclass(frozen=True)
class Listing:
    """Every readable memory at a commit, and one line per file that could not be read."""

    memories: tuple[Memory, ...]
    problems: tuple[str, ...]


def locate(git: Git, rev: str | None, memory_id: str, include_archive: bool = True, anywhere: bool = True) -> str | None:
    """Path of memory ``memory_id`` at ``rev`` (live first, then archive), or None.

    With ``anywhere`` a file a person filed under a folder of their own naming
    is found too; that walks the tree, so writers checking that a new id is
    free pass False (the canonical paths are the only ones gitmem writes).
    """
    check_id(memory_id)
    if rev is None:
        return None
    for archived in ((False, True) if include_archive else (False,)):
        for domain in DOMAINS:
            for path in (memory_path(domain, memory_id, archived), legacy_path(domain, memory_id, archived)):
                if git.tree_entry_hash(rev, path) is not None:
                    return path
    if not anywhere:
        return None
    for folder in (MEMORY_DIR, ARCHIVE_DIR) if include_archive else (MEMORY_DIR,):
        for path, _ in git.files(folder, rev):
            if path.endswith(f"/{memory_id}.md"):
                return path
    return None


def load(git: Git, rev: str | None, memory_id: str, include_archive: bool = True) -> Memory:
    """The memory ``memory_id`` at ``rev``; NotFoundError when there is none."""
    path = locate(git, rev, memory_id, include_archive)
    data = git.read(path, rev) if path is not None and rev is not None else None
    if path is None or data is None:
        raise NotFoundError(f"no memory with id {memory_id!r}", hint="`gitmem list` shows the ids")
    return documents.read_memory(path, data)


def iter_files(git: Git, rev: str | None, include_archive: bool = False) -> Iterator[tuple[str, bytes]]:
    """(path, content) of every memory file at ``rev``."""
    if rev is None:
        return
    folders = (MEMORY_DIR, ARCHIVE_DIR) if include_archive else (MEMORY_DIR,)
    for folder in folders:
        for path, data in git.blobs(folder, rev):
            if path.endswith(".md"):
                yield path, data


def listing(git: Git, rev: str | None, include_archive: bool = False) -> Listing:
    """Every readable memory at ``rev``; unreadable files become problems, not crashes."""
    out, problems = [], []
    for path, data in iter_files(git, rev, include_archive):
        try:
            out.append(documents.read_memory(path, data))
        except DocumentError as exc:
            problems.append(skipped(exc))
    out.sort(key=lambda m: (m.created, m.id))
    return Listing(tuple(out), tuple(problems))


def render(memory: Memory) -> bytes:
    """The bytes of a new memory file."""
    return documents.render_memory(memory).encode("utf-8")


def rewrite(git: Git, rev: str | None, old: Memory, new: Memory, data: bytes | None = None, shaped: bool = False) -> bytes:
    """New file bytes for ``new``, keeping the comments and order of ``old``'s file (``data``, if known;
    ``shaped`` when it is exactly as gitmem renders ``old``)."""
    if data is None and rev is not None:
        data = git.read(old.path, rev)
        shaped = False
    text = documents.decode(old.path, data or b"")
    return documents.rewrite_memory(old.path, text, old, new, shaped).encode("utf-8")


def all_patterns(git: Git, rev: str | None) -> list[Pattern]:
    """Every readable pattern at ``rev``, strongest first."""
    out: list[Pattern] = []
    if rev is None:
        return out
    for path, oid in git.files(PATTERN_DIR, rev):
        if not path.endswith(".md") or path.count("/") != 1:
            continue
        try:
            out.append(documents.read_pattern(path, git.blob(oid)))
        except DocumentError as exc:
            skipped(exc)
    out.sort(key=lambda p: (-p.weight, p.slug))
    return out


EPISODE_DIR = "episodes"


def episode_documents(git: Git, rev: str | None) -> Iterator[tuple[str, dict[str, Any], str]]:
    """(path, front matter, body) of every readable episode document at ``rev``."""
    for path, oid in (git.files(EPISODE_DIR, rev) if rev else ()):
        if not path.endswith(".md"):
            continue
        try:
            meta, body = documents.split(path, documents.decode(path, git.blob(oid)))
        except DocumentError:
            continue
        yield path, meta, body


def episodes(git: Git, rev: str | None) -> Iterator[tuple[str, dict[str, Any]]]:
    """(path, front matter) of every readable episode document at ``rev``."""
    for path, meta, _ in episode_documents(git, rev):
        yield path, meta


def episode_rows(git: Git, rev: str | None, limit: int = 30) -> list[tuple[str, str, str]]:
    """(path, date, summary) of the ``limit`` most recent episodes at ``rev``; unreadable files skipped."""
    found = []
    for path, meta in episodes(git, rev):
        stamp = str(meta.get("started") or meta.get("date") or "")
        # an episode written before titles existed shows its session, never its path a second time
        name = meta.get("title") or meta.get("summary") or meta.get("session") or path.rsplit("/", 1)[-1][:-3]
        found.append((path, stamp[:10], str(name)))
    found.sort(key=lambda e: (e[1], e[0]), reverse=True)
    return found[:limit]
