"""Tests for gitmem.guards.pii, the package: its public surface and a light import.

Every secret here is fabricated: random characters with a real prefix and length.
"""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest

from gitmem.guards import pii


def test_public_names() -> None:
    assert set(pii.__all__) == {
        "MANDATORY_KINDS", "PII_KINDS", "SECRET_KINDS", "Allowlist", "Finding", "audit", "describe", "has_secret",
        "placeholder", "position", "scan",
    }
    assert pii.SECRET_KINDS == (
        "aws_access_key", "aws_secret_key", "github_token", "openai_key", "anthropic_key", "slack_token",
        "stripe_key", "google_api_key", "jwt", "private_key", "url_credentials", "env_secret", "generic_api_key",
    )
    assert pii.PII_KINDS == ("email", "phone", "ipv4", "ipv6", "ssn", "home_path", "credit_card")


def test_import_is_light_and_compiles_nothing() -> None:
    """The pre-commit hook imports this module on every commit."""
    code = (
        "import sys, gitmem.guards.pii as p\n"
        "from gitmem.guards.pii import encoded, keywords, network, numbers, personal, plausibility, vendors, view\n"
        "mods = (encoded, keywords, network, numbers, personal, plausibility, vendors, view)\n"
        "fresh = all(set(vars(m._rx)) == {'_sources'} for m in mods) and not vendors._VENDOR_CACHE\n"
        "heavy = [m for m in ('pygit2', 'ruamel', 'markdown_it', 'regex', 'yaml', 'ipaddress', 'dataclasses', 'typing')\n"
        "         if m in sys.modules]\n"
        "print(fresh and network._NETWORKS is None, heavy)\n"
    )
    root = Path(__file__).resolve().parent.parent
    out = subprocess.run([sys.executable, "-c", code], cwd=root, capture_output=True, text=True, check=True)
    assert out.stdout.strip() == "True []"
