"""Tests for gitmem.guards.pii.view: the byte views of a text, lazily compiled
patterns, number boundaries, base64 decoding and offsets back to positions."""

from __future__ import annotations

import base64
import re

import pytest

from gitmem.guards.pii import position
from gitmem.guards.pii.view import Patterns, View, bounded, decode_base64, number_continues


# --------------------------------------------------------------------------
# position


@pytest.mark.parametrize(("text", "offset", "expected"), [
    ("", 0, (1, 1)),
    ("abc", 0, (1, 1)),
    ("abc", 2, (1, 3)),
    ("abc", 3, (1, 4)),
    ("a\nbc", 2, (2, 1)),
    ("a\nbc", 3, (2, 2)),
    ("a\n\n\nb", 4, (4, 1)),
    ("a\r\nb", 3, (2, 1)),  # CRLF: the \r belongs to the line before
    ("日本\n語x", 4, (2, 2)),  # characters, not bytes
    ("\n", 1, (2, 1)),
])
def test_position_is_one_based_line_and_column(text: str, offset: int, expected: tuple[int, int]) -> None:
    assert position(text, offset) == expected


def test_position_agrees_with_splitting_into_lines() -> None:
    text = "first line\n\nthird: x = 1\n  fourth\nlast"
    assert text
    for offset in range(len(text) + 1):
        before = text[:offset].split("\n")
        assert position(text, offset) == (len(before), len(before[-1]) + 1), offset


# --------------------------------------------------------------------------
# View


def test_view_keeps_offsets_for_non_ascii_text() -> None:
    text = "héllo wörld 🚀 x"
    v = View(text)
    assert len(v.ab) == len(text) == len(v.low)
    assert v.ab == b"h?llo w?rld ? x"
    assert v.s(6, 11) == "wörld"


@pytest.mark.parametrize(("text", "expected"), [
    ("a\\nb", b"a  b"),
    ("a\\rb\\tc", b"a  b  c"),
    ("x\\u0041y", b"x      y"),
    ("x\\u00e9y", b"x      y"),
    ("x\\u1234y", b"x\\u1234y"),  # only \u00XX is blanked
    ("C:\\Users", b"C:\\Users"),
    ("no escapes", b"no escapes"),
])
def test_view_blanks_escapes_to_spaces_of_the_same_length(text: str, expected: bytes) -> None:
    v = View(text)
    assert v.ab == expected
    assert len(v.ab) == len(text)


def test_view_lower_and_digit_shape() -> None:
    v = View("Call 415-867-2309 NOW")
    assert v.low == b"call 415-867-2309 now"
    assert v.shape == b"Call 000-000-0000 NOW"
    assert v.shape is v.shape  # computed once


def test_view_runs_are_spans_of_sixteen_token_characters() -> None:
    text = "short abc key=ghp_Q7mZx2Lk9Rt4Vw8Yb1Nc6 and a/b+c-d_e0123456789 end"
    v = View(text)
    runs = [text[s:e] for s, e in v.runs]
    assert runs == ["ghp_Q7mZx2Lk9Rt4Vw8Yb1Nc6", "a/b+c-d_e0123456789"]
    assert v.runs is v.runs


def test_view_of_an_empty_text() -> None:
    v = View("")
    assert v.ab == b"" and v.shape == b"" and v.runs == []


# --------------------------------------------------------------------------
# Patterns


def test_patterns_compile_on_first_use_only() -> None:
    rx = Patterns({"word": r"[a-z]+", "digits": rb"[0-9]+"})
    assert "word" not in vars(rx) and "digits" not in vars(rx)
    first = rx.word
    assert isinstance(first, re.Pattern) and first.pattern == "[a-z]+"
    assert "word" in vars(rx) and "digits" not in vars(rx)
    assert rx.word is first  # cached as an attribute
    assert rx.digits.match(b"42") is not None


def test_patterns_refuse_an_unknown_name() -> None:
    rx = Patterns({})
    with pytest.raises(AttributeError):
        rx.missing  # noqa: B018


# --------------------------------------------------------------------------
# Number boundaries


@pytest.mark.parametrize(("text", "ok"), [
    (b"x 123 y", True),
    (b"a123 y", False),  # a letter touches on the left
    (b"x 123b", False),  # and on the right
    (b"x -123 y", False),  # a listed byte on the left
    (b"x 123. end", True),  # end of a sentence
    (b"x 123.4", False),  # a decimal point: the number goes on
    (b"x 123,456", False),  # a thousands group
    (b"x 123,4567", True),  # a CSV column
    (b"123", True),
])
def test_bounded(text: bytes, ok: bool) -> None:
    s = text.index(b"123")
    assert bounded(text, s, s + 3, b"-", b"") is ok


@pytest.mark.parametrize(("tail", "goes_on"), [
    (b".5", True), (b". ", False), (b".", False), (b",234", True), (b",23", False),
    (b",2345", False), (b" 1", False), (b"", False),
])
def test_number_continues(tail: bytes, goes_on: bool) -> None:
    assert number_continues(b"1" + tail, 1) is goes_on


# --------------------------------------------------------------------------
# decode_base64


@pytest.mark.parametrize("plain", ["admin:hunter2-Xq9", "user=alice; token=abc", "é accent and text"])
def test_decode_base64_of_text(plain: str) -> None:
    raw = plain.encode()
    assert decode_base64(base64.b64encode(raw).decode()) == plain
    assert decode_base64(base64.urlsafe_b64encode(raw).decode().rstrip("=")) == plain


@pytest.mark.parametrize("blob", [
    base64.b64encode(bytes(range(256))).decode(),  # binary
    base64.b64encode(b"\x89PNG\r\n\x1a\n" + bytes(40)).decode(),
    "!!!!",
    "",
    "QQ",  # "A" is text, but one padded char
])
def test_decode_base64_refuses_binary_and_garbage(blob: str) -> None:
    got = decode_base64(blob)
    assert got is None or got == "A"


def test_decode_base64_tolerates_a_stray_last_character() -> None:
    blob = base64.b64encode(b"password=Xk9mL2qP7zR").decode().rstrip("=") + "Q"
    got = decode_base64(blob)
    assert got is not None and got.startswith("password=Xk9mL2qP7zR")
