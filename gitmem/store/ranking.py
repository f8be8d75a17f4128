"""How the recall index ranks: the query it sends to FTS5 and the score of each hit.

Ranking (DESIGN.md section 5, Generative Agents style) is a weighted sum of
three normalised parts, relevance dominant:

    score = 0.75 * relevance + 0.15 * importance + 0.10 * recency

- relevance: the lexical relevance of this query, divided by the best
  candidate's, so 1.0 is the best match (see ``relevance``);
- importance: the memory's base importance, 0..1, as stored;
- recency: ``0.5 ** (hours since last_accessed / 168)``, a one-week half-life
  (0.9959 per hour, close to Generative Agents' 0.995): a memory used today
  outranks an equally relevant one untouched for a month.

Importance and recency are not min-max normalised across the candidates: a
few seconds between two imports must not turn into the full 0..1 range.

Lexical relevance, computed for the top ``CANDIDATES`` FTS5 matches:

1. FTS5 bm25 (k1 1.2, b 0.75) over the query's content words, OR semantics,
   stop words dropped (they cost most of the query time and carry no topic),
   over three equally weighted columns: the content's stems, the stems of
   keywords and tags, CJK bigrams; a compound is asked and indexed closed too (a
   query's "road trip" and "de-stress" ask "roadtrip" and "destress"; a
   memory's "de-stress" is found by "destress"), never counted in step 2;
2. times ``1 + coverage`` (the share of distinct query terms the memory holds,
   each term weighed by its rarity in the store, its inverse document
   frequency: a name or a rare topic word counts for more than a word found
   in half the memories, such as a speaker's name in a conversation; a term
   is also covered, at ``_ALTERNATIVE_WEIGHT``, by an alternative: a case part
   of a name the query writes, or a stored word the term abbreviates, as
   ``gitmem.store.vocabulary`` finds them; each alternative is asked too)
   and ``1 + 0.3 * adjacency`` (the share of neighbouring query-term pairs that
   are neighbours in the memory too): a memory that answers the whole question
   beats one that repeats a single word of it many times;
3. times ``1 + 0.5`` for a memory that states a time ("yesterday", "last
   week", a month, a year) when the question asks "when": the answer to a
   "when" question is the turn that names the moment;
4. times 2 for a memory made in the calendar period the question names
   ("on October 13, 2023", "in June"): the memory's ``created`` date is the
   evidence the question points at, as strong as its words;
5. plus context from the memory's neighbours in its source. Memories harvested
   from one session or imported from one file are numbered (``…#L120``,
   ``conv-26:D1:3``); a turn that answers a question rarely repeats the
   question's words, so a memory gains half the score of the memory before
   it in the same source (the nearest lower number), and a tenth of the one
   after it; when the memory before it asks something (holds a "?"), the
   memory is its answer and gains all of that memory's score.

The index stores gitmem's own stems (``gitmem.base.text.stem``) and FTS5
tokenizes them with plain unicode61, without a stemmer of its own: the MATCH
expression asks the query's stems, the rarity of a term is looked up by the
same stem, and the coverage and adjacency bonuses compare the same stems with
the ``terms`` column written by ``terms``. One stemmer, so the three agree by
construction.
"""

from __future__ import annotations

import math
from collections import namedtuple
from functools import lru_cache

from gitmem.base import text
from gitmem.base.text import identifiers

TYPE_CHECKING = False  # typing costs milliseconds of every recall process: annotations only
if TYPE_CHECKING:
    from collections.abc import Iterator, Sequence

# Weights of the final score; they sum to 1 so a score reads as 0..1.
W_RELEVANCE = 0.75
W_IMPORTANCE = 0.15
W_RECENCY = 0.10
RECENCY_HALF_LIFE_HOURS = 168.0

# bm25 column weights: content, keywords + tags, CJK bigrams.
# Keywords count like content: the importer fills them with the content's
# own words, where a higher weight only double-counts (measured on the dev
# split: weight 2 lost 0.02 R@5), while a keyword or tag the text lacks still
# makes the memory findable by it.
_BM25_WEIGHTS = (1.0, 1.0, 1.0)
# How many FTS5 matches the reranker looks at (at least 2k): the dev split
# scores the same from 20 to all matches, and each one costs Python time.
CANDIDATES = 30
# ORDER BY bm25(...) lets SQLite keep a top-N heap; ORDER BY rank sorts every match.
BM25 = f"bm25(memory_fts, {', '.join(map(str, _BM25_WEIGHTS))})"
_COVERAGE_WEIGHT = 1.0
_ADJACENCY_WEIGHT = 0.3
_CONTEXT_FROM_PREVIOUS = 0.5
_CONTEXT_FROM_QUESTION = 1.0
_CONTEXT_FROM_NEXT = 0.1
# A "when" question favours memories that state a time; a named period, those made in it.
_TIME_STATED_WEIGHT = 0.5
_PERIOD_WEIGHT = 1.0
# Coverage counts each query term by its rarity in the store (names, rare topics) rather than alike.
_RARITY_WEIGHTED = True
# Compounds written hyphenated or open are indexed and asked closed too ("de-stress", "road trip").
_JOIN_COMPOUNDS = True
# A term's alternatives (a name's parts, a word it abbreviates: gitmem.store.vocabulary) cover it at this weight.
_ALTERNATIVE_WEIGHT = 0.5
# Names: their case parts and closed forms are indexed and asked (gitmem.base.text.identifiers).
_NAMES = True
# A term in more than this share of the memories is not asked beside rarer ones (0: always asked),
# once the store holds FREQUENT_FLOOR memories (in a small store every term is cheap). The LoCoMo dev
# split scores the same with no floor at 0.3, and loses at 0.2 (conv-26 R@5 0.751 -> 0.746).
FREQUENT_SHARE = 0.3
FREQUENT_FLOOR = 1000

