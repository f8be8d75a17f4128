"""Tests for gitmem.engines.quantities: numbers, dates and times as canonical tokens."""

from __future__ import annotations

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from gitmem.engines import quantities

# ------------------------------------------------------------------ numbers


@pytest.mark.parametrize(
    ("raw", "spelled"),
    [
        ("twenty-five retries", "25 retries"),
        ("twenty five retries", "25 retries"),
        ("two three", "2 3"),  # two numbers, not 23
        ("one hundred and five", "105"),
        ("three thousand", "3000"),
        ("a dozen eggs", "a 12 eggs"),
        ("soixante-dix", "70"),
        ("quatre-vingt", "80"),
        ("vingt et un", "21"),
        ("once a week", "1 a week"),
    ],
)
def test_number_words_become_digits(raw: str, spelled: str) -> None:
    assert quantities.prepare_numbers(raw).strip() == spelled


@pytest.mark.parametrize("raw", ["one of them", "and then", "un café", "une fois"])
def test_articles_alone_are_not_numbers(raw: str) -> None:
    assert quantities.prepare_numbers(raw) == raw


@pytest.mark.parametrize(
    ("raw", "spelled"),
    [
        ("三次", "3次"),
        ("二十五个", "25个"),
        ("两千", "2000"),
        ("一万二千", "12000"),
        ("十分钟", "10分钟"),
    ],
)
def test_chinese_numerals_before_a_measure_word(raw: str, spelled: str) -> None:
    assert quantities.prepare_numbers(raw) == spelled


@pytest.mark.parametrize("raw", ["一起", "十分好", "统一"])
def test_chinese_numerals_that_are_words_stay(raw: str) -> None:
    assert quantities.prepare_numbers(raw) == raw


@pytest.mark.parametrize(
    ("raw", "spelled"),
    [
        ("5k users", "5000 users"),
        ("2.5K rows", "2500 rows"),
        ("8GB of memory", "8 GB of memory"),
        ("1,000,000 rows", "1000000 rows"),
        ("300ms timeout", "300 ms timeout"),
    ],
)
def test_units_and_separators(raw: str, spelled: str) -> None:
    assert quantities.prepare_numbers(raw) == spelled


def test_a_huge_k_number_is_left_alone() -> None:
    raw = "1234567890123456k"
    assert quantities.prepare_numbers(raw) == raw


def test_ascii_digits_strip_zeros_and_read_other_scripts() -> None:
    assert quantities.ascii_digits("007") == "7"
    assert quantities.ascii_digits("000") == "0"
    assert quantities.ascii_digits("٤٢") == "42"  # Arabic-Indic digits
    assert quantities.ascii_digits("9" * 5000) == "9" * 5000


def test_canon_number_keeps_decimals() -> None:
    assert quantities.canon_number("05.50") == "5.50"
    assert quantities.canon_number("3,14") == "3.14"
    assert quantities.canon_number("42") == "42"


# ------------------------------------------------------------------ dates and times


@pytest.mark.parametrize(
    ("raw", "tokens"),
    [
        ("on 2026-03-04", ["2026-03-04"]),
        ("on 2026/3/4", ["2026-03-04"]),
        ("on 4/3/2026", ["4/3/2026"]),
        ("on 4.3.2026", ["4/3/2026"]),
        ("March 4, 2026", ["2026-03-04"]),
        ("4th of March", ["03-04"]),
        ("le 4 mars 2026", ["2026-03-04"]),
        ("in March 2026", ["2026-03"]),
        ("2026年3月4日", ["2026-03-04"]),
        ("3月4号", ["03-04"]),
        ("2026年3月", ["2026-03"]),
    ],
)
def test_dates(raw: str, tokens: list[str]) -> None:
    assert quantities.cut_dates(raw)[1] == tokens


@pytest.mark.parametrize(
    ("raw", "tokens"),
    [
        ("at 14:30", ["14:30"]),
        ("at 2:30 pm", ["14:30"]),
        ("at 12:15 am", ["00:15"]),
        ("at 3pm", ["15:00"]),
        ("à 14h30", ["14:30"]),
        ("vers 9h", ["09:00"]),
        ("下午3点", ["15:00"]),
        ("8点半", ["08:30"]),
        ("晚上9点15分", ["21:15"]),
    ],
)
def test_times(raw: str, tokens: list[str]) -> None:
    assert quantities.cut_dates(raw)[1] == tokens


@pytest.mark.parametrize(
    ("raw", "tokens"),
    [
        ("every Monday", ["monday"]),
        ("le vendredi", ["friday"]),
        ("星期三", ["wednesday"]),
        ("周日", ["sunday"]),
        ("next week", ["next-week"]),
        ("la semaine prochaine", ["next-week"]),
        ("le mois dernier", ["last-month"]),
        ("deploys nightly", ["nightly"]),
        ("tomorrow morning", ["morning", "tomorrow"]),
        ("明天下午", ["afternoon", "tomorrow"]),
        ("in September", ["month-09"]),
    ],
)
def test_weekdays_periods_and_months(raw: str, tokens: list[str]) -> None:
    assert quantities.cut_dates(raw)[1] == tokens


def test_may_alone_is_no_month() -> None:
    # "may" is a verb far more often than a month
    assert quantities.cut_dates("you may deploy")[1] == []


def test_cut_dates_blanks_what_it_read_and_keeps_offsets() -> None:
    raw = "deploy on 2026-03-04 at 14:30 please"
    rest, tokens = quantities.cut_dates(raw)
    assert tokens == ["14:30", "2026-03-04"]
    assert len(rest) == len(raw)
    assert "2026" not in rest and "14" not in rest
    assert rest.split() == ["deploy", "on", "at", "please"]


def test_text_without_dates() -> None:
    assert quantities.cut_dates("plain words only") == ("plain words only", [])


@settings(max_examples=200, deadline=None)
@given(st.integers(min_value=1, max_value=12), st.integers(min_value=1, max_value=28),
       st.integers(min_value=1970, max_value=2099))
def test_iso_and_written_dates_meet(month: int, day: int, year: int) -> None:
    names = ["january", "february", "march", "april", "may", "june", "july", "august", "september",
             "october", "november", "december"]
    iso = quantities.cut_dates(f"{year}-{month:02d}-{day:02d}")[1]
    written = quantities.cut_dates(f"{names[month - 1]} {day}, {year}")[1]
    assert iso == written == [f"{year:04d}-{month:02d}-{day:02d}"]


@settings(max_examples=200, deadline=None)
@given(st.text(max_size=60))
def test_cut_dates_never_changes_the_length(raw: str) -> None:
    rest, _ = quantities.cut_dates(raw)
    assert len(rest) == len(raw)


@settings(max_examples=200, deadline=None)
@given(st.integers(min_value=0, max_value=10**9))
def test_digits_survive_prepare_numbers(n: int) -> None:
    assert quantities.prepare_numbers(f"port {n} open").split()[1] == str(n)
