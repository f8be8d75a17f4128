"""Tests for gitmem.api.repo: MemoryRepo.open (--repo, GITMEM_DIR, the nearest parent) and MemoryRepo.init."""

from __future__ import annotations

import shutil
import subprocess
from pathlib import Path

import pytest

from gitmem.api import MemoryRepo
from gitmem.base import clock
from gitmem.base.errors import GitmemError, NotARepoError, UsageError
from tests.conftest import NOW

T = clock.parse_time(NOW)


def git(root: Path, *args: str) -> str:
    done = subprocess.run(["git", *args], cwd=root, capture_output=True, text=True)
    assert done.returncode == 0, done.stderr
    return done.stdout.strip()


def make(path: Path) -> Path:
    setup = MemoryRepo.init(path, T, install_hooks=False).setup
    assert setup is not None and setup.created
    return path


# --------------------------------------------------------------------------- open

@pytest.mark.parametrize("as_str", [True, False])
def test_open_the_repository_named_by_repo(repo_dir: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch,
                                           as_str: bool) -> None:
    monkeypatch.chdir(tmp_path)
    repo = MemoryRepo.open(str(repo_dir) if as_str else repo_dir)
    assert isinstance(repo, MemoryRepo)
    assert repo.root == repo_dir.resolve()
    assert repo.head == git(repo_dir, "rev-parse", "HEAD")


