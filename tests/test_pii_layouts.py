"""Tests for gitmem.guards.pii.layouts: secrets under a label in any layout, and password files.

Every secret here is fabricated.
"""

from __future__ import annotations

import pytest

from gitmem.guards import pii
from gitmem.guards.redact import strip

PW = "Vq7#Lm2xRk9w"


def secrets(text: str) -> list[str]:
    return [text[f.start : f.end] for f in pii.scan(text) if f.secret]


@pytest.mark.parametrize(
    "template",
    [
        "| host | user | password |\n|------|------|----------|\n| db01 | app | {v} |",
        "| Setting | Value |\n| --- | --- |\n| Signing secret | {v} |",
        "Passphrase | {v}",
        "* **Password:** {v}",
        "- **token**: `{v}`",
        "* Token - {v}",
        "root password - {v}",
        "Password for db01.internal: {v}",
        "password (staging): {v}",
        "Secret:\n{v}",
        "Token\t{v}\tcreated 2026-01-02",
        "Here is the password, {v}, keep it safe.",
        "credentials: deploy / {v}",
        "the reset token issued: {v}",
    ],
)
def test_a_labelled_value_is_a_secret_in_any_layout(template: str) -> None:
    text = template.format(v=PW)
    assert PW in secrets(text), text
    assert PW not in strip(text)


@pytest.mark.parametrize(
    "text",
    [
        "| field | type |\n|---|---|\n| password | string |\n| token | string |",
        "| Key | Value |\n|-----|-------|\n| timeout | 30s |",
        "- password: (ask the on-call person)",
        "* Token - see the team vault entry 'staging'",
        "Password: <your-password>",
        "secret: ********",
        "Password: xxxxxxxx",
        "api key = ...",
        "sort key: created_at, partition key: tenant_id",
        "key: value pairs are parsed by the loader",
        "Token: ${GITHUB_TOKEN}",
        "Secret: %APP_SECRET%",
        "the token budget: 128000",
        "I changed the password to [SECRET:generic_api_key] yesterday",
    ],
)
def test_labels_without_a_secret_value_stay_quiet(text: str) -> None:
    assert secrets(text) == [], text


@pytest.mark.parametrize(
    "text,value",
    [
        ("db.internal:5432:appdb:app:" + PW, PW),
        ("*:*:*:backup:" + PW + "\n", PW),
        ("localhost:5432:*:postgres:" + PW + "\r\nother:5432:x:y:Zz9#yy8Wqq", PW),
    ],
)
def test_pgpass_lines_hold_a_password(text: str, value: str) -> None:
    assert value in secrets(text)


def test_pgpass_shapes_that_are_not_password_files_stay_quiet() -> None:
    for text in ["db.internal:5432:appdb:app:*", "12:30:45:67:89", "fe80:0:0:0:1:2:3:4", "a:1:b:c:short"]:
        assert secrets(text) == [], text
