"""Drift and reflect's grouping with the embedding model configured (``git config gitmem.embed-model``), in real
repositories: a rewording of the rules is no drift with the model while a change of subject still is, and
two wordings of one lesson that share no topic word group into one pattern only with the model. Without the
model nothing changes (tests/test_drift.py, tests/test_timeline.py, tests/test_reflect.py). Needs the
``embed`` extra and the packaged all-MiniLM-L6-v2; skipped without them, except under CI."""

from __future__ import annotations

import subprocess
from datetime import timedelta
from pathlib import Path
from typing import Any

import pytest

from tests.embed_helpers import PACKAGE, skip_without_model

skip_without_model()

from tests.conftest import NOW  # noqa: E402
from gitmem.base.clock import parse_time  # noqa: E402

T = parse_time(NOW)
RULES = ["Always run the full test suite before pushing to main.", "Never commit secrets or tokens.",
         "Ask Dana before changing the deployment pipeline.", "Prefer small pull requests with one topic."]
REWORDED = ["Every push to the main branch waits for all tests to pass.",
            "Credentials and API keys stay out of git history.", "Dana approves any edit to how we ship releases.",
            "Keep each merge request short and focused on a single subject."]
OTHER = ["Bake sourdough at 250 degrees.", "Feed the rye starter twice daily.", "Proof the loaf longer in winter.",
         "Buy flour on Fridays."]


@pytest.fixture(autouse=True)
def shared_cache(tmp_path_factory: pytest.TempPathFactory, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path_factory.getbasetemp() / "embed-cache"))


def git(root: Path, *args: str) -> None:
    subprocess.run(["git", *args], cwd=root, check=True, capture_output=True)


def use_model(root: Path, on: bool = True) -> None:
    git(root, "config", *(["gitmem.embed-model", PACKAGE] if on else ["--unset", "gitmem.embed-model"]))


def claude_md(root: Path, rules: list[str], message: str) -> None:
    md = (root / "CLAUDE.md").read_text()
    start, end = md.index("<!-- gitmem:layer 1"), md.index("<!-- /gitmem:layer -->")
    head = md[start:].split("\n", 1)[0] + "\n"
    (root / "CLAUDE.md").write_text(md[:start] + head + "".join(f"- {r}\n" for r in rules) + md[end:])
    git(root, "add", "CLAUDE.md")
    git(root, "commit", "-qm", message)


def test_a_rewording_of_the_rules_drifts_only_without_the_model(repo: Any) -> None:
    claude_md(repo.root, RULES, "my rules")
    repo.snapshot(T)
    claude_md(repo.root, REWORDED, "the same rules in other words")
    lexical = repo.drift()
    assert not lexical.ok and lexical.cosine < 0.5
    use_model(repo.root)
    found = repo.drift()
    assert found.ok and found.cosine > lexical.cosine
    claude_md(repo.root, OTHER, "another subject")
    with_model = repo.drift()
    assert not with_model.ok   # a change of subject is still drift with the model
    use_model(repo.root, False)
    assert not repo.drift().ok and repo.drift().cosine <= with_model.cosine


LESSON = ["Deploys to production happen on Tuesdays",
          "We ship releases to prod every Tuesday"]   # cosine 0.62 by the model; no lexical link


def test_two_wordings_of_one_lesson_group_only_with_the_model(repo: Any) -> None:
    made = [repo.remember(text, now=T + timedelta(minutes=i), dedupe=False).id for i, text in enumerate(LESSON)]
    assert repo.reflect(now=T + timedelta(hours=1)).created == ()
    use_model(repo.root)
    folded = repo.reflect(now=T + timedelta(hours=2))
    assert len(folded.created) == 1 and set(folded.consumed) == set(made)
