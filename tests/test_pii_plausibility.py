"""Tests for gitmem.guards.pii.plausibility: whether a value written after a
keyword could be a real secret, or is a placeholder, a reference or code."""

from __future__ import annotations

import pytest

from gitmem.guards.pii.plausibility import classes, is_placeholder, looks_aws_secret, plausible
from tests.pii_samples import AWS_SECRET, PASSWORD


@pytest.mark.parametrize("value", [
    "", "${DB_PASSWORD}", "$API_KEY", "$(cat secret.txt)", "%APPDATA%", "%(password)s", "{password}",
    "[REDACTED]", "[SECRET:github_token]", "!vault", "!!binary", "*default_password", "&anchor",
    "@Microsoft.KeyVault(SecretUri=x)", "<your-key>", "none", "NULL", "changeme", "your-api-key-here",
    "xxxxxxxx", "********", "••••••••", "example-token", "sk-...", "aaaaaaa1", "{{ secrets.TOKEN }}",
    "password123", "TODO",
])
def test_placeholders_references_and_masks(value: str) -> None:
    assert is_placeholder(value)


@pytest.mark.parametrize("value", [PASSWORD, AWS_SECRET, "c0rrect-h0rse-battery", "hunter2-Xq9!", "Tr0ub4dor&3"])
def test_real_looking_values_are_not_placeholders(value: str) -> None:
    assert not is_placeholder(value)


@pytest.mark.parametrize(("value", "n"), [
    ("abc", 1), ("ABC", 1), ("123", 1), ("--", 1), ("aB", 2), ("a1", 2), ("aB1", 3), ("aB1!", 4), ("", 0),
])
def test_classes_counts_kinds_of_characters(value: str, n: int) -> None:
    assert classes(value) == n


@pytest.mark.parametrize(("value", "style", "quoted", "ok"), [
    (PASSWORD, "env", False, True),
    (PASSWORD, "strict", False, True),
    ("short1", "env", False, True),
    ("abc12", "env", False, False),  # under six characters
    ("x" * 2001 + "1A", "env", False, False),  # too long to be one value
    ("#comment1A", "colon", False, False),  # a YAML comment
    ("#Xk9mL2qP7zR", "env", False, True),  # but env files allow it in values
    ("get_token(user)", "code", False, False),
    ("environ[KEY1]", "code", False, False),
    ("get_token(user)", "code", True, True),  # quoted: a string, whatever it reads like
    ("ssh-ed25519AAAAC3Nza", "colon", True, False),  # a public key
    ("-----BEGIN RSA", "colon", True, False),
    ("agent:main:main", "colon", False, False),
    ("config/default.yaml", "colon", True, False),
    ("./secrets/db.key", "env", False, False),
    ("settings.SECRET_KEY", "code", False, False),
    ("request_password", "code", False, False),
    ("correcthorse", "strict", False, False),  # letters only, bare word
    ("correcthorse", "prose", False, False),
    ("correcthorse", "prose", True, True),
    ("correcthorse", "code", False, False),
    ("correcthorse", "env", False, True),
    ("correcthorsebattery", "colon", False, True),
    ("CorrectHorseBattery", "colon", False, False),  # CamelCase: a name
    ("correcthorse", "colon", False, True),
    ("horsey", "colon", True, False),  # letters only need eight
    ("482913", "prose", False, True),  # a passcode in chat
    ("482913", "env", False, False),
    ("48291357", "env", False, True),
    ("01234567", "env", False, False),
    ("48291357", "strict", False, False),
    ("deadbeef-1234-cafe", "strict", False, False),  # hex and dashes: an id
    ("abc-def-ghi-1", "strict", False, True),
])
def test_plausible(value: str, style: str, quoted: bool, ok: bool) -> None:
    assert plausible(value, style, quoted) is ok


def test_looks_aws_secret() -> None:
    assert looks_aws_secret(AWS_SECRET)
    assert not looks_aws_secret(AWS_SECRET[:-1])
    assert not looks_aws_secret(AWS_SECRET.lower())
    assert not looks_aws_secret(AWS_SECRET.upper())
    assert not looks_aws_secret("AKIA" + AWS_SECRET[4:])
    assert not looks_aws_secret("wJalrXUtnFEMI/K7MDENG/bPxRfiCYEXAMPLEKEY")
    assert not looks_aws_secret("q" * 13 + "R" * 13 + "k" * 14)
