"""Tests for gitmem.guards.redact, the one replacer: the YAML-careful
placeholder replacement used by the pii hook, ``gitmem pii strip``, and the
write path's redaction of documents by a repository's configuration.

Every secret here is fabricated: random characters with a real prefix.
"""

from __future__ import annotations

import json
import subprocess
from pathlib import Path
from typing import Any

import pytest

from gitmem.guards import pii, redact
from gitmem.guards.pii import Allowlist, Finding

TYPE_CHECKING = False
if TYPE_CHECKING:
    from gitmem.base.config import Config

CORPUS = Path(__file__).parent / "fixtures" / "pii_corpus.jsonl"
AKIA = "AKIAQ3EGTZ7R2LWN5XHD"
GHP = "ghp_Q7mZx2Lk9Rt4Vw8Yb1Nc6Hd3Fg5Js0KaP2qL"


def load_corpus() -> list[dict[str, Any]]:
    with CORPUS.open(encoding="utf-8") as fh:
        cases = [json.loads(line) for line in fh if line.strip()]
    assert cases, "the corpus fixture is empty"
    return cases


def at(text: str, value: str, kind: str = "email", nth: int = 0) -> Finding:
    """A finding of ``kind`` over the nth occurrence of ``value`` in ``text``."""
    start = -1
    for _ in range(nth + 1):
        start = text.index(value, start + 1)
    return Finding(kind, start, start + len(value), kind in pii.SECRET_KINDS)


# --------------------------------------------------------------------------
# replace


@pytest.mark.parametrize(("text", "values", "expected"), [
    ("mail bob@corp.net now\n", ["bob@corp.net"], "mail [EMAIL] now\n"),
    ("email: bob@corp.net\n", ["bob@corp.net"], "email: '[EMAIL]'\n"),
    ("- bob@corp.net # who\n", ["bob@corp.net"], "- '[EMAIL]' # who\n"),
    ("to: bob@corp.net and it's ann@corp.net\n", ["bob@corp.net", "ann@corp.net"],
     "to: '[EMAIL] and it''s [EMAIL]'\n"),
    ("cc: [bob@corp.net, x]\n", ["bob@corp.net"], "cc: ['[EMAIL]', x]\n"),
    ("cc: {a: bob@corp.net}\n", ["bob@corp.net"], "cc: {a: '[EMAIL]'}\n"),  # was {a: '[EMAIL]}'
    ("cc: [x, {a: bob@corp.net}]\n", ["bob@corp.net"], "cc: [x, {a: '[EMAIL]'}]\n"),
    ("note: write to bob@corp.net\n", ["bob@corp.net"], "note: write to [EMAIL]\n"),
    ('q: "bob@corp.net"\n', ["bob@corp.net"], 'q: "[EMAIL]"\n'),
    ("email: bob@corp.net   \n", ["bob@corp.net"], "email: '[EMAIL]'   \n"),
    ("email: bob@corp.net", ["bob@corp.net"], "email: '[EMAIL]'"),
    ("email: bob@corp.net\r\nx: 1\r\n", ["bob@corp.net"], "email: '[EMAIL]'\r\nx: 1\r\n"),
])
def test_replace_keeps_yaml_a_string(text: str, values: list[str], expected: str) -> None:
    found = [at(text, v) for v in values]
    assert redact.replace(text, found, yaml_end=len(text)) == expected


def test_replace_in_markdown_body_does_not_quote() -> None:
    text = "---\nid: m-1\n---\nemail: bob@corp.net\n"
    end = redact.yaml_end("memory/user/m-1.md", text)
    assert text[:end] == "---\nid: m-1\n"
    assert redact.replace(text, [at(text, "bob@corp.net")], end) == "---\nid: m-1\n---\nemail: [EMAIL]\n"


def test_replace_quotes_in_front_matter_but_not_in_the_body() -> None:
    text = "---\nowner: bob@corp.net\n---\nowner: bob@corp.net\n"
    found = [at(text, "bob@corp.net"), at(text, "bob@corp.net", nth=1)]
    out = redact.replace(text, found, redact.yaml_end("a.md", text))
    assert out == "---\nowner: '[EMAIL]'\n---\nowner: [EMAIL]\n"


def test_replace_without_findings_is_the_identity() -> None:
    text = "email: nobody\n"
    assert redact.replace(text, []) == text
    assert redact.replace(text, [], yaml_end=len(text)) == text
    assert redact.replace("", []) == ""


