"""Step 2 of the write path: sizes, encodings, ranges and disk space, each refusal with its reason."""

from __future__ import annotations

from pathlib import Path

import pytest
from hypothesis import given
from hypothesis import strategies as st

from gitmem.base.errors import ValidationError
from gitmem.guards import guard


def test_content_at_the_limit_passes_and_one_byte_over_is_refused() -> None:
    guard.check_content("memory/user/a.md", b"a" * 10, 10)
    with pytest.raises(ValidationError) as info:
        guard.check_content("memory/user/a.md", b"a" * 11, 10)
    assert info.value.message == "memory/user/a.md: 11 bytes is over the limit of 10 bytes"
    assert info.value.hint == "split the content into smaller memories"


@pytest.mark.parametrize("suffix", guard.TEXT_SUFFIXES)
def test_text_files_must_be_utf8_and_name_the_bad_byte(suffix: str) -> None:
    assert guard.TEXT_SUFFIXES
    with pytest.raises(ValidationError) as info:
        guard.check_content(f"bank/x{suffix}", b"ok \xff", 100)
    assert "not valid UTF-8 (byte 3)" in info.value.message
    assert info.value.hint == "send UTF-8 text"


@pytest.mark.parametrize("suffix", guard.TEXT_SUFFIXES)
def test_text_files_may_not_hold_a_nul(suffix: str) -> None:
    with pytest.raises(ValidationError, match="NUL character"):
        guard.check_content(f"bank/x{suffix}", b"a\x00b", 100)


def test_binary_files_are_not_checked_for_encoding() -> None:
    guard.check_content("bank/image.png", b"\x89PNG\x00\xff", 100)
    guard.check_content("bank/no-suffix", b"\xff\x00", 100)


def test_multibyte_utf8_passes() -> None:
    guard.check_content("memory/user/a.md", "café — 日本 🎉".encode(), 100)


def test_check_text_returns_the_text_unchanged() -> None:
    assert guard.check_text("  hello\n", "memory", 100) == "  hello\n"


@pytest.mark.parametrize("text, message", [
    ("", "memory is empty"),
    ("  \n\t ", "memory is empty"),
    ("a\x00b", "memory holds a NUL character"),
    ("\ud800", "memory is not valid Unicode (lone surrogate)"),
])
def test_check_text_refusals(text: str, message: str) -> None:
    with pytest.raises(ValidationError) as info:
        guard.check_text(text, "memory", 100)
    assert info.value.message == message


def test_check_text_refuses_non_text() -> None:
    with pytest.raises(ValidationError, match="note must be text"):
        guard.check_text(b"bytes", "note", 100)  # type: ignore[arg-type]  # the wrong type is the case under test


def test_check_text_counts_bytes_not_characters() -> None:
    guard.check_text("é" * 5, "memory", 10)
    with pytest.raises(ValidationError) as info:
        guard.check_text("é" * 6, "memory", 10)
    assert info.value.message == "memory is 12 bytes, over the limit of 10 bytes"
    assert info.value.hint == "split it into smaller memories"


@pytest.mark.parametrize("value", [0, 0.0, 0.5, 1, 1.0])
def test_check_range_accepts_the_closed_interval(value: float) -> None:
    assert guard.check_range("importance", value, 0.0, 1.0) == float(value)
    assert isinstance(guard.check_range("importance", value, 0.0, 1.0), float)


@pytest.mark.parametrize("value", [-0.01, 1.01, float("nan"), float("inf"), True, False, "0.5", None])
def test_check_range_refuses_outside_or_not_a_number(value: object) -> None:
    with pytest.raises(ValidationError) as info:
        guard.check_range("importance", value, 0.0, 1.0)  # type: ignore[arg-type]  # wrong types are the case
    assert info.value.message == f"importance must be a number in [0.0, 1.0], got {value!r}"


@given(st.floats(allow_nan=True, allow_infinity=True))
def test_check_range_passes_exactly_the_numbers_in_range(value: float) -> None:
    inside = 0.0 <= value <= 1.0
    try:
        guard.check_range("x", value, 0.0, 1.0)
    except ValidationError:
        assert not inside
    else:
        assert inside

