"""Tests for gitmem.base.errors: the one tree (drawn in its docstring), messages and hints, and what the
errors carry (a check's problems, a secret's findings without the secret)."""

from __future__ import annotations

import inspect
import json
import re
from pathlib import Path
from typing import Any

import pytest

from gitmem.api import MemoryRepo
from gitmem.base import clock, errors, yamlio
from gitmem.base.errors import (CasFailed, CheckFailed, ConflictError, DocumentError, GitmemError, IndexCorrupt,
                                NotARepoError, SecretError, UsageError, ValidationError, YamlProblem)
from gitmem.guards.pii.kinds import SECRET_SET
from gitmem.writer.plan import Plan
from tests.conftest import NOW, run_cli
from tests.pii_samples import load_corpus

T = clock.parse_time(NOW)
TREE_LINE = re.compile(r"^(?P<indent>(?:│   |    )*)(?:├── |└── )?(?P<name>[A-Z]\w+)(?:\s+(?P<what>\S.*))?$")


def drawn_tree() -> list[tuple[int, str, str]]:
    """(depth, class name, description) of each line of the tree in the module docstring."""
    doc = errors.__doc__ or ""
    lines = [line[4:] for line in doc.splitlines() if line.startswith("    ") and line.strip()]
    out = []
    for line in lines:
        m = TREE_LINE.match(line)
        assert m is not None, f"a tree line that does not parse: {line!r}"
        depth = len(m["indent"]) // 4 + (0 if line.startswith(m["name"]) else 1)
        out.append((depth, m["name"], m["what"] or ""))
    assert out, "the errors docstring draws no tree"
    return out


def defined_exceptions() -> dict[str, type[BaseException]]:
    found = {name: obj for name, obj in vars(errors).items()
             if inspect.isclass(obj) and issubclass(obj, BaseException) and obj.__module__ == errors.__name__}
    assert found
    return found


# --------------------------------------------------------------------------- the tree

def test_the_tree_lists_every_exception_class_once() -> None:
    names = [name for _, name, _ in drawn_tree()]
    assert len(names) == len(set(names)), "a class drawn twice"
    assert set(names) == set(defined_exceptions())


def test_every_exception_is_a_gitmem_error() -> None:
    for name, cls in defined_exceptions().items():
        assert issubclass(cls, GitmemError), name
    assert GitmemError.__bases__ == (Exception,)   # never a BaseException that `except Exception` would miss


def test_the_tree_draws_each_class_under_its_parent() -> None:
    classes = defined_exceptions()
    parents: list[str] = []
    for depth, name, _ in drawn_tree():
        parents[depth:] = [name]
        cls = classes[name]
        if depth == 0:
            assert cls is GitmemError
        else:
            assert cls.__bases__ == (classes[parents[depth - 1]],), name


def test_every_class_has_a_description_and_a_docstring() -> None:
    classes = defined_exceptions()
    for depth, name, what in drawn_tree():
        assert depth == 0 or what, f"{name} has no description in the tree"
        assert (classes[name].__doc__ or "").strip(), f"{name} has no docstring"


# --------------------------------------------------------------------------- message and hint

def test_message_and_hint() -> None:
    exc = GitmemError("not a memory repository: ./notes", hint="gitmem init ./notes")
    assert str(exc) == exc.message == "not a memory repository: ./notes"
    assert exc.hint == "gitmem init ./notes"
    assert exc.args == ("not a memory repository: ./notes",)
    assert GitmemError("plain").hint is None


@pytest.mark.parametrize("cls", [UsageError, ValidationError, errors.ConfigError, NotARepoError, errors.NotFoundError,
                                 errors.SecurityError, ConflictError, errors.GitError])
def test_the_plain_errors_take_a_message_and_an_optional_hint(cls: type[GitmemError]) -> None:
    with pytest.raises(GitmemError) as info:
        raise cls("it went wrong", "do this next")
    assert isinstance(info.value, cls)
    assert (str(info.value), info.value.hint) == ("it went wrong", "do this next")
    assert cls("it went wrong").hint is None


def test_a_document_error_names_the_file_and_line() -> None:
    exc = DocumentError("memory/user/ab/m-1.md", 7, "the front matter does not close", hint="add a closing ---")
    assert str(exc) == "memory/user/ab/m-1.md:7: the front matter does not close"
    assert (exc.path, exc.line, exc.problem, exc.hint) == ("memory/user/ab/m-1.md", 7, "the front matter does not close",
                                                           "add a closing ---")
    assert isinstance(exc, UsageError)


@pytest.mark.parametrize("line", [None, 0])
def test_a_document_error_without_a_line_names_the_file_alone(line: int | None) -> None:
    exc = DocumentError("patterns/p.md", line, "not UTF-8")
    assert str(exc) == "patterns/p.md: not UTF-8" and exc.line == line and exc.hint is None