def test_replace_drops_a_finding_that_overlaps_an_earlier_one() -> None:
    text = "see bob@corp.net today"
    outer = at(text, "bob@corp.net")
    inner = Finding("home_path", outer.start + 2, outer.end - 2, False)
    assert redact.replace(text, [inner, outer]) == "see [EMAIL] today"


def test_replace_accepts_findings_in_any_order() -> None:
    text = "a@corp.net then b@corp.net"
    found = [at(text, "b@corp.net"), at(text, "a@corp.net")]
    assert redact.replace(text, found) == "[EMAIL] then [EMAIL]"


def test_replace_gives_secrets_their_typed_placeholder() -> None:
    text = f"key: {AKIA}\n"
    assert redact.replace(text, [at(text, AKIA, "aws_access_key")]) == "key: [SECRET:aws_access_key]\n"


def test_replace_quotes_the_whole_scalar_holding_two_findings() -> None:
    text = "who: bob@corp.net, ann@corp.net # team\n"
    found = [at(text, "bob@corp.net"), at(text, "ann@corp.net")]
    assert redact.replace(text, found, len(text)) == "who: '[EMAIL], [EMAIL]' # team\n"


def test_replace_in_a_flow_sequence_stops_at_the_comma() -> None:
    text = "cc: [bob@corp.net, ann@corp.net]\n"
    found = [at(text, "bob@corp.net"), at(text, "ann@corp.net")]
    assert redact.replace(text, found, len(text)) == "cc: ['[EMAIL]', '[EMAIL]']\n"


def test_replaced_yaml_still_parses_to_strings() -> None:
    from gitmem.base import yamlio

    text = "email: bob@corp.net\nlist:\n- ann@corp.net\nflow: [carl@corp.net, 2]\nmap: {a: dan@corp.net}\n"
    found = [at(text, v) for v in ("bob@corp.net", "ann@corp.net", "carl@corp.net", "dan@corp.net")]
    data = yamlio.load_safe(redact.replace(text, found, len(text)))
    assert data == {"email": "[EMAIL]", "list": ["[EMAIL]"], "flow": ["[EMAIL]", 2], "map": {"a": "[EMAIL]"}}


# --------------------------------------------------------------------------
# yaml_end


@pytest.mark.parametrize(("path", "text", "expected"), [
    ("gitmem.yaml", "a: 1\nb: 2\n", 10),
    ("x.YML", "a: 1\n", 5),
    ("notes.md", "no front matter\n", 0),
    ("notes.md", "---\nid: 1\n---\nbody\n", 10),
    ("notes.md", "---\r\nid: 1\r\n---\r\nbody\r\n", 12),
    ("notes.md", "---\nid: 1\n...\nbody\n", 10),
    ("notes.md", "---\nid: 1\nnever closed\n", 0),
    ("notes.txt", "---\nid: 1\n---\n", 10),
    ("notes.md", "", 0),
])
def test_yaml_end(path: str, text: str, expected: int) -> None:
    assert redact.yaml_end(path, text) == expected


# --------------------------------------------------------------------------
# strip (gitmem pii strip)


def test_strip_replaces_each_finding_with_its_placeholder() -> None:
    text = (
        "mail alice.martin@gmail.com, call +1 415 867 2309, host 10.20.30.40, v6 2a00:1450:4009:81f::200e,\n"
        "ssn 536-90-4421, card 4539 1488 0343 6467, cwd /home/alice/src/x, key " + AKIA + "\n"
    )
    assert redact.strip(text) == (
        "mail [EMAIL], call [PHONE], host [IPV4], v6 [IPV6],\n"
        "ssn [SSN], card [CREDIT_CARD], cwd [HOME]/src/x, key [SECRET:aws_access_key]\n"
    )


def test_strip_is_idempotent_on_the_corpus() -> None:
    """The pre-commit hook strips, then checks again: placeholders must not fire."""
    for case in load_corpus():
        text = str(case["text"])
        stripped = redact.strip(text)
        assert pii.scan(stripped) == [], case["id"]
        assert redact.strip(stripped) == stripped, case["id"]


