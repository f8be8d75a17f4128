"""Where the writer puts a new memory of a personal domain in a team repository (``base.people``).

Every writer of memory plans canonical paths (``memory/<domain>/<shard>/<id>.md``);
in a repository with ``sharing: team`` the one writer moves each new file of a
personal domain (user, self, relationship) into the writing person's folder,
so no use case, engine or face has to know. A file that exists already stays
where it is (a shared memory reinforced stays shared), and nothing else moves.
"""

from __future__ import annotations

from dataclasses import replace
from typing import Any

from gitmem.base import people
from gitmem.base.config import Config
from gitmem.base.errors import UsageError
from gitmem.base.gitio import Git
from gitmem.writer.plan import Plan


def placed(git: Git, cfg: Config, plan: Plan[Any], parent: str | None) -> Plan[Any]:
    """``plan`` with its new personal memories in the person's folder (the plan itself when none moves)."""
    if cfg.sharing != people.TEAM:
        return plan
    moves = {path: people.placed(path, "P") for path, data in plan.changes.items() if data is not None}
    moves = {path: to for path, to in moves.items() if to != path
             and (parent is None or git.tree_entry_hash(parent, path) is None)}
    if not moves:
        return plan
    person = people.whoami(git.root, cfg.sharing)
    if person is None or person == people.NOBODY:
        missing = "the repository's salt (.gitmem/salt)" if people.salt_of(git.root) is None else "your git user.email"
        hint = ("gitmem upgrade (commits the salt once; then gitmem sync)" if "salt" in missing
                else "git config user.email you@example.org")
        raise UsageError(f"this is a team repository (sharing: team) and {missing} is missing, so a personal "
                         "memory has no folder to go to; nothing was written", hint=hint)
    changes = {people.placed(path, person) if path in moves else path: data for path, data in plan.changes.items()}
    return replace(plan, changes=changes)
