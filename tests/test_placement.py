"""Tests for gitmem.engines.harvest.placement: where a harvested memory goes.

A concise statement (never a pasted turn), of its project only, and under the
core band every session loads unless it is a rule for the person. Harvests
run for real over transcripts written here.
"""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path
from typing import Sequence

import pytest

from tests.conftest import NOW, run_cli
from gitmem.api import MemoryRepo
from gitmem.base import clock
from gitmem.base.config import Memory as MemoryConfig
from gitmem.engines.harvest import encoder, placement
from gitmem.engines.harvest.placement import MAX_STATEMENT, concise

T = clock.parse_time(NOW)
SCRIPT = "import sys\nsys.stdin.read()\nsys.stdout.write(open(sys.argv[1], encoding='utf-8').read())\n"
LONG_TURN = ("Remember that the nightly export job writes its files to the archive bucket and must never run "
             "while a migration holds the lock. " + "It took us a week to learn this, and the logs said nothing " * 20)


def git(root: Path, *args: str) -> str:
    return subprocess.run(["git", *args], cwd=root, capture_output=True, text=True, check=True).stdout.strip()


def write_session(path: Path, name: str, turns: Sequence[tuple[str, str]], cwd: Path | None = None) -> Path:
    path.write_text("".join(json.dumps({"session_id": name, "role": role, "content": text,
                                        "timestamp": f"2026-11-20T10:{n:02d}:00Z", **({"cwd": str(cwd)} if cwd else {})})
                            + "\n" for n, (role, text) in enumerate(turns)), encoding="utf-8")
    return path


def with_encoder(root: Path, tmp: Path, answers: Sequence[dict[str, object]]) -> None:
    script, out = tmp / "enc.py", tmp / "answers.jsonl"
    script.write_text(SCRIPT)
    out.write_text("".join(json.dumps(a) + "\n" for a in answers), encoding="utf-8")
    git(root, "config", encoder.KEY, f"{sys.executable} {script} {out}")


# --- a concise statement --------------------------------------------------------------

def test_a_short_statement_stays_as_it_is_on_one_line() -> None:
    assert concise("Use pnpm,\n  not npm.") == "Use pnpm, not npm."


def test_a_long_text_keeps_its_whole_first_sentences() -> None:
    text = "The API lives under /v2. " * 5 + "We deploy from main. " * 20
    got = concise(text)
    assert len(got) <= MAX_STATEMENT and got.endswith(".") and text.startswith(got)
    assert got.count("The API lives under /v2.") == 5


def test_one_long_sentence_ends_at_a_word_never_inside_one() -> None:
    text = "always " + "run the whole integration suite before tagging a release " * 8 + "done"
    got = concise(text)
    assert len(got) <= MAX_STATEMENT and got.endswith("…")
    kept = got[:-1]
    assert text.startswith(kept) and text[len(kept)] == " " and not kept.endswith(" ")


def test_chinese_is_cut_at_its_own_sentence_end() -> None:
    text = "以后所有的回答都用中文。" * 40
    got = concise(text)
    assert len(got) <= MAX_STATEMENT and got.endswith("。") and text.startswith(got)


def test_a_run_without_spaces_ends_at_a_separator() -> None:
    text = "see " + "/".join(["segment"] * 60)
    got = concise(text)
    assert len(got) <= MAX_STATEMENT and got.endswith("segment…")


def test_a_pasted_turn_becomes_a_concise_memory(repo_dir: Path, tmp_path: Path) -> None:
    src = write_session(tmp_path / "s.jsonl", "s-long", [("user", LONG_TURN), ("assistant", "Noted.")])
    with_encoder(repo_dir, tmp_path, [{"text": LONG_TURN, "kind": "remember", "line": 1}])
    [r] = MemoryRepo.open(repo_dir).harvest([src], now=T)
    assert r.status == "harvested" and r.created == 1
    [mem] = MemoryRepo.open(repo_dir).list().memories
    assert len(mem.content) <= MAX_STATEMENT and mem.content.endswith(".")
    assert mem.content.startswith("Remember that the nightly export job") and " ".join(LONG_TURN.split()).startswith(mem.content)


def test_the_default_encoder_never_cuts_a_word(repo_dir: Path, tmp_path: Path) -> None:
    sentence = ("Remember that the deploy script needs the staging credentials loaded from the vault and "
                + "the release notes copied into the changelog and " * 6 + "the tag pushed last")
    assert 300 < len(sentence) < 400
    src = write_session(tmp_path / "s.jsonl", "s-words", [("user", sentence), ("assistant", "Noted.")])
    [r] = MemoryRepo.open(repo_dir).harvest([src], now=T)
    assert r.created == 1
    [mem] = MemoryRepo.open(repo_dir).list().memories
    kept = mem.content.rstrip("…")
    assert len(mem.content) <= MAX_STATEMENT and sentence[len("Remember that "):].lower().startswith(kept.lower())
    assert sentence[len("Remember that ") + len(kept)] == " "


# --- only a user rule reaches the core band ---------------------------------------------

