"""Tests for gitmem.engines.harvest.durability: a signal outlives its session, or stays in the episode."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from gitmem.engines.harvest import durability

CORPUS = Path(__file__).parent / "fixtures" / "durability_sentences.jsonl"


def corpus(split: str) -> list[dict[str, str]]:
    rows = [json.loads(line) for line in CORPUS.read_text(encoding="utf-8").splitlines() if line.strip()]
    return [r for r in rows if r["split"] == split]


def test_every_tune_sentence_is_judged_as_labelled() -> None:
    wrong = [r for r in corpus("tune") if durability.judge(r["sentence"], r["kind"]) != r["expected"]]
    assert wrong == []


def test_held_out_sentences_are_judged_as_labelled() -> None:
    rows = corpus("holdout")
    right = sum(durability.judge(r["sentence"], r["kind"]) == r["expected"] for r in rows)
    assert len(rows) >= 20 and right / len(rows) >= 0.9


@pytest.mark.parametrize("sentence", [
    "never use tts for now", "Always answer briefly this time", "Toujours en anglais pour l'instant",
    "以后先不用写测试", "Remember, for this task only, the port is 9000",
])
def test_a_hedge_scoped_to_now_wins_over_a_durable_marker(sentence: str) -> None:
    assert durability.is_scoped_now(sentence)
    assert durability.judge(sentence, "preference") == "transient"
    assert durability.judge(sentence, "remember", repeated=True) == "transient"


@pytest.mark.parametrize("sentence", [
    "always show me the path of this file", "Never edit the output above by hand, regenerate it",
    "现在千万不要修改我的模板文件", "Désormais, vérifie ce fichier avant de pousser",
])
def test_a_durable_marker_wins_over_a_task_local_reference(sentence: str) -> None:
    assert durability.task_local(sentence) and durability.strong_marker(sentence)
    assert durability.judge(sentence, "correction") == "durable"


def test_repetition_makes_an_instruction_durable_unless_scoped_to_now() -> None:
    assert durability.judge("Undo that, please.", "correction") == "transient"
    assert durability.judge("Undo that, please.", "correction", repeated=True) == "durable"
    assert durability.judge("Skip the slow tests for now.", "correction", repeated=True) == "transient"


def test_an_error_alone_is_transient_and_uncertainty_is_not_a_fact() -> None:
    assert durability.judge("The build fails on ARM.", "error") == "transient"
    assert durability.judge("我不知道 ID 在哪", "fact") == "transient"
    assert durability.judge("I don't know where the logs are kept.", "fact") == "transient"


def test_floor_ranks_explicit_rules_above_plain_statements() -> None:
    assert durability.floor("keep the cache warm", "remember") == 0.9
    assert durability.floor("Always use UTC.", "preference") == 0.85
    assert durability.floor("follow agents.md first", "correction", repeated=True) == 0.85
    assert durability.floor("I prefer tabs.", "preference") == 0.75
    assert durability.floor("Our API runs on port 8080.", "fact") == 0.0


@pytest.mark.parametrize(("sentence", "lasts"), [
    ("Always answer in French.", True), ("Never push to main without a review.", True),
    ("From now on use pnpm here.", True), ("以后都用中文回答。", True), ("You should always run the tests first.", True),
    ("I've never really had a reason to stop.", False), ("I always wanted to learn Rust.", False),
    ("Sometimes I remember to relax.", False), ("好的，记住了。", False),
])
def test_says_it_lasts_is_a_rule_for_the_agent_not_a_story(sentence: str, lasts: bool) -> None:
    assert durability.says_it_lasts(sentence) == lasts
