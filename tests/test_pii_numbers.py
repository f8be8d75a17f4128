"""Tests for gitmem.guards.pii.numbers: phone numbers, SSNs and card numbers,
found in the digit shape of a text; identifiers and test values left out."""

from __future__ import annotations

import pytest

from gitmem.guards.pii import numbers
from gitmem.guards.pii.numbers import find_numbers
from tests.pii_samples import detect


@pytest.mark.parametrize("phone", [
    "+1 415 867 2309", "(312) 694-2210", "+44 20 7946 1234", "07700 912345", "415-867-2309", "415.867.2309",
    "1-415-867-2309", "+1-415-867-2309", "+33 6 12 34 56 78", "+49 30 12345678", "020 7946 1234",
])
def test_phones_are_found(phone: str) -> None:
    assert detect(find_numbers, f"call me on {phone} today") == {("phone", phone)}


@pytest.mark.parametrize("text", [
    "call 415-555-0123",  # 555-01XX is reserved for fiction
    "dial 415.555-2671",  # mixed separators
    "number 115-867-2309",  # no area code starts with 0 or 1
    "number 415-167-2309",  # nor an exchange
    "order 415-867-2309",  # an identifier
    "invoice #415-867-2309",
    "ticket 4158672309",  # a bare run needs a phone keyword
    "at 08:03 20260416 in ls",
    "total +10 000 000 users",  # a count
    "UTC+05:30",
    "2+3 = 5",
    "ratio 415-867-2309-11",  # a longer number
    "call 111-111-1111",
])
def test_phone_look_alikes_are_left_out(text: str) -> None:
    assert {k for k, _ in detect(find_numbers, text)} - {"ssn", "credit_card"} == set(), text


@pytest.mark.parametrize(("text", "value"), [
    ("phone: 4158672309", "4158672309"),
    ("tel 4158672309", "4158672309"),
    ("mobile no. 4158672309", "4158672309"),
    ("whatsapp +4158672309", "+4158672309"),
])
def test_bare_digits_are_a_phone_after_a_keyword(text: str, value: str) -> None:
    assert detect(find_numbers, text) == {("phone", value)}


@pytest.mark.parametrize("ssn", ["536-90-4421", "219-54-7783", "402-18-9036", "536 90 4421"])
def test_ssns_are_found(ssn: str) -> None:
    assert detect(find_numbers, f"ssn {ssn} on file") == {("ssn", ssn)}


@pytest.mark.parametrize("text", [
    "id 000-12-3456", "id 666-12-3456", "id 912-12-3456", "id 536-00-4421", "id 536-90-0000",
    "id 123-45-6789", "id 078-05-1120", "id 111-11-1111", "order 536-90-4421", "id 536-90.4421",
    "v536-90-4421", "536-90-4421-7",
])
def test_invalid_ssns_and_identifiers_are_left_out(text: str) -> None:
    assert ("ssn", text.split()[-1]) not in detect(find_numbers, text)
    assert not any(k == "ssn" for k, _ in detect(find_numbers, text)), text


def test_bare_ssn_needs_the_word() -> None:
    assert detect(find_numbers, "SSN 536904421") == {("ssn", "536904421")}
    assert detect(find_numbers, "social security number: 536904421") == {("ssn", "536904421")}
    assert detect(find_numbers, "ref 536904421") == set()
    assert detect(find_numbers, "SSN #536-90-4421") == {("ssn", "536-90-4421")}


@pytest.mark.parametrize("card", [
    "4539 1488 0343 6467", "5234-5678-9012-3453", "378234567890123", "6011234567890123", "4539148803436467",
    "3782 822463 10005",
])
def test_cards_are_found(card: str) -> None:
    found = detect(find_numbers, f"card {card} exp 12/29")
    if card == "3782 822463 10005":
        assert found == set()  # a published test card (American Express)
    else:
        assert found == {("credit_card", card)}


@pytest.mark.parametrize(("text", "why"), [
    ("card 4539 1488 0343 6468", "fails Luhn"),
    ("card 4242 4242 4242 4242", "a published test card"),
    ("card 4111-1111-1111-1111", "a published test card"),
    ("card 4539 1488-0343 6467", "mixed separators"),
    ("card 9539148803436467", "no such brand"),
    ("card 453914880343646", "a Visa has 13, 16 or 19 digits"),
    ("order 4539148803436467", "an identifier"),
    ("card 4444 4444 4444 4448", "too few distinct digits"),
])
def test_card_look_alikes_are_left_out(text: str, why: str) -> None:
    assert not any(k == "credit_card" for k, _ in detect(find_numbers, text)), why


def test_no_digits_no_work() -> None:
    assert detect(find_numbers, "") == set()
    assert detect(find_numbers, "plain words 1 2 3") == set()


def luhn_complete(prefix: str) -> str:
    return next(prefix + d for d in "0123456789" if numbers._luhn(prefix + d))


def test_luhn_accepts_completed_numbers_and_refuses_any_single_digit_change() -> None:
    import random

    rng = random.Random(3)
    for _ in range(200):
        card = luhn_complete("4" + "".join(rng.choice("0123456789") for _ in range(14)))
        assert numbers._luhn(card)
        i = rng.randrange(len(card))
        changed = card[:i] + str((int(card[i]) + rng.randint(1, 9)) % 10) + card[i + 1 :]
        assert not numbers._luhn(changed), (card, changed)


@pytest.mark.parametrize(("digits", "ok"), [
    ("4" + "1" * 12, True), ("4" + "1" * 15, True), ("4" + "1" * 18, True), ("4" + "1" * 14, False),
    ("5" + "1" * 15, True), ("5" + "1" * 14, False), ("2221" + "1" * 12, True), ("2721" + "1" * 12, False),
    ("34" + "1" * 13, True), ("37" + "1" * 14, False), ("36" + "1" * 12, True), ("300" + "1" * 11, True),
    ("6011" + "1" * 12, True), ("65" + "1" * 17, True), ("3528" + "1" * 12, True), ("1" * 16, False),
    ("9" * 16, False),
])
def test_card_brand_lengths(digits: str, ok: bool) -> None:
    assert numbers._card_brand_ok(digits) is ok


@pytest.mark.parametrize(("ssn", "ok"), [
    ("536-90-4421", True), ("000-90-4421", False), ("666-90-4421", False), ("936-90-4421", False),
    ("536-00-4421", False), ("536-90-0000", False), ("123-45-6789", False), ("078-05-1120", False),
    ("111-22-3333", False), ("112-11-2121", False),
])
def test_ssn_validity(ssn: str, ok: bool) -> None:
    assert numbers._ssn_ok(ssn) is ok


@pytest.mark.parametrize(("digits", "fictional"), [
    ("4155550100", True), ("4155550199", True), ("4155550200", False), ("5550123", True), ("4158672309", False),
])
def test_fictional_555_numbers(digits: str, fictional: bool) -> None:
    assert numbers._fictional_555(digits) is fictional


def test_numbers_in_a_csv_row_and_a_log_line_are_left_out() -> None:
    assert detect(find_numbers, "2026-04-16 08:03:11,415 pid=4158672309 took 123,456 ms") == set()
    assert detect(find_numbers, "id,amount\n4158672309,12\n") == set()
