"""Projects: the project of a directory (its name PII-stripped) and a project named on the command line."""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING

from gitmem.api.context import Context

if TYPE_CHECKING:
    from gitmem.base.gitio.project import Project


def project_of(ctx: Context, directory: str | Path | None) -> Project | None:
    """The project of the git repository holding ``directory`` (its name PII-stripped), or None."""
    from gitmem.base.gitio.project import identify
    from gitmem.guards import redact

    found = identify(directory) if directory else None
    if found is None:
        return None
    return found._replace(name=redact.strip(found.name, redact.allowlist(ctx.cfg)))


def resolve_project(ctx: Context, value: str | None) -> Project | None:
    """A project named on the command line: a directory, a known id or name, else a new id of that name."""
    from gitmem.base.gitio.project import Project
    from gitmem.store.refresh import open_synced

    if not value:
        return None
    if Path(value).is_dir():
        here = project_of(ctx, value)
        if here is not None:
            return here
    index = open_synced(ctx.git, ctx.head)
    try:
        known = index.projects()
    finally:
        index.close()
    if value in known:
        return Project(value, known[value])
    named = sorted(pid for pid, name in known.items() if name == value)
    return Project(named[0], value) if named else Project(value, value)
