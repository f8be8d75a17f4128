"""Tests for gitmem.guards.pii.vendors: vendor token formats and private keys.

Every token here is fabricated: random characters with a real prefix and length.
"""

from __future__ import annotations

import pytest

from gitmem.guards import pii
from gitmem.guards.pii import vendors
from gitmem.guards.pii.kinds import Cand
from gitmem.guards.pii.vendors import find_private_keys, find_vendor
from gitmem.guards.pii.view import View
from tests.pii_samples import AKIA, AWS_SECRET, GHP, detect, kinds_at

R40 = "Zq8XnVb2Lk9Mw3Rt7Yp1Hc5Ds6Fg4Jh0Ka2Lq9Wz3"


@pytest.mark.parametrize(("token", "kind"), [
    (AKIA, "aws_access_key"),
    ("ASIAV6PKJ4MB8YCXZT2Q", "aws_access_key"),
    (GHP, "github_token"),
    ("gho_9ZyXwVuTsRqPoNmLkJiHgFeDcBa876543210", "github_token"),
    ("github_pat_11AZq8XnVb2Lk9Mw3Rt7Yp1H_c5Ds6Fg4Jh0Ka2Lq9Wz3Xc8Vb7Nm4Qw1Er6TyUi0Op5As2Df7Gh", "github_token"),
    ("sk-proj-Zq8XnVb2Lk9Mw3Rt7Yp1Hc5Ds6Fg4Jh0Ka2Lq9Wz3", "openai_key"),
    ("sk-ant-api03-Xq9Lm2Zp7Rt4Vw8Yb1Nc6Hd3Fg5Js0Ka2Qe9Wr4Ty7Ui1Op3As6Df8Gh0Jk-Lz5Xc2Vb7Nm4QwAA", "anthropic_key"),
    ("xoxb-2048617391-4096281735-Zq8XnVb2Lk9Mw3Rt7Yp1Hc5D", "slack_token"),
    ("sk_live_4eC39HqLyjWDarjtT1zdp7dc9Zq8Xn", "stripe_key"),
    ("rk_live_Zq8XnVb2Lk9Mw3Rt7Yp1Hc5Ds6Fg", "stripe_key"),
    ("whsec_Zq8XnVb2Lk9Mw3Rt7Yp1Hc5Ds6Fg4J", "stripe_key"),
    ("AIzaSyD4x9Lq2Zm7Rt3Vw8Yb1Nc6Hd5Fg0Js2Ka", "google_api_key"),
    ("ya29.a0AfH6SMBx9Lq2Zm7Rt3Vw8Yb1Nc6Hd5Fg0Js2Ka", "google_api_key"),
    ("eyJhbGciOiJIUzI1NiJ9.eyJ1aWQiOiI4ZjNhIn0.Zq8XnVb2Lk9Mw3Rt7Yp1Hc5Ds6Fg4Jh0Ka2", "jwt"),
    ("glpat-Zq8XnVb2Lk9Mw3Rt7Yp1", "generic_api_key"),
    ("npm_Zq8XnVb2Lk9Mw3Rt7Yp1Hc5Ds6Fg4Jh0Ka2L", "generic_api_key"),
    ("hf_Zq8XnVb2Lk9Mw3Rt7Yp1Hc5Ds6Fg4Jh0", "generic_api_key"),
    ("SG.Zq8XnVb2Lk9Mw3Rt7Yp1Hc.5Ds6Fg4Jh0Ka2Lq9Wz3Xc8Vb7Nm4Qw1Er6Ty", "generic_api_key"),
    ("hvs.CAESIZq8XnVb2Lk9Mw3Rt7Yp1Hc5Ds6Fg4", "generic_api_key"),
])
def test_vendor_formats_are_found_with_their_kind(token: str, kind: str) -> None:
    for text in (f"key {token} end", f"{token}", f'"{token}"', f"url /v1/{token}"):
        assert (kind, token) in detect(find_vendor, text), text


@pytest.mark.parametrize(("text", "why"), [
    ("pk_live_Zq8XnVb2Lk9Mw3Rt7Yp1Hc5Ds6Fg", "a Stripe publishable key is public"),
    ("sk-some-hyphenated-words-in-a-sentence-here", "no digits: words"),
    ("AKIAEXAMPLEEXAMPLEXX", "a placeholder"),
    ("AKIAQ3EGTZ7R2LWN5XHDZZ", "a longer word that starts like a key"),
    ("ghp_xxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxx", "a mask"),
    ("ghp_<your-token-here-with-enough-length>", "a placeholder"),
    ("ghp_aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa", "too few distinct characters"),
    ("XAKIAQ3EGTZ7R2LWN5XHD", "glued to a letter on the left"),
])
def test_vendor_look_alikes_are_left_out(text: str, why: str) -> None:
    assert detect(find_vendor, f"value {text} end") == set(), why


def test_sample_jwt_of_the_documentation_is_left_out() -> None:
    sample = (
        "eyJhbGciOiJIUzI1NiIsInR5cCI6IkpXVCJ9.eyJzdWIiOiIxMjM0NTY3ODkwIiwibmFtZSI6IkpvaG4gRG9lIiwiaWF0IjoxNTE2MjM5"
        "MDIyfQ.SflKxwRJSMeKKF2QT4fwpMeJf36POk6yJV_adQssw5c"
    )
    assert detect(find_vendor, sample) == set()


