"""Purge: what a leaked value is, what replaces it, and who must force-update (``gitmem purge``).

The history itself is rewritten by ``gitmem.base.gitio.rewrite``; this module
decides the rest from values: the value a finding id names (ids as ``gitmem
pii scan`` prints them), its placeholder (the one replacer,
``guards.redact.placeholder_for``), and which refs on which remotes a person
must force-update. gitmem never pushes: a fetch from a remote that still
holds the old history brings the value back, so every other clone re-clones.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Iterable, Sequence

from gitmem.base.errors import NotFoundError, UsageError
from gitmem.base.gitio.rewrite import RefUpdate
from gitmem.guards import pii, redact

_REMOTE_PREFIX = "refs/remotes/"
MIN_VALUE = 4  # shorter values match unrelated text everywhere
_TAG_PREFIX = "refs/tags/"


@dataclass(frozen=True)
class Target:
    """The value to purge (never printed), its kind, the placeholder it becomes and its finding id."""

    value: str
    kind: str
    placeholder: str
    id: str


@dataclass(frozen=True)
class RemoteUpdate:
    """A remote that holds (or may hold) the old history: ``(ref on the remote, new id)`` to force there;
    an empty id deletes that ref (a branch whose name held the value, now pushed under its new name)."""

    remote: str
    refs: tuple[tuple[str, str], ...]

    def command(self) -> str:
        """The push a person runs; gitmem itself never force-pushes."""
        return f"git push --force {self.remote} " + " ".join(f"{new}:{ref}" if new else f":{ref}"
                                                             for ref, new in self.refs)


@dataclass(frozen=True)
class Purged:
    """What ``purge`` did (``applied``) or, without ``--confirm``, would do."""

    kind: str
    placeholder: str
    id: str
    applied: bool
    commits: tuple[tuple[str, str], ...]
    refs: tuple[RefUpdate, ...]
    remotes: tuple[RemoteUpdate, ...]

    def to_json(self) -> dict[str, object]:
        """What ``purge --json`` prints: the value itself only in the deletion of a remote ref named after it."""
        return {"kind": self.kind, "placeholder": self.placeholder, "id": self.id, "applied": self.applied,
                "commits": [{"old": old, "new": new} for old, new in self.commits],
                "refs": [{"ref": r.name, "old": r.old, "new": r.new} for r in self.refs],
                "remotes": [{"remote": r.remote, "refs": [ref for ref, _ in r.refs], "command": r.command()}
                            for r in self.remotes]}


def target(value: str | None, finding: str | None, texts: Iterable[str],
           allowlist: pii.Allowlist | None = None) -> Target:
    """The value to purge: given as such, or the one whose finding id ``finding`` is in ``texts``."""
    if value is not None:
        if len(value.strip()) < MIN_VALUE:
            raise UsageError(f"the value to purge is shorter than {MIN_VALUE} characters: it would rewrite "
                             "unrelated text too", hint="give the whole leaked value: gitmem purge --value VALUE")
        found = pii.scan(value, allowlist)
        kind = found[0].kind if len(found) == 1 and found[0].end - found[0].start == len(value) else "value"
        return Target(value, kind, redact.placeholder_for(value, allowlist), redact.finding_id(kind, value))
    if not finding:
        raise UsageError("say what to purge", hint="gitmem purge --value VALUE, or --finding ID from `gitmem pii scan`")
    for text in texts:
        for f in pii.scan(text, allowlist):
            found_value = text[f.start:f.end]
            if redact.finding_id(f.kind, found_value) == finding:
                return Target(found_value, f.kind, redact.placeholder_for(found_value, allowlist), finding)
    raise NotFoundError(f"no finding {finding} in the history of the memory repository",
                        hint="list findings and their ids with `gitmem pii scan FILE`; or purge --value VALUE")


Remote = tuple[str, Sequence[tuple[str, str]], Sequence[str]]
"""(name, (local branch ref, ref on the remote) pairs it tracks, its remote-tracking refs)."""


def remote_updates(refs: Sequence[RefUpdate], remotes: Sequence[Remote]) -> tuple[RemoteUpdate, ...]:
    """For each remote, the refs on it to force-update and the new id each must get.

    A remote-tracking ref that was rewritten names its branch; a rewritten local
    branch names the branch it tracks; rewritten tags go to every remote (a tag
    is pushed by name, its remote copy is not tracked). A remote nothing is
    known of gets every rewritten branch and tag under its own name.
    """
    moved = {r.name: r.new for r in refs}
    renamed = {r.name: r.source for r in refs if r.source}
    tags = [(name, new) for name, new in moved.items() if name.startswith(_TAG_PREFIX)]
    out = []
    for remote, tracked, tracking in remotes:
        wanted: dict[str, str] = {}
        prefix = f"{_REMOTE_PREFIX}{remote}/"
        for name, new in moved.items():
            if name.startswith(prefix) and not name.endswith("/HEAD"):
                wanted[f"refs/heads/{name[len(prefix):]}"] = new
                if name in renamed:
                    wanted[f"refs/heads/{renamed[name][len(prefix):]}"] = ""
        for local, merge in tracked:
            if local in moved:
                wanted.setdefault(merge, moved[local])
        if not tracked and not tracking:
            for name, new in moved.items():
                if name.startswith("refs/heads/"):
                    wanted.setdefault(name, new)
        wanted.update(tags)
        if wanted:
            out.append(RemoteUpdate(remote, tuple(sorted(wanted.items()))))
    return tuple(out)
