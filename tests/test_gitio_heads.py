"""Git's folders and HEAD read from files: plain clones, linked work trees, submodule-style gitdir files."""

from __future__ import annotations

import os
import subprocess
from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from gitmem.base.gitio import common_dir, head_commit, read_git_dirs


def git(root: Path, *args: str) -> str:
    done = subprocess.run(["git", *args], cwd=root, capture_output=True, text=True)
    assert done.returncode == 0, done.stderr
    return done.stdout.strip()


def asked(root: Path, *args: str) -> str:
    """What git itself answers, as an absolute normalized path."""
    return os.path.normpath(git(root, "rev-parse", "--path-format=absolute", *args))


@pytest.fixture
def repo(plain_git_repo: Path) -> Path:
    return plain_git_repo


@pytest.fixture
def linked(linked_worktree: Path) -> Path:
    return linked_worktree


def test_plain_clone(repo: Path) -> None:
    assert read_git_dirs(repo) == (str(repo / ".git"), str(repo / ".git"))


def test_linked_worktree_agrees_with_git(linked: Path, repo: Path) -> None:
    found = read_git_dirs(linked)
    assert found == (asked(linked, "--git-dir"), asked(linked, "--git-common-dir"))
    assert found is not None and found[1] == str(repo / ".git")
    assert found[0] != found[1]


def test_submodule_style_relative_gitdir_file(tmp_path: Path) -> None:
    store = tmp_path / "super" / ".git" / "modules" / "sub"
    store.parent.mkdir(parents=True)
    git(tmp_path, "init", "-q", "--separate-git-dir", str(store), str(tmp_path / "super" / "sub"))
    sub = tmp_path / "super" / "sub"
    (sub / ".git").write_text("gitdir: ../.git/modules/sub\n")
    assert read_git_dirs(sub) == (str(store), str(store))
    assert read_git_dirs(sub) == (asked(sub, "--git-dir"), asked(sub, "--git-common-dir"))


def test_a_gitdir_file_pointing_nowhere_is_not_a_repository(tmp_path: Path) -> None:
    (tmp_path / ".git").write_text("gitdir: ./missing\n")
    assert read_git_dirs(tmp_path) is None


def test_a_folder_without_git_is_not_a_repository_even_inside_one(repo: Path) -> None:
    inner = repo / "inner"
    inner.mkdir()
    assert read_git_dirs(inner) is None   # never the repository of a parent folder


def test_an_odd_git_file_is_left_to_git(repo: Path, tmp_path: Path) -> None:
    odd = repo / "odd"
    odd.mkdir()
    (odd / ".git").write_text("not a gitdir line\n")
    # git rev-parse run in `odd` fails on the bad .git file: no repository
    assert read_git_dirs(odd) is None


def test_common_dir_of_a_plain_git_dir_is_itself(repo: Path) -> None:
    assert common_dir(repo / ".git") == str(repo / ".git")
    assert common_dir(str(repo / ".git")) == str(repo / ".git")


def test_head_commit_loose_ref(repo: Path) -> None:
    assert head_commit(repo / ".git") == git(repo, "rev-parse", "HEAD")


def test_head_commit_packed_ref(repo: Path) -> None:
    git(repo, "pack-refs", "--all")
    assert not (repo / ".git" / "refs" / "heads" / "main").exists()
    assert head_commit(repo / ".git") == git(repo, "rev-parse", "HEAD")


def test_head_commit_detached(repo: Path) -> None:
    first = git(repo, "rev-parse", "HEAD")
    (repo / "b.txt").write_text("b\n")
    git(repo, "add", "b.txt")
    git(repo, "commit", "-q", "-m", "second")
    git(repo, "checkout", "-q", "--detach", first)
    assert head_commit(repo / ".git") == first


def test_head_commit_unborn_branch(tmp_path: Path) -> None:
    git(tmp_path, "init", "-q", "-b", "main")
    assert head_commit(tmp_path / ".git") is None


def test_head_commit_missing_git_dir(tmp_path: Path) -> None:
    assert head_commit(tmp_path / "nowhere") is None


