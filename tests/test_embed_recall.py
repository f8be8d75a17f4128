"""Recall and reinforce-or-create with the embedding model configured (``git config gitmem.embed-model``), in real
repositories: a paraphrase lexical recall misses is found, the filters still hold, ``recall --batch`` loads the
model once, and a restated memory reinforces. Needs the ``embed`` extra and the packaged all-MiniLM-L6-v2
(see tests/test_embed_model.py); skipped without them, except under CI."""

from __future__ import annotations

import subprocess
from datetime import datetime, timedelta, timezone
from pathlib import Path
from typing import Any

import pytest

from tests.embed_helpers import PACKAGE, skip_without_model

skip_without_model()

from gitmem.api import embedding  # noqa: E402
from gitmem.api.recall import filters, recall_at, recall_many  # noqa: E402
from gitmem.store.vectors import FILE, Vectors  # noqa: E402

NOW = datetime(2026, 11, 29, 12, 0, tzinfo=timezone.utc)
FACTS = ["We use PostgreSQL 16 for the main database",
         "Run the tests with pytest -q before each commit",
         "Use pnpm, never npm, in this repository",
         "The staging deploy failed because the migration locked the users table"]


@pytest.fixture(autouse=True)
def shared_cache(tmp_path_factory: pytest.TempPathFactory, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path_factory.getbasetemp() / "embed-cache"))


def remember(repo: Any, text: str, **kw: Any) -> str:
    return str(repo.remember(text, now=NOW, dedupe=False, **kw).id)


def use_model(repo_dir: Path, spec: str | None = PACKAGE) -> None:
    args = ["gitmem.embed-model", spec] if spec else ["--unset", "gitmem.embed-model"]
    subprocess.run(["git", "config", *args], cwd=repo_dir, check=True)


def ids(repo_dir: Path, query: str, **kw: Any) -> list[str]:
    return [r.id for r in recall_at(repo_dir, query, now=NOW, log=False, **kw)]


def test_a_question_in_other_words_is_found_only_with_the_model(repo: Any, repo_dir: Path) -> None:
    made = [remember(repo, fact) for fact in FACTS]
    question = "why did the release break"   # no word in common with the deploy memory
    assert ids(repo_dir, question) == []
    use_model(repo_dir)
    assert ids(repo_dir, question, k=1) == [made[3]]
    assert ids(repo_dir, "which package manager", k=1) == [made[2]]
    assert (repo_dir / ".git" / "gitmem" / FILE).is_file()
    use_model(repo_dir, None)
    assert ids(repo_dir, question) == []


def test_the_filters_hold_for_what_the_model_finds(repo: Any, repo_dir: Path) -> None:
    deploy = remember(repo, FACTS[3])
    user = remember(repo, "The user prefers short answers without preambles", domain="user")
    use_model(repo_dir)
    assert deploy in ids(repo_dir, "why did the release break")
    only_user = ids(repo_dir, "why did the release break", found_by=filters(domain="user"))
    assert deploy not in only_user and set(only_user) <= {user}


def test_a_batch_loads_the_model_once_and_stacks_the_vectors_once(repo: Any, repo_dir: Path) -> None:
    for fact in FACTS:
        remember(repo, fact)
    use_model(repo_dir)
    model = embedding.model(PACKAGE)
    recall_at(repo_dir, "warm up", now=NOW, log=False)
    store = repo_dir / ".git" / "gitmem" / FILE
    store.unlink()   # the process holds the stacked vectors of this index state: it never opens the store again
    answers = dict(recall_many(repo_dir, ["which package manager", "database engine"], 1))
    assert embedding.model(PACKAGE) is model and not store.exists()
    assert [r.content for r in answers["which package manager"]] == [FACTS[2]]
    assert [r.content for r in answers["database engine"]] == [FACTS[0]]


def stored(repo_dir: Path) -> int:
    store = Vectors(repo_dir / ".git" / "gitmem" / FILE, embedding.model(PACKAGE).key)
    try:
        return store.count()
    finally:
        store.close()


def test_a_recall_encodes_a_bounded_share_newest_first_and_ranks_the_rest_lexically(
        repo: Any, repo_dir: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    deploy = str(repo.remember(FACTS[3], now=NOW, dedupe=False).id)   # the oldest: encoded last
    for minutes, fact in enumerate(FACTS[:3], 1):
        repo.remember(fact, now=NOW + timedelta(minutes=minutes), dedupe=False)
    use_model(repo_dir)
    monkeypatch.setattr(embedding, "RECALL_BUDGET", 1)
    question = "why did the release break"
    assert deploy not in ids(repo_dir, question) and stored(repo_dir) == 1   # not encoded: only lexical finds it
    assert ids(repo_dir, "migration locked users", k=1) == [deploy] and stored(repo_dir) == 2
    assert deploy not in ids(repo_dir, question) and stored(repo_dir) == 3
    assert ids(repo_dir, question, k=1) == [deploy] and stored(repo_dir) == 4   # its turn came
    assert ids(repo_dir, question, k=1) == [deploy] and stored(repo_dir) == 4


def test_a_batch_encodes_every_memory_before_its_first_question(
        repo: Any, repo_dir: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    made = [remember(repo, fact) for fact in FACTS]
    use_model(repo_dir)
    monkeypatch.setattr(embedding, "RECALL_BUDGET", 1)
    answers = dict(recall_many(repo_dir, ["why did the release break"], 1))
    assert [r.id for r in answers["why did the release break"]] == [made[3]] and stored(repo_dir) == len(FACTS)


RULE, RESTATED = "Code review is required before merging", "Every merge needs a code review first"


def test_without_the_model_a_restatement_in_other_words_is_a_new_memory(repo: Any) -> None:
    first = repo.remember(RULE, domain="project", now=NOW)
    again = repo.remember(RESTATED, domain="project", now=NOW)
    assert again.action == "created" and again.id != first.id   # lexically too far apart


def test_with_the_model_a_restatement_in_other_words_reinforces(repo: Any, repo_dir: Path) -> None:
    use_model(repo_dir)
    first = repo.remember(RULE, domain="project", now=NOW)
    again = repo.remember(RESTATED, domain="project", now=NOW)
    assert again.action == "reinforced" and again.id == first.id and again.memory.reinforced == 1


def test_with_the_model_a_different_fact_is_still_created(repo: Any, repo_dir: Path) -> None:
    use_model(repo_dir)
    repo.remember("The importer crashes on empty files", domain="project", now=NOW)
    assert repo.remember("The exporter crashes on empty files", domain="project", now=NOW).action == "created"
    repo.remember("The staging database listens on port 5432", domain="project", now=NOW)
    assert repo.remember("The staging database listens on port 5433", domain="project", now=NOW).action == "created"
