"""Tests for gitmem.guards.pii.kinds: kinds, ranks, placeholders and the two values.

Every secret here is fabricated: random characters with a real prefix and length.
"""

from __future__ import annotations

import pytest

from gitmem.guards import pii
from gitmem.guards.pii import Allowlist, Finding
from gitmem.guards.pii.kinds import (
    MANDATORY_KINDS,
    PII_KINDS,
    RANK,
    SECRET_KINDS,
    SECRET_SET,
    Cand,
    add,
    placeholder,
)
from tests.pii_samples import GHP


def test_has_secret() -> None:
    assert pii.has_secret(pii.scan(f"token {GHP}"))
    assert not pii.has_secret(pii.scan("alice.martin@gmail.com"))
    assert not pii.has_secret([])


def test_finding_is_frozen() -> None:
    f = Finding("email", 0, 5, False)
    with pytest.raises(AttributeError):
        f.kind = "phone"  # type: ignore[misc]  # the point: assigning to a field must fail


def test_every_kind_has_a_rank_and_secrets_outrank_pii() -> None:
    kinds = set(SECRET_KINDS) | set(PII_KINDS)
    assert kinds and set(RANK) == kinds
    assert max(RANK[k] for k in SECRET_KINDS) < min(RANK[k] for k in PII_KINDS)
    assert RANK["private_key"] == min(RANK.values())


def test_secret_and_pii_kinds_are_disjoint_and_mandatory_kinds_known() -> None:
    assert not set(SECRET_KINDS) & set(PII_KINDS)
    assert SECRET_SET == frozenset(SECRET_KINDS)
    assert MANDATORY_KINDS == frozenset(SECRET_KINDS) | {"email", "phone", "home_path"}


@pytest.mark.parametrize(("kind", "text"), [
    ("email", "[EMAIL]"), ("phone", "[PHONE]"), ("ipv4", "[IPV4]"), ("ipv6", "[IPV6]"), ("ssn", "[SSN]"),
    ("credit_card", "[CREDIT_CARD]"), ("home_path", "[HOME]"), ("github_token", "[SECRET:github_token]"),
    ("env_secret", "[SECRET:env_secret]"),
])
def test_placeholder(kind: str, text: str) -> None:
    assert placeholder(kind) == text


def test_every_pii_kind_has_its_own_placeholder() -> None:
    assert PII_KINDS
    for kind in PII_KINDS:
        assert not placeholder(kind).startswith("[SECRET")
    for kind in SECRET_KINDS:
        assert placeholder(kind) == f"[SECRET:{kind}]"


def test_add_appends_a_ranked_candidate() -> None:
    out: list[Cand] = []
    add(out, 3, 9, "email")
    add(out, 0, 4, "jwt")
    assert out == [(RANK["email"], 3, 9, "email"), (RANK["jwt"], 0, 4, "jwt")]
    with pytest.raises(KeyError):
        add(out, 0, 1, "not_a_kind")


def test_finding_fields_and_tuple_shape() -> None:
    f = Finding("email", 2, 9, False)
    assert (f.kind, f.start, f.end, f.secret) == ("email", 2, 9, False)
    assert tuple(f) == ("email", 2, 9, False)
    assert f == Finding(kind="email", start=2, end=9, secret=False)
    assert not hasattr(f, "__dict__")


def test_allowlist_defaults_are_empty() -> None:
    allow = Allowlist()
    assert allow.values == frozenset() and allow.patterns == ()
    assert Allowlist(frozenset({"x"})).values == frozenset({"x"})
