"""Tests for gitmem.guards.pii.kinds: kinds, ranks, placeholders and the two values.

Every secret here is fabricated: random characters with a real prefix and length.
"""

from __future__ import annotations


import pytest

from gitmem.guards import pii
from gitmem.guards.pii import Finding
from tests.pii_samples import GHP


def test_has_secret() -> None:
    assert pii.has_secret(pii.scan(f"token {GHP}"))
    assert not pii.has_secret(pii.scan("alice.martin@gmail.com"))
    assert not pii.has_secret([])


def test_finding_is_frozen() -> None:
    f = Finding("email", 0, 5, False)
    with pytest.raises(AttributeError):
        f.kind = "phone"  # type: ignore[misc]
