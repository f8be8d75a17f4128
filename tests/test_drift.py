"""Tests for gitmem.engines.drift: term vectors, cosine, Layers 1+2, baselines."""

from __future__ import annotations

import math

import pytest

from gitmem.engines import drift

LAYER1 = ("- Always run the full test suite before pushing to main.\n- Never commit secrets or tokens.\n"
          "- Ask Dana before changing the deployment pipeline.\n- Prefer small pull requests with one topic.\n"
          "- Write commit messages in the imperative mood.\n- Keep the staging database on port 5432.\n")
LAYER2 = ("- pattern: retry flaky network calls with exponential backoff (weight 0.42)\n"
          "- pattern: pin dependency versions in lock files (weight 0.35)\n")


def claude_md(layer1: str, layer2: str = LAYER2) -> str:
    return ("# Memory\n\n## Core\n<!-- gitmem:layer 1 core -->\n" + layer1 + "<!-- /gitmem:layer -->\n\n"
            "## Patterns\n<!-- gitmem:layer 2 patterns -->\n" + layer2 + "<!-- /gitmem:layer -->\n\n"
            "## Episodes\n<!-- gitmem:layer 3 episodic -->\n- a session about kafka\n<!-- /gitmem:layer -->\n\n"
            "## Meta\n<!-- gitmem:layer 4 meta -->\n- data, not instructions\n<!-- /gitmem:layer -->\n")


def test_vector_is_sublinear_in_term_frequency() -> None:
    v = drift.vector("deploy deploy deploy deploy the service")
    assert v["deploi"] == pytest.approx(1 + math.log(4))
    assert v["servic"] == pytest.approx(1.0)
    assert "the" not in v   # stop words left out


def test_two_empty_texts_are_identical_and_one_empty_shares_nothing() -> None:
    assert drift.cosine({}, {}) == 1.0
    assert drift.cosine(drift.vector("kafka"), {}) == 0.0
    assert drift.similarity(None, "") == 1.0


def test_identical_layers_have_cosine_one() -> None:
    assert drift.similarity(claude_md(LAYER1), claude_md(LAYER1)) == pytest.approx(1.0)


def test_a_one_line_edit_stays_at_or_above_point_nine() -> None:
    edited = LAYER1.replace("Prefer small pull requests with one topic.", "Prefer short pull requests with one subject.")
    assert edited != LAYER1
    assert drift.similarity(claude_md(edited), claude_md(LAYER1)) >= 0.9
    added = LAYER1 + "- Reply in English unless asked otherwise.\n"
    assert drift.similarity(claude_md(added), claude_md(LAYER1)) >= 0.9


def test_unrelated_text_falls_below_point_seven() -> None:
    other = ("- Bake sourdough at 250 degrees for forty minutes.\n- Feed the starter twice daily with rye flour.\n"
             "- Knead gently; let the dough rest overnight in the fridge.\n")
    assert drift.similarity(claude_md(other, "- pattern: proof longer in winter\n"), claude_md(LAYER1)) < 0.7


def test_only_layers_one_and_two_count() -> None:
    a = claude_md(LAYER1)
    b = a.replace("- a session about kafka", "- a session about something else entirely").replace(
        "- data, not instructions", "- totally different meta text here")
    assert a != b and drift.similarity(a, b) == pytest.approx(1.0)
    assert drift.layer_text(None) == "" and drift.layer_text("no layers at all") == ""


def test_idf_is_not_used_so_shared_terms_count() -> None:
    # over two texts, idf would zero every shared term and call these unrelated
    assert drift.similarity(claude_md("- kafka topics\n", ""), claude_md("- kafka topics partitions\n", "")) > 0.7


def test_measure_without_baseline_never_fails() -> None:
    found = drift.measure("anything", None, None, "none", 0.7)
    assert found.ok and found.baseline is None and "no baseline" in found.describe()


def test_measure_below_threshold_fails_and_says_so() -> None:
    found = drift.measure(claude_md("- bake bread\n", ""), claude_md(LAYER1), "a" * 40, "gitmem/snapshot/2026-11", 0.7)
    assert not found.ok and "below 0.70" in found.describe()
    assert found.to_json()["ok"] is False and found.to_json()["baseline_name"] == "gitmem/snapshot/2026-11"


def test_the_baseline_is_the_pinned_commit_else_the_newest_snapshot() -> None:
    tags = ["gitmem/snapshot/2026-09", "gitmem/snapshot/2026-11", "gitmem/snapshot/2026-10"]
    assert drift.baseline("abc123", tags) == ("abc123", "pinned")
    assert drift.baseline(None, tags) == ("gitmem/snapshot/2026-11", "gitmem/snapshot/2026-11")
    assert drift.baseline(None, []) is None and drift.baseline("", []) is None
