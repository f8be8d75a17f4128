"""Ref locks: a lock left by a killed gitmem writer is cleared; anyone else's is reported, never deleted."""

from __future__ import annotations

import json
import os
import socket
import subprocess
import sys
import time
from pathlib import Path

import pytest

from gitmem.api import MemoryRepo
from gitmem.base.clock import parse_time
from gitmem.base.errors import ConflictError
from gitmem.base.gitio import reflocks

T = parse_time("2026-11-29T12:00:00Z")


def dead_pid() -> int:
    child = subprocess.Popen([sys.executable, "-c", "pass"])
    child.wait()
    return child.pid


def test_a_lock_left_by_a_killed_gitmem_writer_is_cleared(repo: MemoryRepo, repo_dir: Path) -> None:
    common = repo.git.common_dir
    lock = reflocks.lock_path(common, "refs/heads/main")
    lock.write_text("")
    record = reflocks.record_path(common, "refs/heads/main")
    record.parent.mkdir(parents=True, exist_ok=True)
    record.write_text(json.dumps({"pid": dead_pid(), "host": socket.gethostname(), "start": "1"}))
    r = repo.remember("the cache is warmed before the tests", now=T)
    assert r.commit is not None and not lock.exists() and names_no_writer(record)


def names_no_writer(record: Path) -> bool:
    """True when ``record`` is gone or blank: it no longer says that a gitmem writer holds the ref."""
    if not record.exists():
        return True
    return bool(json.loads(record.read_text(encoding="utf-8")) == {})


def _dead_writers_lock(repo: MemoryRepo, ref: str = "refs/heads/main") -> tuple[Path, Path]:
    """What a writer killed inside libgit2's ref update leaves: the ref's lock and gitmem's record of it."""
    common = repo.git.common_dir
    lock = reflocks.lock_path(common, ref)
    lock.parent.mkdir(parents=True, exist_ok=True)
    lock.write_text("")
    record = reflocks.record_path(common, ref)
    record.parent.mkdir(parents=True, exist_ok=True)
    record.write_text(json.dumps({"pid": dead_pid(), "host": socket.gethostname(), "start": "1"}))
    return lock, record


def test_recover_removes_a_lock_left_by_a_killed_writer_and_no_other(repo: MemoryRepo) -> None:
    repo.remember("the cache is warmed before the tests", now=T)
    lock, record = _dead_writers_lock(repo)
    foreign = reflocks.lock_path(repo.git.common_dir, "refs/heads/topic")
    foreign.write_text("")                         # no record: a person's git, never gitmem's to remove
    assert repo.recover() is True
    assert not lock.exists() and not record.exists() and foreign.exists()
    assert repo.recover() is False


def test_a_lock_taken_long_after_a_dead_writers_record_is_not_gitmems(repo: MemoryRepo) -> None:
    """A killed writer's record outlives it; a person's git that locks the ref much later owns that lock."""
    lock, record = _dead_writers_lock(repo)
    later = record.stat().st_mtime + reflocks.OURS_WITHIN + 5
    os.utime(lock, (later, later))
    assert reflocks.lock_owner(record, lock) is None
    assert reflocks.clear_dead_writers(repo.git.common_dir) == [] and lock.exists()


def test_a_persons_commit_after_a_killed_writer_is_not_failed_by_its_ref_lock(tmp_path: Path) -> None:
    """git locks the branch at the very end of a commit, after its hooks: gitmem's pre-commit hook
    frees a lock its own record shows dead first, so the person's commit goes through."""
    root = tmp_path / "mem"
    repo = MemoryRepo.init(root, T, install_hooks=True)
    assert repo.setup is not None and repo.setup.hooks_installed
    repo.remember("the cache is warmed before the tests", now=T)
    lock, record = _dead_writers_lock(repo)
    (root / "notes.txt").write_text("a person's own file\n")
    subprocess.run(["git", "add", "notes.txt"], cwd=root, check=True)
    done = subprocess.run(["git", "commit", "-qm", "a person's note"], cwd=root, capture_output=True, text=True)
    assert done.returncode == 0, done.stderr
    assert "left by a gitmem writer that was killed" in done.stderr
    assert not lock.exists() and names_no_writer(record)
    live = reflocks.lock_path(repo.git.common_dir, "refs/heads/main")
    live.write_text("")                            # a lock gitmem has no record of stays, and git says so
    (root / "notes.txt").write_text("changed\n")
    refused = subprocess.run(["git", "commit", "-qam", "again"], cwd=root, capture_output=True, text=True)
    assert refused.returncode != 0 and "main.lock" in refused.stderr and live.exists()


def test_a_foreign_lock_is_reported_with_the_command_and_kept(repo: MemoryRepo) -> None:
    lock = reflocks.lock_path(repo.git.common_dir, "refs/heads/main")
    lock.write_text("")
    old = time.time() - 60
    os.utime(lock, (old, old))
    with pytest.raises(ConflictError) as info:
        repo.remember("a note while a person's git holds the branch", now=T)
    assert info.value.hint is not None and "rm '" in info.value.hint and str(lock) in info.value.hint
    assert lock.exists()


