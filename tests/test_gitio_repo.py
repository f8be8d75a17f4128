"""gitmem.base.gitio.repo: one repository read and written with pygit2, checked against git itself."""

from __future__ import annotations

import json
import os
import socket
import subprocess
import sys
import time
from datetime import datetime, timezone
from pathlib import Path

import pytest

from gitmem.base import gitio
from gitmem.base.errors import CasFailed, ConflictError, GitmemError, IndexLocked, NotFoundError, SecurityError
from gitmem.base.gitio import CommitInfo, Git, PathChange

WHEN = datetime(2026, 11, 29, 12, 0, tzinfo=timezone.utc)


def git(root: Path, *args: str, stdin: str | None = None) -> str:
    done = subprocess.run(["git", *args], cwd=root, input=stdin, capture_output=True, text=True)
    assert done.returncode == 0, done.stderr
    return done.stdout


@pytest.fixture
def g(tmp_path: Path) -> Git:
    return gitio.init(tmp_path / "r")


def commit(g: Git, changes: dict[str, bytes | None], message: str = "c\n", branch: str = "main") -> str:
    parent = g.tip(branch)
    tree = g.build_tree(parent, changes)
    return g.create_commit(branch, tree, parent, message, WHEN)


# --- opening -----------------------------------------------------------------------

def test_init_makes_an_unborn_branch(g: Git) -> None:
    assert g.head_branch() == "main"
    assert g.tip("main") is None
    assert g.root.is_dir() and g.git_dir == g.root / ".git"
    assert g.common_dir == g.root / ".git"


def test_opening_a_folder_that_is_not_git(tmp_path: Path) -> None:
    with pytest.raises(NotFoundError) as caught:
        Git(tmp_path / "nothing")
    assert "not a git repository" in caught.value.message


def test_discover_from_a_subfolder(g: Git) -> None:
    sub = g.root / "a" / "b"
    sub.mkdir(parents=True)
    assert gitio.discover(sub) == g.root
    assert gitio.discover(Path("/")) is None


def test_a_linked_worktree_has_its_own_git_dir_and_a_shared_common_dir(g: Git, tmp_path: Path) -> None:
    commit(g, {"a.txt": b"a\n"})
    git(g.root, "worktree", "add", "-q", "-b", "side", str(tmp_path / "wt"))
    wt = Git(tmp_path / "wt")
    assert wt.root == tmp_path / "wt"
    assert wt.common_dir == g.git_dir
    assert wt.git_dir != g.git_dir
    assert wt.head_branch() == "side"


# --- writing and reading -------------------------------------------------------------

def test_commit_is_what_git_sees(g: Git) -> None:
    first = commit(g, {"memory/user/m-1.md": b"one\n", "README.md": b"hi\n"}, "first\n\nGitmem-Event: x\n")
    assert git(g.root, "rev-parse", "main").strip() == first
    assert git(g.root, "show", f"{first}:memory/user/m-1.md") == "one\n"
    assert git(g.root, "log", "-1", "--format=%an <%ae>|%at") == f"Test Person <test@example.com>|{int(WHEN.timestamp())}\n"
    info = g.commit(first)
    assert isinstance(info, CommitInfo)
    assert info.id == first and info.parents == () and info.subject == "first"
    assert info.time == "2026-11-29T12:00:00Z"
    assert info.author == "Test Person <test@example.com>"
    assert g.tree_id(first) == git(g.root, "rev-parse", f"{first}^{{tree}}").strip()


def test_signature_takes_a_naive_time_as_utc(g: Git) -> None:
    sig = g.signature(datetime(2026, 1, 1))
    assert (sig.name, sig.email) == ("Test Person", "test@example.com")
    assert sig.time == int(datetime(2026, 1, 1, tzinfo=timezone.utc).timestamp())
    assert sig.offset == 0


