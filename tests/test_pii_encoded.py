"""Tests for gitmem.guards.pii.encoded: escaped, CRLF, base64 and percent-encoded forms.

Every secret here is fabricated: random characters with a real prefix and length.
"""

from __future__ import annotations

import base64
import urllib.parse

import pytest

from gitmem.guards import pii
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
