"""Finding the memory repository: --repo DIR, then GITMEM_DIR, then the nearest parent."""

from __future__ import annotations

from pathlib import Path

from gitmem.base import config
from gitmem.base.errors import NotARepoError


def is_memory_repo(path: Path) -> bool:
    return (path / config.CONFIG_FILE).is_file()


def find_root(explicit: str | Path | None = None, cwd: Path | None = None) -> Path:
    """The memory repository to use; NotARepoError with a hint when there is none."""
    given = explicit if explicit is not None else config.env_repo_dir()
    if given is not None:
        path = Path(given).expanduser()
        if not is_memory_repo(path):
            raise NotARepoError(f"not a memory repository: {path}", hint=f"gitmem init {path}")
        return path.resolve()
    here = (cwd or Path.cwd()).resolve()
    for folder in (here, *here.parents):
        if is_memory_repo(folder) and (folder / ".git").exists():
            return folder
    raise NotARepoError(f"no memory repository here or in any parent folder of {here}",
                        hint="gitmem init DIR, then run from inside it, or pass --repo DIR (or set GITMEM_DIR)")