def test_read_files_and_blobs(g: Git) -> None:
    first = commit(g, {"memory/user/a.md": b"A", "memory/self/b.md": b"B", "top.md": b"T"})
    assert g.read("memory/user/a.md", first) == b"A"
    assert g.read("memory/user/none.md", first) is None
    assert g.read("memory/user", first) is None                      # a folder is not a file
    assert dict(g.blobs("memory", first)) == {"memory/user/a.md": b"A", "memory/self/b.md": b"B"}
    assert dict(g.blobs("memory/", first)) == {"memory/user/a.md": b"A", "memory/self/b.md": b"B"}
    files = dict(g.files("", first))
    assert set(files) == {"memory/user/a.md", "memory/self/b.md", "top.md"}
    assert g.blob(files["top.md"]) == b"T"
    assert list(g.files("nope", first)) == []
    assert list(g.files("top.md", first)) == []                     # a file is not a folder


def test_unknown_revision_is_not_found(g: Git) -> None:
    commit(g, {"a": b"a"})
    with pytest.raises(NotFoundError) as caught:
        g.commit("no-such-branch")
    assert caught.value.hint is not None and "git log" in caught.value.hint
    assert list(g.log("no-such-branch")) == []


def test_deleting_the_last_file_of_a_folder_removes_the_folder(g: Git) -> None:
    first = commit(g, {"a/b/c.md": b"c", "a/keep.md": b"k"})
    second = commit(g, {"a/b/c.md": None})
    assert dict(g.files("", second)) .keys() == {"a/keep.md"}
    assert g.diff(first, second) == [PathChange("D", "a/b/c.md")]
    third = commit(g, {"a/keep.md": None, "gone.md": None})          # deleting what is not there is a no-op
    assert list(g.files("", third)) == []


def test_a_file_cannot_become_a_folder_or_the_reverse(g: Git) -> None:
    commit(g, {"a/b.md": b"x", "f": b"file"})
    with pytest.raises(ConflictError):
        g.build_tree(g.tip("main"), {"a": b"now a file"})
    with pytest.raises(ConflictError):
        g.build_tree(g.tip("main"), {"f/inside.md": b"x"})


def test_writing_under_a_symlink_is_refused(g: Git) -> None:
    (g.root / "target").mkdir()
    os.symlink("target", g.root / "link")
    git(g.root, "add", "link")
    git(g.root, "commit", "-q", "-m", "symlink")
    head = g.tip("main")
    with pytest.raises(SecurityError):
        g.build_tree(head, {"link/x.md": b"x"})
    with pytest.raises(SecurityError):
        g.build_tree(head, {"link/deeper/x.md": b"x"})
    assert g.build_tree(head, {"other/x.md": b"x", "link": b"a file over the symlink replaces it"})


def test_diff_statuses_and_renames(g: Git) -> None:
    first = commit(g, {"a.md": b"a", "b.md": b"b"})
    second = commit(g, {"a.md": b"a2", "b.md": None, "c.md": b"c"})
    assert sorted(g.diff(first, second)) == [PathChange("A", "c.md"), PathChange("D", "b.md"), PathChange("M", "a.md")]
    assert sorted(g.diff(None, first)) == [PathChange("A", "a.md"), PathChange("A", "b.md")]


def test_log_by_path_and_limit(g: Git) -> None:
    ids = [commit(g, {"a.md": b"1"}), commit(g, {"b.md": b"2"}), commit(g, {"a.md": b"3"}), commit(g, {"c.md": b"4"})]
    assert [c.id for c in g.log("main")] == list(reversed(ids))
    assert [c.id for c in g.log("main", path="a.md")] == [ids[2], ids[0]]
    assert [c.id for c in g.log("main", path=("b.md", "c.md"))] == [ids[3], ids[1]]
    assert [c.id for c in g.log("main", limit=2)] == [ids[3], ids[2]]
    assert [c.id for c in g.log("main", path="zzz")] == []
    assert g.commit(ids[1]).parents == (ids[0],)


