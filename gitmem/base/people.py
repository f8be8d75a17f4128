"""Personal and shared memory in a team repository (``sharing: team``, DESIGN.md section 8).

In a repository shared by a team, the memories of a person's own domains
(user, self, relationship) live apart, in a folder of that person:
``memory/<domain>/p-<16 hex>/<shard>/<id>.md`` (archived:
``archive/<domain>/p-<16 hex>/…``). The folder is named by a hash of the
person's git ``user.email`` salted per repository (``.gitmem/salt``,
committed once by ``gitmem init`` or ``gitmem upgrade``), so the address
itself is not in the tree. Each person recalls and loads their own folder and
the shared memories, never another person's folder; nothing in a person's
folder is folded into the shared patterns or the committed core.

Without ``sharing: team`` nothing here changes a path: a repository behaves
as it always has.
"""

from __future__ import annotations

import re
from pathlib import Path

PERSONAL_DOMAINS = ("user", "self", "relationship")
SALT_FILE = ".gitmem/salt"
TEAM = "team"
NOBODY = "p-"                                   # a viewer whose folder is unknown: sees only shared memories
_FOLDER = re.compile(r"p-[0-9a-f]{16}\Z")
_TOPS = ("memory", "archive")


def new_salt() -> bytes:
    """A repository's salt: 32 random hex digits and a line end."""
    import secrets

    return (secrets.token_hex(16) + "\n").encode("ascii")


def folder_of(salt: str, email: str) -> str:
    """The person folder of ``email`` in the repository salted ``salt``."""
    import hashlib

    key = f"{salt.strip()}\0{email.strip().lower()}".encode("utf-8", "surrogateescape")
    return "p-" + hashlib.sha256(key).hexdigest()[:16]


def person_of(path: str) -> str | None:
    """The person folder a memory path lies in (None: a shared memory)."""
    parts = path.split("/")
    if len(parts) >= 4 and parts[0] in _TOPS and _FOLDER.match(parts[2]):
        return parts[2]
    return None


def visible(path: str, viewer: str | None) -> bool:
    """Whether ``viewer`` (a person folder; None: not a team repository) sees the memory at ``path``."""
    if viewer is None:
        return True
    owner = person_of(path)
    return owner is None or owner == viewer


def placed(path: str, person: str) -> str:
    """Where a new memory file at its canonical ``path`` goes in a team repository: into ``person``'s folder
    when its domain is a personal one, else where it is."""
    parts = path.split("/")
    if len(parts) == 4 and parts[0] == "memory" and parts[1] in PERSONAL_DOMAINS and parts[3].endswith(".md"):
        return "/".join((parts[0], parts[1], person, parts[2], parts[3]))
    return path


def archived(path: str, canonical: str) -> str:
    """The archive path of the memory at ``path`` whose canonical archive path is ``canonical``: inside the
    same person's folder when it lies in one."""
    owner = person_of(path)
    if owner is None:
        return canonical
    parts = canonical.split("/")
    return "/".join((*parts[:2], owner, *parts[2:]))


def salt_of(root: Path) -> str | None:
    """The repository's salt as the work tree holds it (None: absent or empty)."""
    try:
        text = (root / SALT_FILE).read_text(encoding="utf-8").strip()
    except (OSError, UnicodeDecodeError):
        return None
    return text or None


def email_of(root: Path) -> str | None:
    """The person's git ``user.email`` in this clone (None: unset)."""
    from gitmem.base.gitio import attempt

    out = attempt(root, "config", "--get", "user.email")
    email = out.decode("utf-8", "replace").strip() if out else ""
    return email or None


def whoami(root: Path, sharing: str) -> str | None:
    """This clone's person folder in a team repository (``NOBODY`` when the salt or the email is missing);
    None when the repository is not shared."""
    if sharing != TEAM:
        return None
    salt, email = salt_of(root), email_of(root)
    return folder_of(salt, email) if salt and email else NOBODY


__all__ = ["NOBODY", "PERSONAL_DOMAINS", "SALT_FILE", "TEAM", "archived", "email_of", "folder_of", "new_salt",
           "person_of", "placed", "salt_of", "visible", "whoami"]
