"""Numbers, dates and times in a statement, as canonical tokens (Chinese included).

``prepare_numbers`` spells numbers one way ("twenty-five", "25", "二十五"
-> "25"; "8GB" -> "8 GB"; "5k" -> "5000"), ``cut_dates`` turns dates, times,
weekdays and periods into canonical tokens ("2026-03-04", "14:30",
"monday", "weekly"): two memories differ when these differ.
"""

from __future__ import annotations

import re
import unicodedata

from gitmem.engines.lexicon import (
    EN_NUMBERS,
    MONTHS,
    MONTH_ALONE,
    NUMBER_GLUE,
    PERIODS,
    WEEKDAYS,
    ZH_DIGITS,
    ZH_HOUR_SHIFT,
    ZH_UNITS,
    ZH_WEEKDAYS,
)

# A numeral only counts before a measure word: "三次" is 3, "一起" is not 1.
_ZH_NUMERAL_RE = re.compile(
    r"[零〇一二两三四五六七八九十百千万]+(?=[个次天日号月年周岁点分秒小时台块元倍人条位遍份页行层级版步项种期届名]|$)"
)


def _zh_value(run: str) -> int:
    total = section = digit = 0
    for ch in run:
        if ch in ZH_DIGITS:
            digit = ZH_DIGITS[ch]
        elif ch in ZH_UNITS:
            section += (digit or 1) * ZH_UNITS[ch]
            digit = 0
        else:  # 万
            total += (section + digit) * 10000
            section = digit = 0
    return total + section + digit


def _zh_numerals(text: str) -> str:
    def swap(match: re.Match[str]) -> str:
        run, after = match.group(), text[match.end(): match.end() + 2]
        # "一" alone is the article "a"; "十分" is "very" unless "十分钟".
        if run == "一" and after[:1] not in ("月", "日", "号"):
            return run
        if after[:1] == "分" and after[1:2] != "钟":
            return run
        return str(_zh_value(run))
    return _ZH_NUMERAL_RE.sub(swap, text)


_NUMWORD_RE = re.compile(
    r"\b(?:(?:" + "|".join(sorted({*EN_NUMBERS, *NUMBER_GLUE}, key=len, reverse=True)) + r")\b[- ]?)+",
    re.IGNORECASE | re.ASCII,
)


def _parse_number_words(words: list[str]) -> list[int]:
    """["twenty", "five"] -> [25]; ["two", "three"] -> [2, 3]; French compounds too."""
    values: list[int] = []
    total = current = 0
    started = False
    for i, w in enumerate(words):
        value = EN_NUMBERS.get(w, NUMBER_GLUE.get(w, 0))
        if w in ("and", "et"):
            continue
        if w.startswith("vingt") and i and words[i - 1] == "quatre":
            current += 76  # quatre-vingt = 4 x 20
        elif value == 100:
            current = (current or 1) * 100
        elif value >= 1000:
            total += (current or 1) * value
            current = 0
        else:
            tens = current % 100
            # "soixante-dix" is 70 and "twenty five" 25, but "two three" is two numbers.
            joins = tens == 0 or (tens % 10 == 0 and value < 10) or (tens in (60, 80) and 10 <= value < 20)
            if started and not joins:
                values.append(total + current)
                total = current = 0
            current += value
        started = True
    values.append(total + current)
    return values


def _number_words(text: str) -> str:
    def swap(match: re.Match[str]) -> str:
        words = [w for w in re.split(r"[- ]+", match.group().casefold()) if w]
        if not any(w in EN_NUMBERS for w in words) or len(words) > 8:
            return match.group()  # "one", "and", "un" alone are not numbers
        trailing = " " if match.group().endswith((" ", "-")) else ""
        return " ".join(str(v) for v in _parse_number_words(words)) + trailing
    return _NUMWORD_RE.sub(swap, text)


_MONTH_NAMES = "|".join(sorted(MONTHS, key=len, reverse=True))
# ASCII matching: a case-insensitive Unicode match would let "ſept" or a
# dotless "ı" through to dictionary look-ups keyed in ASCII.
_DATE_RES: tuple[tuple[re.Pattern[str], str], ...] = tuple(
    (re.compile(pattern, re.IGNORECASE | re.ASCII), kind)
    for pattern, kind in (
        (r"\b(\d{4})[-/.](\d{1,2})[-/.](\d{1,2})\b", "ymd"),
        (r"\b(\d{1,2})/(\d{1,2})/(\d{2,4})\b|\b(\d{1,2})\.(\d{1,2})\.(\d{4})\b", "dmy"),
        (r"(\d{4})\s*年\s*(\d{1,2})\s*月\s*(\d{1,2})\s*[日号]", "ymd"),
        (r"(\d{1,2})\s*月\s*(\d{1,2})\s*[日号]", "md"),
        (r"(\d{4})\s*年\s*(\d{1,2})\s*月", "ym"),
        (rf"\b({_MONTH_NAMES})\.? (\d{{1,2}})(?:st|nd|rd|th)?\b(?:,? (\d{{4}})\b)?", "mdy"),
        (rf"\b(\d{{1,2}})(?:st|nd|rd|th|er|e)? (?:of )?({_MONTH_NAMES})\b\.?(?: (\d{{4}})\b)?", "dmy-name"),
        (rf"\b({_MONTH_NAMES}) (\d{{4}})\b", "my"),
        (r"(?:(上午|早上|中午|下午|晚上|凌晨)\s*)?(\d{1,2})\s*[点點](?:\s*(\d{1,2})\s*分|(半))?", "zh-time"),
        (r"\b(\d{1,2}):(\d{2})(?::\d{2})?(?:\s*([ap])\.?m\.?\b)?", "hm"),
        (r"\b(\d{1,2})\s*([ap])\.?m\b\.?", "h-ampm"),
        (r"\b(\d{1,2})h(\d{2})\b|(?<=\b[aà] )(\d{1,2})h\b|(?<=\bvers )(\d{1,2})h\b", "fr-time"),
        (r"(?:星期|礼拜|周)([一二三四五六日天1-7])", "zh-weekday"),
        (r"\b(next|last|this) (week|month|year|quarter)\b", "relative"),
        (r"\b(semaine|mois|annee) (prochaine?|derniere?)\b", "relative-fr"),
        (r"\b(" + "|".join(WEEKDAYS) + r")s?\b", "weekday"),
        (r"\b(" + "|".join(sorted(MONTH_ALONE)) + r")\b", "month"),
        (r"\b(" + "|".join(k for k in PERIODS if k.isascii()) + r")(?![\w-])", "period"),
        ("(" + "|".join(k for k in sorted(PERIODS, key=len, reverse=True) if not k.isascii()) + ")", "period"),
    )
)


