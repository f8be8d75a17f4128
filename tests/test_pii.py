"""Tests for gitmem.guards.pii: the labelled corpus, exact spans, encodings, strip,
allowlists, describe and the configuration audit.

Every secret in these tests and in fixtures/pii_corpus.jsonl is fabricated:
random characters with a real prefix and length, never a real credential.
"""

from __future__ import annotations

import base64
import json
import subprocess
import sys
import urllib.parse
from pathlib import Path

import pytest

from gitmem.guards import pii
from gitmem.guards.pii import Allowlist, Finding

CORPUS = Path(__file__).parent / "fixtures" / "pii_corpus.jsonl"

# Fabricated values reused below.
GHP = "ghp_Q7mZx2Lk9Rt4Vw8Yb1Nc6Hd3Fg5Js0KaP2qL"
AKIA = "AKIAQ3EGTZ7R2LWN5XHD"
AWS_SECRET = "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"
PASSWORD = "Xk9#mL2qP7zR"


def load_corpus() -> list[dict]:
    with CORPUS.open(encoding="utf-8") as fh:
        return [json.loads(line) for line in fh if line.strip()]


def kinds_at(text: str) -> list[tuple[str, str]]:
    return [(f.kind, text[f.start : f.end]) for f in pii.scan(text)]


def only(text: str) -> Finding:
    found = pii.scan(text)
    assert len(found) == 1, [(f.kind, text[f.start : f.end]) for f in found]
    return found[0]


# --------------------------------------------------------------------------
# The corpus


def score(cases: list[dict]) -> dict[str, float]:
    """A finding counts when its kind matches and its span overlaps the label."""
    hit = {"secret": 0, "pii": 0}
    total = {"secret": 0, "pii": 0}
    negatives = false_positives = 0
    for case in cases:
        found = pii.scan(case["text"])
        if not case["expect"]:
            negatives += 1
            false_positives += bool(found)
            continue
        for exp in case["expect"]:
            group = "secret" if exp["kind"] in pii.SECRET_KINDS else "pii"
            total[group] += 1
            hit[group] += any(
                f.kind == exp["kind"] and f.start < exp["end"] and exp["start"] < f.end for f in found
            )
    return {
        "secret_recall": hit["secret"] / total["secret"],
        "pii_recall": hit["pii"] / total["pii"],
        "fp_rate": false_positives / negatives,
    }


def test_corpus_is_large_and_well_formed() -> None:
    cases = load_corpus()
    ids = [c["id"] for c in cases]
    assert len(cases) >= 300
    assert len(set(ids)) == len(ids)
    assert sum(1 for c in cases if not c["expect"]) >= 100
    known = set(pii.SECRET_KINDS) | set(pii.PII_KINDS)
    for case in cases:
        for exp in case["expect"]:
            assert exp["kind"] in known, case["id"]
            assert 0 <= exp["start"] < exp["end"] <= len(case["text"]), case["id"]
    labelled = {exp["kind"] for c in cases for exp in c["expect"]}
    assert labelled == known  # every kind is exercised


def test_corpus_scores_meet_the_goals() -> None:
    s = score(load_corpus())
    assert s["secret_recall"] >= 0.99, s
    assert s["pii_recall"] >= 0.97, s
    assert s["fp_rate"] <= 0.02, s


def test_findings_are_sorted_and_do_not_overlap() -> None:
    for case in load_corpus():
        found = pii.scan(case["text"])
        for a, b in zip(found, found[1:]):
            assert a.end <= b.start, case["id"]
        for f in found:
            assert f.secret == (f.kind in pii.SECRET_KINDS)


# --------------------------------------------------------------------------
# Exact spans


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


@pytest.mark.parametrize(
    ("text", "prefix"),
    [
        ("cd /home/alice/src/gitmem", "/home/alice"),
        ("open /Users/bob/Library/Preferences", "/Users/bob"),
        ("dir C:\\Users\\dave\\Desktop", "C:\\Users\\dave"),
        ('{"cwd": "C:\\\\Users\\\\dave\\\\work"}', "C:\\\\Users\\\\dave"),
        ("ls ~carol/notes", "~carol"),
        ('{"path": "\\/home\\/erin\\/x"}', "\\/home\\/erin"),
        ("cd /mnt/c/Users/frank/Downloads", "/Users/frank"),
    ],
)
def test_home_path_span_is_the_identifying_prefix(text: str, prefix: str) -> None:
    f = only(text)
    assert f.kind == "home_path"
    assert text[f.start : f.end] == prefix


@pytest.mark.parametrize(
    "text",
    [
        "cd ~/projects && ls $HOME/.config ${HOME}/x",
        "sudo cat /root/.bashrc",
        "install to /home/user/bin or /home/<username>/bin or /Users/yourname",
        "/home/runner/build/app and C:\\Users\\Public\\Documents",
        "https://acme.io/home/about and https://acme.io/Users/guide",
        "HEAD~3, ~~strike~~ and it costs ~twice as much",
    ],
)
def test_home_path_placeholders_are_left_alone(text: str) -> None:
    assert pii.scan(text) == []


