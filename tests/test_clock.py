"""The clock: ISO 8601 parsing to aware UTC, and "now" from --now, GITMEM_NOW or the system."""

from __future__ import annotations

from datetime import datetime, timedelta, timezone

import pytest
from hypothesis import given
from hypothesis import strategies as st

from gitmem.base import clock
from gitmem.base.errors import GitmemError, UsageError


@pytest.mark.parametrize("text, expected", [
    ("2026-11-29T12:00:00Z", datetime(2026, 11, 29, 12, 0, tzinfo=timezone.utc)),
    ("2026-11-29T12:00:00+00:00", datetime(2026, 11, 29, 12, 0, tzinfo=timezone.utc)),
    ("2026-11-29T14:00:00+02:00", datetime(2026, 11, 29, 12, 0, tzinfo=timezone.utc)),
    ("2026-11-29T12:00:00", datetime(2026, 11, 29, 12, 0, tzinfo=timezone.utc)),
    ("  2026-11-29T12:00:00Z\n", datetime(2026, 11, 29, 12, 0, tzinfo=timezone.utc)),
    ("2026-11-29", datetime(2026, 11, 29, tzinfo=timezone.utc)),
])
def test_parse_time_gives_aware_utc(text: str, expected: datetime) -> None:
    value = clock.parse_time(text)
    assert value == expected
    assert value.tzinfo is not None and value.utcoffset() == timedelta(0)


@pytest.mark.parametrize("text", ["", "yesterday", "2026-13-01T00:00:00Z", "2026-11-29T25:00:00Z", "29/11/2026"])
def test_parse_time_refuses_non_iso_with_a_hint(text: str) -> None:
    with pytest.raises(UsageError) as info:
        clock.parse_time(text)
    assert repr(text) in info.value.message
    assert info.value.hint is not None and "2026-11-29T13:40:00Z" in info.value.hint
    assert isinstance(info.value, GitmemError)


def test_now_prefers_the_explicit_time_over_the_environment(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("GITMEM_NOW", "2020-01-01T00:00:00Z")
    assert clock.now("2026-11-29T12:00:00Z") == datetime(2026, 11, 29, 12, tzinfo=timezone.utc)
    assert clock.now() == datetime(2020, 1, 1, tzinfo=timezone.utc)


def test_now_falls_back_to_the_system_clock_without_microseconds(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv("GITMEM_NOW", raising=False)
    before = datetime.now(timezone.utc).replace(microsecond=0)
    value = clock.now()
    after = datetime.now(timezone.utc)
    assert before <= value <= after
    assert value.microsecond == 0 and value.tzinfo is not None


def test_now_with_an_empty_environment_value_uses_the_system_clock(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("GITMEM_NOW", "")
    assert abs((clock.now() - datetime.now(timezone.utc)).total_seconds()) < 60


def test_now_with_a_bad_environment_value_is_a_usage_error(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("GITMEM_NOW", "not a time")
    with pytest.raises(UsageError, match="not an ISO 8601 time"):
        clock.now()


@given(st.datetimes(min_value=datetime(1971, 1, 1), max_value=datetime(2999, 12, 31),
                    timezones=st.sampled_from([timezone.utc, timezone(timedelta(hours=5, minutes=30)),
                                               timezone(timedelta(hours=-8))])))
def test_parse_time_round_trips_isoformat(moment: datetime) -> None:
    assert clock.parse_time(moment.isoformat()) == moment


@pytest.mark.parametrize("text", ["0001-01-01", "1969-12-31T23:59:59Z", "9000-01-01", "9999-12-31T23:59:59Z"])
def test_a_clock_out_of_range_is_a_clear_error(text: str, monkeypatch: pytest.MonkeyPatch) -> None:
    with pytest.raises(UsageError) as info:
        clock.now(text)
    assert "--now" in info.value.message and "out of range" in info.value.message and info.value.hint
    monkeypatch.setenv("GITMEM_NOW", text)
    with pytest.raises(UsageError) as info:
        clock.now()
    assert "GITMEM_NOW" in info.value.message


def test_the_edges_of_the_range_are_accepted() -> None:
    assert clock.now("1970-01-01T00:00:00Z").year == 1970
    assert clock.now("8999-12-31T23:59:59Z").year == 8999
