"""Tests for gitmem.engines.roles: the two ends of an asymmetric relation."""

from __future__ import annotations

import pytest

from gitmem.engines.roles import roles, swapped_roles


def test_roles_are_the_words_around_a_relation_word() -> None:
    found = roles("copy the production database to staging")
    left, right = found["to"]
    assert "staging" not in left and "stage" in {w[:5] for w in right}
    assert {"copi", "product", "databas"} & left


def test_words_on_both_sides_play_no_role() -> None:
    left, right = roles("service A calls service B")["calls"]
    assert (left, right) == (frozenset({"A"}), frozenset({"B"}))


@pytest.mark.parametrize(
    ("a", "b"),
    [
        ("rename config.yml to settings.yml", "rename settings.yml to config.yml"),
        ("The API gateway calls the auth service", "the auth service calls the API gateway"),
        ("Prefer small PRs over big ones", "prefer big PRs over small ones"),
        ("Use SQLite rather than Postgres in tests", "use Postgres rather than SQLite in tests"),
        ("deploy staging before production", "deploy production before staging"),
        ("the web app depends on the shared lib", "the shared lib depends on the web app"),
        ("speed > memory", "memory > speed"),
        ("move logs from /var into /srv", "move logs from /srv into /var"),
        ("Alice manages Bob", "Bob manages Alice"),
        ("préférer Vim plutôt que Emacs", "préférer Emacs plutôt que Vim"),
        ("订单服务调用支付服务", "支付服务调用订单服务"),
        ("从北京到上海", "从上海到北京"),
    ],
)
def test_swapped_ends_are_found(a: str, b: str) -> None:
    assert swapped_roles(a, b) is not None
    assert swapped_roles(b, a) is not None


@pytest.mark.parametrize(
    ("a", "b"),
    [
        ("rename config.yml to settings.yml", "please rename config.yml to settings.yml"),
        ("Run the linter before committing", "before committing, run the linter"),
        ("In Go files, prefer tabs over spaces", "prefer tabs over spaces in Go files"),
        ("we use Redis for sessions", "for sessions we use Redis"),
        ("copy prod to staging", "copy the prod database to staging nightly"),
        ("ship it", "ship it"),
        ("", "to"),
    ],
)
def test_restatements_keep_their_roles(a: str, b: str) -> None:
    assert swapped_roles(a, b) is None


def test_a_relation_word_only_one_text_has_is_no_swap() -> None:
    assert swapped_roles("A calls B", "B is called by A") is None


@pytest.mark.parametrize(
    ("a", "b"),
    [
        ("Carol mentors Dave", "Dave mentors Carol"),
        ("the scheduler outlives the worker pool", "the worker pool outlives the scheduler"),
        ("Kafka feeds Flink jobs in the pipeline", "Flink jobs feed Kafka in the pipeline"),
        ("Frontend team reviews backend changes", "Backend team reviews frontend changes"),
        ("tests guard the parser", "the parser guards tests"),
    ],
)
def test_two_runs_exchanged_around_any_verb_swap_roles(a: str, b: str) -> None:
    assert (swapped_roles(a, b) or "").startswith("role differs")


@pytest.mark.parametrize(
    ("a", "b"),
    [
        ("Reply in French when the user writes in French", "When the user writes in French, reply in French"),
        ("Alice and Bob review PRs", "Bob and Alice review PRs"),
        ("On Fridays deploys freeze at noon", "Deploys freeze at noon on Fridays"),
        ("Always run the tests before pushing", "Before pushing, always run the tests"),
    ],
)
def test_a_moved_clause_or_a_symmetric_pair_is_no_exchange(a: str, b: str) -> None:
    assert swapped_roles(a, b) is None


def test_a_topic_restated_after_a_colon_is_no_exchange() -> None:
    assert swapped_roles("The flaky login test failed on CI", "CI failed again: flaky login test") is None


@pytest.mark.parametrize("a,b", [
    ("Redirect http to https", "Redirect https to http"),
    ("Move the fixture into fixtures", "Move the fixtures into fixture"),
    ("Copy the config into configs", "Copy the configs into config"),
])
def test_words_sharing_a_stem_that_trade_places_swap_roles(a: str, b: str) -> None:
    assert swapped_roles(a, b) is not None and swapped_roles(b, a) is not None


@pytest.mark.parametrize("a,b", [
    ("Redirect http to https", "Redirect http to https."),
    ("Redirect http to https", "redirect HTTP to HTTPS"),
    ("Run the tests before pushing", "Run tests before pushing"),
])
def test_the_same_words_in_the_same_places_are_no_swap(a: str, b: str) -> None:
    assert swapped_roles(a, b) is None
