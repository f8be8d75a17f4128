"""The recall index as a reader opens it: current with HEAD (synced when stale) or at a past commit,
with the config value and the project scope a recall asks of it.

This path stays light: when the index already reflects HEAD (read from the
ref files), no pygit2 is imported; only a stale index pays for syncing.
"""

from __future__ import annotations

import os
import sqlite3

from gitmem.base import state
from gitmem.base.errors import IndexCorrupt
from gitmem.base.gitio import head_commit
from gitmem.store.index import ROWS_VERSION, Index

TYPE_CHECKING = False
if TYPE_CHECKING:
    from pathlib import Path

__all__ = ["CONFIG_FILE", "never_forget", "open_index", "project_here", "viewer"]

# gitmem.base.config.CONFIG_FILE, named here so that a fresh index skips importing the config schema
CONFIG_FILE = "gitmem.yaml"
_KEEP, _KEEP_STAMP = "never_forget", "never_forget.config"
_VIEWER, _VIEWER_STAMP = "viewer", "viewer.stamp"


def open_index(root: Path | str, at: str | None = None) -> Index:
    """The index for HEAD (synced if stale) or for ``at`` (a tag or commit). A fresh index is
    opened without pathlib (a recall process); syncing one loads the rest."""
    gdir = state.git_dir_names(root)[0]
    if at is None:
        head = head_commit(gdir)
        path = state.index_file(root)
        if head is not None and os.path.exists(path):
            try:
                index = Index(path)
                if index.get_meta("commit") == head and index.get_meta("schema") == ROWS_VERSION:
                    return index
                index.close()
            except IndexCorrupt:
                pass
    from pathlib import Path

    from gitmem.base.gitio import Git
    from gitmem.store import refresh

    git = Git(Path(root))
    if at is not None:
        return refresh.open_at(git, at)
    branch = git.head_branch()
    if branch is not None:
        return refresh.open_synced(git, git.tip(branch))
    return refresh.open_synced(git, git.commit("HEAD").id)   # detached: what is checked out


def never_forget(root: Path | str, index: Index) -> float:
    """The ``never_forget`` importance of the config, kept in ``index`` while gitmem.yaml is unchanged.

    Recall runs as a whole process per query: a stat of gitmem.yaml and a meta
    value are cheap, loading the config schema is not; the index holds the
    value of the config it last saw.
    """
    try:
        st = os.stat(os.path.join(root, CONFIG_FILE))
        stamp = f"{st.st_mtime_ns}:{st.st_size}"
    except OSError:
        stamp = "-"
    if index.get_meta(_KEEP_STAMP) == stamp:
        try:
            return float(index.get_meta(_KEEP) or "")
        except ValueError:
            pass
    from pathlib import Path

    from gitmem.base import config

    value = config.load(Path(root)).memory.never_forget
    try:
        with index.transaction():
            index.set_meta(_KEEP, repr(value))
            index.set_meta(_KEEP_STAMP, stamp)
    except (IndexCorrupt, sqlite3.Error):
        pass  # a read-only or busy index still answers; it just looks again next time
    return value


def viewer(root: Path | str, index: Index) -> str | None:
    """Whose personal memories a recall in this clone may show (``base.people.whoami``; None: the
    repository is not shared), kept in ``index`` while gitmem.yaml, the git config and the salt are unchanged."""
    gdir, common = state.git_dir_names(root)
    parts = []
    for path in (os.path.join(root, CONFIG_FILE), os.path.join(root, ".gitmem", "salt"), os.path.join(gdir, "config"),
                 os.path.join(common, "config")):
        try:
            st = os.stat(path)
            parts.append(f"{st.st_mtime_ns}:{st.st_size}")
        except OSError:
            parts.append("-")
    stamp = "/".join(parts)
    if index.get_meta(_VIEWER_STAMP) == stamp:
        return index.get_meta(_VIEWER) or None
    from pathlib import Path

    from gitmem.base import config, people

    value = people.whoami(Path(root), config.load(Path(root)).sharing)
    try:
        with index.transaction():
            index.set_meta(_VIEWER, value or "")
            index.set_meta(_VIEWER_STAMP, stamp)
    except (IndexCorrupt, sqlite3.Error):
        pass
    return value


def project_here(index: Index, here: Path | str) -> str | None:
    """The id of the project holding directory ``here`` when memories of ``index`` carry it, else None.

    Git is asked only when some memory has a project at all.
    """
    known = index.projects()
    if not known:
        return None
    from gitmem.base.gitio.project import identify

    found = identify(here)
    return found.id if found is not None and found.id in known else None
