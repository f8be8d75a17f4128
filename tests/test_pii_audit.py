"""Tests for gitmem.guards.pii.audit: the check of an allowlist and of the disabled kinds.

Every secret here is fabricated: random characters with a real prefix and length.
"""

from __future__ import annotations

import pytest

from gitmem.guards import pii
from gitmem.guards.pii import Allowlist


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


def test_audit_of_the_defaults_is_clean() -> None:
    assert pii.audit(Allowlist()) == []
    assert pii.audit(Allowlist(), disabled_kinds=()) == []


def test_audit_reports_each_problem_once_and_in_order() -> None:
    allow = Allowlist(values=frozenset({"", "ok"}), patterns=("(", r".*@.*", r"(x+)+"))
    problems = pii.audit(allow, disabled_kinds=["email", "nope", "email"])
    assert len(problems) == 6
    assert problems[0].startswith("kind 'email' is mandatory")
    assert problems[1].startswith("unknown kind 'nope'")
    assert problems[2] == "allowlist value is empty or blank"
    assert "does not compile" in problems[3]
    assert "whole category of email" in problems[4]
    assert "exponential" in problems[5]


def test_audit_accepts_narrow_patterns_of_each_kind() -> None:
    narrow = (r"ops@acme-corp\.io", r"10\.1\.2\.3", r"/home/ci-bot", r"\+1 415 867 2309")
    assert pii.audit(Allowlist(patterns=narrow)) == []


def test_audit_samples_cover_every_kind_but_private_keys() -> None:
    """A private key spans a whole PEM block: no allowlist pattern could stand for it."""
    from gitmem.guards.pii.audit import _AUDIT_SAMPLES

    assert set(_AUDIT_SAMPLES) == (set(pii.SECRET_KINDS) | set(pii.PII_KINDS)) - {"private_key"}
    for kind, samples in _AUDIT_SAMPLES.items():
        assert samples, kind
        assert all(isinstance(s, str) and s for s in samples), kind
