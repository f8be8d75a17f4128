"""What a face needs of the clone without opening the repository: finding it, its state folder, its
background logs and processes, files written whole. Light: every import is made on use, so a hook or
the recall path pays only for what it calls."""

from __future__ import annotations

import os

TYPE_CHECKING = False  # typing and pathlib cost milliseconds on the recall path handed to the daemon
if TYPE_CHECKING:
    from pathlib import Path
    from typing import BinaryIO


def find_root(explicit: str | os.PathLike[str] | None = None, cwd: str | os.PathLike[str] | None = None) -> Path:
    """The memory repository to use: ``explicit`` (--repo), then ``GITMEM_DIR``, then the nearest parent of
    ``cwd`` holding gitmem.yaml and ``.git``; ``NotARepoError`` with a hint when there is none."""
    from gitmem.base.state import find_root as find

    return find(explicit, cwd)


def root_path(explicit: str | os.PathLike[str] | None = None, cwd: str | os.PathLike[str] | None = None) -> str:
    """``find_root`` as a string, without importing pathlib's users (the recall path)."""
    from gitmem.base.state import root_path as find

    return find(explicit, cwd)


def state_dir(root: str | os.PathLike[str]) -> Path:
    """This work tree's state folder (logs, pid files, notices: never committed)."""
    from gitmem.base import state

    return state.worktree_dir(root)


def log_file(root: str | os.PathLike[str], name: str, limit: int) -> Path:
    """A background log ``name`` in the state folder; one past ``limit`` bytes is set aside first (``.1``)."""
    path = state_dir(root) / name
    try:
        if path.stat().st_size > limit:
            os.replace(path, path.with_name(name + ".1"))
    except OSError:
        pass
    return path


def write_file(path: str | os.PathLike[str], data: str | bytes, make_folders: bool = False) -> None:
    """Write ``data`` to ``path`` whole or not at all (a temporary file renamed over it)."""
    from gitmem.base import files

    files.write_atomic(path, data, make_folders=make_folders)


def spawn(argv: list[str], log: str) -> int:
    """Start ``argv`` detached (its output appended to ``log``); its pid, at once."""
    from gitmem.base.gitio.tool import spawn_detached

    return spawn_detached(argv, log)


def read_capped(stream: BinaryIO, cap: int, what: str, limit: str) -> bytes:
    """A stream read no further than ``cap`` bytes; a ``ValidationError`` naming ``what`` and the setting
    ``limit`` when it is longer."""
    from gitmem.base.streams import read_capped as read

    return read(stream, cap, what, limit)


def short_log(root: str | Path, count: int) -> str:
    """``git log --oneline`` of the last ``count`` commits; empty when there are none."""
    from gitmem.base.gitio import short_log as log

    return log(root, count)


def mcp_token() -> str | None:
    """The MCP server's bearer token from the environment (``GITMEM_MCP_TOKEN``), if set."""
    from gitmem.base import config

    return config.env_mcp_token()


def template_dir() -> Path:
    """The templates folder gitmem ships (``init`` copies it; the demo reads its sample)."""
    from gitmem.api.initrepo import template_dir as templates

    return templates()