_HIDDEN_TIERS = ("archive",)
_HIDDEN_BANDS = ("background", "fading")


# The type of an episode's row: its own result type, never one of a memory's.
EPISODE = "episode"


class Filters(namedtuple("Filters", "type domain tier band include_archive include_background never_forget project "
                                    "person", defaults=(None, None, None, None, False, False, None, None, None))):
    """Restrictions on a search; archive and background memories are opt-in.

    Fields: ``type``, ``domain``, ``tier``, ``band`` (str or None: no
    restriction); ``include_archive``, ``include_background`` (bool);
    ``never_forget`` (float or None): a base importance at or above it shows
    whatever the band; ``project`` (str or None): only global memories and
    those of this project (its id or display name); ``person`` (a person
    folder or None): in a team repository, no memory of another person's
    folder (``base.people``). Without a ``type``,
    episodes stay out: they are their own result type (``type="episode"``).
    """

    __slots__ = ()


# fts: the FTS5 MATCH expression; terms: distinct stems and bigrams, for coverage;
# pairs: neighbouring query stems (a frozenset of pairs); prefixes: lone CJK characters;
# when: the query asks for a moment; period: a GLOB pattern over ``created`` the query names, or None;
# words: the folded query words each term stems from (None for a CJK term);
# alts: per term, the other stems that stand for it at ``_ALTERNATIVE_WEIGHT`` (names, abbreviations)
Query = namedtuple("Query", "fts terms pairs prefixes when period words alts", defaults=(False, None, (), ()))
# importance; accessed_ts (epoch seconds or None); lexical: bm25 x coverage x adjacency x time
# (0 for a context-only follower); next_rid: the next memory of the same source, when known;
# asks: the memory asks something (its follower is the answer)
Candidate = namedtuple("Candidate", "importance accessed_ts lexical next_rid asks", defaults=(False,))


def name_terms(content: str) -> list[str]:
    """The stems a memory's names add to its words: case parts and closed forms ("PostgreSQL" -> "postgr", "sql")."""
    if not _NAMES:
        return []
    return list(dict.fromkeys(text.stem(w) for w in (*identifiers.parts(content), *identifiers.closed(content))))


def terms(content: str, cjk: str, names: Sequence[str] = ()) -> str:
    """The ``terms`` column of a memory: its stems without stop words, its names' terms, then its CJK terms."""
    stop, stem = text.STOP_WORDS, text.stem
    stems = " ".join([stem(w) for w in text.words(content) if w not in stop] + list(names))
    # padded so that instr(terms, ' word ') finds whole terms
    return f" {stems} {cjk} " if cjk else f" {stems} "


def fts_words(content: str) -> str:
    """The ``words`` column FTS5 indexes: the stem of every word of ``content``, stop words included."""
    return " ".join(text.stems(content))


def fts_keys(keywords: Sequence[str], tags: Sequence[str], content: str, names: Sequence[str] = ()) -> str:
    """The ``keys`` column FTS5 indexes: the stems of the keywords, tags, closed forms of the content's compounds
    and its names' terms (``name_terms``)."""
    joined = text.closed_compounds(content) if _JOIN_COMPOUNDS else []
    closed = dict.fromkeys([text.stem(c) for c in joined] + list(names))
    return " ".join(text.stems(" ".join((*keywords, *tags))) + list(closed))


