"""``gitmem init``: a memory repository from the shipped templates, and its git hooks."""

from __future__ import annotations

import os
import subprocess
from pathlib import Path

import pytest

from gitmem.base.clock import parse_time
from gitmem.base.errors import UsageError
from gitmem.api import initrepo

NOW = parse_time("2026-11-29T12:00:00Z")


def git(root: Path, *args: str) -> str:
    done = subprocess.run(["git", *args], cwd=root, capture_output=True, text=True)
    assert done.returncode == 0, done.stderr
    return done.stdout


def test_template_dir_holds_every_template() -> None:
    tdir = initrepo.template_dir()
    assert initrepo.TEMPLATE_FILES
    for name in initrepo.TEMPLATE_FILES:
        assert (tdir / name).is_file(), name
    assert (tdir / "hooks" / "commit-msg").is_file()


def test_initial_files_cover_templates_bank_and_folders() -> None:
    files = initrepo.initial_files()
    assert set(initrepo.TEMPLATE_FILES) <= set(files)
    assert set(initrepo.BANK_FILES) <= set(files)
    assert initrepo.KEEP_FOLDERS
    for folder in initrepo.KEEP_FOLDERS:
        assert files[f"{folder}/.gitkeep"] == b""
    assert b"threshold: 15" in files[".gitmem/state.yaml"]


def test_init_makes_one_commit_with_a_clean_work_tree(tmp_path: Path) -> None:
    path = tmp_path / "mem"
    result = initrepo.init(path, NOW, install_hooks=False)
    assert result.created and result.path == path and not result.hooks_installed
    assert result.commit == git(path, "rev-parse", "HEAD").strip()
    assert git(path, "rev-list", "--count", "HEAD").strip() == "1"
    assert git(path, "status", "--porcelain") == ""
    assert git(path, "symbolic-ref", "--short", "HEAD").strip() == "main"
    assert git(path, "log", "-1", "--format=%(trailers:key=Gitmem-Event,valueonly)").strip() == "repo.init"
    assert git(path, "log", "-1", "--format=%aI") .startswith("2026-11-29T12:00:00")
    assert sorted(git(path, "ls-files").split()) == sorted(initrepo.initial_files())
    index = (path / ".git" / "index").read_bytes()
    assert index[4:8] == (4).to_bytes(4, "big")                      # index version 4
    assert not (path / ".git" / "hooks" / "commit-msg").exists()


def test_init_again_is_a_no_op(tmp_path: Path) -> None:
    path = tmp_path / "mem"
    first = initrepo.init(path, NOW, install_hooks=False)
    again = initrepo.init(path, NOW, install_hooks=False)
    assert not again.created and again.commit is None
    assert "already a gitmem repository" in again.message
    assert git(path, "rev-parse", "HEAD").strip() == first.commit


def test_init_refuses_a_file(tmp_path: Path) -> None:
    path = tmp_path / "file"
    path.write_text("x")
    with pytest.raises(UsageError) as caught:
        initrepo.init(path, NOW, install_hooks=False)
    assert "is a file" in caught.value.message


def test_init_refuses_a_folder_that_is_not_empty(tmp_path: Path) -> None:
    (tmp_path / "notes.txt").write_text("mine")
    with pytest.raises(UsageError) as caught:
        initrepo.init(tmp_path, NOW, install_hooks=False)
    assert caught.value.hint is not None and "gitmem init" in caught.value.hint
    assert not (tmp_path / ".git").exists()


def test_init_into_an_existing_empty_folder(tmp_path: Path) -> None:
    path = tmp_path / "empty"
    path.mkdir()
    assert initrepo.init(path, NOW, install_hooks=False).created


def test_install_git_hooks_installs_both_stages(tmp_path: Path) -> None:
    path = tmp_path / "mem"
    result = initrepo.init(path, NOW, install_hooks=True)
    assert result.hooks_installed
    pre_commit = path / ".git" / "hooks" / "pre-commit"
    commit_msg = path / ".git" / "hooks" / "commit-msg"
    assert pre_commit.is_file() and os.access(pre_commit, os.X_OK)
    assert commit_msg.read_bytes() == initrepo.hook_scripts()["commit-msg"]
    assert pre_commit.read_bytes() == initrepo.hook_scripts()["pre-commit"]
    assert os.access(commit_msg, os.X_OK)


