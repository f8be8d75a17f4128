"""Names and identifiers as recall reads them: their parts, their closed forms and their numeronyms.

unicode61 (``words``) lower-cases before it splits, so a camelCase or
mixed-case name stays one word ("PostgreSQL" -> "postgresql",
"getUserName" -> "getusername"), while the joined forms split at every
``_ . -`` ("get_user_name", "node.js", "pre-commit-hook"). The recall index
adds what each form lacks, as extra terms:

- ``parts``: the case parts of a mixed-case name ("PostgreSQL" -> "postgre",
  "sql"; "getUserName" -> "get", "user", "name");
- ``closed``: the closed form of a name joined by ``_``, ``.`` or ``-``
  ("get_user_name" -> "getusername", "node.js" -> "nodejs");
- ``numeronym``: a long word's numeronym ("kubernetes" -> "k8s"), and
  ``is_numeronym`` for a word shaped like one.

Which store word a query word abbreviates (a prefix, a numeronym) is
decided by the index's vocabulary, ``gitmem.store.vocabulary``; this module
only reads text. ASCII only: identifiers are written in ASCII.
"""

from __future__ import annotations

import re
from functools import lru_cache

__all__ = ["closed", "identifiers", "is_numeronym", "numeronym", "parts", "split_names"]

# A mixed-case name: a lower-case letter or digit followed by a capital ("getUserName",
# "PostgreSQL", "iOS"), inside a run of letters and digits.
_TOKEN = re.compile(r"[A-Za-z0-9]+")
_MIXED = re.compile(r"[a-z0-9][A-Z]")
# Case parts: an acronym before a capitalised part ("XMLHttp" -> "XML", "Http"), a capitalised
# or lower-case run, an acronym, a number.
_PART = re.compile(r"[A-Z]+(?=[A-Z][a-z])|[A-Z]?[a-z]+|[A-Z]+|[0-9]+")
# Words joined by one of _ . - with no space ("snake_case", "node.js", "pre-commit-hook").
_JOINED = re.compile(r"[A-Za-z0-9]+(?:[_.\-][A-Za-z0-9]+)+")
_SEPARATORS = re.compile(r"[_.\-]")
# Fast checks that let a text without any name skip the scans above.
_ANY_JOINED = re.compile(r"[A-Za-z0-9][_.\-][A-Za-z]")
_ANY_DIGIT_WORD = re.compile(r"[A-Za-z][0-9]|[0-9][A-Za-z]")
_NUMERONYM = re.compile(r"[a-z]([0-9]{1,2})[a-z]")
# A numeronym stands for a long word: k8s (kubernetes), i18n, a11y, l10n; "b2b" or "e2e" are no numeronyms.
MIN_NUMERONYM = 4


@lru_cache(maxsize=8)   # the index reads one memory's names twice: its terms, then its vocabulary
def split_names(text: str) -> dict[str, tuple[str, ...]]:
    """Each mixed-case name of ``text``, folded, with its folded case parts ("PostgreSQL" -> "postgre", "sql")."""
    out: dict[str, tuple[str, ...]] = {}
    if not _MIXED.search(text):
        return out
    for token in _TOKEN.findall(text):
        if _MIXED.search(token):
            found = tuple(p.lower() for p in _PART.findall(token) if len(p) > 1 and not p.isdigit())
            if found:
                out[token.lower()] = found
    return out


def parts(text: str) -> list[str]:
    """The folded case parts of every mixed-case name in ``text``, in order."""
    return [p for found in split_names(text).values() for p in found]


@lru_cache(maxsize=8)
def closed(text: str) -> tuple[str, ...]:
    """The folded closed forms of the names ``text`` joins by ``_ . -`` ("node.js" -> "nodejs").

    Every part must hold a letter, so a version ("v1.2.3") or a date is no name.
    """
    if not _ANY_JOINED.search(text):
        return ()
    out: list[str] = []
    for token in _JOINED.findall(text):
        pieces = _SEPARATORS.split(token)
        if all(any(c.isalpha() for c in p) for p in pieces):
            out.append("".join(pieces).lower())
    return tuple(out)


def identifiers(text: str) -> list[str]:
    """The folded whole forms of the names in ``text``: mixed-case names, closed forms, letters with digits."""
    if not _MIXED.search(text) and not _ANY_DIGIT_WORD.search(text):
        return list(closed(text))
    found = [t.lower() for t in _TOKEN.findall(text)
             if _MIXED.search(t) or (not t.isdigit() and not t.isalpha() and len(t) > 2)]
    return [*found, *closed(text)]


def numeronym(word: str) -> str | None:
    """The numeronym of a long folded word ("kubernetes" -> "k8s"), or None for a short or non-letter one."""
    if len(word) < MIN_NUMERONYM + 2 or not (word.isascii() and word.isalpha()):
        return None
    return f"{word[0]}{len(word) - 2}{word[-1]}"


def is_numeronym(word: str) -> bool:
    """Whether a folded word is shaped like a numeronym of a long word ("k8s", "i18n", not "b2b")."""
    found = _NUMERONYM.fullmatch(word)
    return found is not None and int(found.group(1)) >= MIN_NUMERONYM