def parse_query(query: str) -> Query | None:
    """The FTS5 expression and rerank terms of a free-text query, or None.

    Every term is a quoted FTS5 string, so user text can never be read as
    FTS5 syntax (AND, NEAR, column filters, prefixes).
    """
    words = [w for w in text.words(query) if w not in text.STOP_WORDS and (len(w) > 1 or w.isdigit())]
    words = list(dict.fromkeys(words))
    grams: list[str] = []
    prefixes: list[str] = []
    for run in text.cjk_runs(query):
        if len(run) == 1:
            prefixes.append(run)  # a lone character: the bigrams it starts, and itself
        else:
            grams.extend(g for g in text.bigrams(run) if not text.is_stop_bigram(g))
    grams = list(dict.fromkeys(grams))
    stems = [text.stem(w) for w in words]
    # one phrase per distinct word, as before the index held stems: two words of one stem stay two phrases
    parts = [f'"{s}"' for s in stems + grams] + [f'"{p}"*' for p in dict.fromkeys(prefixes)]
    if not parts:
        return None
    joined = text.closed_compounds(query, open_pairs=True) if _JOIN_COMPOUNDS else []
    joined += identifiers.closed(query) if _NAMES else ()
    # asked, never counted in the coverage: they stand for words already there
    parts += [f'"{text.stem(c)}"' for c in dict.fromkeys(joined) if c not in words]
    terms = tuple(dict.fromkeys(stems + grams + prefixes))
    origin = dict(zip(stems, words))
    found = Query(" OR ".join(parts), terms, frozenset(zip(stems, stems[1:])), tuple(dict.fromkeys(prefixes)),
                  text.asks_when(query), text.named_period(query), tuple(origin.get(t) for t in terms))
    names = identifiers.split_names(query) if _NAMES else {}
    return found._replace(alts=tuple(tuple(dict.fromkeys(a for a in (text.stem(p) for p in names.get(w or "", ()))
                                                         if a != t)) for t, w in zip(terms, found.words)))


def expanded(query: Query, more: dict[str, list[str]], docs: dict[str, int], rows: int = 0) -> Query:
    """``query`` with the alternatives ``more`` adds (folded word -> stems) and its own, keeping those some
    memory holds (``docs``: how many memories hold each stem); each kept one is asked too.

    A term held by more than ``FREQUENT_SHARE`` of the ``rows`` memories is not asked when a rarer one is:
    its matches would cost the time of a scan over half the store and bring candidates the rarer terms
    outrank. It still counts in the coverage of the candidates the others bring.
    """
    old = query.alts or ((),) * len(query.terms)
    alts = tuple(tuple(dict.fromkeys(a for a in (*have, *more.get(w or "", ())) if a != t and docs.get(a, 0) > 0))
                 for t, w, have in zip(query.terms, query.words or (None,) * len(query.terms), old))
    added = list(dict.fromkeys(a for have in alts for a in have if a not in query.terms))
    phrases = [*query.fts.split(" OR "), *(f'"{a}"' for a in added)]
    if FREQUENT_SHARE and rows >= FREQUENT_FLOOR:
        frequent = {f'"{t}"' for t in (*query.terms, *added) if docs.get(t, 0) > FREQUENT_SHARE * rows}
        unheld = {f'"{t}"' for t in (*query.terms, *added) if not docs.get(t)}
        if frequent and any(p not in frequent and p not in unheld for p in phrases):
            phrases = [p for p in phrases if p not in frequent]
    return query._replace(fts=" OR ".join(phrases), alts=alts)


def rarity(doc_counts: Sequence[int], rows: int) -> list[float]:
    """The weight of each query term in the coverage bonus: its inverse document frequency.

    A term no memory holds weighs nothing (no candidate can cover it); one in
    every memory (a speaker's name in a conversation) weighs little.
    """
    return [math.log(1.0 + rows / (n + 0.5)) if n > 0 else 0.0 for n in doc_counts]


def lexical_sql(query: Query, weights: Sequence[float] | None = None) -> tuple[str, tuple[object, ...]]:
    """SQL for bm25 times the coverage and adjacency bonuses (module doc, step 2).

    Evaluated by SQLite over the padded ``terms`` column, so the candidates'
    text never has to become Python strings. ``weights`` (one per query
    term, see ``rarity``) weigh the coverage; without them every term counts alike.
    """
    # a lone CJK character matches every term it starts; other terms whole
    held = "(instr(m.terms, ?) > 0)"
    each: list[str] = []
    groups: list[list[object]] = []
    for t, alts in zip(query.terms, query.alts or ((),) * len(query.terms)):
        # a term is covered by itself, or at a lower weight by one of its alternatives
        each.append(f"max({held}, {', '.join([f'{_ALTERNATIVE_WEIGHT!r} * {held}'] * len(alts))})" if alts else held)
        groups.append([f" {t}" if t in query.prefixes else f" {t} ", *(f" {a} " for a in alts)])
    total = sum(weights) if weights is not None and _RARITY_WEIGHTED else 0.0
    if weights is not None and total > 0:
        # the weights are bound, not written in: the SQL text, and so SQLite's prepared statement, stays the same
        covered = " + ".join(f"? * {e}" for e in each)
        needles = [x for w, group in zip(weights, groups) for x in (w / total, *group)]
        sql = f"(-f.b * (1.0 + {_COVERAGE_WEIGHT!r} * ({covered}))"
    else:
        covered = " + ".join(each)
        needles = [x for group in groups for x in group]
        sql = f"(-f.b * (1.0 + {_COVERAGE_WEIGHT / len(each)!r} * ({covered}))"
    if query.pairs:
        needles += [f" {a} {b} " for a, b in sorted(query.pairs)]
        adjacent = " + ".join("(instr(m.terms, ?) > 0)" for _ in query.pairs)
        sql += f" * (1.0 + {_ADJACENCY_WEIGHT / len(query.pairs)!r} * ({adjacent}))"
    if query.when and _TIME_STATED_WEIGHT:
        sql += f" * (1.0 + {_TIME_STATED_WEIGHT!r} * m.dated)"
    if query.period is not None and _PERIOD_WEIGHT:
        sql += f" * (1.0 + {_PERIOD_WEIGHT!r} * (m.created GLOB ?))"
        needles.append(query.period)
    return sql + ")", tuple(needles)