def test_install_git_hooks_keeps_an_existing_commit_msg_hook(tmp_path: Path) -> None:
    path = tmp_path / "mem"
    initrepo.init(path, NOW, install_hooks=False)
    mine = path / ".git" / "hooks" / "commit-msg"
    mine.parent.mkdir(parents=True, exist_ok=True)
    mine.write_text("#!/bin/sh\nexit 0\n")
    assert initrepo.install_git_hooks(path) == ["pre-commit", "post-merge", "pre-merge-commit", "reference-transaction"]
    assert mine.read_text() == "#!/bin/sh\nexit 0\n"


def test_install_git_hooks_follows_core_hooks_path(tmp_path: Path) -> None:
    path = tmp_path / "mem"
    initrepo.init(path, NOW, install_hooks=False)
    hooks = tmp_path / "shared-hooks"
    git(path, "config", "core.hooksPath", str(hooks))
    assert initrepo.install_git_hooks(path) == ["pre-commit", "commit-msg", "post-merge", "pre-merge-commit",
                                                  "reference-transaction"]
    assert (hooks / "commit-msg").is_file() and (hooks / "pre-commit").is_file()


def test_install_git_hooks_outside_git(tmp_path: Path) -> None:
    assert initrepo.install_git_hooks(tmp_path) == []
    assert list(tmp_path.iterdir()) == []


def test_init_on_a_clone_installs_the_missing_hooks(tmp_path: Path) -> None:
    """A clone of a memory repository has no hooks; `gitmem init` on it installs them and says so."""
    import subprocess

    from gitmem.api.initrepo import init

    origin = tmp_path / "origin"
    init(origin, parse_time("2026-11-29T12:00:00Z"), install_hooks=False)
    clone = tmp_path / "clone"
    subprocess.run(["git", "clone", "-q", str(origin), str(clone)], check=True)
    assert not (clone / ".git" / "hooks" / "commit-msg").exists()
    first = init(clone, parse_time("2026-11-29T12:00:00Z"))
    assert not first.created and first.commit is None
    assert (clone / ".git" / "hooks" / "commit-msg").exists()
    assert first.hooks_installed and (clone / ".git" / "hooks" / "pre-commit").exists()   # pre-commit is a dependency
    assert "installed its git hooks" in first.message
    again = init(clone, parse_time("2026-11-29T12:00:00Z"))
    assert "hooks already installed" in again.message and "nothing to do" in again.message


def test_init_refuses_gitmem_files_outside_git(tmp_path: Path) -> None:
    from gitmem.base.errors import UsageError
    from gitmem.api.initrepo import init

    folder = tmp_path / "loose"
    folder.mkdir()
    (folder / "gitmem.yaml").write_text("{}\n")
    with pytest.raises(UsageError) as info:
        init(folder, parse_time("2026-11-29T12:00:00Z"))
    assert info.value.hint and "git init" in info.value.hint


def test_init_on_an_existing_repository_upgrades_earlier_hooks_and_keeps_a_persons(tmp_path: Path) -> None:
    path = tmp_path / "mem"
    initrepo.init(path, NOW, install_hooks=False)
    hooks = path / ".git" / "hooks"
    hooks.mkdir(exist_ok=True)
    # what an earlier gitmem installed: the pre-commit framework's hook, a commit-msg needing `gitmem` on PATH
    (hooks / "pre-commit").write_text("#!/usr/bin/env bash\n# File generated by pre-commit: https://pre-commit.com\n")
    (hooks / "commit-msg").write_text("#!/bin/sh\nexec gitmem hook msg \"$1\"\n")
    again = initrepo.init(path, NOW, install_hooks=True)
    assert again.hooks_installed and ("installed its git hooks (pre-commit, commit-msg, post-merge, pre-merge-commit, "
                                      "reference-transaction)") in again.message
    assert (hooks / "pre-commit").read_bytes() == initrepo.hook_scripts()["pre-commit"]
    assert "nothing to do" in initrepo.init(path, NOW, install_hooks=True).message
    (hooks / "commit-msg").write_text("#!/bin/sh\nexit 0\n")   # a person's own
    kept = initrepo.init(path, NOW, install_hooks=True)
    assert not kept.hooks_installed and "not gitmem's" in kept.message
    assert (hooks / "commit-msg").read_text() == "#!/bin/sh\nexit 0\n"