def test_open_resolves_a_relative_repo_against_the_working_folder(repo_dir: Path,
                                                                  monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.chdir(repo_dir.parent)
    assert MemoryRepo.open(repo_dir.name).root == repo_dir.resolve()
    assert MemoryRepo.open(Path(".") / repo_dir.name / "memory" / "..").root == repo_dir.resolve()


def test_repo_wins_over_gitmem_dir_and_the_working_folder(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    a, b, c = make(tmp_path / "a"), make(tmp_path / "b"), make(tmp_path / "c")
    monkeypatch.setenv("GITMEM_DIR", str(b))
    monkeypatch.chdir(c)
    assert MemoryRepo.open(a).root == a.resolve()
    assert MemoryRepo.open().root == b.resolve()    # GITMEM_DIR before the working folder


def test_gitmem_dir_is_used_without_repo(repo_dir: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("GITMEM_DIR", str(repo_dir))
    monkeypatch.chdir(tmp_path)
    repo = MemoryRepo.open()
    assert repo.root == repo_dir.resolve()
    r = repo.remember("the nightly build runs at 02:00", now=T)
    assert MemoryRepo.open(repo_dir).show(r.id).content == "the nightly build runs at 02:00"


def test_an_empty_gitmem_dir_counts_as_unset(repo_dir: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("GITMEM_DIR", "")
    monkeypatch.chdir(repo_dir / "memory")
    assert MemoryRepo.open().root == repo_dir.resolve()


def test_a_gitmem_dir_that_is_not_a_repository_is_refused(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    empty = tmp_path / "plain"
    empty.mkdir()
    monkeypatch.setenv("GITMEM_DIR", str(empty))
    with pytest.raises(NotARepoError) as info:
        MemoryRepo.open()
    assert str(empty) in info.value.message
    assert info.value.hint == f"gitmem init {empty}"


def test_open_finds_the_nearest_parent(repo_dir: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    deep = repo_dir / "memory" / "project" / "x" / "y"
    deep.mkdir(parents=True)
    monkeypatch.chdir(deep)
    assert MemoryRepo.open().root == repo_dir.resolve()
    monkeypatch.chdir(repo_dir)
    assert MemoryRepo.open().root == repo_dir.resolve()


def test_the_nearest_of_two_nested_repositories_wins(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    outer = make(tmp_path / "outer")
    inner = make(outer / "skills" / "inner")
    monkeypatch.chdir(inner / "bank")
    assert MemoryRepo.open().root == inner.resolve()
    monkeypatch.chdir(outer / "bank")
    assert MemoryRepo.open().root == outer.resolve()


def test_open_with_nothing_found_says_how_to_name_one(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.chdir(tmp_path)
    with pytest.raises(NotARepoError) as info:
        MemoryRepo.open()
    assert "no memory repository here or in any parent folder" in info.value.message
    hint = info.value.hint
    assert hint is not None and "gitmem init" in hint and "--repo" in hint and "GITMEM_DIR" in hint


def test_a_folder_that_is_not_a_repository_is_refused_with_a_hint(tmp_path: Path) -> None:
    with pytest.raises(NotARepoError) as info:
        MemoryRepo.open(tmp_path)
    assert info.value.message == f"not a memory repository: {tmp_path}"
    assert info.value.hint == f"gitmem init {tmp_path}"
    with pytest.raises(NotARepoError):
        MemoryRepo.open(tmp_path / "missing")


def test_a_plain_git_repository_is_not_a_memory_repository(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    code = tmp_path / "code"
    code.mkdir()
    git(code, "init", "-q")
    with pytest.raises(NotARepoError):
        MemoryRepo.open(code)
    monkeypatch.chdir(code)
    with pytest.raises(NotARepoError):
        MemoryRepo.open()


def test_a_gitmem_yaml_outside_git_is_not_a_repository(repo_dir: Path, tmp_path: Path) -> None:
    loose = tmp_path / "loose"
    loose.mkdir()
    shutil.copy(repo_dir / "gitmem.yaml", loose / "gitmem.yaml")
    with pytest.raises(NotARepoError) as info:
        MemoryRepo.open(loose)
    assert info.value.hint is not None


def test_repo_inside_another_git_repository_never_writes_to_it(repo_dir: Path, tmp_path: Path) -> None:
    code = tmp_path / "code"
    code.mkdir()
    git(code, "init", "-q", "-b", "main")
    git(code, "commit", "-q", "--allow-empty", "-m", "the person's project")
    sub = code / "notes"
    sub.mkdir()
    shutil.copy(repo_dir / "gitmem.yaml", sub / "gitmem.yaml")
    tip = git(code, "rev-parse", "HEAD")
    try:
        MemoryRepo.open(sub).remember("the staging database listens on port 5432", now=T)
    except NotARepoError:
        pass
    assert git(code, "rev-parse", "HEAD") == tip


def test_the_walk_up_needs_git_beside_gitmem_yaml(repo_dir: Path, tmp_path: Path,
                                                   monkeypatch: pytest.MonkeyPatch) -> None:
    loose = tmp_path / "loose"
    (loose / "deeper").mkdir(parents=True)
    shutil.copy(repo_dir / "gitmem.yaml", loose / "gitmem.yaml")
    monkeypatch.chdir(loose / "deeper")
    with pytest.raises(NotARepoError):
        MemoryRepo.open()


def test_open_refuses_an_invalid_config(repo_dir: Path) -> None:
    (repo_dir / "gitmem.yaml").write_text("memory:\n  decay_base: 7\n")
    with pytest.raises(GitmemError, match="decay_base") as info:
        MemoryRepo.open(repo_dir)
    assert info.value.hint is not None and "gitmem check config" in info.value.hint


# --------------------------------------------------------------------------- init

def test_init_creates_a_repository_that_opens(tmp_path: Path) -> None:
    path = tmp_path / "a" / "b" / "mem"
    repo = MemoryRepo.init(path, T, install_hooks=False)
    result = repo.setup
    assert result is not None
    assert result.created and result.path == path and result.hooks_installed is False
    assert result.commit == git(path, "rev-parse", "HEAD")
    assert result.message == f"created memory repository {path}"
    assert repo.head == result.commit and repo.list().memories == ()
    assert MemoryRepo.open(path).setup is None
    assert git(path, "log", "-1", "--format=%cI").startswith("2026-11-29T12:00:00")


def test_init_returns_a_repository_ready_for_use(tmp_path: Path) -> None:
    """The README's Python example: ``MemoryRepo.init`` gives something to remember into."""
    repo = MemoryRepo.init(tmp_path / "mem", T, install_hooks=False)
    r = repo.remember("I prefer small pull requests", now=T)
    assert r.action == "created"
    assert [h.id for h in repo.recall("pull request size", k=5, now=T)] == [r.id]


def test_init_takes_a_string_and_expands_the_home_folder(isolated_env: Path) -> None:
    result = MemoryRepo.init("~/memory", T, install_hooks=False).setup
    assert result is not None and result.created and result.path == isolated_env / "memory"
    assert (isolated_env / "memory" / "gitmem.yaml").is_file()


def test_init_without_now_reads_the_clock(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("GITMEM_NOW", "2025-03-04T05:06:07Z")
    path = tmp_path / "mem"
    MemoryRepo.init(path, install_hooks=False)
    assert git(path, "log", "-1", "--format=%aI") == "2025-03-04T05:06:07+00:00"


def test_init_on_an_existing_repository_changes_nothing(repo_dir: Path) -> None:
    tip = git(repo_dir, "rev-parse", "HEAD")
    again = MemoryRepo.init(repo_dir, T, install_hooks=False).setup
    assert again is not None
    assert (again.created, again.commit, again.hooks_installed) == (False, None, False)
    assert "already a gitmem repository" in again.message and "nothing to do" in again.message
    assert git(repo_dir, "rev-parse", "HEAD") == tip and git(repo_dir, "status", "--porcelain") == ""


def test_init_refuses_a_folder_that_is_not_empty(tmp_path: Path) -> None:
    folder = tmp_path / "notes"
    folder.mkdir()
    (folder / "todo.txt").write_text("mine")
    with pytest.raises(UsageError) as info:
        MemoryRepo.init(folder, T, install_hooks=False)
    assert "is not empty and is not a gitmem repository" in info.value.message
    assert info.value.hint == f"choose an empty or new folder, e.g. `gitmem init {folder}/memory`"
    assert sorted(p.name for p in folder.iterdir()) == ["todo.txt"]
    assert (folder / "todo.txt").read_text() == "mine"


def test_init_refuses_a_plain_git_repository(tmp_path: Path) -> None:
    code = tmp_path / "code"
    code.mkdir()
    git(code, "init", "-q")
    with pytest.raises(UsageError, match="not empty"):
        MemoryRepo.init(code, T, install_hooks=False)
    assert not (code / "gitmem.yaml").exists()


def test_init_refuses_a_file(tmp_path: Path) -> None:
    target = tmp_path / "file.md"
    target.write_text("x")
    with pytest.raises(UsageError, match="is a file, not a folder") as info:
        MemoryRepo.init(target, T, install_hooks=False)
    assert info.value.hint is not None
    assert target.read_text() == "x"


def test_init_into_an_empty_folder(tmp_path: Path) -> None:
    folder = tmp_path / "empty"
    folder.mkdir()
    result = MemoryRepo.init(folder, T, install_hooks=False).setup
    assert result is not None and result.created and MemoryRepo.open(folder).root == folder.resolve()


def test_the_readme_python_example_runs_as_written(isolated_env: Path) -> None:
    """README's "Python API" block, executed verbatim with a fresh home folder."""
    readme = (Path(__file__).resolve().parents[1] / "README.md").read_text()
    block = readme.split("## Python API", 1)[1].split("```python\n", 1)[1].split("```", 1)[0]
    assert "MemoryRepo.init" in block
    exec(compile(block, "README.md", "exec"), {})
    repo = MemoryRepo.open(isolated_env / "memory")
    assert [m.content for m in repo.list().memories] == ["I prefer small pull requests"]