def test_check_failed_keeps_its_problems_one_per_line() -> None:
    problems = ["CLAUDE.md:3: Layer 1 changed", "CLAUDE.md:9: Layer 4 changed"]
    exc = CheckFailed("2 problems", problems, hint="ask a person")
    assert exc.problems == problems and str(exc) == "2 problems" and exc.hint == "ask a person"
    assert CheckFailed("none", []).problems == []


def test_cas_failed_is_a_conflict_that_names_the_ref() -> None:
    exc = CasFailed("refs/heads/main")
    assert isinstance(exc, ConflictError)
    assert exc.ref == "refs/heads/main"
    assert str(exc) == "refs/heads/main moved while a commit was being built"
    assert exc.hint == "run the command again"


def test_index_corrupt_says_how_to_rebuild() -> None:
    exc = IndexCorrupt("/x/index.sqlite", "file is not a database")
    assert (exc.path, exc.problem) == ("/x/index.sqlite", "file is not a database")
    assert str(exc) == "recall index /x/index.sqlite is unusable: file is not a database"
    assert exc.hint == "gitmem index rebuild"


def test_yaml_problem_line_and_default_hint() -> None:
    exc = YamlProblem("mapping values are not allowed here", 3)
    assert (exc.problem, exc.line, exc.hint) == ("mapping values are not allowed here", 3, "fix the YAML syntax")
    assert YamlProblem("bad", None, hint="restore it").hint == "restore it"


def test_yamlio_reports_the_line_within_the_text() -> None:
    with pytest.raises(YamlProblem) as info:
        yamlio.load_safe("a: 1\nb: 2\nc: [unclosed\n")
    assert isinstance(info.value, GitmemError)
    assert info.value.line is not None and info.value.line >= 3
    assert info.value.hint == "fix the YAML syntax"


# --------------------------------------------------------------------------- errors raised by real use cases

def test_the_cli_prints_error_then_hint_and_exits_1(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    code, out, err = run_cli(["--repo", str(tmp_path), "list"], capsys)
    assert code == 1 and out == ""
    assert err.splitlines() == [f"gitmem: error: not a memory repository: {tmp_path}", f"hint: gitmem init {tmp_path}"]


def test_a_layer_check_raises_check_failed_with_its_problems(repo: MemoryRepo, repo_dir: Path) -> None:
    tip = repo.head
    with pytest.raises(CheckFailed) as info:
        repo.writer.write(lambda parent: Plan({"CLAUDE.md": b"# nothing but a title\n"}, "gitmem: rewrite", "test"), T)
    exc = info.value
    assert exc.problems and all(isinstance(p, str) and p for p in exc.problems)
    assert exc.message == "CLAUDE.md: " + "; ".join(exc.problems)
    assert exc.hint is not None and "Gitmem-Approved-By" in exc.hint
    assert repo.head == tip


def secret_cases() -> list[tuple[str, str, list[str]]]:
    """(id, text, secret values) of one corpus case per secret kind."""
    seen: set[str] = set()
    cases = []
    for case in load_corpus():
        values = [case["text"][e["start"]:e["end"]] for e in case["expect"] if e["kind"] in SECRET_SET]
        kinds = {e["kind"] for e in case["expect"] if e["kind"] in SECRET_SET}
        if values and not kinds <= seen:
            seen |= kinds
            cases.append((case["id"], case["text"], values))
    assert len(cases) >= 5, "the corpus holds too few secrets to test with"
    return cases


def assert_never_shown(exc: SecretError, values: list[str], extra: Any = ()) -> None:
    shown = json.dumps([exc.message, exc.hint, str(exc), repr(exc), exc.findings, extra])
    for value in values:
        assert value not in shown, value


def test_secret_findings_name_kind_and_place_never_the_secret(repo: MemoryRepo, repo_dir: Path) -> None:
    events = repo_dir / ".git" / "gitmem" / "events.jsonl"
    for case_id, text, values in secret_cases():
        with pytest.raises(SecretError) as info:
            repo.remember(text, now=T)
        exc = info.value
        assert exc.findings, case_id
        for place, where in exc.findings:
            # redacted before anything is derived from it: the text is refused, not a file
            assert place == "memory text" and re.search(r" at line \d+", where), (case_id, where)
        assert exc.hint is not None and "rotate" in exc.hint
        assert_never_shown(exc, values, events.read_text())
    assert repo.list().memories == ()


def test_a_secret_in_a_working_note_is_reported_the_same_way(repo: MemoryRepo) -> None:
    _, text, values = secret_cases()[0]
    with pytest.raises(SecretError) as info:
        repo.note(text, now=T)
    assert info.value.findings and all(place == "working note" for place, _ in info.value.findings)
    assert_never_shown(info.value, values)


def test_secret_error_keeps_the_findings_it_was_given() -> None:
    findings = [("memory/user/ab/m.md", "github_token at line 4")]
    exc = SecretError("secret found (github_token), nothing written", findings, hint="remove it")
    assert exc.findings == findings and exc.hint == "remove it"
    assert SecretError("x", []).findings == [] and SecretError("x", []).hint is None
