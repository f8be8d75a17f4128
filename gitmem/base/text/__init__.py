"""The text toolkit: scripts, stop lists, tokenizers, the stemmer, and time and label checks.

One place for how gitmem reads words, so that recall, the index, the
comparison of statements, roles, harvest and drift agree:

- ``scripts``: the character ranges of the scripts written without spaces
  (``CJK`` = ``KANA`` + ``HAN`` + ``HANGUL``), one definition for every engine;
- ``stops``: the stop lists, each named for its use;
- ``words``: words as SQLite FTS5's ``unicode61 remove_diacritics 2`` cuts
  them (``fold``, ``words``), their Porter stems (``stem``, PyStemmer) and CJK
  bigrams: the recall index stores these stems, a query asks them, the
  reranker and the dedupe engine compare them; and the tokenizers of the
  statement and role readings;
- ``when``: time as words say it (``states_time``, ``asks_when``, ``named_period``);
- ``labels``: ``is_blank`` and ``printable_label``.
"""

from __future__ import annotations

from gitmem.base.text.labels import is_blank, printable_label
from gitmem.base.text.scripts import CJK, HAN, HANGUL, KANA
from gitmem.base.text.stops import (
    CJK_STOP_CHARS,
    CLAUSE_STOPS,
    ENGLISH_STOP_WORDS,
    FACT_WORDS,
    FILLER,
    FILLER_FR,
    FRENCH_STOP_WORDS,
    STATEMENT_STOP,
    STATEMENT_STOP_FR,
    STOP_WORDS,
    ZH_FUNCTION_CHARS,
    ZH_KEYWORD_SPLIT,
)
from gitmem.base.text.when import MONTHS, TIME_WORDS, asks_when, named_period, states_time
from gitmem.base.text.words import (
    bigrams,
    cjk_runs,
    cjk_terms,
    closed_compounds,
    content_stems,
    fold,
    is_stop_bigram,
    role_token,
    statement_token,
    stem,
    stems,
    unaccent,
    words,
)

__all__ = [
    "CJK", "CJK_STOP_CHARS", "CLAUSE_STOPS", "ENGLISH_STOP_WORDS", "FACT_WORDS", "FILLER", "FILLER_FR",
    "FRENCH_STOP_WORDS", "HAN", "HANGUL", "KANA", "MONTHS", "STATEMENT_STOP", "STATEMENT_STOP_FR", "STOP_WORDS",
    "TIME_WORDS", "ZH_FUNCTION_CHARS", "ZH_KEYWORD_SPLIT", "asks_when", "bigrams", "cjk_runs", "cjk_terms",
    "closed_compounds", "content_stems", "fold", "is_blank", "is_stop_bigram", "named_period", "printable_label",
    "role_token", "statement_token", "states_time", "stem", "stems", "unaccent", "words",
]
