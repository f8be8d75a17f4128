"""The store's own vocabulary: which stored word a query word abbreviates, decided at index time.

Every memory's distinct words of five letters or more go into the ``vocab``
table when it is indexed: the folded word, its stem, its numeronym
("kubernetes" -> "k8s") and whether the store writes it as a name (a
mixed-case, joined or digit-bearing identifier: ``gitmem.base.text.identifiers``).
A query word then stands for more than its own stem, at a lower weight
(``gitmem.store.ranking``, step 2):

- a name that begins with it ("postgres" -> PostgreSQL, "kube" -> kubernetes
  only when the store writes it as a name);
- the longest stored word it begins with, for a long query word no memory
  holds ("postgresql" -> postgres);
- the word a numeronym stands for, or the numeronym of the word ("k8s" <->
  kubernetes), where the store holds it.

No synonym list: an expansion is always a word some memory holds, and one
that no memory holds any more (a deleted memory's word stays in the table
until the next rebuild) is dropped by its document count.
"""

from __future__ import annotations

from gitmem.base import text
from gitmem.base.text import identifiers

TYPE_CHECKING = False  # typing costs milliseconds of every recall process: annotations only
if TYPE_CHECKING:
    import sqlite3
    from collections.abc import Container, Iterable

SCHEMA = (
    # one row a distinct word: short is its numeronym (or NULL), name whether the store writes it as a name
    "CREATE TABLE vocab (word TEXT PRIMARY KEY, stem TEXT NOT NULL, short TEXT, name INTEGER NOT NULL)"
    " WITHOUT ROWID",
    "CREATE INDEX vocab_short ON vocab (short) WHERE short IS NOT NULL",
    "CREATE INDEX vocab_names ON vocab (word) WHERE name",
)
INSERT = ("INSERT INTO vocab (word, stem, short, name) VALUES (?, ?, ?, ?)"
          " ON CONFLICT (word) DO UPDATE SET name = max(name, excluded.name)")

# Words shorter than this are neither stored nor expanded: "post" must not stand for "postgresql".
MIN_WORD = 5
# A query word expands to names that begin with it (True) or to any stored word that does (False).
NAMES_ONLY = True
# A query word of at least this many letters also stands for the stored words it begins with.
MIN_LONG = 8
# The longest stored word a query word may begin, as a multiple of its own length.
MAX_STRETCH = 2.5
# At most this many expansions per query word, the closest in length first.
MAX_EXPANSIONS = 4
# A query word longer than this is expanded to nothing: its prefixes would cost the square of its length (a
# memory at the size cap, searched for its duplicates, is one query of up to 1 MiB).
MAX_QUERY_WORD = 64


def entries(content: str) -> list[tuple[str, str, str | None, int]]:
    """The ``vocab`` rows of one memory's text: (word, stem, numeronym, is a name)."""
    return rows([content])


def rows(contents: Iterable[str]) -> list[tuple[str, str, str | None, int]]:
    """The ``vocab`` rows of many memories, one per distinct word (a word written as a name anywhere is a name)."""
    said: set[str] = set()
    names: set[str] = set()
    for content in contents:
        said.update(text.words(content))
        names.update(identifiers.identifiers(content))
    stem, numeronym = text.stem, identifiers.numeronym
    return [(w, stem(w), numeronym(w), int(w in names)) for w in sorted(said | names)
            if len(w) >= MIN_WORD or w in names]


def expansions(db: sqlite3.Connection, words: Iterable[str], unheld: Container[str] = ()) -> dict[str, list[str]]:
    """The stems each query word may stand for besides its own, by the vocabulary, in one statement (not yet
    checked against the documents: ``gitmem.store.index`` drops the stems no memory holds). Only a word in
    ``unheld`` (no memory holds it) stands for the stored word it begins with."""
    selects: list[str] = []
    params: list[object] = []
    asked = [w for w in dict.fromkeys(words)
             if len(w) <= MAX_QUERY_WORD and w.isascii() and w.isalnum() and not w.isdigit()]
    for n, word in enumerate(asked):
        if len(word) >= MIN_WORD:   # the names that begin with it, the closest in length first
            name = " AND name" if NAMES_ONLY else ""
            selects.append(f"SELECT * FROM (SELECT {n}, stem FROM vocab WHERE word > ? AND word < ?{name}"
                           " AND length(word) <= ? ORDER BY length(word) LIMIT ?)")
            params += [word, word + "{", int(MAX_STRETCH * len(word)), MAX_EXPANSIONS]
        if identifiers.is_numeronym(word):   # k8s -> kubernetes
            selects.append(f"SELECT * FROM (SELECT {n}, stem FROM vocab WHERE short = ? LIMIT ?)")
            params += [word, MAX_EXPANSIONS]
        if len(word) >= MIN_LONG and word in unheld:   # the longest stored word it begins with
            heads = [word[:k] for k in range(len(word) - 1, max(MIN_WORD, (len(word) + 1) // 2) - 1, -1)]
            selects.append(f"SELECT * FROM (SELECT {n}, stem FROM vocab WHERE word IN ({','.join('?' * len(heads))})"
                           " ORDER BY length(word) DESC LIMIT 1)")
            params += heads
    found: dict[int, list[str]] = {n: [] for n in range(len(asked))}
    if selects:
        for n, stem in db.execute(" UNION ALL ".join(selects), params):
            found[n].append(stem)
    out: dict[str, list[str]] = {}
    for n, word in enumerate(asked):
        short = identifiers.numeronym(word)
        if short is not None:
            found[n].append(text.stem(short))    # kubernetes -> k8s, where a memory writes it so
        own = text.stem(word)
        alternatives = [s for s in dict.fromkeys(found[n]) if s != own]
        if alternatives:
            out[word] = alternatives
    return out
