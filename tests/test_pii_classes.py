"""Detection classes and false refusals, case by case from fixtures/leaks_corpus.jsonl.

Positives: AWS keys glued after ``-`` or ``_``, vendors' test-mode keys, keys of
vendors with no prefix written as ``name-`` plus a long token, credentials
introduced by words in several languages, .netrc passwords, emails spelled with
[at] and [dot], a Chinese mobile number after 手机号, a password after an email,
a Groq key in Kotlin. Negatives: share and CSRF tokens, document and tenant ids,
test status lines, placeholders and references, hashes, ids and code.
fixtures/leaks_holdout.jsonl was kept aside while the rules were written; only
bench/scan.py reads it, to report.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from gitmem.base.config import check_text
from gitmem.engines.checks import check_config
from gitmem.guards import pii
from tests.pii_samples import AKIA, GHP

CASES = Path(__file__).parent / "fixtures" / "leaks_corpus.jsonl"
PII_CLASSES = {"email_obf": "email", "cn_mobile": "phone"}


def load() -> list[dict[str, Any]]:
    with CASES.open(encoding="utf-8") as fh:
        return [json.loads(line) for line in fh if line.strip()]


def test_the_corpus_has_positives_and_negatives_of_many_classes() -> None:
    cases = load()
    assert sum(c["secret"] for c in cases) >= 20 and sum(not c["secret"] for c in cases) >= 20
    assert len({c["class"] for c in cases}) >= 12


@pytest.mark.parametrize("case", load(), ids=lambda c: c["id"])
def test_each_case(case: dict[str, Any]) -> None:
    found = pii.scan(case["text"])
    kind = PII_CLASSES.get(case["class"])
    if kind is not None:
        assert kind in {f.kind for f in found}, found
    elif case["secret"]:
        assert pii.has_secret(found), found
    else:
        assert not pii.has_secret(found), [(f.kind, case["text"][f.start : f.end]) for f in found]


@pytest.mark.parametrize("pattern", [".*", ".+", r"\S+", "(?s).*", "[^@]+", "a|.*", r"[\s\S]*", ".{0,}", "^.*$"])
def test_an_allowlist_pattern_that_matches_nearly_everything_is_refused(pattern: str) -> None:
    problems = pii.audit(pii.Allowlist(frozenset(), (pattern,)))
    assert problems and "nearly everything" in problems[0]


@pytest.mark.parametrize("pattern", [r"ticket-[0-9]+", r"[a-z0-9.]+@corp\.internal", r"build-[0-9a-f]{12}"])
def test_a_narrow_allowlist_pattern_passes(pattern: str) -> None:
    assert pii.audit(pii.Allowlist(frozenset(), (pattern,))) == []


def test_check_config_refuses_an_allowlist_that_hides_every_secret(tmp_path: Path) -> None:
    from gitmem.base.config import CONFIG_FILE

    (tmp_path / CONFIG_FILE).write_text("version: 1\npii:\n  allowlist:\n    patterns: ['.*']\n", encoding="utf-8")
    assert not check_text((tmp_path / CONFIG_FILE).read_text(encoding="utf-8")).problems   # valid YAML and fields
    report = check_config(tmp_path)
    assert not report.ok and "nearly everything" in report.problems[0]


@pytest.mark.parametrize("token", [AKIA, GHP, "sk_test_51Hq8ZkLm2Rt7Vw3Yb9Nc6Df1Gh", "rk_test_51Hq8ZkLm2Rt7Vw3Yb9Nc6D"])
def test_a_vendor_shaped_secret_is_never_allowed_by_a_pattern(token: str) -> None:
    narrow = pii.Allowlist(frozenset(), (r"[A-Za-z0-9_]{20,60}", token[:4] + ".*"))
    assert pii.has_secret(pii.scan(f"key = {token}", narrow))
    exact = pii.Allowlist(frozenset({token}), ())
    assert not pii.has_secret(pii.scan(f"key = {token}", exact))   # a person may still allow the value itself


def test_a_keyword_secret_may_still_be_allowed_by_a_pattern() -> None:
    allow = pii.Allowlist(frozenset(), (r"Xk9#[a-z0-9]+",))
    assert not pii.has_secret(pii.scan("password: Xk9#mq2pzz", allow))
