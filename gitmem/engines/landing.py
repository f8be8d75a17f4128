"""Where a review branch landed on a remote's branch without a merge commit: a squash or a rebase merge.

A forge's "squash and merge" makes one new commit of the branch's whole change;
"rebase and merge" replays each of its commits. Neither leaves the branch's tip
in the remote's history, so the review is recognised by its change instead.

A change is known by its key: the lines it adds and removes, file by file,
without context lines or line numbers (a squash made after the remote's branch
moved on has other context and other line numbers, and the same key). Only a
commit on the remote's first-parent line after the review's base can be the one
that brought it, and a key alone is never enough:

- rebase: every commit of the review that changes something has, in order, a
  commit with its key, its author and its author date (a rebase keeps both);
- squash: one commit has the key of the review's whole change, and is tied to
  the review by its message (it names the branch or carries one of the
  review's commit subjects, as the forges' default messages do) or by the
  branch having been deleted from the remote that had it.

A change that adds and removes nothing (an empty review) is never recognised.
"""

from __future__ import annotations

import hashlib
from dataclasses import dataclass

FORMAT = "%x00%x00%H%x00%an <%ae>%x00%aI%x00%cn <%ce>%x00%cI%x00%B%x00"   # what ``parse_log`` reads
RECORD = "\x00\x00"


@dataclass(frozen=True)
class Landed:
    """One commit as the recognition reads it: who made it and when, its message, its change's key."""

    id: str
    author: str
    authored: str
    committer: str
    committed: str
    message: str
    key: str


@dataclass(frozen=True)
class Landing:
    """How a review came into the remote's branch, and the commit that brought it."""

    how: str          # squash | rebase
    commit: Landed


def change_key(patch: str) -> str:
    """The key of a patch printed with no context (``-U0 --full-index``): its added and removed lines, file by
    file, without line numbers; a binary file by its new blob; '' when it changes nothing."""
    files: dict[str, list[str]] = {}
    current: list[str] | None = None
    index = ""
    for line in patch.split("\n"):
        if line.startswith("diff --git "):
            current = files.setdefault(line[len("diff --git "):], [])
            index = ""
        elif current is None or line.startswith(("+++ ", "--- ", "@@")):
            continue
        elif line.startswith("index "):
            index = line
        elif line.startswith(("+", "-", "new file mode", "deleted file mode", "old mode", "new mode",
                              "rename from", "rename to")):
            current.append(line)
        elif line.startswith("Binary files") or line.startswith("GIT binary patch"):
            current.append(index)
    changed = {name: lines for name, lines in files.items() if lines}
    if not changed:
        return ""
    digest = hashlib.sha256()
    for name in sorted(changed):
        digest.update(name.encode("utf-8", "surrogateescape") + b"\x00")
        digest.update("\n".join(changed[name]).encode("utf-8", "surrogateescape") + b"\x00\x00")
    return digest.hexdigest()


def parse_log(text: str) -> list[Landed]:
    """The commits of ``git log --format=FORMAT -p -U0 --full-index`` (each with its change's key), in order."""
    out: list[Landed] = []
    for record in text.split(RECORD)[1:]:
        parts = record.split("\x00", 6)
        if len(parts) < 7:
            continue
        commit, author, authored, committer, committed, message, patch = parts
        out.append(Landed(commit.strip(), author, authored, committer, committed, message.strip(),
                          change_key(patch)))
    return out


def find(branch: str, whole: str, own: list[Landed], line: list[Landed], deleted: bool = False) -> Landing | None:
    """The commit of ``line`` (the remote's first-parent commits after the review's base, oldest first) that
    brought review ``branch``: its whole change's key ``whole``, its own commits ``own`` (oldest first);
    ``deleted``: the remote that had the branch no longer has it. None: it did not land there."""
    if not whole:
        return None
    changing = [c for c in own if c.key]
    at = 0
    last: Landed | None = None
    for c in line:
        if at < len(changing) and (c.key, c.author, c.authored) == (changing[at].key, changing[at].author,
                                                                   changing[at].authored):
            last, at = c, at + 1
    if changing and at == len(changing) and last is not None and (len(changing) > 1 or last.key == whole):
        return Landing("rebase", last)
    subjects = [s for s in (c.message.split("\n", 1)[0].strip() for c in own) if s]
    for c in line:
        if c.key == whole and (deleted or branch in c.message or any(s in c.message for s in subjects)):
            return Landing("squash", c)
    return None
