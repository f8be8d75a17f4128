"""`gitmem recall` reads plain arguments without argparse: the same namespace, output and errors as argparse's."""

from __future__ import annotations

from pathlib import Path

import pytest

from tests.conftest import run_cli, run_python

PLAIN = [
    ["recall", "staging database"],
    ["recall", "staging", "-k", "3"],
    ["recall", "-k", "2", "staging", "--json"],
    ["--repo", "R", "recall", "q"],
    ["recall", "q", "--repo", "R", "--now", "2026-01-01T00:00:00Z"],
    ["--now", "2026-01-01T00:00:00Z", "recall", "recall"],
    ["recall", "q", "--all", "--expand", "--type", "fact", "--domain", "project", "--tier", "long", "--band", "core"],
    ["recall", "--batch", "--project", "p"],
    ["recall", "q", "--all-projects", "--at", "v1"],
    ["recall", ""],
    ["recall"],
]
"""Arguments the quick reader reads: argparse's namespace, attribute for attribute."""

OTHERS = [
    ["recall", "q", "-h"], ["recall", "--help"], ["recall", "q", "-k", "x"], ["recall", "q", "--rep", "R"],
    ["--rep", "R", "recall", "q"], ["recall", "q", "--exp"], ["recall", "q", "--repo=R"], ["recall", "--", "-q"],
    ["recall", "a", "b"], ["recall", "q", "-k", "-1"], ["recall", "q", "-k3"], ["recall", "q", "--type", "nope"],
    ["recall", "q", "--tier", "working"], ["recall", "q", "--project", "p", "--all-projects"],
    ["recall", "q", "-k", "1", "-k", "2"], ["--repo", "A", "recall", "q", "--repo", "B"], ["recall", "q", "--at"],
    ["recall", "q", "--at", "-x"], ["-x", "recall", "q"], ["recall", "q", "--version"], ["recall", "-5"],
]
"""Arguments it leaves to argparse: help, abbreviations, mistakes, repeats, anything unusual."""


def _argparse(argv: list[str]) -> dict[str, object]:
    from gitmem.faces import verbs_recall  # noqa: F401  (registers recall)
    from gitmem.faces.parser import build_parser

    return vars(build_parser("recall").parse_args(argv))


@pytest.mark.parametrize("argv", PLAIN)
def test_plain_arguments_read_as_argparse_reads_them(argv: list[str]) -> None:
    from gitmem.faces import quickargs, verbs_recall

    quick = quickargs.parse("recall", verbs_recall.QUICK["recall"], argv)
    assert quick is not None, argv
    assert vars(quick) == _argparse(argv)


@pytest.mark.parametrize("argv", OTHERS)
def test_anything_else_is_left_to_argparse(argv: list[str]) -> None:
    from gitmem.faces import quickargs, verbs_recall

    assert quickargs.parse("recall", verbs_recall.QUICK["recall"], argv) is None


def test_the_quick_reader_knows_every_recall_option() -> None:
    """An option added to recall's parser and not to its quick spec would only slow recall down
    (argparse reads it); one whose spec reads it differently fails the tests above."""
    from gitmem.faces import verbs_recall  # noqa: F401
    from gitmem.faces.parser import build_parser

    parser = build_parser("recall")
    sub = next(a for a in parser._actions if a.dest == "command").choices["recall"]  # type: ignore[index]
    options = {s for a in sub._actions for s in a.option_strings} - {"-h", "--help", "--repo", "--now"}
    spec = verbs_recall.QUICK["recall"]
    assert options == set(spec.flags) | set(spec.values)


def _run(repo_dir: Path, argv: list[str]) -> tuple[int, str, str]:
    probe = ("import sys\nfrom gitmem.faces.cli import main\n"
             f"code = main({argv!r})\nsys.stdout.flush()\nsys.stderr.write(f'EXIT {{code}}')")
    done = run_python(probe, repo_dir)
    said, _, code = done.stderr.rpartition("EXIT ")
    return int(code), done.stdout, said


def test_a_recall_process_prints_what_argparse_reading_prints(repo_dir: Path) -> None:
    """The same recall read quickly and by argparse (``--`` before the query sends it to argparse)."""
    from gitmem.api import MemoryRepo

    repo = MemoryRepo.open(repo_dir)
    repo.remember("the staging database listens on port 5432")
    repo.remember("the staging web server restarts at midnight")
    for options in ([], ["-k", "1"], ["--json"], ["--all", "-k", "2", "--json"], ["--type", "fact"]):
        quick = _run(repo_dir, ["recall", *options, "staging"])
        slow = _run(repo_dir, ["recall", *options, "--", "staging"])
        assert quick == slow and quick[0] == 0 and "staging" in quick[1], (options, quick, slow)
    nothing = _run(repo_dir, ["recall", "zebra"])
    assert nothing == _run(repo_dir, ["recall", "--", "zebra"])
    assert nothing[0] == 0 and "no memory matches" in nothing[2]