def test_offsets_are_character_offsets_with_non_ascii_text() -> None:
    text = f"日本語のメモ 🚀 — token: {GHP} — /home/ålice/x"
    found = pii.scan(text)
    assert [(f.kind, text[f.start : f.end]) for f in found] == [
        ("github_token", GHP),
        ("home_path", "/home/ålice"),
    ]


# --------------------------------------------------------------------------
# Kinds in context


@pytest.mark.parametrize(
    ("text", "kind", "value"),
    [
        (f"DB_PASSWORD={PASSWORD}", "env_secret", PASSWORD),
        (f"export DB_PASSWORD='{PASSWORD}'", "env_secret", PASSWORD),
        (f"docker run -e POSTGRES_PASSWORD={PASSWORD} postgres:16", "env_secret", PASSWORD),
        (f"PGPASSWORD={PASSWORD} psql -h db -U app", "env_secret", PASSWORD),
        (f"GITHUB_TOKEN={GHP}", "github_token", GHP),  # a vendor format wins over env_secret
        (f'{{"password": "{PASSWORD}"}}', "generic_api_key", PASSWORD),
        (f"db:\n  password: {PASSWORD}\n", "generic_api_key", PASSWORD),
        (f"my password is {PASSWORD}, don't tell", "generic_api_key", PASSWORD),
        (f"aws_secret_access_key = {AWS_SECRET}", "aws_secret_key", AWS_SECRET),
        (f"aws_access_key_id = {AKIA}", "aws_access_key", AKIA),
    ],
)
def test_kind_follows_the_context(text: str, kind: str, value: str) -> None:
    assert (kind, value) in kinds_at(text)


def test_basic_auth_header_is_a_generic_secret() -> None:
    blob = base64.b64encode(f"admin:{PASSWORD}".encode()).decode()
    text = f"Authorization: Basic {blob}"
    assert kinds_at(text) == [("generic_api_key", blob)]


@pytest.mark.parametrize(
    "text",
    [
        "password_field = forms.CharField(widget=forms.PasswordInput)",
        "if not check_password(user, get_password()): raise",
        "PASSWORD_MIN_LENGTH=8\nTOKEN_EXPIRY_SECONDS=3600",
        "OPENAI_API_KEY=<your-key> ANTHROPIC_API_KEY=your-api-key-here password: changeme token: '****'",
        "DB_PASSWORD=${DB_PASSWORD} API_KEY=$API_KEY",
        "aws_access_key_id = AKIAIOSFODNN7EXAMPLE\naws_secret_access_key = wJalrXUtnFEMI/K7MDENG/bPxRfiCYEXAMPLEKEY",
        "eyJhbGciOiJIUzI1NiIsInR5cCI6IkpXVCJ9.eyJzdWIiOiIxMjM0NTY3ODkwIiwibmFtZSI6IkpvaG4gRG9lIiwiaWF0IjoxNTE2MjM5"
        "MDIyfQ.SflKxwRJSMeKKF2QT4fwpMeJf36POk6yJV_adQssw5c",
        "mail alice@example.com, bob@mail.example.org or qa@acme.test",
        "ping 192.0.2.10 198.51.100.7 203.0.113.254 2001:db8::1 127.0.0.1 0.0.0.0 ::1",
        "call (415) 555-0123; card 4242 4242 4242 4242 or 4111-1111-1111-1111",
        "commit 9fceb02d0ae598e95dc970b74767f19372d61af8 id 550e8400-e29b-41d4-a716-446655440000 v1.2.3.4",
        "ssh-rsa AAAAB3NzaC1yc2EAAAADAQABAAABgQC7x8Lq2Zm7Rt3Vw8Yb1Nc6Hd5Fg0Js2KaQyNTUxOQ alice@laptop",
    ],
)
def test_hard_negatives_do_not_fire(text: str) -> None:
    assert kinds_at(text) == []


# --------------------------------------------------------------------------
# Encoded forms


def test_secret_after_escaped_newline_in_json() -> None:
    text = '{"content":"NODE_ENV=prod\\nAPI_SECRET=' + PASSWORD + '\\nPORT=1"}'
    assert ("env_secret", PASSWORD) in kinds_at(text)


def test_secret_after_double_escaped_newline_and_escaped_quotes() -> None:
    text = '"{\\"out\\": \\"X=1\\\\nREDIS_PASSWORD=' + PASSWORD + '\\\\n\\"}"'
    assert ("env_secret", PASSWORD) in kinds_at(text)
    text = '{\\"password\\": \\"' + PASSWORD + '\\"}'
    assert ("generic_api_key", PASSWORD) in kinds_at(text)


