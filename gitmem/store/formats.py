"""The format version of a memory repository, kept in ``.gitmem/state.yaml`` (``format: N``), and the
steps that upgrade a repository from one format to the next.

Readers accept every older format: a repository made before formats were
numbered (gitmem 0.1.0) has no ``format`` key and is format 0. A repository
of a newer format than this gitmem knows is refused with a hint to upgrade,
never misread. ``gitmem upgrade`` applies the steps from the repository's
format to ``FORMAT`` as one commit, so ``git revert`` undoes it.
"""

from __future__ import annotations

from dataclasses import replace
from typing import Callable

from gitmem.base.errors import UsageError
from gitmem.base.origin import upgrade_hint
from gitmem.store import enginestate
from gitmem.store.enginestate import STATE_FILE

__all__ = ["ATTRIBUTES", "ATTRIBUTE_LINES", "FORMAT", "FORMATS", "STATE_FILE", "STEPS", "Reader", "check", "format_of",
           "completed_attributes", "missing_attributes", "upgrade_changes"]

FORMAT = 2
FORMATS = {0: "gitmem 0.1.0 (no format key)", 1: "gitmem 0.2: the format key in .gitmem/state.yaml",
           2: "gitmem 0.2: patterns count their sessions as a set (merged by union)"}
ATTRIBUTES = ".gitattributes"
# the rules of templates/.gitattributes a format-2 repository holds (tests/test_formats.py pins them to it)
ATTRIBUTE_LINES = ("*.md text eol=lf", "*.yaml text eol=lf", "memory/**/*.md merge=gitmem-memory",
                   "archive/**/*.md merge=gitmem-memory", "patterns/*.md merge=gitmem-memory",
                   "episodes/**/*.md merge=gitmem-memory", ".gitmem/state.yaml merge=gitmem-memory",
                   "CLAUDE.md merge=gitmem-memory", "HIPPOCAMPUS_CORE.md merge=gitmem-memory",
                   "patterns.md merge=gitmem-memory")

Reader = Callable[[str], "bytes | None"]   # a path of the tree being upgraded → its bytes (None: absent)


def format_of(state: bytes | None) -> int:
    """The format of a repository whose ``.gitmem/state.yaml`` holds ``state`` (None: no such file)."""
    from gitmem.base import yamlio

    try:
        data = enginestate.load_mapping(state, strict=True)
    except yamlio.YamlProblem as exc:
        raise UsageError(f"{STATE_FILE} is not valid YAML: {exc.problem}",
                         hint=f"restore it with `git checkout HEAD -- {STATE_FILE}`") from None
    value = data.get("format", 0)
    if not isinstance(value, int) or isinstance(value, bool) or value < 0:
        raise UsageError(f"{STATE_FILE}: format {value!r} is not a format number",
                         hint=f"restore it with `git checkout HEAD -- {STATE_FILE}`")
    return value


def check(state: bytes | None) -> int:
    """The repository's format, refusing one newer than this gitmem reads."""
    version = format_of(state)
    if version > FORMAT:
        raise UsageError(f"this memory repository has format {version}; this gitmem reads formats up to {FORMAT}",
                         hint=f"upgrade gitmem ({upgrade_hint()})")
    return version


def _number_the_format(read: Reader) -> dict[str, bytes | None]:
    """0 → 1: gitmem 0.1.0 wrote no format key; everything else it wrote reads as format 1."""
    old = read(STATE_FILE)
    return {STATE_FILE: enginestate.write(old, replace(enginestate.read(old), format=1))}


def _count_sessions_as_sets(read: Reader) -> dict[str, bytes | None]:
    """1 -> 2: patterns count sessions as a set. No pattern is rewritten: one counted by a cursor reads as
    the origin of an empty set, and its next weight update writes the set. The number keeps a gitmem that
    knows only cursors from writing patterns a merge could no longer replay exactly. ``.gitattributes``
    is a person's file, outside what automated writes touch: ``gitmem install merge-driver`` adds the
    missing ``ATTRIBUTE_LINES`` to it, and ``gitmem doctor`` says when they are missing."""
    old = read(STATE_FILE)
    return {STATE_FILE: enginestate.write(old, replace(enginestate.read(old), format=2))}


def missing_attributes(text: str) -> list[str]:
    """The lines of ``ATTRIBUTE_LINES`` a ``.gitattributes`` holding ``text`` lacks."""
    present = {line.strip() for line in text.splitlines()}
    return [line for line in ATTRIBUTE_LINES if line not in present]


def completed_attributes(data: bytes | None, by: str) -> bytes | None:
    """A ``.gitattributes`` (``data``; None: absent) with the lines it lacks appended under a comment
    naming the command ``by`` that added them; None when it lacks none. A person's lines stay as they are."""
    text = (data or b"").decode("utf-8", "replace")
    missing = missing_attributes(text)
    if not missing:
        return None
    head = text if not text or text.endswith("\n") else text + "\n"
    return (head + f"# gitmem's merge driver and LF line ends ({by})\n" + "\n".join(missing) + "\n").encode("utf-8")


# STEPS[n] upgrades format n to n + 1: it reads the tree as the earlier steps left it and returns the
# files it changes. A step never drops what a person wrote; it only adds or rewrites what gitmem owns.
STEPS: dict[int, Callable[[Reader], dict[str, bytes | None]]] = {0: _number_the_format, 1: _count_sessions_as_sets}


def upgrade_changes(read: Reader, version: int) -> dict[str, bytes | None]:
    """Every file that changes when a tree of format ``version`` is upgraded to ``FORMAT`` (empty when
    it is already current). The steps run in order, each over what the previous ones left."""
    changes: dict[str, bytes | None] = {}

    def current(path: str) -> bytes | None:
        return changes[path] if path in changes else read(path)

    for step in range(version, FORMAT):
        changes.update(STEPS[step](current))
    return changes