@pytest.mark.parametrize("argv, message", [
    (["recall"], "gitmem: error: recall needs a QUERY (or --batch with queries on stdin)\n"),
    (["recall", "q", "-k", "0"], "gitmem: error: "),
    (["recall", "q", "-k", "x"], "gitmem recall: error: argument -k: invalid int value: 'x'\n"),
    (["recall", "q", "--rep", "R"], "gitmem: error: unrecognized arguments: --rep R\n"),
    (["recall", "q", "--project", "p", "--all-projects"],
     "gitmem recall: error: argument --all-projects: not allowed with argument --project\n"),
    (["recall", "q", "--type", "nope"], "gitmem recall: error: argument --type: invalid choice: 'nope'"),
])
def test_usage_errors_are_unchanged(argv: list[str], message: str, repo_dir: Path,
                                    capsys: pytest.CaptureFixture[str]) -> None:
    code, out, err = run_cli(["--repo", str(repo_dir), *argv], capsys)
    assert (code, out) == (2, "") and message in err, err
    assert _run(repo_dir, argv) == (code, out, err)


def test_recall_help_is_argparse_help(capsys: pytest.CaptureFixture[str]) -> None:
    code, out, err = run_cli(["recall", "--help"], capsys)
    assert code == 0 and err == "" and out.startswith("usage: gitmem recall [-h] [-k K]")
    assert "--all-projects" in out and "--repo DIR" in out


def test_a_plain_recall_process_loads_neither_argparse_nor_pathlib(repo_dir: Path) -> None:
    """argparse (with gettext), json and pathlib (with urllib) are milliseconds of a recall process's start."""
    from gitmem.api import MemoryRepo

    MemoryRepo.open(repo_dir).remember("the staging database listens on port 5432")
    probe = ("import sys\nfrom gitmem.faces.cli import main\n"
             "code = main({!r})\n"
             "print('LOADED', code, *sorted(m for m in ('argparse', 'gettext', 'json', 'pathlib', 'urllib') if m in sys.modules))")
    run_python(probe.format(["recall", "staging"]), repo_dir)   # brings the index up to date (that loads pathlib)
    for argv, loaded in ((["recall", "staging"], "LOADED 0"), (["recall", "staging", "--json", "-k", "3", "--all"],
                                                              "LOADED 0 json")):
        done = run_python(probe.format(argv), repo_dir)
        assert done.stdout.splitlines()[-1] == loaded, done.stderr
    assert '"id": "m-' in (repo_dir / ".git" / "gitmem" / "access.jsonl").read_text()   # written without json
    done = run_python(probe.format(["recall", "staging", "--exp"]), repo_dir)   # left to argparse
    assert done.stdout.splitlines()[-1].startswith("LOADED 2 argparse"), done.stderr


@pytest.mark.parametrize("record", [
    {"id": "m-2026-01-01-0000000007", "at": "2026-11-28T12:00:00Z"}, {"é": "ünïcødé ✓", "b": ""},
    {"q": 'a "quoted" word'}, {"back": "a\\b"}, {"nl": "a\nb"}, {"tab": "a\tb"}, {"del": "a\x7fb"},
    {"sep": "a\u2028b"}, {"n": 3}, {"none": None}, {"list": ["a"]}, {}, {"z": "1", "a": "2", "m": "3"},
])
def test_the_access_log_line_is_the_json_line(record: dict[str, object], tmp_path: Path) -> None:
    """state.append writes plain string records without json: the very line json.dumps gives."""
    import json

    from gitmem.base import state

    state.append(tmp_path / "log.jsonl", record)
    assert (tmp_path / "log.jsonl").read_text(encoding="utf-8") == json.dumps(record, ensure_ascii=False,
                                                                               sort_keys=True) + "\n"


@pytest.mark.parametrize("argv, plain", [
    (["status"], True), (["status", "--json"], True), (["--repo", "R", "status", "--json", "--now", "2026-01-01"], True),
    (["status", "--js"], False), (["status", "-h"], False), (["status", "x"], False), (["status", "--json", "--json"], False),
])
def test_status_reads_its_plain_arguments_as_argparse(argv: list[str], plain: bool) -> None:
    from gitmem.faces import quickargs, verbs_review
    from gitmem.faces.parser import build_parser

    quick = quickargs.parse("status", verbs_review.QUICK["status"], argv)
    assert (quick is not None) == plain
    if quick is not None:
        assert vars(quick) == vars(build_parser("status").parse_args(argv))