def _date_token(match: re.Match[str], kind: str) -> str:
    g = match.groups()
    if kind == "ymd":
        return f"{int(g[0]):04d}-{int(g[1]):02d}-{int(g[2]):02d}"
    if kind == "dmy":
        d, m, y = g[:3] if g[0] else g[3:]
        return f"{int(d)}/{int(m)}/{int(y)}"
    if kind == "md":
        return f"{int(g[0]):02d}-{int(g[1]):02d}"
    if kind == "ym":
        return f"{int(g[0]):04d}-{int(g[1]):02d}"
    if kind in ("mdy", "dmy-name"):
        month, day = (g[0], g[1]) if kind == "mdy" else (g[1], g[0])
        stem = f"{MONTHS[month.casefold()]:02d}-{int(day):02d}"
        return f"{int(g[2]):04d}-{stem}" if g[2] else stem
    if kind == "my":
        return f"{int(g[1]):04d}-{MONTHS[g[0].casefold()]:02d}"
    if kind == "zh-time":
        hour = int(g[1]) + (ZH_HOUR_SHIFT.get(g[0] or "", 0) if int(g[1]) < 12 else 0)
        minute = 30 if g[3] else int(g[2] or 0)
        return f"{hour:02d}:{minute:02d}"
    if kind == "hm":
        hour = int(g[0]) % 12 + (12 if (g[2] or "").casefold() == "p" else 0) if g[2] else int(g[0])
        return f"{hour:02d}:{int(g[1]):02d}"
    if kind == "h-ampm":
        return f"{int(g[0]) % 12 + (12 if g[1].casefold() == 'p' else 0):02d}:00"
    if kind == "fr-time":
        hour_text = g[0] or g[2] or g[3]
        return f"{int(hour_text):02d}:{int(g[1] or 0):02d}"
    if kind == "zh-weekday":
        return ZH_WEEKDAYS[g[0]]
    if kind == "relative":
        return f"{g[0].casefold()}-{g[1].casefold()}"
    if kind == "relative-fr":
        return ("next-" if g[1].casefold().startswith("prochain") else "last-") + {
            "semaine": "week", "mois": "month", "annee": "year"}[g[0].casefold()]
    if kind == "weekday":
        return WEEKDAYS[g[0].casefold()]
    if kind == "month":
        return f"month-{MONTHS[g[0].casefold()]:02d}"
    return PERIODS[g[0].casefold()]


def cut_dates(text: str) -> tuple[str, list[str]]:
    """Dates and times as canonical tokens, and the text with them blanked."""
    found: list[str] = []
    for pattern, kind in _DATE_RES:
        def blank(match: re.Match[str], kind: str = kind) -> str:
            found.append(_date_token(match, kind))
            return " " * len(match.group())
        text = pattern.sub(blank, text)
    return text, sorted(found)


_THOUSANDS_RE = re.compile(r"(?<![\d.,])\d{1,3}(?:,\d{3})+(?![\d,])")
_SUFFIX_RE = re.compile(r"(?<![\w.])(\d+(?:\.\d+)?)\s?([kK])\b|(\d)(?=(?:kb|mb|gb|tb|ms|s|min|px|x)\b)",
                        re.IGNORECASE)


def prepare_numbers(text: str) -> str:
    """Numbers spelled one way: words and Chinese numerals as digits, "5k" as 5000, "8GB" as "8 GB"."""
    text = _number_words(_zh_numerals(text))
    text = _THOUSANDS_RE.sub(lambda m: m.group().replace(",", ""), text)

    def suffix(match: re.Match[str]) -> str:
        if match.group(3):  # "8GB" -> "8 GB": the unit is its own word
            return match.group(3) + " "
        value = match.group(1)
        if len(value) > 15:
            return match.group()
        return str(round(float(value) * 1000))
    return _SUFFIX_RE.sub(suffix, text)


def ascii_digits(run: str) -> str:
    """A digit run in ASCII without leading zeros; int() would choke on 5,000 digits."""
    ascii_run = "".join(str(unicodedata.digit(c, 0)) for c in run) if not run.isascii() else run
    return ascii_run.lstrip("0") or "0"


def canon_number(raw: str) -> str:
    """A number with ASCII digits, no leading zeros, and "." before its decimals ("05,50" -> "5.50")."""
    parts = re.split(r"[.,]", raw)
    return ".".join([ascii_digits(parts[0])] + parts[1:])
