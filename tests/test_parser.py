"""The command's grammar (gitmem.faces.parser): finding the verb in argv, which the start-up and the daemon
rely on before argparse runs, and the rules every verb's parser keeps (no abbreviations, --repo and --now
after the verb and after its action)."""

from __future__ import annotations

import argparse
from collections.abc import Iterator

import pytest
from hypothesis import given
from hypothesis import strategies as st

from gitmem.faces import cli
from gitmem.faces.parser import GLOBAL_OPTIONS, build_parser, first_word, verb_of

VERBS = sorted(cli.load_verbs())


@pytest.mark.parametrize("argv, word", [
    ([], None),
    (["recall", "kafka"], "recall"),
    (["--repo", "recall", "status"], "status"),          # a global option's value is never the verb
    (["--now", "2026-11-29T12:00:00Z", "list"], "list"),
    (["--repo=elsewhere", "list"], "list"),              # the value joined to it is part of the option
    (["--json", "recall"], "recall"),                    # another option takes no value here
    (["-h"], None),
    (["--repo", "x", "--now", "y"], None),
    (["--repo"], None),                                  # a value missing at the end
    (["--", "recall"], "recall"),
])
def test_first_word(argv: list[str], word: str | None) -> None:
    assert first_word(argv) == word


@pytest.mark.parametrize("argv, verb", [
    (["recall", "q"], "recall"),
    (["--repo", "d", "load-core"], "load-core"),
    (["no-such-verb"], None),
    (["--repo", "recall"], None),                        # 'recall' is the folder here
    (["kafka", "recall"], None),                         # the first word decides
])
def test_verb_of(argv: list[str], verb: str | None) -> None:
    assert verb_of(argv) == verb


words = st.text(st.sampled_from("abcxyz-/."), min_size=1, max_size=8).filter(lambda w: not w.startswith("-"))
flags = st.sampled_from(["--json", "-k", "--all", "-q", "--expand"])


@given(st.lists(st.one_of(flags, st.tuples(st.sampled_from(GLOBAL_OPTIONS), words)), max_size=5), words,
       st.lists(st.one_of(flags, words), max_size=4))
def test_the_first_word_follows_any_options_before_it(before: list[str | tuple[str, str]], word: str,
                                                       after: list[str]) -> None:
    argv = [part for item in before for part in ((item,) if isinstance(item, str) else item)]
    assert first_word([*argv, word, *after]) == word


def parsers(parser: argparse.ArgumentParser) -> Iterator[tuple[str, argparse.ArgumentParser]]:
    """``parser`` and every sub-parser below it, each with its program name."""
    yield parser.prog, parser
    for action in parser._actions:
        if isinstance(action, argparse._SubParsersAction):
            for child in dict.fromkeys(action.choices.values()):
                yield from parsers(child)


@pytest.mark.parametrize("verb", VERBS)
def test_no_parser_of_a_verb_takes_abbreviations(verb: str) -> None:
    found = list(parsers(build_parser(verb)))
    assert len(found) >= 2
    assert [prog for prog, p in found if p.allow_abbrev] == []


@pytest.mark.parametrize("verb", VERBS)
def test_repo_and_now_are_accepted_after_the_verb_and_after_its_action(verb: str) -> None:
    top, *below = parsers(build_parser(verb))
    assert below, verb
    for prog, p in below:
        options = {s for a in p._actions for s in a.option_strings}
        assert {"--repo", "--now"} <= options, prog


def test_an_abbreviated_option_is_refused_not_read_as_the_long_one(capsys: pytest.CaptureFixture[str]) -> None:
    parser = build_parser("recall")
    with pytest.raises(SystemExit) as info:
        parser.parse_args(["recall", "kafka", "--rep", "elsewhere"])
    assert info.value.code == 2 and "unrecognized arguments: --rep elsewhere" in capsys.readouterr().err
    args = parser.parse_args(["recall", "kafka", "--repo", "elsewhere"])
    assert args.repo == "elsewhere" and args.command == "recall"


def test_a_repo_given_before_the_verb_is_kept_when_none_follows_it() -> None:
    parser = build_parser("list")
    assert parser.parse_args(["--repo", "a", "list"]).repo == "a"
    assert parser.parse_args(["--repo", "a", "list", "--repo", "b"]).repo == "b"
    assert parser.parse_args(["list"]).repo is None


def test_the_overview_lists_every_verb_without_building_their_parsers(capsys: pytest.CaptureFixture[str]) -> None:
    parser = build_parser(overview=True)
    text = parser.format_help()
    for verb in VERBS:
        assert f"\n  {verb} " in text, verb
    (sub,) = [a for a in parser._actions if isinstance(a, argparse._SubParsersAction)]
    assert sub.choices == {}
