"""``gitmem hook post-merge``: git's post-merge hook, run after a merge or a ``git pull`` that merged.

It only marks the clone and says so (``api.pulled``): the next gitmem command
regenerates the generated files in one commit. Its exit code is always 0 (git
ignores it; the merge is done).
"""

from __future__ import annotations

import os
import sys
from pathlib import Path


def main(argv: list[str], repo: str | None = None) -> int:
    """``argv``: git's one argument, ``1`` for a squash merge."""
    from gitmem.api.pulled import merged
    from gitmem.base.errors import GitmemError

    root = Path(os.path.abspath(repo)) if repo else Path.cwd()   # git runs the hook at the work tree's top
    try:
        told = merged(root, argv[:1] == ["1"])
    except (GitmemError, OSError) as exc:
        print(f"gitmem post-merge hook: {exc}", file=sys.stderr)
        return 0
    if told:
        print(told, file=sys.stderr)
    return 0