def test_patch_against_the_first_parent(g: Git) -> None:
    first = commit(g, {"a.md": b"one\n", "b.md": b"x\n"})
    second = commit(g, {"a.md": b"one\ntwo\n", "b.md": b"y\n"})
    text = g.patch(second, "a.md")
    assert "+two" in text and "b.md" not in text
    assert "+y" in g.patch(second)
    assert "+one" in g.patch(first)                                  # the root commit: against the empty tree


def test_branches_tags_and_refs(g: Git) -> None:
    first = commit(g, {"a": b"a"})
    g.set_ref("refs/heads/gitmem/review-1", first, None)
    g.set_ref("refs/heads/other", first, None)
    assert g.branches() == ["gitmem/review-1", "main", "other"]
    assert g.branches("gitmem/") == ["gitmem/review-1"]
    g.create_tag("snap-1", first, "snapshot\n", WHEN)
    assert g.tags() == ["snap-1"] and g.tags("snap") == ["snap-1"] and g.tags("x") == []
    assert git(g.root, "cat-file", "-t", "snap-1").strip() == "tag"
    with pytest.raises(ConflictError):
        g.create_tag("snap-1", first, "again\n", WHEN)
    g.delete_ref("refs/heads/other")
    g.delete_ref("refs/heads/never-was")
    assert g.branches() == ["gitmem/review-1", "main"]


def test_set_ref_is_a_compare_and_swap(g: Git) -> None:
    first = commit(g, {"a": b"a"})
    second = commit(g, {"a": b"b"})
    g.set_ref("refs/heads/x", first, None)
    with pytest.raises(CasFailed) as caught:
        g.set_ref("refs/heads/x", second, None)                      # must not exist yet: it does
    assert caught.value.ref == "refs/heads/x"
    with pytest.raises(CasFailed):
        g.set_ref("refs/heads/x", second, second)                    # not where we think
    g.set_ref("refs/heads/x", second, first)
    assert g.tip("x") == second


def test_create_commit_refuses_a_moved_branch(g: Git) -> None:
    first = commit(g, {"a": b"a"})
    tree = g.build_tree(first, {"b": b"b"})
    git(g.root, "commit", "-q", "--allow-empty", "-m", "a person's commit")   # the branch moves under us
    with pytest.raises(CasFailed) as caught:
        g.create_commit("main", tree, first, "mine\n", WHEN)
    assert isinstance(caught.value, ConflictError) and isinstance(caught.value, GitmemError)
    with pytest.raises(CasFailed):
        g.create_commit("main", tree, None, "as if unborn\n", WHEN)


def test_create_commit_on_a_locked_branch_is_a_lost_race(g: Git) -> None:
    first = commit(g, {"a": b"a"})
    tree = g.build_tree(first, {"b": b"b"})
    lock = g.common_dir / "refs" / "heads" / "main.lock"
    lock.write_text(first + "\n")
    with pytest.raises(CasFailed):
        g.create_commit("main", tree, first, "mine\n", WHEN)
    assert lock.exists()                                             # a fresh lock belongs to a live git
    old = time.time() - 60
    os.utime(lock, (old, old))
    with pytest.raises(ConflictError) as info:                       # no record of gitmem's: reported, kept
        g.create_commit("main", tree, first, "mine\n", WHEN)
    assert lock.exists() and info.value.hint is not None and "rm '" in info.value.hint
    lock.unlink()
    assert g.create_commit("main", tree, first, "mine\n", WHEN) == g.tip("main")


def test_commits_from_a_linked_worktree_move_the_shared_branch(g: Git, tmp_path: Path) -> None:
    commit(g, {"a": b"a"})
    git(g.root, "worktree", "add", "-q", "-b", "side", str(tmp_path / "wt"))
    wt = Git(tmp_path / "wt")
    made = commit(wt, {"from-wt.md": b"x"}, branch="side")
    assert git(g.root, "rev-parse", "side").strip() == made


