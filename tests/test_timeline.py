"""Tests for gitmem.api.timeline and its verbs: snapshot, rollback, check drift."""

from __future__ import annotations

import subprocess
from pathlib import Path

import pytest

from tests.conftest import NOW, run_cli
from gitmem.api import MemoryRepo
from gitmem.base.clock import parse_time
from gitmem.base.errors import CheckFailed, ConflictError, UsageError

T = parse_time(NOW)


def git(root: Path, *args: str) -> str:
    done = subprocess.run(["git", *args], cwd=root, capture_output=True, text=True)
    assert done.returncode == 0, done.stderr
    return done.stdout.strip()


def person_commit(root: Path, path: str, text: str, message: str = "edit") -> None:
    (root / path).write_text(text)
    git(root, "add", path)
    git(root, "commit", "-qm", message)


def tree_files(root: Path, rev: str) -> dict[str, str]:
    names = git(root, "ls-tree", "-r", "--name-only", rev).splitlines()
    assert names
    return {n: git(root, "rev-parse", f"{rev}:{n}") for n in names}


def test_rollback_restores_the_tags_tree_byte_for_byte_without_rewriting_history(repo: MemoryRepo) -> None:
    repo.remember("the staging database listens on port 5432", now=T)
    snap = repo.snapshot(T)
    before = tree_files(repo.root, snap.tag)
    repo.remember("kafka keeps seven days of retention", now=T)
    victim = repo.remember("redis runs on the cache host", now=T)
    repo.forget(victim.id, now=T)
    history = git(repo.root, "rev-list", "HEAD").splitlines()
    done = repo.rollback(snap.tag, i_am_the_reviewer=True, now=T)
    assert done.commit == repo.head and done.paths
    assert tree_files(repo.root, "HEAD") == before
    assert git(repo.root, "rev-list", "HEAD").splitlines()[1:] == history   # a new commit on top
    assert git(repo.root, "status", "--porcelain") == ""
    assert [m.content for m in repo.list().memories] == ["the staging database listens on port 5432"]
    assert [h.content for h in repo.recall("kafka retention", now=T)] == []   # the index followed
    body = git(repo.root, "log", "-1", "--format=%B")
    assert "Gitmem-Approved-By: Test Person <test@example.com>" in body and f"Gitmem-Rollback-To: {done.target}" in body
    again = repo.rollback(snap.tag, i_am_the_reviewer=True, now=T)
    assert again.commit is None


def test_rollback_refuses_uncommitted_edits(repo: MemoryRepo) -> None:
    snap = repo.snapshot(T)
    repo.remember("a fact after the snapshot", now=T)
    (repo.root / "CLAUDE.md").write_text((repo.root / "CLAUDE.md").read_text() + "\nmine, unsaved\n")
    tip = repo.head
    with pytest.raises(ConflictError, match="uncommitted edits in CLAUDE.md") as info:
        repo.rollback(snap.tag, i_am_the_reviewer=True, now=T)
    assert info.value.hint and "stash" in info.value.hint
    assert repo.head == tip and "mine, unsaved" in (repo.root / "CLAUDE.md").read_text()


def test_rollback_lists_layer_one_changes_and_needs_yes(repo: MemoryRepo) -> None:
    snap = repo.snapshot(T)
    md = (repo.root / "CLAUDE.md").read_text().replace("- (your first rule)", "- Always run the tests before pushing.")
    person_commit(repo.root, "CLAUDE.md", md, "my first rule")
    tip = repo.head
    with pytest.raises(CheckFailed, match="Layer 1") as info:
        repo.rollback(snap.tag, i_am_the_reviewer=True, now=T)
    assert info.value.hint and "--yes" in info.value.hint and repo.head == tip
    done = repo.rollback(snap.tag, yes=True, i_am_the_reviewer=True, now=T)
    assert done.protected and "(your first rule)" in (repo.root / "CLAUDE.md").read_text()


@pytest.mark.parametrize("env,interactive,match", [({"CLAUDECODE": "1"}, True, "CLAUDECODE"),
                                                    ({}, False, "no terminal")])
