"""Per-clone state: paths found through git (linked work trees, submodules), the JSON-lines logs,
and finding the memory repository."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

from gitmem.base import state
from gitmem.base.errors import NotARepoError


def git(root: Path, *args: str) -> str:
    done = subprocess.run(["git", *args], cwd=root, capture_output=True, text=True)
    assert done.returncode == 0, done.stderr
    return done.stdout.strip()


@pytest.fixture(autouse=True)
def fresh_cache() -> None:
    state.forget_git_dirs()


@pytest.fixture
def repo(plain_git_repo: Path) -> Path:
    return plain_git_repo


@pytest.fixture
def linked(linked_worktree: Path) -> Path:
    return linked_worktree


# --- where things live ---------------------------------------------------------------

def test_plain_clone_keeps_everything_under_dot_git_gitmem(repo: Path) -> None:
    assert state.shared_dir(repo) == repo / ".git" / "gitmem"
    assert state.worktree_dir(repo) == repo / ".git" / "gitmem"
    assert state.index_path(repo) == repo / ".git" / "gitmem" / "index.sqlite"
    assert state.events_path(repo) == repo / ".git" / "gitmem" / "events.jsonl"
    assert state.config_cache_path(repo) == str(repo / ".git" / "gitmem" / "config.json")
    assert (repo / ".git" / "gitmem").is_dir()


def test_linked_worktree_shares_logs_but_keeps_its_own_index(repo: Path, linked: Path) -> None:
    common = Path(git(linked, "rev-parse", "--path-format=absolute", "--git-common-dir"))
    own = Path(git(linked, "rev-parse", "--path-format=absolute", "--git-dir"))
    assert state.shared_dir(linked) == common / "gitmem" == state.shared_dir(repo)
    assert state.events_path(linked) == state.events_path(repo)
    assert state.worktree_dir(linked) == own / "gitmem"
    assert state.index_path(linked) != state.index_path(repo)
    assert state.config_cache_path(linked) == str(own / "gitmem" / "config.json")
    assert not (linked / ".git").is_dir()   # a linked work tree's .git is a file: nothing written beside it


def test_submodule_style_gitdir_file(tmp_path: Path) -> None:
    store = tmp_path / "super" / ".git" / "modules" / "sub"
    store.parent.mkdir(parents=True)
    sub = tmp_path / "super" / "sub"
    git(tmp_path, "init", "-q", "--separate-git-dir", str(store), str(sub))
    (sub / ".git").write_text("gitdir: ../.git/modules/sub\n")
    assert state.shared_dir(sub) == store / "gitmem"
    assert state.index_path(sub) == store / "gitmem" / "index.sqlite"


def test_git_dirs_outside_git_is_not_a_repository(tmp_path: Path) -> None:
    with pytest.raises(NotARepoError) as caught:
        state.git_dirs(tmp_path)
    assert str(tmp_path) in caught.value.message
    assert caught.value.hint == f"gitmem init {tmp_path}"


def test_git_dirs_are_cached_per_process(repo: Path, tmp_path: Path) -> None:
    first = state.git_dirs(repo)
    moved = tmp_path / "moved"
    os.rename(repo, moved)
    assert state.git_dirs(repo) == first          # no new look-up while the process lives
    state.forget_git_dirs()
    with pytest.raises(NotARepoError):
        state.git_dirs(repo)


def test_git_dirs_accept_str_and_relative_paths(repo: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.chdir(repo.parent)
    assert state.git_dirs("main") == state.git_dirs(str(repo)) == state.git_dirs(repo)


# --- JSON-lines logs -----------------------------------------------------------------------

def test_append_then_read_in_order(tmp_path: Path) -> None:
    log = tmp_path / "log.jsonl"
    records = [{"n": i, "text": "é"} for i in range(5)]
    for record in records:
        state.append(log, record)
    assert list(state.read(log)) == records
    assert "é" in log.read_text(encoding="utf-8")   # kept readable, not \\u-escaped
    assert oct(log.stat().st_mode & 0o777) == "0o600"


def test_read_skips_torn_and_foreign_lines(tmp_path: Path) -> None:
    log = tmp_path / "log.jsonl"
    log.write_text('{"a": 1}\n[1, 2]\n"text"\n{"b": 2}\n{"torn": ', encoding="utf-8")
    assert list(state.read(log)) == [{"a": 1}, {"b": 2}]


def test_read_of_a_missing_log_is_empty(tmp_path: Path) -> None:
    assert list(state.read(tmp_path / "none.jsonl")) == []


def test_set_aside_moves_then_appends(tmp_path: Path) -> None:
    log, aside = tmp_path / "log.jsonl", tmp_path / "aside.jsonl"
    state.set_aside(log, aside)                 # nothing to move
    assert not aside.exists()
    state.append(log, {"n": 1})
    state.set_aside(log, aside)
    assert not log.exists()
    state.append(log, {"n": 2})
    state.set_aside(log, aside)                 # an earlier set-aside is still there: appended to
    assert [r["n"] for r in state.read(aside)] == [1, 2]
    assert not log.exists()
    assert sorted(p.name for p in tmp_path.iterdir()) == ["aside.jsonl"]


def test_log_event_lands_in_the_shared_event_log(repo: Path, linked: Path) -> None:
    state.log_event(repo, "write", "2026-11-29T12:00:00Z", commit="abc")
    state.log_event(linked, "secret.rejected", "2026-11-29T12:01:00Z", kinds=["aws"])
    records = list(state.read(state.events_path(repo)))
    assert records == [
        {"event": "write", "at": "2026-11-29T12:00:00Z", "commit": "abc"},
        {"event": "secret.rejected", "at": "2026-11-29T12:01:00Z", "kinds": ["aws"]},
    ]
    line = state.events_path(repo).read_text().splitlines()[0]
    assert list(json.loads(line)) == ["at", "commit", "event"]   # sorted keys: stable diffs


def test_concurrent_appends_do_not_interleave(tmp_path: Path) -> None:
    log = tmp_path / "log.jsonl"
    script = ("import sys; from pathlib import Path; from gitmem.base import state\n"
              "for i in range(200): state.append(Path(sys.argv[1]), {'w': sys.argv[2], 'i': i, 'pad': 'x' * 500})\n")
    procs = [subprocess.Popen([sys.executable, "-c", script, str(log), str(w)]) for w in range(4)]
    assert all(p.wait() == 0 for p in procs)
    records = list(state.read(log))
    assert len(records) == 800
    assert len(log.read_text().splitlines()) == 800


# --- finding the memory repository -----------------------------------------------------

def make_memory_repo(path: Path) -> Path:
    path.mkdir(parents=True)
    git(path, "init", "-q")
    (path / "gitmem.yaml").write_text("{}\n")
    return path


def test_find_root_explicit_wins(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    mem = make_memory_repo(tmp_path / "mem")
    other = make_memory_repo(tmp_path / "other")
    monkeypatch.setenv("GITMEM_DIR", str(other))
    assert state.find_root(mem, cwd=other) == mem.resolve()


def test_find_root_env_dir_when_no_explicit(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    mem = make_memory_repo(tmp_path / "mem")
    monkeypatch.setenv("GITMEM_DIR", str(mem))
    assert state.find_root(None, cwd=tmp_path) == mem.resolve()
    monkeypatch.setenv("GITMEM_DIR", "")
    with pytest.raises(NotARepoError):
        state.find_root(None, cwd=tmp_path)


def test_find_root_rejects_a_folder_without_gitmem_yaml(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    with pytest.raises(NotARepoError) as caught:
        state.find_root(tmp_path)
    assert caught.value.hint == f"gitmem init {tmp_path}"
    monkeypatch.setenv("GITMEM_DIR", str(tmp_path))
    with pytest.raises(NotARepoError):
        state.find_root(None)


def test_find_root_walks_up_to_the_nearest_parent(tmp_path: Path) -> None:
    mem = make_memory_repo(tmp_path / "mem")
    deep = mem / "memory" / "user"
    deep.mkdir(parents=True)
    assert state.find_root(cwd=deep) == mem.resolve()


def test_find_root_needs_git_beside_gitmem_yaml(tmp_path: Path) -> None:
    folder = tmp_path / "loose"
    folder.mkdir()
    (folder / "gitmem.yaml").write_text("{}\n")
    with pytest.raises(NotARepoError) as caught:
        state.find_root(cwd=folder)
    assert "--repo" in (caught.value.hint or "")


def test_find_root_in_a_linked_worktree(tmp_path: Path) -> None:
    mem = make_memory_repo(tmp_path / "mem")
    git(mem, "add", "gitmem.yaml")
    git(mem, "commit", "-q", "-m", "init")
    wt = tmp_path / "wt"
    git(mem, "worktree", "add", "-q", "-b", "side", str(wt))
    assert state.find_root(cwd=wt) == wt.resolve()


def test_find_root_expands_the_home_folder(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("HOME", str(tmp_path))
    mem = make_memory_repo(tmp_path / "mem")
    assert state.find_root("~/mem") == mem.resolve()


# --- a memory repository with a linked work tree, end to end ----------------------------------

def test_memory_repository_in_a_linked_worktree(tmp_path: Path) -> None:
    from gitmem.api import MemoryRepo
    from gitmem.base.clock import parse_time

    now = parse_time("2026-11-29T12:00:00Z")
    main = tmp_path / "mem"
    MemoryRepo.init(main, now, install_hooks=False)
    wt = tmp_path / "wt"
    git(main, "worktree", "add", "-q", "-b", "side", str(wt))
    state.forget_git_dirs()
    ours, theirs = MemoryRepo.open(main), MemoryRepo.open(wt)
    ours.remember("The staging database listens on port 5432.", now=now)
    theirs.remember("Deploys happen on Tuesday afternoons.", now=now)
    assert [h.content for h in theirs.recall("deploys tuesday", now=now)][:1] == ["Deploys happen on Tuesday afternoons."]
    assert not [h for h in theirs.recall("staging database port", now=now) if "5432" in h.content]
    assert [h for h in ours.recall("staging database port", now=now) if "5432" in h.content]
    assert state.index_path(wt).exists() and state.index_path(main).exists()
    assert state.index_path(wt) != state.index_path(main)
    writes = [r for r in state.read(state.events_path(main)) if r["event"] == "write"]
    assert {r["branch"] for r in writes} == {"main", "side"}          # one event log for the clone
    assert not (Path(git(wt, "rev-parse", "--path-format=absolute", "--git-dir")) / "gitmem" / "events.jsonl").exists()
    assert git(wt, "status", "--porcelain") == "" and git(main, "status", "--porcelain") == ""


def test_the_salt_is_made_once_per_clone_and_kept_private(repo_dir: Path) -> None:
    first = state.salt(repo_dir)
    assert len(first) == 32 and state.salt(repo_dir) == first
    path = state.shared_dir(repo_dir) / state.SALT_FILE
    assert path.stat().st_mode & 0o077 == 0


def test_known_names_keep_hashes_and_add_to_them(repo_dir: Path) -> None:
    assert state.known_names(repo_dir) == frozenset()
    state.add_known_names(repo_dir, frozenset({"aa", "bb"}))
    state.add_known_names(repo_dir, frozenset({"bb", "cc"}))
    assert state.known_names(repo_dir) == {"aa", "bb", "cc"}


def test_threads_making_the_salt_at_once_all_read_the_one_salt(repo_dir: Path) -> None:
    from tests.conftest import at_once

    got, errors = at_once(16, lambda: state.salt(repo_dir))
    assert errors == [] and len(got) == 16 and len(set(got)) == 1
    assert not [name for name in os.listdir(state.shared_dir(repo_dir)) if name.endswith(".tmp")]
