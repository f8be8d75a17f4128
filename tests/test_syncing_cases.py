"""Sync's refusals and edge cases, against a bare repository on disk as the remote."""

from __future__ import annotations

import subprocess
from pathlib import Path

import pytest

from gitmem.api import MemoryRepo
from gitmem.base.errors import ConflictError, UsageError
from tests.test_sync import LATER, T, clone
from tests.loop_helpers import git


def bare(tmp_path: Path, name: str = "remote.git") -> str:
    path = tmp_path / name
    subprocess.run(["git", "init", "-q", "--bare", str(path)], check=True, capture_output=True)
    return str(path)


def machine(tmp_path: Path, remote: str | None = "origin") -> MemoryRepo:
    repo = MemoryRepo.init(tmp_path / "a", T)
    repo.remember("The build cache lives in the shared bucket", now=T)
    if remote:
        git(repo.root, "remote", "add", remote, bare(tmp_path))
    return repo


def test_a_clone_without_a_remote_is_told_how_to_add_one(tmp_path: Path) -> None:
    repo = machine(tmp_path, remote=None)
    with pytest.raises(UsageError, match="no git remote to sync with") as info:
        repo.sync(now=T)
    assert info.value.hint and "git remote add origin" in info.value.hint


def test_a_remote_that_is_not_there_is_named_in_the_refusal(tmp_path: Path) -> None:
    repo = machine(tmp_path)
    tip = repo.head
    with pytest.raises(UsageError, match="no remote called 'nope'") as info:
        repo.sync("nope", now=T)
    assert info.value.hint and "git remote -v" in info.value.hint
    assert repo.head == tip


def test_the_only_remote_is_used_whatever_its_name(tmp_path: Path) -> None:
    repo = machine(tmp_path, remote="team")
    done = repo.sync(now=T)
    assert done.remote == "team" and done.pushed and done.how == "pushed"


def test_several_remotes_and_no_origin_must_be_named(tmp_path: Path) -> None:
    repo = machine(tmp_path, remote="team")
    git(repo.root, "remote", "add", "backup", bare(tmp_path, "backup.git"))
    with pytest.raises(UsageError, match=r"several remotes \(backup, team\)") as info:
        repo.sync(now=T)
    assert info.value.hint and "gitmem sync REMOTE" in info.value.hint
    assert repo.sync("backup", now=T).remote == "backup"


def test_uncommitted_edits_stop_sync_before_any_fetch(tmp_path: Path) -> None:
    repo = machine(tmp_path)
    (repo.root / "README.md").write_text("edited by hand\n")
    git(repo.root, "add", "README.md")
    with pytest.raises(ConflictError, match="uncommitted edits in README.md") as info:
        repo.sync(now=T)
    assert info.value.hint and "commit or stash" in info.value.hint
    assert git(repo.root, "ls-remote", "origin") == ""


def test_nothing_to_sync_twice_is_up_to_date(tmp_path: Path) -> None:
    repo = machine(tmp_path)
    first = repo.sync(now=T)
    second = repo.sync(now=T)
    assert second.how == "up-to-date" and second.commit == first.commit


def test_a_merge_left_for_a_person_blocks_the_next_sync(tmp_path: Path) -> None:
    a = machine(tmp_path)
    url = git(a.root, "remote", "get-url", "origin")
    a.sync(now=T)
    b = clone(tmp_path, url, "b")
    for repo, words in ((a, "one\n"), (b, "two\n")):
        (repo.root / "notes.txt").write_text(words)
        git(repo.root, "add", "notes.txt")
        git(repo.root, "commit", "-qm", "notes")
    a.sync(now=LATER)
    with pytest.raises(ConflictError, match=r"left 1 file\(s\) for a person: notes.txt"):
        b.sync(now=LATER)
    with pytest.raises(ConflictError, match="a merge is already in progress") as info:
        b.sync(now=LATER)
    assert info.value.hint and "git merge --abort" in info.value.hint
