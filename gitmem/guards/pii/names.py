"""User names a session teaches through its own home paths, found where they stand alone.

A transcript's ``cwd`` says ``/Users/alice/proj``: ``alice`` is then the user,
and "ask alice for admin rights" names her as surely as the path does. The
name is learned from the home paths the scanner finds, in its written and its
encoded form (Claude Code's project folders make every non-alphanumeric a
``-``: ``alice.smith`` becomes ``alice-smith``), and afterwards recognised by a
salted hash: :class:`Names` holds hashes only, so nothing that keeps it keeps
the name. A name of fewer than 3 characters or a generic account (root, admin,
user, dev, app, test, ubuntu …) is never learned.
"""

from __future__ import annotations

import re
from collections import namedtuple
from collections.abc import Iterable

from gitmem.guards.pii.kinds import Finding
from gitmem.guards.pii.personal import HOME_PLACEHOLDERS

MIN_NAME = 3
MAX_PARTS = 4   # a name of up to four parts: alice, alice.smith, mary-jo-ann-lee
_GENERIC = HOME_PLACEHOLDERS | frozenset(
    "dev developer test tester tests user users admin root ubuntu home local owner me mine work code src "
    "desktop documents downloads projects project repo repos".split()
)
_PART = re.compile(r"[^\W_]+")
_RUN = re.compile(r"[^\W_]+(?:[._-][^\W_]+)*")   # words joined as in a user name
_NAME_AT_END = re.compile(r"[^\W_][\w.-]*\Z")


def normal(name: str) -> str:
    """The form names are compared in: case-folded, each run of non-alphanumerics one ``-``."""
    return "-".join(_PART.findall(name.casefold()))


def learnable(name: str) -> bool:
    """A user name worth recognising: 3 characters or more, not a generic account name."""
    n = normal(name)
    return len(n) >= MIN_NAME and n not in _GENERIC and n.replace("-", "") not in _GENERIC \
        and not n.replace("-", "").isdigit()


def names_in(paths: Iterable[str]) -> tuple[str, ...]:
    """The user names of the home paths in ``paths`` (a session's ``cwd`` values), learnable ones only."""
    from gitmem.guards.pii.scan import scan

    found: dict[str, None] = {}
    for path in paths:
        for f in scan(path):
            if f.kind != "home_path":
                continue
            prefix = path[f.start : f.end]
            m = _NAME_AT_END.search(re.split(r"[\\/~]|-(?:Users|home)-", prefix)[-1])
            if m is not None and learnable(m.group()):
                found[m.group()] = None
    return tuple(found)


# Words recur in a session: each is hashed once per process.
_DIGESTS: dict[tuple[bytes, str], str] = {}


class Names(namedtuple("Names", "salt hashes")):
    """User names to find, as salted hashes: ``salt`` (bytes), ``hashes`` (frozenset of hex str)."""

    __slots__ = ()

    def digest(self, name: str) -> str:
        """The salted hash of ``name`` in its :func:`normal` form."""
        key = (self.salt, name.casefold() if name.isalnum() else normal(name))
        found = _DIGESTS.get(key)
        if found is None:
            import hashlib  # not at import time: the hook imports this package on every commit

            if len(_DIGESTS) > 200_000:
                _DIGESTS.clear()
            found = _DIGESTS[key] = hashlib.sha256(key[0] + key[1].encode("utf-8")).hexdigest()
        return found

    def plus(self, names: Iterable[str]) -> Names:
        """These names and ``names`` (learnable ones only)."""
        return Names(self.salt, self.hashes | {self.digest(n) for n in names if learnable(n)})


def find_names(text: str, names: Names) -> list[Finding]:
    """Where a known user name stands alone in ``text``, as a whole word or parts joined by
    ``.``, ``_`` or ``-``, in any case (``Alice.Smith``, ``alice-smith``); reported
    as ``home_path`` (the identifying part of a home)."""
    if not names.hashes or not text:
        return []
    out: list[Finding] = []
    hashes, digest = names.hashes, names.digest
    for run in _RUN.finditer(text):
        token = run.group()
        if len(token) < MIN_NAME:
            continue
        if token.isalnum():   # one word: the common case
            if digest(token) in hashes:
                out.append(Finding("home_path", run.start(), run.end(), False))
            continue
        out += _find_in_run(text, run.start(), [(m.start(), m.end()) for m in _PART.finditer(token)], names)
    return out


def _find_in_run(text: str, at: int, parts: list[tuple[int, int]], names: Names) -> list[Finding]:
    """Names among the parts of one run such as ``x-Users-alice-smith-proj``, longest first."""
    out: list[Finding] = []
    i = 0
    while i < len(parts):
        hit = 0
        for k in range(min(MAX_PARTS, len(parts) - i), 0, -1):
            start, end = at + parts[i][0], at + parts[i + k - 1][1]
            if end - start >= MIN_NAME and names.digest(text[start:end]) in names.hashes:
                out.append(Finding("home_path", start, end, False))
                hit = k
                break
        i += hit or 1
    return out
