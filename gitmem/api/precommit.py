"""The pre-commit framework as a way to install gitmem's hooks (``gitmem init --pre-commit``) and
its check (``gitmem check pre-commit``)."""

from __future__ import annotations

from pathlib import Path

from gitmem.engines.checks import Report


def install(root: Path | str) -> list[str]:
    """Install the memory repository's hooks at ``root`` through ``pre-commit install``; the stages."""
    from gitmem.base.state import find_root
    from gitmem.engines import precommit

    return precommit.install(find_root(root))


def check(root: Path | str | None) -> Report:
    """The committed ``.pre-commit-config.yaml`` declares gitmem's hooks and the clone runs them."""
    from gitmem.base.state import find_root
    from gitmem.engines import precommit

    return precommit.check(find_root(root))
