"""Tests for gitmem.guards.pii.audit: the check of an allowlist and of the disabled kinds.

Every secret here is fabricated: random characters with a real prefix and length.
"""

from __future__ import annotations


import pytest

from gitmem.guards import pii
from gitmem.guards.pii import Allowlist
from tests.pii_samples import AKIA


def test_audit_accepts_a_sound_configuration() -> None:
    allow = Allowlist(values=frozenset({"ops-team@acme-corp.io"}), patterns=(r"10\.1\.2\.\d+", r"[a-z.]+@acme-corp\.io"))
    assert pii.audit(allow, disabled_kinds=["ipv4", "ssn", "credit_card", "ipv6"]) == []


def test_audit_reports_a_pattern_that_does_not_compile() -> None:
    (problem,) = pii.audit(Allowlist(patterns=("([a-z",)))
    assert "([a-z" in problem and "does not compile" in problem


@pytest.mark.parametrize("kind", ["github_token", "env_secret", "email", "phone", "home_path"])
def test_audit_refuses_to_disable_a_mandatory_kind(kind: str) -> None:
    (problem,) = pii.audit(Allowlist(), disabled_kinds=[kind])
    assert kind in problem and "mandatory" in problem


def test_audit_reports_an_unknown_kind() -> None:
    (problem,) = pii.audit(Allowlist(), disabled_kinds=["passport"])
    assert "passport" in problem and "unknown" in problem


@pytest.mark.parametrize(
    ("pattern", "kind"),
    [(".*", "github_token"), (".+", "email"), (r"[A-Za-z0-9]+", "aws_access_key"), (r"\S+", "jwt"),
     (r"AKIA[A-Z0-9]{16}", "aws_access_key"), (r"[\w.+-]+@[\w.-]+", "email"), (r"sk-ant-.*", "anthropic_key")],
)
def test_audit_reports_a_pattern_that_hides_a_whole_category(pattern: str, kind: str) -> None:
    (problem,) = pii.audit(Allowlist(patterns=(pattern,)))
    assert "hide the whole category" in problem and kind in problem and repr(pattern) in problem


def test_audit_reports_nested_repetition() -> None:
    (problem,) = pii.audit(Allowlist(patterns=(r"(a+)+b",)))
    assert "exponential" in problem


def test_audit_reports_a_blank_value() -> None:
    assert pii.audit(Allowlist(values=frozenset({" "}))) == ["allowlist value is empty or blank"]
