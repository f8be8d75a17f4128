"""gitmem.base.gitio.refwrite: a branch moved by a lock-file rename, as git's files backend moves it,
with the write path's ``index.lock`` released by the very next system call; checked against git."""

from __future__ import annotations

import subprocess
from datetime import datetime, timezone
from pathlib import Path

import pytest

from gitmem.base import gitio
from gitmem.base.errors import CasFailed
from gitmem.base.gitio import Git, refwrite

WHEN = datetime(2026, 11, 29, 12, 0, tzinfo=timezone.utc)


def git(root: Path, *args: str) -> str:
    done = subprocess.run(["git", *args], cwd=root, capture_output=True, text=True)
    assert done.returncode == 0, done.stderr
    return done.stdout


@pytest.fixture
def g(tmp_path: Path) -> Git:
    return gitio.init(tmp_path / "r")


def commit(g: Git, files: dict[str, bytes | None], message: str, branch: str = "main",
           release: tuple[str, ...] = ()) -> str:
    parent = g.tip(branch)
    return g.create_commit(branch, g.build_tree(parent, files), parent, message, WHEN, release=release)


def test_the_reflogs_are_those_git_writes(g: Git) -> None:
    first = commit(g, {"a.md": b"a\n"}, "first line\nof the subject\n\nbody\n")
    second = commit(g, {"b.md": b"b\n"}, "second\n")
    for log in ("HEAD", "main"):
        lines = git(g.root, "reflog", "show", "--format=%H %gs", log).splitlines()
        assert lines == [f"{second} commit: second", f"{first} commit (initial): first line of the subject"]
    raw = (g.git_dir / "logs" / "refs" / "heads" / "main").read_text().splitlines()
    sig = g.signature(WHEN)
    assert raw[1] == f"{first} {second} {sig.name} <{sig.email}> {int(WHEN.timestamp())} +0000\tcommit: second"
    git(g.root, "fsck", "--strict")
    assert git(g.root, "rev-parse", "main").strip() == second


def test_a_branch_that_is_not_checked_out_logs_only_itself(g: Git) -> None:
    base = commit(g, {"a.md": b"a\n"}, "base\n")
    g.set_ref("refs/heads/side", base, None)
    made = commit(g, {"s.md": b"s\n"}, "on side\n", branch="side")
    assert git(g.root, "rev-parse", "side").strip() == made
    assert "on side" not in (g.git_dir / "logs" / "HEAD").read_text()


def test_a_branch_only_in_packed_refs_moves_from_its_packed_value(g: Git) -> None:
    first = commit(g, {"a.md": b"a\n"}, "a\n")
    git(g.root, "pack-refs", "--all")
    assert not (g.common_dir / "refs" / "heads" / "main").exists()
    second = commit(g, {"b.md": b"b\n"}, "b\n")
    assert git(g.root, "rev-parse", "main").strip() == second
    assert git(g.root, "rev-parse", "main~1").strip() == first


def test_the_release_files_go_when_the_branch_moves(g: Git) -> None:
    commit(g, {"a.md": b"a\n"}, "a\n")
    held = [g.git_dir / "index.lock", g.git_dir / "gitmem-record"]
    for path in held:
        path.write_text("")
    commit(g, {"b.md": b"b\n"}, "b\n", release=tuple(str(p) for p in held))
    assert not any(p.exists() for p in held)


def test_a_moved_branch_is_refused_and_nothing_is_released(g: Git) -> None:
    first = commit(g, {"a.md": b"a\n"}, "a\n")
    commit(g, {"b.md": b"b\n"}, "b\n")
    held = g.git_dir / "index.lock"
    held.write_text("")
    with pytest.raises(CasFailed):
        g.create_commit("main", g.build_tree(first, {"c.md": b"c\n"}), first, "c\n", WHEN, release=(str(held),))
    assert held.exists()
    assert not (g.common_dir / "refs" / "heads" / "main.lock").exists()
    assert len(git(g.root, "reflog", "main").splitlines()) == 2


def test_a_ref_locked_by_a_live_git_is_a_lost_race_and_its_lock_is_kept(g: Git) -> None:
    commit(g, {"a.md": b"a\n"}, "a\n")
    lock = g.common_dir / "refs" / "heads" / "main.lock"
    parent = g.tip("main")
    tree = g.build_tree(parent, {"b.md": b"b\n"})
    lock.write_text("")   # made after the check in create_commit, as a person's git would
    with pytest.raises(refwrite.RefMoved):
        refwrite.move(str(g.common_dir), str(g.git_dir), "refs/heads/main", tree, parent, None)
    assert lock.exists() and g.tip("main") == parent


def test_log_all_ref_updates_decides_as_git_does(tmp_path: Path) -> None:
    cdir = str(tmp_path)
    assert refwrite.wants_log(lambda: None, cdir, "refs/heads/main", bare=False)
    assert not refwrite.wants_log(lambda: None, cdir, "refs/heads/main", bare=True)
    assert not refwrite.wants_log(lambda: "false", cdir, "refs/heads/main", bare=False)
    assert not refwrite.wants_log(lambda: "true", cdir, "refs/gitmem/x", bare=False)
    assert refwrite.wants_log(lambda: "always", cdir, "refs/gitmem/x", bare=True)
    (tmp_path / "logs" / "refs" / "gitmem").mkdir(parents=True)
    (tmp_path / "logs" / "refs" / "gitmem" / "x").write_text("")

    def unread() -> str | None:
        raise AssertionError("a ref that has a reflog gets its line whatever the setting: not read")

    assert refwrite.wants_log(unread, cdir, "refs/gitmem/x", bare=False)


def test_a_reflog_is_started_only_as_the_setting_says(g: Git) -> None:
    """The setting is read from the repository's configuration, once the branch has no reflog."""
    git(g.root, "config", "core.logAllRefUpdates", "false")
    commit(g, {"a.md": b"a\n"}, "a\n")
    assert not (g.common_dir / "logs" / "refs" / "heads" / "main").exists()
    git(g.root, "config", "core.logAllRefUpdates", "true")
    commit(g, {"b.md": b"b\n"}, "b\n")
    assert len(git(g.root, "reflog", "main").splitlines()) == 1


def test_refs_in_a_reftable_are_left_to_libgit2() -> None:
    assert not refwrite.supported("reftable")
    assert refwrite.supported("files") and refwrite.supported(" Files\n")
    assert refwrite.supported(None)
