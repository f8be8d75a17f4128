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


def _transcript(path: Path, tool_outputs: list[str]) -> Path:
    """A small Claude Code transcript whose tool results are ``tool_outputs``."""
    records: list[dict[str, Any]] = [{"type": "user", "message": {"role": "user", "content": "look at the share page"}}]
    for n, out in enumerate(tool_outputs):
        records.append({"type": "assistant", "message": {"role": "assistant", "content": [
            {"type": "tool_use", "id": f"t{n}", "name": "Bash", "input": {"command": "curl -s https://site.test/x"}}]}})
        records.append({"type": "user", "message": {"role": "user", "content": [
            {"type": "tool_result", "tool_use_id": f"t{n}", "content": out}]}})
    path.write_text("".join(json.dumps(r, ensure_ascii=False) + "\n" for r in records), encoding="utf-8")
    return path


# What sessions read and that refused them whole: every line a class of issue 19's false refusals.
FALSE_REFUSALS = [
    "- /url: /explore/6992cde3000000001d027eb7?xsec_token=ABq7Rk2VdLm9Zp4XcT1bNw8Yh3Gf6Js0Ea5UoKiPxY=&xsec_source=pc",
    '{"obj_type": "docx", "obj_token": "SZHRq8Lm2Zp7Rt4Vw8Yb1NcnRf", "tenant_key": "2d1d4c5e6f7a875d"}',
    '<meta name="csrf-token" content="FL2zQ9zL/x2Vb7Nc+R4kW8pD1sJf6Gy3Ae0UoTiZ5mXq8Lk2Rt7Vw3Yb9Nc6Df1GhJk4Qp2Zm7Lx9Kv3Bn5w==">',
    "  PASS: Multi-dimensional input\n  PASS: Per-block scaling",
    '$headers = @{ "Authorization" = "Bearer $env:NOTION_TOKEN" }\napi_key = "sk-xxxx"  # <your-key>, YOUR_API_KEY, ${TOKEN}',
    '"sessionKey": "agent:main:subagent:cd3c6a2d-f763-42f3-84d9-99ecfd7ef346", "runId": "9f8e7d6c"',
    "| Loss | `train/loss` | wandb key |\n| FLOPS | `train/FLOPS` | - |",
]


def test_a_session_that_read_such_output_is_not_refused(tmp_path: Path) -> None:
    from gitmem.engines.harvest.screen import find_secrets

    assert find_secrets(_transcript(tmp_path / "s.jsonl", FALSE_REFUSALS)) == []


def test_a_real_key_among_them_still_refuses_the_session(tmp_path: Path) -> None:
    from gitmem.engines.harvest.screen import find_secrets

    path = _transcript(tmp_path / "s.jsonl", [*FALSE_REFUSALS, f"export AWS_ACCESS_KEY_ID=prod-{AKIA}"])
    assert find_secrets(path) == [f"aws_access_key at line {2 * len(FALSE_REFUSALS) + 3}"]