# --- the work tree and the index -----------------------------------------------------

def test_sync_worktree_writes_files_and_stages_them(g: Git) -> None:
    changes: dict[str, bytes | None] = {"memory/user/a.md": b"A\n", "b.md": b"B\n"}
    commit(g, changes)
    assert g.worktree.sync(changes)
    assert (g.root / "memory/user/a.md").read_bytes() == b"A\n"
    assert git(g.root, "status", "--porcelain") == ""
    assert g.worktree.file_hash("b.md") == git(g.root, "hash-object", "b.md").strip()
    assert g.worktree.index_hash("b.md") == g.tree_entry_hash(g.tip("main"), "b.md")
    removal: dict[str, bytes | None] = {"memory/user/a.md": None}
    commit(g, removal)
    assert g.worktree.sync(removal)
    assert not (g.root / "memory").exists()                          # emptied folders are pruned
    assert git(g.root, "status", "--porcelain") == ""
    assert list((g.git_dir / "gitmem" / "tmp").iterdir()) == []      # no temporary file left behind


def test_sync_worktree_index_only_paths_are_not_rewritten(g: Git) -> None:
    (g.root / "a.md").write_bytes(b"already there\n")
    changes: dict[str, bytes | None] = {"a.md": b"already there\n"}
    commit(g, changes)
    before = (g.root / "a.md").stat().st_ino
    assert g.worktree.sync(changes, index_only=frozenset({"a.md"}))
    assert (g.root / "a.md").stat().st_ino == before
    assert git(g.root, "status", "--porcelain") == ""


def test_worktree_hash_absent_and_symlink(g: Git) -> None:
    assert g.worktree.file_hash("none.md") is None
    assert g.worktree.file_hash("none/deeper.md") is None
    os.symlink("elsewhere", g.root / "l")
    assert g.worktree.file_hash("l") == "symlink"
    (g.root / "d").mkdir()
    assert g.worktree.file_hash("d") is None


def test_staged_changes_sees_what_a_person_staged(g: Git) -> None:
    changes: dict[str, bytes | None] = {"a.md": b"a\n", "b.md": b"b\n"}
    commit(g, changes)
    g.worktree.sync(changes)
    (g.root / "a.md").write_text("edited\n")
    assert g.worktree.staged_changes(g.tip("main"), ["a.md", "b.md"]) == set()     # edited, not staged
    git(g.root, "add", "a.md")
    assert g.worktree.staged_changes(g.tip("main"), ["a.md", "b.md"]) == {"a.md"}
    assert g.worktree.staged_changes(None, ["a.md"]) == {"a.md"}
    assert g.tree_entry_hash(None, "a.md") is None
    assert g.tree_entry_hash(g.tip("main"), "zzz") is None
    assert g.worktree.index_hash("zzz") is None


def test_large_indexes_go_through_git(g: Git) -> None:
    # Past LARGE_INDEX_BYTES the index is read and written by git's own commands.
    many: dict[str, bytes | None] = {f"memory/user/m-{i:05d}-{'x' * 40}.md": b"m\n" for i in range(2500)}
    commit(g, many)
    assert g.worktree.sync(many)
    assert (g.git_dir / "index").stat().st_size > gitio.worktree.LARGE_INDEX_BYTES
    one: dict[str, bytes | None] = {"memory/user/m-00000-" + "x" * 40 + ".md": b"changed\n", "new.md": b"n\n"}
    commit(g, one)
    assert g.worktree.sync(one)
    assert git(g.root, "status", "--porcelain") == ""
    (g.root / "new.md").write_text("person\n")
    git(g.root, "add", "new.md")
    assert g.worktree.staged_changes(g.tip("main"), ["new.md", "memory/user/m-00001-" + "x" * 40 + ".md"]) == {"new.md"}