def test_aws_secret_next_to_its_access_key() -> None:
    text = f"id {AKIA}\nsecret {AWS_SECRET}\n"
    assert detect(find_vendor, text) == {("aws_access_key", AKIA), ("aws_secret_key", AWS_SECRET)}


def test_aws_secret_alone_is_not_a_vendor_format() -> None:
    assert detect(find_vendor, f"hash {AWS_SECRET}") == set()


def test_slack_webhook_and_telegram_bot_token() -> None:
    hook = "hooks.slack.com/services/T0ABCDEFG/B0ABCDEFG/Zq8XnVb2Lk9Mw3Rt7Yp1Hc5D"
    assert detect(find_vendor, f"post to https://{hook}") == {("slack_token", hook)}
    bot = "1234567890:AAZq8XnVb2Lk9Mw3Rt7Yp1Hc5Ds6Fg4Jh0K"  # 33 characters after AA
    assert detect(find_vendor, f"bot {bot}") == {("generic_api_key", bot)}


PEM_BODY = "\n".join([R40 + "AbCdEfGhIjKlMnOpQrStUv"] * 4)


@pytest.mark.parametrize("label", ["RSA PRIVATE KEY", "PRIVATE KEY", "EC PRIVATE KEY", "OPENSSH PRIVATE KEY",
                                   "ENCRYPTED PRIVATE KEY", "PGP PRIVATE KEY BLOCK"])
def test_private_keys_span_from_begin_to_end(label: str) -> None:
    block = f"-----BEGIN {label}-----\n{PEM_BODY}\n-----END {label}-----"
    text = f"key:\n{block}\nrest"
    assert detect(find_private_keys, text) == {("private_key", block)}


def test_truncated_private_key_covers_the_header_and_body() -> None:
    text = f"-----BEGIN RSA PRIVATE KEY-----\n{PEM_BODY}"
    ((kind, span),) = detect(find_private_keys, text)
    assert kind == "private_key" and span.startswith("-----BEGIN") and R40 in span


@pytest.mark.parametrize("text", [
    "-----BEGIN RSA PRIVATE KEY-----\n...\n-----END RSA PRIVATE KEY-----",
    "-----BEGIN PRIVATE KEY-----\nMIIEvQ...\n-----END PRIVATE KEY-----",
    "the file starts with -----BEGIN PRIVATE KEY----- and then the key",
    "-----BEGIN PUBLIC KEY-----\n" + PEM_BODY + "\n-----END PUBLIC KEY-----",
])
def test_private_key_headers_without_a_body_are_left_out(text: str) -> None:
    assert detect(find_private_keys, text) == set()


def test_putty_key_file() -> None:
    text = f"PuTTY-User-Key-File-3: ssh-ed25519\nPrivate-Lines: 1\n{R40}\nPrivate-MAC: 0a1b2c3d4e5f\n"
    ((kind, span),) = detect(find_private_keys, text)
    assert kind == "private_key" and span.endswith("Private-MAC: 0a1b2c3d4e5f")


def test_vendor_kind_wins_over_the_keyword_around_it() -> None:
    assert kinds_at(f'{{"token": "{GHP}"}}') == [("github_token", GHP)]


def test_every_vendor_pattern_compiles_and_is_filed_under_its_first_byte() -> None:
    sources = vendors._VENDOR_SOURCES
    assert sources
    kinds = set(pii.SECRET_KINDS)
    for source, kind in sources:
        assert kind in kinds, source
        patterns = vendors._vendor_patterns(source[0])
        assert any(p.pattern == source for p, _ in patterns), source
    assert vendors._vendor_patterns(ord("!")) == []


def test_vendor_patterns_are_compiled_once_per_first_byte() -> None:
    first = vendors._vendor_patterns(ord("g"))
    assert vendors._vendor_patterns(ord("g")) is first


@pytest.mark.parametrize(("token", "kind", "confirmed"), [
    ("sk-ant-api03-" + R40, "openai_key", "anthropic_key"),
    ("sk-proj-" + R40, "openai_key", "openai_key"),
    ("sk-this-is-just-some-words-and-more-words", "openai_key", None),
    ("sk-" + "a-" * 15 + "1b", "openai_key", None),  # more dashes than a key has
    ("AKIAABCDEFGHIJKLMNOP", "aws_access_key", None),  # no digit after the prefix
    ("xoxb-" + "a" * 30, "slack_token", None),  # too few distinct characters
    ("ghp_" + R40[:36], "github_token", "github_token"),
])
def test_vendor_kind_confirmation(token: str, kind: str, confirmed: str | None) -> None:
    assert vendors._vendor_kind(token, kind) == confirmed


def test_left_boundary() -> None:
    assert vendors._left_ok(b"x AKIA", 2)
    assert vendors._left_ok(b"AKIA", 0)
    assert vendors._left_ok(b"=AKIA", 1)
    assert not vendors._left_ok(b"xAKIA", 1)
    assert not vendors._left_ok(b"9AKIA", 1)


def test_two_private_keys_in_one_text_are_two_findings() -> None:
    block = "-----BEGIN PRIVATE KEY-----\n" + PEM_BODY + "\n-----END PRIVATE KEY-----"
    text = f"{block}\n\nand\n\n{block}"
    out: list[Cand] = []
    find_private_keys(View(text), out)
    assert [(s, e) for _, s, e, _ in out] == [(0, len(block)), (len(text) - len(block), len(text))]
