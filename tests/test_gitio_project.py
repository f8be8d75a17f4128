"""Tests for gitmem.base.gitio.project: remote URLs normalised, one project per repository."""

from __future__ import annotations

import subprocess
from pathlib import Path

import pytest

from gitmem.base.gitio.project import identify, normalise_remote

SAME_REPOSITORY = [
    "https://github.com/acme/api.git",
    "https://github.com/acme/api",
    "https://github.com/acme/api/",
    "http://github.com/acme/api.git",
    "https://alice:ghp_abcdefghijklmnopqrstuvwxyz0123456789@github.com/acme/api.git",
    "https://x-access-token:secret@GitHub.com/Acme/API.git",
    "https://github.com:443/acme/api.git",
    "git@github.com:acme/api.git",
    "git@github.com:acme/api",
    "github.com:acme/api.git",
    "ssh://git@github.com/acme/api.git",
    "ssh://git@github.com:22/acme/api.git",
    "git://github.com/acme/api.git",
    "https://github.com/acme/api.git?ref=main#readme",
    "  https://github.com/acme/api.git\n",
]


@pytest.mark.parametrize("url", SAME_REPOSITORY)
def test_one_repository_has_one_id_whatever_the_url(url: str) -> None:
    assert normalise_remote(url) == "github.com/acme/api"


@pytest.mark.parametrize("url", [
    "https://bob:hunter2@gitlab.example.com/group/sub/proj.git",
    "https://oauth2:glpat-AbCdEf1234567890@gitlab.example.com/group/sub/proj.git",
])
def test_credentials_never_reach_the_id(url: str) -> None:
    found = normalise_remote(url)
    assert found == "gitlab.example.com/group/sub/proj"
    assert "bob" not in found and "hunter2" not in found and "glpat" not in found and "oauth2" not in found


@pytest.mark.parametrize("a, b", [
    ("https://github.com/acme/api.git", "https://github.com/acme/web.git"),
    ("https://github.com/acme/api.git", "https://gitlab.com/acme/api.git"),
    ("git@github.com:acme/api.git", "git@github.com:other/api.git"),
])
def test_different_repositories_differ(a: str, b: str) -> None:
    assert normalise_remote(a) != normalise_remote(b)


@pytest.mark.parametrize("url, expected", [
    ("/srv/git/api.git", "file:/srv/git/api"),
    ("file:///srv/git/api.git", "file:/srv/git/api"),
    ("C:\\repos\\api.git", "file:c:/repos/api"),
    ("", None),
    ("   ", None),
])
def test_local_and_empty_remotes(url: str, expected: str | None) -> None:
    assert normalise_remote(url) == expected


def _git(cwd: Path, *args: str) -> None:
    subprocess.run(["git", *args], cwd=cwd, check=True, capture_output=True)


def test_subfolders_and_worktrees_are_one_project(plain_git_repo: Path, linked_worktree: Path) -> None:
    sub = plain_git_repo / "src" / "deep"
    sub.mkdir(parents=True)
    top = identify(plain_git_repo)
    assert top is not None and top.id.startswith("path:") and top.name == "main"
    assert identify(sub) == top
    assert identify(linked_worktree) == top       # the linked work tree's folder is "linked", its project is "main"


def test_the_remote_names_the_project_and_hides_its_credentials(plain_git_repo: Path, linked_worktree: Path) -> None:
    _git(plain_git_repo, "remote", "add", "upstream", "https://example.org/zz/last.git")
    found = identify(plain_git_repo)
    assert found is not None and found.id == "example.org/zz/last"     # no origin: the first remote by name
    _git(plain_git_repo, "remote", "add", "origin", "https://carol:s3cr3t@git.example.com/team/shop.git")
    found = identify(linked_worktree)
    assert found is not None and found.id == "git.example.com/team/shop" and found.name == "main"
    assert "s3cr3t" not in repr(found) and "carol" not in repr(found)


def test_two_repositories_without_remotes_differ(tmp_path: Path) -> None:
    ids = set()
    for name in ("one", "two"):
        (tmp_path / name / "api").mkdir(parents=True)
        _git(tmp_path / name / "api", "init", "-q")
        found = identify(tmp_path / name / "api")
        assert found is not None and found.name == "api"
        ids.add(found.id)
    assert len(ids) == 2


def test_outside_git_or_missing_there_is_no_project(tmp_path: Path) -> None:
    assert identify(tmp_path / "missing") is None
    (tmp_path / "plain").mkdir()
    assert identify(tmp_path / "plain") is None