def test_head_commit_of_a_linked_worktree_reads_its_own_branch(repo: Path, linked: Path) -> None:
    (linked / "c.txt").write_text("c\n")
    git(linked, "add", "c.txt")
    git(linked, "commit", "-q", "-m", "on side")
    dirs = read_git_dirs(linked)
    assert dirs is not None
    assert head_commit(dirs[0]) == git(linked, "rev-parse", "HEAD")
    assert head_commit(repo / ".git") == git(repo, "rev-parse", "HEAD")
    assert head_commit(dirs[0]) != head_commit(repo / ".git")


def test_head_commit_of_a_linked_worktree_after_pack_refs(repo: Path, linked: Path) -> None:
    git(repo, "pack-refs", "--all")
    dirs = read_git_dirs(linked)
    assert dirs is not None
    assert head_commit(dirs[0]) == git(linked, "rev-parse", "HEAD")


@pytest.mark.parametrize("content", ["ref: refs/heads/gone\n", "garbage\n", "ref: refs/heads/main\n"])
def test_head_commit_odd_heads(tmp_path: Path, content: str) -> None:
    gdir = tmp_path / "g"
    (gdir / "refs" / "heads").mkdir(parents=True)
    (gdir / "HEAD").write_text(content)
    (gdir / "refs" / "heads" / "main").write_text("ref: refs/heads/other\n")  # a symbolic chain: not followed
    assert head_commit(gdir) is None


def test_ref_names_reads_loose_and_packed_refs_without_git(tmp_path: Path) -> None:
    import subprocess

    from gitmem.base.gitio import ref_names

    root = tmp_path / "r"
    subprocess.run(["git", "init", "-q", "-b", "main", str(root)], check=True)
    subprocess.run(["git", "-C", str(root), "commit", "-q", "--allow-empty", "-m", "one"], check=True)
    for tag in ("gitmem/snapshot/2026-10", "gitmem/snapshot/2026-11", "other"):
        subprocess.run(["git", "-C", str(root), "tag", tag], check=True)
    subprocess.run(["git", "-C", str(root), "pack-refs", "--all"], check=True)
    subprocess.run(["git", "-C", str(root), "tag", "gitmem/snapshot/2026-12"], check=True)   # loose
    assert ref_names(root / ".git", "refs/tags/gitmem/snapshot/") == [
        "refs/tags/gitmem/snapshot/2026-10", "refs/tags/gitmem/snapshot/2026-11", "refs/tags/gitmem/snapshot/2026-12"]
    assert ref_names(root / ".git", "refs/tags/nothing/") == []


_REF_NAME = st.from_regex(r"[a-z0-9]{1,5}(-[a-z0-9]{1,3})?", fullmatch=True)


@settings(max_examples=12, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(loose=st.lists(_REF_NAME, max_size=4, unique=True), packed=st.lists(_REF_NAME, max_size=4, unique=True),
       pack_head=st.booleans(), detach=st.booleans())
def test_reading_refs_from_files_agrees_with_pygit2(tmp_path_factory: pytest.TempPathFactory, loose: list[str],
                                                    packed: list[str], pack_head: bool, detach: bool) -> None:
    """The file readers shadow pygit2 (whose import costs a recall or a hook ~80 ms, bench/shortcuts.py):
    on random layouts of loose and packed refs, a packed or loose branch, a detached HEAD, they give
    pygit2's answers."""
    import pygit2

    from gitmem.base.gitio import ref_names

    root = tmp_path_factory.mktemp("refs")
    git(root, "init", "-q", "-b", "main")
    git(root, "-c", "user.name=t", "-c", "user.email=t@e", "commit", "-q", "--allow-empty", "-m", "one")
    git(root, "-c", "user.name=t", "-c", "user.email=t@e", "commit", "-q", "--allow-empty", "-m", "two")
    for name in packed:
        git(root, "tag", f"gitmem/snapshot/p{name}", "HEAD~1")
    if packed or pack_head:
        git(root, "pack-refs", "--all")
    for name in loose:
        git(root, "tag", f"gitmem/snapshot/l{name}")
    if detach:
        git(root, "checkout", "-q", "--detach", "HEAD~1")
    repo = pygit2.Repository(str(root))
    prefix = "refs/tags/gitmem/snapshot/"
    assert head_commit(root / ".git") == str(repo.head.target)
    assert ref_names(root / ".git", prefix) == sorted(r for r in repo.references if r.startswith(prefix))