def test_importance_of_what_is_no_user_rule_stays_under_core() -> None:
    cfg = MemoryConfig()
    assert placement.importance("preference", "user", 0.9, cfg) == 0.9
    assert placement.importance("correction", "user", 0.85, cfg) == 0.85
    assert placement.importance("fact", "project", 0.95, cfg) == placement.below_core(cfg) < cfg.tiers.core
    assert placement.importance("decision", "user", 0.8, cfg) < cfg.tiers.core
    assert placement.importance("remember", "project", 0.9, cfg) < cfg.tiers.core
    assert placement.importance("fact", "project", 0.5, cfg) == 0.5
    assert placement.domain_of("preference", "project") == "user" and placement.domain_of("fact", "project") == "project"


ANSWERS = [{"text": "Always answer in French.", "kind": "preference", "importance": 0.9, "line": 1},
           {"text": "The billing API lives under /v2 of the gateway.", "kind": "fact", "importance": 0.95, "line": 2},
           {"text": "We decided to deploy the shop from main on Fridays.", "kind": "decision", "importance": 0.9, "line": 3},
           {"text": "Remember that the CI runner of the shop has 2 cores.", "kind": "remember", "line": 4}]


def test_only_user_rules_reach_what_every_session_loads(repo_dir: Path, tmp_path: Path,
                                                        capsys: pytest.CaptureFixture[str]) -> None:
    src = write_session(tmp_path / "s.jsonl", "s-core", [("user", str(a["text"])) for a in ANSWERS])
    with_encoder(repo_dir, tmp_path, ANSWERS)
    [r] = MemoryRepo.open(repo_dir).harvest([src], now=T)
    assert r.created == 4
    mems = {m.content: m for m in MemoryRepo.open(repo_dir).list().memories}
    assert mems["Always answer in French."].band == "core" and mems["Always answer in French."].domain == "user"
    for text in ANSWERS[1:]:
        assert mems[str(text["text"])].importance < 0.7 and mems[str(text["text"])].band != "core"
    code, out, _ = run_cli(["--repo", str(repo_dir), "load-core", "--all-projects", "--json"], capsys)
    assert code == 0 and json.loads(out)["included"] == [mems["Always answer in French."].id]
    # harvested again and again: reinforced, never into core
    for n in range(3):
        again = write_session(tmp_path / f"again{n}.jsonl", f"s-again-{n}", [("user", str(ANSWERS[1]["text"]))])
        with_encoder(repo_dir, tmp_path, ANSWERS[1:2])
        assert MemoryRepo.open(repo_dir).harvest([again], now=T)[0].reinforced == 1
    fact = MemoryRepo.open(repo_dir).show(mems[str(ANSWERS[1]["text"])].id)
    assert fact.reinforced == 3 and fact.importance < 0.7
    # unless a person says so
    repo = MemoryRepo.open(repo_dir)
    said = repo.remember("The shop's release branch is cut on Mondays", domain="project", importance=0.8, now=T)
    code, out, _ = run_cli(["--repo", str(repo_dir), "load-core", "--all-projects", "--json"], capsys)
    assert set(json.loads(out)["included"]) == {mems["Always answer in French."].id, said.id}


# --- a project fact is loaded only in its project ------------------------------------

def test_a_harvested_project_fact_carries_the_project_of_the_session(repo_dir: Path, tmp_path: Path,
                                                                    plain_git_repo: Path) -> None:
    src = write_session(tmp_path / "s.jsonl", "s-proj", [("user", str(a["text"])) for a in ANSWERS], plain_git_repo)
    with_encoder(repo_dir, tmp_path, ANSWERS)
    MemoryRepo.open(repo_dir).harvest([src], now=T)
    repo = MemoryRepo.open(repo_dir)
    here = repo.project_of(plain_git_repo)
    assert here is not None
    mems = {m.content: m for m in repo.list().memories}
    assert mems["The billing API lives under /v2 of the gateway."].project == here.id
    assert mems["Always answer in French."].project is None          # the person's rule holds everywhere
    assert str(plain_git_repo) not in (repo_dir / mems["The billing API lives under /v2 of the gateway."].path).read_text()


def test_load_core_of_another_project_or_of_none_never_prints_a_projects_memory(
        repo: MemoryRepo, repo_dir: Path, tmp_path: Path, plain_git_repo: Path,
        capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch) -> None:
    shop = repo.remember("The shop release branch is cut on Mondays", domain="project", importance=0.8,
                         project=str(plain_git_repo), now=T).id
    rule = repo.remember("Reply to the person in French", domain="user", importance=0.8, now=T).id
    other = tmp_path / "billing"          # a project no memory names yet
    other.mkdir()
    subprocess.run(["git", "init", "-q"], cwd=other, check=True)
    nowhere = tmp_path / "scratch"        # no project at all
    nowhere.mkdir()
    assert {i.id for i in repo.core_items(here=plain_git_repo)} == {shop, rule}
    assert {i.id for i in repo.core_items(here=other)} == {rule}
    assert {i.id for i in repo.core_items(here=nowhere)} == {rule}
    for folder, expected in ((plain_git_repo, {shop, rule}), (other, {rule}), (nowhere, {rule})):
        monkeypatch.chdir(folder)
        code, out, _ = run_cli(["--repo", str(repo_dir), "load-core", "--json"], capsys)
        assert code == 0 and set(json.loads(out)["included"]) == expected, folder
        code, out, _ = run_cli(["--repo", str(repo_dir), "load-core"], capsys)
        assert ("release branch is cut on Mondays" in out) == (shop in expected)
    assert {i.id for i in repo.core_items()} == {shop, rule}          # no folder given: every project