def test_rollback_is_a_persons_decision(repo: MemoryRepo, monkeypatch: pytest.MonkeyPatch,
                                        env: dict[str, str], interactive: bool, match: str) -> None:
    snap = repo.snapshot(T)
    repo.remember("a fact after the snapshot", now=T)
    for k, v in env.items():
        monkeypatch.setenv(k, v)
    tip = repo.head
    with pytest.raises(UsageError, match=match) as info:
        repo.rollback(snap.tag, interactive=interactive, now=T)
    assert info.value.hint and "--i-am-the-reviewer" in info.value.hint and repo.head == tip


def test_rollback_to_an_unknown_tag_is_a_clear_error(repo: MemoryRepo) -> None:
    with pytest.raises(UsageError, match="no tag or commit 'gitmem/snapshot/1999-01'"):
        repo.rollback("gitmem/snapshot/1999-01", i_am_the_reviewer=True, now=T)


def test_cli_snapshot_and_rollback(repo_dir: Path, capsys: pytest.CaptureFixture[str],
                                   monkeypatch: pytest.MonkeyPatch) -> None:
    base = ["--repo", str(repo_dir), "--now", NOW]
    code, out, _ = run_cli(["snapshot", *base], capsys)
    assert code == 0 and "tagged gitmem/snapshot/2026-11" in out
    code, out, _ = run_cli(["snapshot", *base], capsys)
    assert code == 0 and "already has its snapshot" in out
    run_cli(["remember", "a fact to roll back", *base], capsys)
    monkeypatch.setenv("CLAUDECODE", "1")
    code, _, err = run_cli(["rollback", "gitmem/snapshot/2026-11", *base], capsys)
    assert code == 2 and "error:" in err and "--i-am-the-reviewer" in err   # a usage error, as review accept's
    code, _, err = run_cli(["rollback", "gitmem/snapshot/2026-11", "--i-am-the-reviewer", *base], capsys)
    assert code == 2 and "does not apply under an agent" in err      # never a person's word under an agent
    monkeypatch.delenv("CLAUDECODE")
    code, out, _ = run_cli(["rollback", "gitmem/snapshot/2026-11", "--i-am-the-reviewer", *base], capsys)
    assert code == 0 and "rolled back to gitmem/snapshot/2026-11" in out
    assert MemoryRepo.open(repo_dir).list().memories == ()


def test_drift_against_the_last_snapshot_and_a_pinned_baseline(repo: MemoryRepo, capsys: pytest.CaptureFixture[str]) -> None:
    base = ["--repo", str(repo.root), "--now", NOW]
    code, out, _ = run_cli(["check", "drift", *base], capsys)
    assert code == 0 and "no baseline yet" in out
    rules = "".join(f"- Rule {i}: always check the {w} before deploying the service.\n"
                    for i, w in enumerate(["tests", "logs", "metrics", "alerts", "backups", "runbook"]))
    md = (repo.root / "CLAUDE.md").read_text().replace("- (your first rule)\n", rules)
    person_commit(repo.root, "CLAUDE.md", md, "my rules")
    repo.snapshot(T)
    person_commit(repo.root, "CLAUDE.md", md.replace("the logs", "the error logs"), "one small edit")
    found = repo.drift()
    assert found.ok and found.cosine >= 0.9 and found.baseline_name == "gitmem/snapshot/2026-11"
    unrelated = md.replace(rules, "- Bake sourdough at 250 degrees.\n- Feed the rye starter twice daily.\n")
    person_commit(repo.root, "CLAUDE.md", unrelated, "a new life")
    code, out, err = run_cli(["check", "drift", *base], capsys)
    assert code == 1 and "below 0.70" in out and "gitmem check drift --pin" in err
    code, out, _ = run_cli(["check", "drift", "--pin", *base], capsys)
    assert code == 0 and "baseline pinned" in out
    code, out, _ = run_cli(["check", "drift", "--json", *base], capsys)
    assert code == 0 and '"baseline_name": "pinned"' in out


def test_drift_reads_unsaved_text_when_given(repo: MemoryRepo) -> None:
    repo.snapshot(T)
    md = (repo.root / "CLAUDE.md").read_text()
    assert repo.drift(md).cosine == pytest.approx(1.0)
    assert not repo.drift(md.replace("Layer 1 is yours", "Completely unrelated words about gardening tomatoes "
                                                         "and sourdough bread baking")).cosine == 1.0