def test_strip_removes_every_labelled_value_of_the_corpus() -> None:
    checked = 0
    for case in load_corpus():
        text = str(case["text"])
        stripped = redact.strip(text)
        for exp in case["expect"]:
            value = text[exp["start"] : exp["end"]]
            if len(value) >= 8:
                assert value not in stripped, case["id"]
                checked += 1
    assert checked > 100


def test_strip_without_findings_returns_the_text() -> None:
    text = "nothing to see here: version 1.2.3.4, 127.0.0.1, ~/notes"
    assert redact.strip(text) == text
    assert redact.strip("") == ""


def test_strip_honours_the_allowlist() -> None:
    text = "write to ops-team@acme-corp.io or alice.martin@gmail.com"
    allow = Allowlist(values=frozenset({"ops-team@acme-corp.io"}))
    assert redact.strip(text, allow) == "write to ops-team@acme-corp.io or [EMAIL]"


def test_hook_replacement_matches_strip_outside_yaml() -> None:
    text = "mail bob.jones@corp-mail.net, call +1 415 867 5309, host 10.20.30.40, see /home/alice/src\n"
    found = [f for f in pii.scan(text) if not f.secret]
    assert {f.kind for f in found} >= {"email", "phone", "ipv4", "home_path"}
    assert redact.replace(text, found) == redact.strip(text)


# --------------------------------------------------------------------------
# The write path, by a repository's configuration


def configured(repo_dir: Path, pii_yaml: str = "") -> Config:
    """The configuration of a real memory repository whose pii section is replaced."""
    from gitmem.base import config

    path = repo_dir / "gitmem.yaml"
    text = path.read_text(encoding="utf-8")
    if pii_yaml:
        head, _, _ = text.partition("\npii:\n")
        tail = text.partition("\npii:\n")[2]
        rest = "".join(line + "\n" for line in tail.splitlines() if line and not line.startswith((" ", "\t")))
        path.write_text(head + "\npii:\n" + pii_yaml + rest, encoding="utf-8")
        subprocess.run(["git", "commit", "-qam", "pii settings"], cwd=repo_dir, check=True)
    return config.load(repo_dir)


def test_redact_text_replaces_pii_and_lists_kinds(repo_dir: Path) -> None:
    cfg = configured(repo_dir)
    r = redact.redact_text("mail alice.martin@gmail.com from /home/alice/x", cfg)
    assert r.text == "mail [EMAIL] from [HOME]/x"
    assert r.kinds == ("email", "home_path") and r.secrets == ()


def test_redact_text_refuses_a_secret_and_keeps_the_text(repo_dir: Path) -> None:
    cfg = configured(repo_dir)
    text = f"mail alice.martin@gmail.com\nexport GITHUB_TOKEN={GHP}\n"
    r = redact.redact_text(text, cfg, line_offset=4)
    assert r.text == text and r.kinds == ()
    assert r.secrets == ("github_token at line 6, column 21",)
    assert GHP not in "".join(r.secrets)


def test_redact_text_without_findings(repo_dir: Path) -> None:
    r = redact.redact_text("nothing here", configured(repo_dir))
    assert r == redact.Redacted("nothing here", (), ())


def test_redact_honours_allowlist_and_disabled_kinds(repo_dir: Path) -> None:
    cfg = configured(repo_dir, (
        "  allowlist:\n    values: [ops@acme-corp.io]\n    patterns: ['10\\.1\\.2\\.\\d+']\n"
        "  disabled_kinds: [ipv4]\n"
    ))
    allow = redact.allowlist(cfg)
    assert allow.values == frozenset({"ops@acme-corp.io"}) and allow.patterns == (r"10\.1\.2\.\d+",)
    r = redact.redact_text("ops@acme-corp.io, bob.jones@gmail.com, 192.168.7.1", cfg)
    assert r.text == "ops@acme-corp.io, [EMAIL], 192.168.7.1"
    assert r.kinds == ("email",)


def test_a_disabled_kind_never_hides_a_secret(repo_dir: Path) -> None:
    cfg = configured(repo_dir, "  allowlist:\n    values: []\n    patterns: []\n  disabled_kinds: [ipv4]\n")
    r = redact.redact_text(f"token {GHP}", cfg)
    assert r.secrets and r.secrets[0].startswith("github_token at line 1")


