"""The repository a use case works on: a small frozen value (root, config, git, the writer, caller redaction).

Every use case is a function taking a ``Context`` first; ``MemoryRepo`` holds one
and delegates to those functions.
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Callable

from gitmem.api.redaction import Redactor
from gitmem.base import config as config_mod
from gitmem.base.config import Config
from gitmem.store import formats
from gitmem.writer.commit import Writer

if TYPE_CHECKING:
    from gitmem.base.gitio import Git

Progress = Callable[[int, int], None]
"""A progress callback: (done, total)."""


@dataclass(frozen=True)
class Context:
    """A memory repository opened for use: its root, config, git, the one writer, its format, and the
    redaction of text the use cases derive (before any of it reaches the writer)."""

    root: Path
    cfg: Config
    git: Git
    writer: Writer
    format: int
    redactor: Redactor

    @classmethod
    def open(cls, root: str | Path, cfg: Config | None = None) -> Context:
        """Open the repository at ``root`` (its config loaded unless given); refuses a format newer than
        this version reads."""
        root = Path(root)
        cfg = cfg if cfg is not None else config_mod.load(root)
        writer = Writer(root, cfg)
        git = writer.git
        tip = _head(git)
        return cls(root, cfg, git, writer, formats.check(git.read(formats.STATE_FILE, tip) if tip else None),
                   Redactor(writer.root, cfg))

    @property
    def head(self) -> str | None:
        """The commit memory is read from: the checked-out branch's tip (HEAD when detached)."""
        return _head(self.git)

    def rev(self, at: str | None) -> str | None:
        """The commit named by ``at`` (a tag, branch, hash), or the head when ``at`` is empty."""
        return self.git.commit(at).id if at else self.head


def _head(git: Git) -> str | None:
    branch = git.head_branch()
    if branch is None:
        detached: str = git.commit("HEAD").id
        return detached
    return git.tip(branch)
