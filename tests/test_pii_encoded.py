"""Tests for gitmem.guards.pii.encoded: escaped, CRLF, base64 and percent-encoded forms.

Every secret here is fabricated: random characters with a real prefix and length.
"""

from __future__ import annotations

import base64
import urllib.parse

import pytest

from gitmem.guards import pii
from gitmem.guards.pii.encoded import _percent_decode, find_base64, find_percent_encoded
from gitmem.guards.pii.kinds import Cand
from gitmem.guards.pii.view import View
from tests.pii_samples import GHP, PASSWORD, kinds_at, only


def test_secret_after_escaped_newline_in_json() -> None:
    text = '{"content":"NODE_ENV=prod\\nAPI_SECRET=' + PASSWORD + '\\nPORT=1"}'
    assert ("env_secret", PASSWORD) in kinds_at(text)


def test_secret_after_double_escaped_newline_and_escaped_quotes() -> None:
    text = '"{\\"out\\": \\"X=1\\\\nREDIS_PASSWORD=' + PASSWORD + '\\\\n\\"}"'
    assert ("env_secret", PASSWORD) in kinds_at(text)
    text = '{\\"password\\": \\"' + PASSWORD + '\\"}'
    assert ("generic_api_key", PASSWORD) in kinds_at(text)


def test_secret_in_crlf_text() -> None:
    text = f"NODE_ENV=production\r\nSMTP_PASSWORD={PASSWORD}\r\nSMTP_HOST=mail\r\n"
    assert ("env_secret", PASSWORD) in kinds_at(text)


def test_base64_blob_is_reported_over_the_whole_blob() -> None:
    blob = base64.b64encode(f"GITHUB_TOKEN={GHP}\n".encode()).decode()
    text = f"data:\n  config: {blob}\n"
    f = only(text)
    assert (f.kind, text[f.start : f.end]) == ("github_token", blob)


@pytest.mark.parametrize("newline", ["\n", "\n    ", "\\n", "\\\\n"])
def test_base64_wrapped_over_lines_is_joined(newline: str) -> None:
    env = "NODE_ENV=production\nPORT=8080\nLOG_LEVEL=info\nDATABASE_HOST=db.internal.acme.io\nDB_PASSWORD=" + PASSWORD
    wrapped = base64.encodebytes(env.encode()).decode().strip().replace("\n", newline)  # 76 columns
    text = f"stdout: {wrapped}"
    f = only(text)
    assert f.kind == "env_secret"
    assert (f.start, f.end) == (len("stdout: "), len(text))


def test_base64_of_ordinary_data_is_ignored() -> None:
    text_blob = base64.b64encode(b"The quick brown fox jumps over the lazy dog, again and again.").decode()
    png = "iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mNkYPhfDwAChwGA60e6kgAAAABJRU5ErkJggg=="
    assert pii.scan(f"payload: {text_blob} img: {png}") == []


def test_percent_encoded_credentials_map_back_to_the_encoded_span() -> None:
    encoded = urllib.parse.quote(f"deploy:{PASSWORD}", safe="")
    text = f"redirect_uri=https%3A%2F%2F{encoded}%40git.acme.io%2Frepo"
    f = only(text)
    assert f.kind == "url_credentials"
    assert text[f.start : f.end] == encoded


def test_percent_encoded_token_is_found() -> None:
    text = f"GET /cb?next=%2Fsettings%3Ftoken%3D{GHP} HTTP/1.1"
    assert ("github_token", GHP) in kinds_at(text)


def no_rescan(text: str, depth: int, secrets_only: bool) -> list[Cand]:
    raise AssertionError("nothing here should be decoded")


def test_percent_decode_maps_each_character_back() -> None:
    decoded, src = _percent_decode("a%3Db%2Fc")
    assert decoded == "a=b/c"
    assert src == [0, 1, 4, 5, 8, 9]
    assert [("a%3Db%2Fc")[src[i] : src[i + 1]] for i in range(len(decoded))] == ["a", "%3D", "b", "%2F", "c"]


@pytest.mark.parametrize("token", ["100%", "%zz", "%4", "50%off", "plain"])
def test_percent_decode_leaves_broken_escapes_alone(token: str) -> None:
    decoded, src = _percent_decode(token)
    assert decoded == token and src == list(range(len(token) + 1))


def test_percent_encoded_form_is_rescanned_one_level_deeper() -> None:
    calls: list[tuple[str, int, bool]] = []

    def collect(text: str, depth: int, secrets_only: bool) -> list[Cand]:
        calls.append((text, depth, secrets_only))
        return []

    out: list[Cand] = []
    find_percent_encoded(View("x?q=a%40b%2Ec"), out, 0, False, collect)
    assert calls == [("x?q=a@b.c", 1, False)] and out == []


def test_no_percent_sign_no_rescan() -> None:
    out: list[Cand] = []
    find_percent_encoded(View("plain text, 100 percent"), out, 0, False, no_rescan)
    find_base64(View("short words only"), out, 0, no_rescan)
    assert out == []


def test_percent_encoded_email_maps_to_the_encoded_span() -> None:
    text = "GET /unsubscribe?u=alice.martin%40gmail.com HTTP/1.1"
    assert kinds_at(text) == [("email", "alice.martin%40gmail.com")]


@pytest.mark.parametrize("blob", [
    "VGhpcyBpcyBhIHBsYWluIHNlbnRlbmNlIHdpdGhvdXQgYW55IHNlY3JldHMu",  # a plain sentence
    "dGhlIHBhc3N3b3JkIGlzIHdyb25n",  # "the password is wrong"
    "abcdefghijklmnopqrstuvwxyzabcdef",  # letters only
    "0123456789012345678901234567890123",  # digits only
    "CamelCaseIdentifiersAreNotBlobs",
])
def test_base64_without_a_secret_is_left_alone(blob: str) -> None:
    assert pii.scan(f"data {blob} end") == []


def test_base64_secret_inside_base64_is_found_two_levels_deep() -> None:
    inner = base64.b64encode(f"GITHUB_TOKEN={GHP}".encode()).decode()
    outer = base64.b64encode(f"payload={inner}".encode()).decode()
    assert kinds_at(f"blob {outer}") == [("github_token", outer)]


def test_base64_reports_only_secrets_not_pii() -> None:
    blob = base64.b64encode(b"mail alice.martin@gmail.com from 10.20.30.40").decode()
    assert pii.scan(f"data {blob}") == []


def test_base64_blob_span_includes_its_padding() -> None:
    blob = base64.b64encode(f"token={GHP}!".encode()).decode()
    assert blob.endswith("=")
    f = only(f"x {blob} y")
    assert f.kind == "github_token" and f.end - f.start == len(blob)


def test_escaped_unicode_before_a_token_gives_it_a_boundary() -> None:
    text = '{"msg":"key\\u003d' + GHP + '"}'
    assert ("github_token", GHP) in kinds_at(text)


from hypothesis import given  # noqa: E402
from hypothesis import strategies as st  # noqa: E402


@given(st.text(alphabet="ab%0123456789ABCDEFxyz", max_size=40))
def test_percent_decode_source_map_is_monotonic_and_complete(token: str) -> None:
    decoded, src = _percent_decode(token)
    assert len(src) == len(decoded) + 1
    assert src[0] == 0 and src[-1] == len(token)
    assert all(a < b for a, b in zip(src, src[1:]))
    for i, ch in enumerate(decoded):
        piece = token[src[i] : src[i + 1]]
        assert piece == ch or (len(piece) == 3 and piece[0] == "%" and chr(int(piece[1:], 16)) == ch)
