"""``gitmem upgrade``: migrate a memory repository made by an earlier gitmem to the current format.

The steps of ``store/formats`` run over the tip's tree and land as one commit
(``Gitmem-Upgrade: N -> M``), so ``git revert`` of that commit gives the old
format back, which this gitmem still reads.
"""

from __future__ import annotations

from dataclasses import dataclass
from datetime import datetime

from gitmem.api.context import Context
from gitmem.base import clock


@dataclass(frozen=True)
class Upgraded:
    """The outcome: the format before and after, the commit (None when already current), the files
    it changed and the git hooks of gitmem's it wrote into this clone."""

    before: int
    after: int
    commit: str | None
    paths: tuple[str, ...] = ()
    hooks: tuple[str, ...] = ()

    def to_json(self) -> dict[str, object]:
        """What ``gitmem upgrade --json`` prints."""
        return {"before": self.before, "after": self.after, "commit": self.commit, "paths": list(self.paths),
                "hooks": list(self.hooks)}


def upgrade_pending(ctx: Context) -> Upgraded:
    """What ``upgrade`` would do at HEAD, without writing (commit None)."""
    from gitmem.store import formats

    head = ctx.head
    version = formats.check(ctx.git.read(formats.STATE_FILE, head) if head else None)
    changes = _changes(ctx, head, version) if head else {}
    return Upgraded(version, formats.FORMAT if changes else version, None, tuple(sorted(changes)))


def upgrade(ctx: Context, now: datetime | None = None) -> Upgraded:
    """Upgrade the repository to the current format in one commit (nothing when it is current)."""
    from gitmem.base.errors import UsageError
    from gitmem.writer.plan import Plan
    from gitmem.store import formats

    seen: dict[str, object] = {}
    hooks: tuple[str, ...] = ()
    if ctx.head is not None:
        from gitmem.api import initrepo

        initrepo.install_merge_driver(ctx.root)   # this clone's git config names the driver the attributes name
        hooks = tuple(initrepo.refresh_git_hooks(ctx.root))   # a hook this gitmem added, or rewrote

    def plan(parent: str | None) -> Plan[None] | None:
        if parent is None:
            raise UsageError("the repository has no commit yet", hint="gitmem init DIR makes one of the current format")
        version = formats.check(ctx.git.read(formats.STATE_FILE, parent))
        changes = _changes(ctx, parent, version)
        seen.update(before=version, paths=tuple(sorted(changes)))
        if not changes:
            return None
        subject = (f"gitmem: upgrade the repository from format {version} to {formats.FORMAT}" if version < formats.FORMAT
                   else "gitmem: upgrade: .gitattributes names the merge driver and LF line ends")
        return Plan(changes, subject,
                    "upgrade", body="\n".join(f"- {formats.FORMATS[n]} -> {formats.FORMATS[n + 1]}"
                                              for n in range(version, formats.FORMAT)),
                    trailers=(("Gitmem-Upgrade", f"{version} -> {formats.FORMAT}"),), outside=(formats.ATTRIBUTES,))

    written = ctx.writer.write(plan, now or clock.now())
    before = seen.get("before", formats.FORMAT)
    assert isinstance(before, int)
    paths = seen.get("paths", ())
    assert isinstance(paths, tuple)
    return Upgraded(before, formats.FORMAT if written.commit else before, written.commit,
                    paths if written.commit else (), hooks)


def _changes(ctx: Context, rev: str, version: int) -> dict[str, bytes | None]:
    """The files an upgrade of the tree at ``rev`` (format ``version``) changes: the format steps', and
    ``.gitattributes`` completed with the lines gitmem's merge driver and line ends need."""
    from gitmem.store import formats

    changes = formats.upgrade_changes(lambda path: ctx.git.read(path, rev), version)
    attributes = formats.completed_attributes(ctx.git.read(formats.ATTRIBUTES, rev), "gitmem upgrade")
    if attributes is not None:
        changes[formats.ATTRIBUTES] = attributes
    from gitmem.base import people

    if ctx.cfg.sharing == people.TEAM and not (ctx.git.read(people.SALT_FILE, rev) or b"").strip():
        changes[people.SALT_FILE] = people.new_salt()   # a team repository names its person folders by it
    return changes