def test_secret_in_crlf_text() -> None:
    text = f"NODE_ENV=production\r\nSMTP_PASSWORD={PASSWORD}\r\nSMTP_HOST=mail\r\n"
    assert ("env_secret", PASSWORD) in kinds_at(text)


def test_base64_blob_is_reported_over_the_whole_blob() -> None:
    blob = base64.b64encode(f"GITHUB_TOKEN={GHP}\n".encode()).decode()
    text = f"data:\n  config: {blob}\n"
    f = only(text)
    assert (f.kind, text[f.start : f.end]) == ("github_token", blob)


@pytest.mark.parametrize("newline", ["\n", "\n    ", "\\n", "\\\\n"])
def test_base64_wrapped_over_lines_is_joined(newline: str) -> None:
    env = "NODE_ENV=production\nPORT=8080\nLOG_LEVEL=info\nDATABASE_HOST=db.internal.acme.io\nDB_PASSWORD=" + PASSWORD
    wrapped = base64.encodebytes(env.encode()).decode().strip().replace("\n", newline)  # 76 columns
    text = f"stdout: {wrapped}"
    f = only(text)
    assert f.kind == "env_secret"
    assert (f.start, f.end) == (len("stdout: "), len(text))


def test_base64_of_ordinary_data_is_ignored() -> None:
    text_blob = base64.b64encode(b"The quick brown fox jumps over the lazy dog, again and again.").decode()
    png = "iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mNkYPhfDwAChwGA60e6kgAAAABJRU5ErkJggg=="
    assert pii.scan(f"payload: {text_blob} img: {png}") == []


def test_percent_encoded_credentials_map_back_to_the_encoded_span() -> None:
    encoded = urllib.parse.quote(f"deploy:{PASSWORD}", safe="")
    text = f"redirect_uri=https%3A%2F%2F{encoded}%40git.acme.io%2Frepo"
    f = only(text)
    assert f.kind == "url_credentials"
    assert text[f.start : f.end] == encoded


def test_percent_encoded_token_is_found() -> None:
    text = f"GET /cb?next=%2Fsettings%3Ftoken%3D{GHP} HTTP/1.1"
    assert ("github_token", GHP) in kinds_at(text)


# --------------------------------------------------------------------------
# strip, describe, has_secret


def test_vendor_format_wins_inside_url_credentials() -> None:
    text = f"git clone https://x-access-token:{GHP}@github.com/acme/x.git"
    assert kinds_at(text) == [("github_token", GHP)]


def test_describe_gives_line_and_column_and_never_the_secret() -> None:
    text = f"line one\nline two\n  export GITHUB_TOKEN={GHP}\n"
    (f,) = pii.scan(text)
    message = pii.describe(text, f)
    assert message == "github_token at line 3, column 23"
    assert GHP not in message and GHP[4:12] not in message


def test_describe_hides_every_corpus_secret() -> None:
    for case in load_corpus():
        for f in pii.scan(case["text"]):
            found = case["text"][f.start : f.end]
            assert found not in pii.describe(case["text"], f)


def test_has_secret() -> None:
    assert pii.has_secret(pii.scan(f"token {GHP}"))
    assert not pii.has_secret(pii.scan("alice.martin@gmail.com"))
    assert not pii.has_secret([])


# --------------------------------------------------------------------------
# Allowlist


def test_allowlist_value_suppresses_a_finding() -> None:
    text = "ping ops-team@acme-corp.io about 10.1.2.3"
    allow = Allowlist(values=frozenset({"ops-team@acme-corp.io"}))
    assert [f.kind for f in pii.scan(text, allow)] == ["ipv4"]


def test_allowlist_pattern_suppresses_by_full_match() -> None:
    text = "hosts 10.1.2.3 and 10.1.2.4, gateway 192.168.7.1"
    allow = Allowlist(patterns=(r"10\.1\.2\.\d+",))
    assert [text[f.start : f.end] for f in pii.scan(text, allow)] == ["192.168.7.1"]
    # A partial match does not suppress.
    assert len(pii.scan(text, Allowlist(patterns=(r"10\.1",)))) == 3


def test_allowlisted_secret_does_not_resurface_as_a_weaker_kind() -> None:
    text = f"GITHUB_TOKEN={GHP}"
    assert pii.scan(text, Allowlist(values=frozenset({GHP}))) == []


def test_broken_allowlist_pattern_allows_nothing() -> None:
    text = f"token {GHP}"
    assert [f.kind for f in pii.scan(text, Allowlist(patterns=("([",)))] == ["github_token"]


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


# --------------------------------------------------------------------------
# Module surface


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


def test_finding_is_frozen() -> None:
    f = Finding("email", 0, 5, False)
    with pytest.raises(AttributeError):
        f.kind = "phone"  # type: ignore[misc]


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


def test_empty_and_tiny_texts() -> None:
    assert pii.scan("") == []
    assert pii.scan("a") == []
