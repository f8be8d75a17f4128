"""Time, as words say it.

``states_time`` (a text names a moment: "yesterday", "last week", "in May",
"2022"), ``asks_when`` (a question asks for one) and ``named_period`` (the
calendar day, month or year a question names, as a pattern over ISO 8601
timestamps). Recall uses them to favour, for a "when" question, the memories
that state a time, and the memories made in the period a question names.
"""

from __future__ import annotations

import re
from functools import lru_cache

from gitmem.base.text.words import unaccent, words

__all__ = ["MONTHS", "TIME_WORDS", "asks_when", "named_period", "states_time"]

MONTHS = ("january", "february", "march", "april", "may", "june", "july", "august", "september", "october",
          "november", "december")
_WEEKDAYS = ("monday", "tuesday", "wednesday", "thursday", "friday", "saturday", "sunday")
# Folded words that place a statement in time, relative ("yesterday", "two
# weeks ago", "last year", "lately") or on the calendar (a month, a weekday).
# "may" and "march" stay out: as verbs they are far more common than as months.
TIME_WORDS = frozenset((*(m for m in MONTHS if m not in ("may", "march")), *_WEEKDAYS, "yesterday", "today", "tonight", "tomorrow", "ago", "day", "days",
                        "week", "weeks", "weekend", "month", "months", "year", "years", "last", "next", "recently",
                        "lately", "hier", "demain", "semaine", "mois", "annee", "dernier", "derniere"))
# Question words that ask for a moment.
_WHEN_WORDS = frozenset(("when", "quand"))
_MONTH_NAMES = "|".join(m.capitalize() for m in MONTHS)
# A calendar date as people write it: "October 13, 2023", "13 October 2023",
# "in June", "June 2023"; month names are capitalised in English, which tells
# the month "May" from the verb. ISO dates ("2023-10-13", "2023-10") too.
_NAMED_DATE = (
    rf"(?:\b(?P<day1>\d{{1,2}})(?:st|nd|rd|th)?\s+(?:of\s+)?)?\b(?P<month>{_MONTH_NAMES})\b"
    r"(?:\s+(?P<day2>\d{1,2})(?:st|nd|rd|th)?\b)?(?:,?\s+(?P<year>(?:19|20)\d\d)\b)?"
)
_ISO_DATE = r"\b(?P<year>(?:19|20)\d\d)-(?P<month>0[1-9]|1[0-2])(?:-(?P<day>0[1-9]|[12]\d|3[01]))?\b"
_MONTH_CAPITALS = tuple(m.capitalize() for m in MONTHS)
# "May" and "March" are verbs too: alone they name a month only after "in"
# ("in May"), or with a day or a year beside them.
_AMBIGUOUS_MONTHS = frozenset(("May", "March"))
_ANY_YEAR = "[0-9][0-9][0-9][0-9]"


@lru_cache(maxsize=2)
def _date_pattern(pattern: str) -> re.Pattern[str]:
    return re.compile(pattern)


def states_time(text: str) -> bool:
    """True when ``text`` names a moment: a relative time word, a month, a weekday or a year."""
    said = words(text)
    return not TIME_WORDS.isdisjoint(said) or any(len(w) == 4 and w[:2] in ("19", "20") and w.isdigit() for w in said)


def asks_when(query: str) -> bool:
    """True when ``query`` asks for a moment ("When did ...", "quand ...")."""
    return not _WHEN_WORDS.isdisjoint(words(query))


def named_period(query: str) -> str | None:
    """A GLOB pattern over ISO 8601 timestamps for the first calendar date ``query`` names, or None.

    "October 13, 2023" gives ``2023-10-13*``; "in June" gives June of any
    year; "2023-10" gives ``2023-10-*``. A bare year names no period (a
    question about "2022" is often answered by a memory of 2023 that says
    "last year").
    """
    plain = unaccent(query)
    if not any(ch.isdigit() for ch in plain) and not any(m in plain for m in _MONTH_CAPITALS):
        return None   # the usual question names no date: no pattern compiled in a recall process
    found = _date_pattern(_ISO_DATE).search(plain)
    if found is not None:
        year, month, day = found.group("year"), found.group("month"), found.group("day")
        return f"{year}-{month}-{day}*" if day else f"{year}-{month}-*"
    for found in _date_pattern(_NAMED_DATE).finditer(plain):
        day = found.group("day1") or found.group("day2")
        year = found.group("year")
        month_name = found.group("month")
        if month_name in _AMBIGUOUS_MONTHS and not (day or year) and \
                not plain[:found.start("month")].rstrip().lower().endswith(("in", "of", "since", "during")):
            continue
        if day is not None and not 1 <= int(day) <= 31:
            day = None
        month = f"{MONTHS.index(month_name.lower()) + 1:02d}"
        stamp = f"{year or _ANY_YEAR}-{month}-"
        return f"{stamp}{int(day):02d}*" if day else f"{stamp}*"
    return None
