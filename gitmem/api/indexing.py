"""The derived recall index of a work tree: brought up to the head or rebuilt from git (``gitmem index``)."""

from __future__ import annotations

from dataclasses import dataclass

from gitmem.api.context import Context


@dataclass(frozen=True)
class IndexInfo:
    """The derived recall index of a work tree: rows, the commit it reflects, its file."""

    rows: int
    commit: str | None
    path: str

    def to_json(self) -> dict[str, object]:
        """What ``index --json`` prints."""
        return {"rows": self.rows, "commit": self.commit, "path": self.path}


def index(ctx: Context, rebuild: bool = False) -> IndexInfo:
    """The recall index brought up to the head (``rebuild``: made again from git), and what it holds."""
    from gitmem.store import refresh

    found = refresh.rebuild_file(ctx.git, ctx.head) if rebuild else refresh.open_synced(ctx.git, ctx.head)
    try:
        return IndexInfo(found.count(), found.get_meta("commit"), str(refresh.index_file(ctx.git)))
    finally:
        found.close()
