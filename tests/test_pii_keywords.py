"""Tests for gitmem.guards.pii.keywords: secrets around a keyword (URLs, assignments, headers, command lines, prose).

Every secret here is fabricated: random characters with a real prefix and length.
"""

from __future__ import annotations

import base64

import pytest

from gitmem.guards import pii
from tests.pii_samples import PASSWORD, kinds_at, only


@pytest.mark.parametrize(
    ("text", "span"),
    [
        (f"postgres://report:{PASSWORD}@db.acme.io:5432/dw", f"report:{PASSWORD}"),
        (f"mongodb+srv://app:{PASSWORD}@cluster0.x1y2.mongodb.net/prod", f"app:{PASSWORD}"),
        (f"REDIS_URL=redis://:{PASSWORD}@cache:6379/0", f":{PASSWORD}"),
        (f"git clone https://deploy:{PASSWORD}@github.com/acme/x.git", f"deploy:{PASSWORD}"),
        (f'{{"dsn": "mysql:\\/\\/svc:{PASSWORD}@db\\/shop"}}', f"svc:{PASSWORD}"),
    ],
)
def test_url_credentials_span_is_user_and_password(text: str, span: str) -> None:
    f = only(text)
    assert f.kind == "url_credentials"
    assert text[f.start : f.end] == span


def test_basic_auth_header_is_a_generic_secret() -> None:
    blob = base64.b64encode(f"admin:{PASSWORD}".encode()).decode()
    text = f"Authorization: Basic {blob}"
    assert kinds_at(text) == [("generic_api_key", blob)]
