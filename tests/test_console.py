"""Tests for gitmem.faces.console: the verb registry, output helpers and the one error handler."""

from __future__ import annotations

import argparse
import io
import json
from pathlib import Path
from typing import NoReturn

import pytest

from gitmem.base import kinds
from gitmem.base.errors import (CheckFailed, ConfigError, GitmemError, NotARepoError, NotFoundError, SecretError,
                                UsageError)
from gitmem.faces import cli  # noqa: F401  (registers the verbs)
from gitmem.faces import console
from tests.conftest import NOW


class _Tty(io.StringIO):
    """A stderr that says it is a terminal."""

    def isatty(self) -> bool:
        return True


def _raise(exc: BaseException) -> NoReturn:
    raise exc


# --------------------------------------------------------------------------- registry

def test_command_registers_handler_help_and_configure(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(console, "COMMANDS", {})

    def configure(p: argparse.ArgumentParser) -> None:
        p.add_argument("--flag")

    @console.command("probe", "probe the registry", configure)
    def handler(args: object) -> int:
        return 7

    assert console.COMMANDS == {"probe": (handler, "probe the registry", configure)}
    assert handler(None) == 7   # the decorator returns the function itself


def test_command_without_configure_and_a_second_registration_wins(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(console, "COMMANDS", {})
    console.command("x", "first")(lambda a: 0)
    second = console.command("x", "second")(lambda a: 1)
    assert list(console.COMMANDS) == ["x"]
    assert console.COMMANDS["x"] == (second, "second", None)


def test_registry_holds_every_verb_in_a_stable_order() -> None:
    from gitmem.faces.cli import load_verbs

    assert load_verbs() is console.COMMANDS
    names = list(console.COMMANDS)
    assert names, "no verb registered"
    assert names[:3] == ["init", "demo", "remember"]
    assert {"recall", "decay", "harvest", "check", "hook", "pii"} <= set(names)
    assert len(names) == len(set(names))
    for name, (handler, help_text, _configure) in console.COMMANDS.items():
        assert callable(handler) and help_text.strip() == help_text and help_text, name


# --------------------------------------------------------------------------- output

def test_out_and_err_write_one_line_each(capsys: pytest.CaptureFixture[str]) -> None:
    console.out("to stdout")
    console.out()
    console.err("to stderr")
    captured = capsys.readouterr()
    assert captured.out == "to stdout\n\n"
    assert captured.err == "to stderr\n"


def test_emit_json_is_one_line_and_keeps_non_ascii(capsys: pytest.CaptureFixture[str]) -> None:
    value = {"text": "café\nnaïve 東京", "n": [1, 2.5, None, True]}
    console.emit_json(value)
    printed = capsys.readouterr().out
    assert printed.count("\n") == 1 and printed.endswith("\n")
    assert "café" in printed and "東京" in printed
    assert json.loads(printed) == value


def test_json_flag_adds_a_false_by_default_switch() -> None:
    parser = argparse.ArgumentParser()
    console.json_flag(parser)
    assert parser.parse_args([]).json is False
    assert parser.parse_args(["--json"]).json is True


def test_choices_are_the_model_sets() -> None:
    assert console.choices("type") == kinds.TYPES
    assert console.choices("domain") == kinds.DOMAINS
    assert console.choices("tier") == kinds.TIERS
    assert console.choices("band") == kinds.BANDS
    for name in ("type", "domain", "tier", "band"):
        assert console.choices(name), name
    with pytest.raises(KeyError):
        console.choices("colour")


def test_now_of_prefers_the_option_then_the_environment(monkeypatch: pytest.MonkeyPatch) -> None:
    given = console.now_of(argparse.Namespace(now=NOW))
    assert given.isoformat().startswith("2026-11-29T12:00:00")
    monkeypatch.setenv("GITMEM_NOW", "2025-01-02T03:04:05Z")
    assert console.now_of(argparse.Namespace()).year == 2025
    assert console.now_of(argparse.Namespace(now=None)).year == 2025
    assert console.now_of(argparse.Namespace(now=NOW)).year == 2026


def test_repo_of_opens_the_given_repository_or_says_there_is_none(repo_dir: Path, tmp_path: Path,
                                                                  monkeypatch: pytest.MonkeyPatch) -> None:
    repo = console.repo_of(argparse.Namespace(repo=str(repo_dir)))
    assert repo.root.resolve() == repo_dir.resolve()
    empty = tmp_path / "empty"
    empty.mkdir()
    monkeypatch.chdir(empty)
    with pytest.raises(NotARepoError):
        console.repo_of(argparse.Namespace())


def test_progress_bar_is_off_when_stderr_is_not_a_terminal(capsys: pytest.CaptureFixture[str]) -> None:
    assert console.progress_bar("import") is None
    assert capsys.readouterr().err == ""


def test_progress_bar_draws_on_a_terminal_and_ends_the_line(monkeypatch: pytest.MonkeyPatch) -> None:
    tty = _Tty()
    monkeypatch.setattr("sys.stderr", tty)
    show = console.progress_bar("harvest")
    assert show is not None
    show(0, 4)
    show(2, 4)
    assert tty.getvalue().count("\r") == 2 and not tty.getvalue().endswith("\n")
    assert "harvest [" + "#" * 15 + "." * 15 + "] 2/4" in tty.getvalue()
    show(4, 4)
    assert tty.getvalue().endswith("harvest [" + "#" * 30 + "] 4/4\n")


def test_progress_bar_of_nothing_is_full_at_once(monkeypatch: pytest.MonkeyPatch) -> None:
    tty = _Tty()
    monkeypatch.setattr("sys.stderr", tty)
    show = console.progress_bar("x")
    assert show is not None
    show(0, 0)
    assert tty.getvalue() == "\rx [" + "#" * 30 + "] 0/0\n"


# --------------------------------------------------------------------------- guarded

@pytest.mark.parametrize("code", [0, 1, 2, 3, 130])
def test_guarded_passes_a_returned_code_through(code: int, capsys: pytest.CaptureFixture[str]) -> None:
    assert console.guarded(lambda: code) == code
    assert capsys.readouterr().err == ""


def test_a_gitmem_error_exits_1_with_error_and_hint(capsys: pytest.CaptureFixture[str]) -> None:
    code = console.guarded(lambda: _raise(NotFoundError("no memory with id 'x'", hint="gitmem list")))
    assert code == 1
    assert capsys.readouterr().err == "gitmem: error: no memory with id 'x'\nhint: gitmem list\n"


@pytest.mark.parametrize("exc", [UsageError("bad"), ConfigError("bad"), GitmemError("bad"),
                                 SecretError("bad", [("aws_access_key", "line 1")])])
def test_every_gitmem_error_without_hint_is_one_error_line(exc: GitmemError, capsys: pytest.CaptureFixture[str]) -> None:
    assert console.guarded(lambda: _raise(exc)) == 1
    assert capsys.readouterr().err == "gitmem: error: bad\n"


def test_a_failed_check_prints_each_problem_then_the_hint(capsys: pytest.CaptureFixture[str]) -> None:
    exc = CheckFailed("layers check failed", ["line 3: layer 1 changed", "line 9: unknown marker"], hint="git diff")
    assert console.guarded(lambda: _raise(exc)) == 1
    lines = capsys.readouterr().err.splitlines()
    assert lines == ["gitmem: layers check failed", "  line 3: layer 1 changed", "  line 9: unknown marker",
                     "hint: git diff"]


def test_a_failed_check_without_problems_or_hint(capsys: pytest.CaptureFixture[str]) -> None:
    assert console.guarded(lambda: _raise(CheckFailed("amplitude too high", []))) == 1
    assert capsys.readouterr().err == "gitmem: amplitude too high\n"


def test_interrupt_exits_130(capsys: pytest.CaptureFixture[str]) -> None:
    assert console.guarded(lambda: _raise(KeyboardInterrupt())) == 130
    assert capsys.readouterr().err == "gitmem: interrupted\n"


def test_a_closed_pipe_exits_0_silently(capsys: pytest.CaptureFixture[str]) -> None:
    assert console.guarded(lambda: _raise(BrokenPipeError())) == 0
    captured = capsys.readouterr()
    assert captured.out == "" and captured.err == ""


@pytest.mark.parametrize("exc", [RuntimeError("boom"), KeyError("k"), ZeroDivisionError("z"), OSError("disk")])
def test_a_bug_prints_the_traceback_and_exits_3(exc: Exception, capsys: pytest.CaptureFixture[str]) -> None:
    assert console.guarded(lambda: _raise(exc)) == 3
    err = capsys.readouterr().err
    assert err.startswith("Traceback (most recent call last):")
    assert type(exc).__name__ in err and "_raise" in err
    assert err.rstrip("\n").splitlines()[-1].startswith("gitmem: internal error (this is a bug in gitmem")
    assert "hint:" not in err


def test_usage_errors_from_the_parser_exit_2_and_name_the_verb(capsys: pytest.CaptureFixture[str]) -> None:
    assert cli.main(["recall", "--tier", "nowhere", "q"]) == 2
    err = capsys.readouterr().err
    assert "gitmem recall: error:" in err and "invalid choice" in err


def test_the_verb_runs_inside_guarded(tmp_path: Path, capsys: pytest.CaptureFixture[str],
                                      monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.chdir(tmp_path)
    assert cli.main(["show", "m-1"]) == 1
    err = capsys.readouterr().err.splitlines()
    assert [line.split(":")[0] for line in err] == ["gitmem", "hint"]
    assert err[0].startswith("gitmem: error: no memory repository")
