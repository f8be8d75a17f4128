"""The session folders agents write transcripts to, and the one rule of what lies inside them.

Every unattended reading of transcripts (the daemon's harvest, cron's, an
agent's through MCP) and every record of a refused session asks ``inside``:
a path is inside when it has no ``..`` part and its real path (symbolic links
resolved) lies under the real path of one of the folders, so a link that points
out is outside (``gitmem.base.files.confined``).
"""

from __future__ import annotations

import os
from collections.abc import Sequence
from pathlib import Path
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from gitmem.base.config import Config

__all__ = ["folders_of", "inside"]


def folders_of(cfg: Config) -> list[Path]:
    """The session folders of the configuration (``daemon.session_folders``), expanded."""
    return [Path(os.path.expandvars(os.path.expanduser(f))) for f in cfg.daemon.session_folders]


def inside(path: str | Path, folders: Sequence[Path]) -> bool:
    """True when ``path`` (``~`` expanded, no ``..``, symlinks resolved) lies inside one of ``folders``:
    the one path rule, ``gitmem.base.files.confined``."""
    from gitmem.base.files import confined

    return confined(path, folders)