def relevance(candidates: dict[int, Candidate]) -> dict[int, float]:
    """Lexical score plus context from the neighbours in the source (step 5)."""
    out = {rid: c.lexical for rid, c in candidates.items()}
    for rid, c in candidates.items():
        follower = candidates.get(c.next_rid) if c.next_rid is not None else None
        if follower is not None:
            out[c.next_rid] += (_CONTEXT_FROM_QUESTION if c.asks else _CONTEXT_FROM_PREVIOUS) * c.lexical
            out[rid] += _CONTEXT_FROM_NEXT * follower.lexical
    return out


def scores(
    relevances: dict[int, float], best: float, candidates: dict[int, Candidate], now: float, k: int
) -> Iterator[tuple[float, float, int]]:
    """(score, normalised relevance, rid) of every candidate that can reach the top ``k``."""
    # importance and recency add at most 1 - W_RELEVANCE, so a memory whose
    # relevance is that far below the k-th best cannot overtake it
    kth = sorted(relevances.values(), reverse=True)[:k][-1] / best
    floor = kth - (1.0 - W_RELEVANCE) / W_RELEVANCE
    per_hour = math.log(0.5) / RECENCY_HALF_LIFE_HOURS
    for rid, rel in relevances.items():
        r = rel / best
        if rel <= 0 or r < floor:
            continue
        c = candidates[rid]
        recency = 0.0 if c.accessed_ts is None else math.exp(per_hour * max(0.0, (now - c.accessed_ts) / 3600.0))
        importance = min(1.0, max(0.0, c.importance))
        yield W_RELEVANCE * r + W_IMPORTANCE * importance + W_RECENCY * recency, r, rid


_PERSONAL_GLOB = "{}/*/p-" + "[0-9a-f]" * 16 + "/*"   # a memory in a person's folder (base.people)


@lru_cache(maxsize=64)
def filter_sql(filters: Filters, alias: str) -> tuple[str, tuple[object, ...]]:
    """SQL conditions on table ``alias`` for ``filters``, each led by AND.

    Archived and background memories stay out unless the filters ask for
    them, by a flag or by naming that tier or band.
    """
    clauses: list[str] = []
    params: list[object] = []
    for column in ("type", "domain", "tier", "band"):
        value = getattr(filters, column)
        if value is not None:
            clauses.append(f"{alias}.{column} = ?")
            params.append(value)
    if filters.tier is None and not filters.include_archive:
        clauses.append(f"{alias}.tier NOT IN ({','.join('?' * len(_HIDDEN_TIERS))})")
        params.extend(_HIDDEN_TIERS)
    if filters.type is None:
        clauses.append(f"{alias}.type != ?")
        params.append(EPISODE)
    if filters.band is None and not filters.include_background:
        hidden = f"{alias}.band NOT IN ({','.join('?' * len(_HIDDEN_BANDS))})"
        params.extend(_HIDDEN_BANDS)
        if filters.never_forget is not None:
            hidden = f"({hidden} OR {alias}.importance >= ?)"   # never forgotten, whatever the band
            params.append(filters.never_forget)
        clauses.append(hidden)
    if filters.project is not None:
        clauses.append(f"({alias}.project IS NULL OR {alias}.project = ? OR {alias}.project_name = ?)")
        params.extend((filters.project, filters.project))
    if filters.person is not None:   # shared memories, and the person's own folder only
        clauses.append(f"(({alias}.path NOT GLOB ? AND {alias}.path NOT GLOB ?) OR {alias}.path GLOB ?)")
        params.extend((_PERSONAL_GLOB.format("memory"), _PERSONAL_GLOB.format("archive"), f"*/{filters.person}/*"))
    return "".join(" AND " + c for c in clauses), tuple(params)
