"""Monthly snapshots: annotated tags ``gitmem/snapshot/YYYY-MM`` (UTC months) with stats in the message.

``gitmem snapshot`` and the snapshot job (the daemon runs it when the month
turns) tag the current month on HEAD, after tagging the last commit of each
earlier month that has commits and no tag yet (``catch_up``); a per-clone
marker keeps that walk to once a month. A write never tags.
"""

from __future__ import annotations

from dataclasses import dataclass
from datetime import datetime, timezone

from gitmem.base import state
from gitmem.base.errors import ConflictError

TYPE_CHECKING = False
if TYPE_CHECKING:
    from gitmem.base.gitio import Git

PREFIX = "gitmem/snapshot/"
MARKER = "snapshots-checked"
FOLDERS = (("memories", "memory/"), ("patterns", "patterns/"), ("episodes", "episodes/"), ("skills", "skills/"))


@dataclass(frozen=True)
class Snapshot:
    """One snapshot tag: its name, month, the commit it names, and whether this call made it."""

    tag: str
    month: str
    commit: str
    created: bool
    stats: dict[str, int]

    def to_json(self) -> dict[str, object]:
        """What ``snapshot --json`` prints."""
        return {"tag": self.tag, "month": self.month, "commit": self.commit, "created": self.created,
                "stats": self.stats}


def month_of(when: datetime) -> str:
    """The UTC month of ``when`` as YYYY-MM."""
    return when.astimezone(timezone.utc).strftime("%Y-%m")


def tag_name(month: str) -> str:
    """The snapshot tag of a month."""
    return PREFIX + month


def stats(git: Git, rev: str) -> dict[str, int]:
    """How many documents each memory folder holds at ``rev``."""
    return {name: sum(1 for path, _ in git.files(prefix, rev) if path.endswith(".md")) for name, prefix in FOLDERS}


def message(month: str, rev: str, counts: dict[str, int]) -> str:
    """The tag message: the month, the commit and the stats."""
    lines = [f"gitmem snapshot {month}", "", f"commit: {rev}"]
    lines += [f"{name}: {n}" for name, n in counts.items()]
    return "\n".join(lines) + "\n"


def existing(git: Git) -> list[str]:
    """Every snapshot tag, oldest month first."""
    return git.tags(PREFIX)


def latest(git: Git) -> str | None:
    """The newest snapshot tag, if any."""
    tags = existing(git)
    return tags[-1] if tags else None


def take(git: Git, rev: str, now: datetime) -> Snapshot:
    """Tag ``rev`` as this month's snapshot, or report the tag this month already has."""
    month = month_of(now)
    name = tag_name(month)
    if name in existing(git):
        tagged = git.commit(name).id
        return Snapshot(name, month, tagged, False, stats(git, tagged))
    commit = git.commit(rev).id
    counts = stats(git, commit)
    try:
        git.create_tag(name, commit, message(month, commit, counts), now)
    except ConflictError:   # another process tagged the month meanwhile
        tagged = git.commit(name).id
        return Snapshot(name, month, tagged, False, stats(git, tagged))
    return Snapshot(name, month, commit, True, counts)


def untagged_months(git: Git, rev: str, now: datetime) -> list[tuple[str, str]]:
    """(month, last commit of that month) for each month before ``now``'s with commits and no tag."""
    current = month_of(now)
    have = set(existing(git))
    seen: dict[str, str] = {}
    for info in git.log(rev):
        month = str(info.time)[:7]
        if month < current and month not in seen:
            seen[month] = info.id
    return sorted((m, c) for m, c in seen.items() if tag_name(m) not in have)


def catch_up(git: Git, rev: str, now: datetime) -> list[Snapshot]:
    """Tag every earlier month that lacks its snapshot; at most one walk per month and clone."""
    marker = state.shared_dir(git.root) / MARKER
    current = month_of(now)
    try:
        if marker.read_text().strip() == current:
            return []
    except OSError:
        pass
    made = []
    for month, commit in untagged_months(git, rev, now):
        counts = stats(git, commit)
        try:
            git.create_tag(tag_name(month), commit, message(month, commit, counts), now)
        except ConflictError:
            continue
        made.append(Snapshot(tag_name(month), month, commit, True, counts))
    marker.parent.mkdir(parents=True, exist_ok=True)
    marker.write_text(current + "\n")
    return made
