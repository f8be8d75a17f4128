"""``gitmem status`` answered from the per-clone state files, without pygit2 or parsing a document.

The full status (``api.status``) reads every memory and pattern at HEAD. What it says depends only on
HEAD, gitmem's own refs (reviews, atrophy branches, rejections, snapshot tags), gitmem.yaml, the work
tree's CLAUDE.md (drift) and the clock (atrophy counts weeks). So each full status is kept, with those
inputs, in ``status-cache.json`` under the clone's state folder; the next status whose inputs are the
same, read from the ref files and two ``stat`` calls, prints it again. The clock counts by the hour (an
atrophy threshold is weeks long). The last job error and the refused sessions are not kept: they are
read from their state files on every call, as the full status reads them.
"""

from __future__ import annotations

import json
import os
from datetime import datetime, timezone
from pathlib import Path

CACHE_FILE = "status-cache.json"
REF_PREFIXES = ("refs/heads/gitmem/", "refs/gitmem/", "refs/tags/gitmem/")
LIVE = ("last_error", "refused_sessions")   # read from their state files on every call
VERSION = 1


def inputs(root: Path, now: datetime) -> dict[str, object] | None:
    """What a status of the clone at ``root`` depends on, read from files; None when HEAD cannot be read so."""
    from gitmem.base import state
    from gitmem.base.gitio.heads import head_commit, ref_names, ref_tip

    gdir, cdir = state.git_dirs(root)
    head = head_commit(gdir)
    if head is None:
        return None
    refs = {name: ref_tip(cdir, name) for prefix in REF_PREFIXES for name in ref_names(cdir, prefix)}

    def stamp(name: str) -> str:
        try:
            st = (root / name).stat()
        except OSError:
            return "-"
        return f"{st.st_mtime_ns}:{st.st_size}:{st.st_ino}"

    from gitmem import __version__

    hour = now.astimezone(timezone.utc).strftime("%Y-%m-%dT%H")
    return {"version": VERSION, "gitmem": __version__, "head": head, "refs": refs, "config": stamp("gitmem.yaml"),
            "claude_md": stamp("CLAUDE.md"), "hour": hour}


def _path(root: Path) -> Path:
    from gitmem.base import state

    return state.worktree_dir(root) / CACHE_FILE


def cached(root: Path, now: datetime) -> dict[str, object] | None:
    """The status JSON kept for exactly these inputs, with the live job error and refused sessions; or None."""
    key = inputs(root, now)
    if key is None:
        return None
    try:
        kept = json.loads(_path(root).read_text("utf-8"))
    except (OSError, ValueError):
        return None
    if not isinstance(kept, dict) or kept.get("inputs") != key or not isinstance(kept.get("status"), dict):
        return None
    return {**kept["status"], **live(root)}


def keep(root: Path, now: datetime, status: dict[str, object]) -> None:
    """Keep ``status`` (a full status's JSON) for its inputs; a clone whose state cannot be written keeps none."""
    from gitmem.base import files

    key = inputs(root, now)
    if key is None:
        return
    kept = {k: (None if k in LIVE else v) for k, v in status.items()}   # the live ones keep their place only
    try:
        files.write_atomic(_path(root), json.dumps({"inputs": key, "status": kept}, ensure_ascii=False),
                           make_folders=True)
    except OSError:
        pass


def live(root: Path) -> dict[str, object]:
    """What status reads from the state files on every call: the last job error, the refused sessions."""
    from gitmem.api.refusals import refused

    return {"last_error": last_job_error(root), "refused_sessions": [r.to_json() for r in refused(root)]}


def last_job_error(root: str | os.PathLike[str]) -> dict[str, object] | None:
    """The last recorded failure of a background job in this clone, or None."""
    from gitmem.base import state

    last = None
    for event in state.read(state.events_path(root)):
        if event.get("event") == "job.error":
            last = event
    return last
