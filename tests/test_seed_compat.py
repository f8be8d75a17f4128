"""What a user of the source designs tries first: the DNA memory's remember flags and an explicit
importance on a reinforcement, the Hebbian memory's HEBBIAN_ALLOWED_DIRS, whole .learnings/ entries."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from gitmem.api import MemoryRepo
from gitmem.base import config
from gitmem.base.errors import SecurityError
from gitmem.engines import importer
from tests.conftest import NOW, run_cli

LEARNINGS = Path(__file__).parent / "fixtures" / "learnings" / ".learnings"


def test_remember_takes_the_dna_scripts_flags(repo_dir: Path, capsys: pytest.CaptureFixture[str]) -> None:
    base = ["--repo", str(repo_dir), "--now", NOW]
    code, out, err = run_cli([*base, "remember", "--type", "fact", "--content", "Andy 的 GitHub 账号是 AIPMAndy",
                              "--source", "用户告知", "--importance", "0.8", "--json"], capsys)
    assert code == 0, err
    made = json.loads(out)
    shown = json.loads(run_cli([*base, "show", made["id"], "--json"], capsys)[1])
    assert (shown["type"], shown["content"], shown["source"], shown["importance"]) == (
        "fact", "Andy 的 GitHub 账号是 AIPMAndy", "用户告知", 0.8)


@pytest.mark.parametrize("argv", [["remember"], ["remember", "a text", "--content", "another"]])
def test_remember_wants_its_text_once(argv: list[str], repo_dir: Path, capsys: pytest.CaptureFixture[str]) -> None:
    code, out, err = run_cli(["--repo", str(repo_dir), *argv], capsys)
    assert code == 2 and out == "" and "give what to remember once" in err


def test_a_reinforcement_keeps_the_larger_of_the_stored_and_the_given_importance(repo: MemoryRepo) -> None:
    first = repo.remember("The staging database listens on port 5432", importance=0.5)
    again = repo.remember("The staging database listens on port 5432", importance=0.95)
    assert again.action == "reinforced" and again.id == first.id
    assert repo.show(first.id).importance == 0.95 and repo.show(first.id).band == "core"
    lower = repo.remember("The staging database listens on port 5432", importance=0.2)
    assert lower.action == "reinforced"
    assert repo.show(first.id).importance == 1.0   # 0.95 boosted by 10 %, capped; never lowered to 0.2


def test_hebbian_allowed_dirs_is_an_alias(monkeypatch: pytest.MonkeyPatch, repo: MemoryRepo) -> None:
    monkeypatch.setenv("HEBBIAN_ALLOWED_DIRS", "patterns")
    assert config.env_allowed_dirs() == ("patterns",)
    monkeypatch.setenv("GITMEM_ALLOWED_DIRS", "memory:bank")
    assert config.env_allowed_dirs() == ("memory", "bank")   # gitmem's own name wins when both are set
    monkeypatch.delenv("GITMEM_ALLOWED_DIRS")
    with pytest.raises(SecurityError) as refused:
        repo.remember("a memory the sandbox keeps out of memory/")
    assert "memory/" in refused.value.message


def test_a_learnings_entry_is_one_memory() -> None:
    rows = importer.read_learnings(LEARNINGS)
    assert [r.id for r in rows] == ["LRN-20250115-001", "LRN-20250116-002"]
    first = rows[0]
    assert first.content == (
        "Run the migrations before the test suite: the schema is not created by the fixtures.\n\n"
        "The tests failed with \"relation does not exist\" until `make migrate` ran first.\n\n"
        "Suggested Action: Add `make migrate` to the test target.")
    assert first.created == "2025-01-15T10:30:00Z" and first.importance == 0.8 and first.type == "skill"
    assert first.tags == ("best-practice", "backend", "testing", "database")
    assert not any("Logged" in r.content or "Tags:" in r.content or "Source:" in r.content for r in rows)


def test_importing_a_learnings_folder_makes_a_memory_per_entry(repo: MemoryRepo) -> None:
    done = repo.import_file(LEARNINGS)
    assert (done.created, done.skipped) == (2, ())
    contents = sorted(m.content for m in repo.list().memories)
    assert contents[0].startswith("Run the migrations before the test suite") and "make migrate" in contents[0]
    assert contents[1] == "The staging API lives behind the VPN."


def test_reflect_verifies_a_pattern_new_memories_confirm(repo: MemoryRepo) -> None:
    from datetime import timedelta

    from gitmem.base.clock import parse_time

    t = parse_time(NOW)
    for text in ("Retry flaky network calls with exponential backoff",
                 "Flaky network calls need a retry with exponential backoff and jitter"):
        repo.remember(text, dedupe=False, now=t)
    first = repo.reflect(now=t)
    assert len(first.created) == 1
    slug = first.created[0].rsplit("/", 1)[-1].removesuffix(".md")
    later = t + timedelta(days=2)
    one = repo.remember("Always retry the flaky network calls, with an exponential backoff", dedupe=False, now=later)
    repo.remember("The invoice PDF is rendered by WeasyPrint", dedupe=False, now=later)
    again = repo.reflect(now=later)
    assert again.created == () and len(again.updated) == 1
    pats = {p.slug: p for p in repo.patterns()}
    assert set(pats) == {slug}                        # verified again, no near copy such as slug-2
    assert pats[slug].verified == 2 and pats[slug].last_verified.startswith(later.strftime("%Y-%m-%d"))
    assert one.id in pats[slug].sources