def test_a_lock_whose_recorded_writer_lives_is_kept(repo: MemoryRepo) -> None:
    common = repo.git.common_dir
    lock = reflocks.lock_path(common, "refs/heads/main")
    lock.write_text("")
    old = time.time() - 60
    os.utime(lock, (old, old))
    record = reflocks.record_path(common, "refs/heads/main")
    record.parent.mkdir(parents=True, exist_ok=True)
    record.write_text(json.dumps({"pid": os.getpid(), "host": socket.gethostname(),
                                  "start": reflocks.process_start(os.getpid())}))
    with pytest.raises(ConflictError):
        repo.remember("another note", now=T)
    assert lock.exists()


def test_the_record_names_no_writer_after_a_commit(repo: MemoryRepo) -> None:
    record = reflocks.record_path(repo.git.common_dir, "refs/heads/main")
    repo.remember("release notes go in the changelog", now=T)
    assert record.exists() and names_no_writer(record)
    blank = record.stat().st_ino
    lock = reflocks.lock_path(repo.git.common_dir, "refs/heads/main")
    lock.write_text("")                # a person's git locks the branch just after our commit
    assert reflocks.lock_owner(record, lock) is None
    assert reflocks.clear_dead_writers(repo.git.common_dir) == [] and lock.exists()
    lock.unlink()
    repo.remember("the next commit rewrites the same record in place", now=T)
    assert record.stat().st_ino == blank and names_no_writer(record)


def test_a_record_is_rewritten_whole_over_an_older_one(tmp_path: Path) -> None:
    """A record written by an earlier version (shorter, or longer and torn) is read as this process's
    once rewritten, and as no writer once released."""
    record = tmp_path / "refs%heads%main.json"
    record.write_text(json.dumps({"pid": 1, "host": "h", "start": "1"}))
    reflocks.write_record(record)
    mine = json.loads(record.read_text(encoding="utf-8"))
    assert mine["pid"] == os.getpid() and mine["host"] == socket.gethostname()
    assert record.stat().st_size == reflocks.RECORD_BYTES
    lock = tmp_path / "main.lock"
    lock.write_text("")
    assert reflocks.lock_owner(record, lock) == "self"
    reflocks.release_record(record)
    assert reflocks.lock_owner(record, lock) is None and names_no_writer(record)
    reflocks.release_record(tmp_path / "none.json")   # nothing to release: no file made
    assert not (tmp_path / "none.json").exists()


@pytest.mark.parametrize("pid, start, expected", [
    (0, None, False), (-3, None, False), ("12", None, False), (True, None, False), (None, None, False),
])
def test_alive_refuses_what_is_not_a_pid(pid: object, start: object, expected: bool) -> None:
    assert reflocks.alive(pid, start) is expected


def test_alive_knows_this_process_a_dead_one_and_a_reused_pid() -> None:
    me = os.getpid()
    assert reflocks.alive(me, reflocks.process_start(me))
    assert not reflocks.alive(dead_pid(), None)
    if reflocks.process_start(me) is not None:   # Linux: /proc tells a reused pid
        assert not reflocks.alive(me, "0")


def test_a_fresh_foreign_lock_is_waited_for_not_reported(tmp_path: Path) -> None:
    lock = reflocks.lock_path(tmp_path, "refs/heads/x")
    lock.parent.mkdir(parents=True)
    lock.write_text("")
    reflocks.clear_stale(tmp_path, "refs/heads/x")   # waits a moment, raises nothing
    assert lock.exists()


def test_a_git_commit_running_in_a_work_tree_is_found_but_not_an_ancestor_or_another_tree(tmp_path: Path) -> None:

    from gitmem.base.gitio.reflocks import git_commit_in

    root = tmp_path / "r"
    subprocess.run(["git", "init", "-q", str(root)], check=True)
    editor = tmp_path / "editor.sh"
    editor.write_text("#!/bin/sh\nsleep 3\nexit 1\n")
    editor.chmod(0o755)
    assert git_commit_in(root) is None
    person = subprocess.Popen(["git", "commit", "--allow-empty"], cwd=root, env={**os.environ,
                              "GIT_EDITOR": str(editor)}, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    try:
        deadline = time.monotonic() + 10
        while git_commit_in(root) is None and time.monotonic() < deadline:
            time.sleep(0.02)
        assert git_commit_in(root) == person.pid
        assert git_commit_in(tmp_path / "elsewhere") is None
        # run from inside that commit (its editor, a hook): the commit is our ancestor, not waited for
        code = f"import sys; sys.path.insert(0, {str(Path(__file__).resolve().parent.parent)!r}); " \
               f"from gitmem.base.gitio.reflocks import git_commit_in; print(git_commit_in({str(root)!r}))"
        editor.write_text(f"#!/bin/sh\n{sys.executable} -c \"{code}\" > {tmp_path / 'seen'}\nexit 1\n")
    finally:
        person.wait()
    inner = subprocess.Popen(["git", "commit", "--allow-empty"], cwd=root, env={**os.environ,
                             "GIT_EDITOR": str(editor)}, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    inner.wait()
    assert (tmp_path / "seen").read_text().strip() == "None"