def test_redact_document_handles_front_matter_value_by_value(repo_dir: Path) -> None:
    cfg = configured(repo_dir)
    text = "---\nid: m-1\nowner: bob.jones@gmail.com\ntags: [a, b]\n---\nAsk bob.jones@gmail.com.\n"
    r = redact.redact_document("memory/m-1.md", text, cfg)
    assert "bob.jones" not in r.text and r.kinds == ("email",) and r.secrets == ()
    from gitmem.store import documents

    fm, body, _ = documents.split_front_matter(r.text, "memory/m-1.md")
    assert fm is not None and documents.parse_front_matter(fm, "memory/m-1.md")["owner"] == "[EMAIL]"
    assert body == "Ask [EMAIL].\n"


def test_redact_document_names_the_front_matter_key_of_a_secret(repo_dir: Path) -> None:
    cfg = configured(repo_dir)
    text = f"---\nid: m-1\nnote: token {GHP}\n---\nbody\n"
    r = redact.redact_document("memory/m-1.md", text, cfg)
    assert r.text == text
    assert r.secrets == ("github_token at line 1, column 7 of front matter key 'note'",)


def test_redact_document_reports_body_secrets_by_file_line(repo_dir: Path) -> None:
    cfg = configured(repo_dir)
    text = f"---\nid: m-1\n---\nline\nkey {AKIA}\n"
    r = redact.redact_document("memory/m-1.md", text, cfg)
    assert r.text == text and r.secrets == ("aws_access_key at line 5, column 5",)


def test_redact_document_of_plain_files_and_markdown_without_front_matter(repo_dir: Path) -> None:
    cfg = configured(repo_dir)
    for path in ("notes.txt", "notes.md"):
        r = redact.redact_document(path, "mail alice.martin@gmail.com\n", cfg)
        assert r.text == "mail [EMAIL]\n" and r.kinds == ("email",), path


def test_redacted_is_an_immutable_value() -> None:
    r = redact.Redacted("t", ("email",), ())
    with pytest.raises(AttributeError):
        r.text = "u"  # type: ignore[misc]  # the point: assigning to a field must fail
    assert r == redact.Redacted("t", ("email",), ())


def test_redact_import_stays_light() -> None:
    """The pii hook imports this module on every commit."""
    import sys

    code = (
        "import sys, gitmem.guards.redact\n"
        "print([m for m in ('pygit2', 'ruamel', 'markdown_it', 'dataclasses', 'typing', 'gitmem.store.frontmatter',"
        " 'gitmem.base.config') if m in sys.modules])\n"
    )
    root = Path(__file__).resolve().parent.parent
    out = subprocess.run([sys.executable, "-c", code], cwd=root, capture_output=True, text=True, check=True)
    assert out.stdout.strip() == "[]"


from hypothesis import given, settings  # noqa: E402
from hypothesis import strategies as st  # noqa: E402

PIECES = st.sampled_from([
    " ", "\n", "- ", "key: ", "[", "]", "{", "}", ", ", "# c", "'", '"', "bob.jones@gmail.com", "/home/alice/x",
    "10.20.30.40", "+1 415 867 2309", "text", "é",
])


@settings(max_examples=300, deadline=None)
@given(st.lists(PIECES, max_size=30).map(" ".join))
def test_strip_of_separate_words_is_clean_in_one_pass(text: str) -> None:
    stripped = redact.strip(text)
    assert pii.scan(stripped) == []
    assert redact.strip(stripped) == stripped


@settings(max_examples=300, deadline=None)
@given(st.lists(PIECES, max_size=30).map("".join))
def test_strip_of_glued_values_converges(text: str) -> None:
    """Text glued to a value ("bob@x.io/home/alice") may show a new finding once the value
    is a placeholder: the hook strips again at the next commit, and each pass shrinks the text's findings."""
    passes = 0
    while (stripped := redact.strip(text)) != text:
        text, passes = stripped, passes + 1
        assert passes <= 30
    assert pii.scan(text) == []


@settings(max_examples=300, deadline=None)
@given(st.lists(PIECES, max_size=30).map("".join))
def test_replace_in_yaml_only_adds_quotes(text: str) -> None:
    found = [f for f in pii.scan(text) if not f.secret]
    plain = redact.replace(text, found)
    in_yaml = redact.replace(text, found, yaml_end=len(text))
    assert in_yaml.replace("'", "") == plain.replace("'", "")
    assert plain.count("[") - text.count("[") == len(found)