def test_an_old_index_lock_of_another_program_is_reported_never_deleted(g: Git) -> None:
    # a slow but live git (or a person's `git commit` in its editor) keeps its lock, however old
    changes: dict[str, bytes | None] = {"a.md": b"a\n"}
    commit(g, changes)
    lock = g.git_dir / "index.lock"
    lock.write_text("")
    old = time.time() - 3600
    os.utime(lock, (old, old))
    with pytest.raises(IndexLocked) as info:
        g.worktree.sync(changes)
    assert lock.exists() and f"rm '{lock}'" in (info.value.hint or "")
    assert not (g.root / "a.md").exists()


@pytest.mark.parametrize("record", ["dead", "live", "stale-record", "other-host", "torn"])
def test_an_index_lock_is_taken_over_only_when_gitmems_record_shows_its_writer_dead(g: Git, record: str) -> None:
    from gitmem.base.gitio import staging

    changes: dict[str, bytes | None] = {"a.md": b"a\n"}
    commit(g, changes)
    lock = g.git_dir / "index.lock"
    dead = subprocess.Popen([sys.executable, "-c", "pass"])
    dead.wait()
    rec = staging.record_path(g.git_dir)
    rec.parent.mkdir(parents=True, exist_ok=True)
    pid = os.getppid() if record == "live" else dead.pid
    host = "elsewhere" if record == "other-host" else socket.gethostname()
    rec.write_text("{torn" if record == "torn" else json.dumps({"pid": pid, "host": host, "start": None}))
    lock.write_text("")
    if record == "stale-record":   # a record far older than the lock: the lock is not the recorded writer's
        old = time.time() - 3600
        os.utime(rec, (old, old))
    if record == "dead":
        assert g.worktree.sync(changes)
        assert not lock.exists() and git(g.root, "status", "--porcelain") == ""
    else:
        with pytest.raises(IndexLocked):
            g.worktree.sync(changes)
        assert lock.exists()



def test_importing_gitio_does_not_import_pygit2() -> None:
    code = "import sys, gitmem.base.gitio, gitmem.base.state; print('pygit2' in sys.modules, 'pathlib' in sys.modules)"
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True).stdout
    assert out.split() == ["False", "False"]


def test_a_stage_left_half_done_by_a_killed_writer_does_not_block_the_next(g: Git) -> None:
    from gitmem.base.gitio import staging

    changes: dict[str, bytes | None] = {"a.md": b"a\n"}
    commit(g, changes)
    dead = subprocess.Popen([sys.executable, "-c", "pass"])
    dead.wait()
    rec = staging.record_path(g.git_dir)
    rec.parent.mkdir(parents=True, exist_ok=True)
    rec.write_text(json.dumps({"pid": dead.pid, "host": socket.gethostname(), "start": None}))
    (g.git_dir / "index.lock").write_bytes(b"")
    (g.git_dir / "index.lock.lock").write_bytes(b"half an index")   # killed inside libgit2's write
    assert g.worktree.sync(changes)
    assert not (g.git_dir / "index.lock.lock").exists() and not (g.git_dir / "index.lock").exists()
    assert git(g.root, "status", "--porcelain") == ""


def test_read_many_reads_each_path_as_read_does(g: Git) -> None:
    files = {f"patterns/p{i:03d}.md": f"pattern {i}\n".encode() for i in range(50)}
    files.update({"CLAUDE.md": b"# memory\n", "memory/user/ab/m-1.md": b"m1\n"})
    tree = g.build_tree(None, files)
    c = g.create_commit("main", tree, None, "many", WHEN)
    asked = [*files, "patterns/missing.md", "nowhere/x.md", "memory/user", "CLAUDE.md"]
    got = g.read_many(asked, c)
    assert got == {p: g.read(p, c) for p in asked}
    assert got["patterns/p007.md"] == b"pattern 7\n" and got["memory/user"] is None and got["nowhere/x.md"] is None
    assert g.read_many(["CLAUDE.md"], None) == {"CLAUDE.md": None}
