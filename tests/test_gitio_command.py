"""gitmem.base.gitio.command: every git process gitmem starts, run against real repositories."""

from __future__ import annotations

import os
import subprocess
from pathlib import Path

import pytest

from gitmem.base.errors import GitError, GitmemError
from gitmem.base.gitio import command


def git(root: Path, *args: str) -> str:
    done = subprocess.run(["git", *args], cwd=root, capture_output=True, text=True)
    assert done.returncode == 0, done.stderr
    return done.stdout


@pytest.fixture
def repo(tmp_path: Path) -> Path:
    root = tmp_path / "r"
    root.mkdir()
    git(root, "init", "-q", "-b", "main")
    (root / "a.md").write_text("one\ntwo\n")
    (root / "b.md").write_text("b\n")
    git(root, "add", "-A")
    git(root, "commit", "-q", "-m", "first")
    return root


def test_run_returns_stdout_bytes(repo: Path) -> None:
    assert command.run(repo, "rev-parse", "--is-inside-work-tree") == b"true\n"
    assert command.run(repo, "hash-object", "--stdin", stdin=b"b\n").decode().strip() == \
        git(repo, "rev-parse", "HEAD:b.md").strip()


def test_run_failure_quotes_git(repo: Path) -> None:
    with pytest.raises(GitError) as caught:
        command.run(repo, "rev-parse", "--verify", "no-such-ref")
    assert isinstance(caught.value, GitmemError)
    assert caught.value.message.startswith("git rev-parse failed: ")
    assert caught.value.hint == "check the repository with `git status`"


def test_run_without_a_folder_is_a_git_error(tmp_path: Path) -> None:
    with pytest.raises(GitError) as caught:
        command.run(tmp_path / "missing", "status")
    assert "could not run" in caught.value.message


def test_attempt_is_none_on_failure(repo: Path) -> None:
    assert command.attempt(repo, "rev-parse", "--verify", "nope") is None
    assert command.attempt(repo, "rev-parse", "--verify", "HEAD") is not None


def test_split_nul() -> None:
    assert command.split_nul(b"a\0b c\0\0") == ["a", "b c"]
    assert command.split_nul(b"") == []
    assert command.split_nul(b"caf\xc3\xa9\0bad\xff\0") == ["café", "bad\udcff"]


def test_read_blobs_head_index_and_missing(repo: Path) -> None:
    (repo / "a.md").write_text("one\ntwo\nthree\n")
    git(repo, "add", "a.md")
    found = command.read_blobs(repo, ["HEAD:a.md", ":a.md", "HEAD:none.md", ":none.md", "HEAD:b.md"])
    assert found == [b"one\ntwo\n", b"one\ntwo\nthree\n", None, None, b"b\n"]
    assert command.read_blobs(repo, []) == []


def test_read_blobs_of_binary_and_empty_content(repo: Path) -> None:
    data = bytes(range(256)) * 4 + b"\n\n"
    (repo / "bin.dat").write_bytes(data)
    (repo / "empty").write_bytes(b"")
    git(repo, "add", "-A")
    assert command.read_blobs(repo, [":bin.dat", ":empty", ":bin.dat"]) == [data, b"", data]


def test_read_blobs_path_with_a_newline(repo: Path) -> None:
    name = "odd\nname.md"
    (repo / name).write_text("odd\n")
    git(repo, "add", "-A")
    assert command.read_blobs(repo, [f":{name}", ":b.md", f"HEAD:{name}"]) == [b"odd\n", b"b\n", None]


def test_staged_names_and_pathspecs(repo: Path) -> None:
    assert command.staged_names(repo) == []
    (repo / "a.md").write_text("changed\n")
    (repo / "sub").mkdir()
    (repo / "sub" / "CLAUDE.md").write_text("x\n")
    (repo / "CLAUDE.md").write_text("y\n")
    git(repo, "add", "-A")
    git(repo, "mv", "b.md", "c.md")
    assert sorted(command.staged_names(repo)) == ["CLAUDE.md", "a.md", "b.md", "c.md", "sub/CLAUDE.md"]
    assert sorted(command.staged_names(repo, "CLAUDE.md", "*/CLAUDE.md")) == ["CLAUDE.md", "sub/CLAUDE.md"]


def test_staged_names_before_the_first_commit(tmp_path: Path) -> None:
    git(tmp_path, "init", "-q")
    (tmp_path / "x").write_text("x")
    git(tmp_path, "add", "x")
    assert command.staged_names(tmp_path) == ["x"]


def test_staged_patch_ignores_color_and_external_diff(repo: Path) -> None:
    git(repo, "config", "color.diff", "always")
    git(repo, "config", "diff.external", "false")
    (repo / "a.md").write_text("one\n2\n")
    git(repo, "add", "a.md")
    patch = command.staged_patch(repo, ["a.md"])
    assert "\x1b[" not in patch
    assert "-two\n+2\n" in patch
    assert command.staged_patch(repo, ["b.md"]) == ""


def test_changed_in_index(repo: Path) -> None:
    head = git(repo, "rev-parse", "HEAD").strip()
    (repo / "a.md").write_text("staged\n")
    git(repo, "add", "a.md")
    assert command.changed_in_index(repo, head, ["a.md", "b.md"]) == ["a.md"]
    assert command.changed_in_index(repo, "no-such-rev", ["a.md"]) is None


def test_update_index_adds_changes_and_removes(repo: Path) -> None:
    (repo / "a.md").write_text("new\n")
    (repo / "n.md").write_text("n\n")
    (repo / "b.md").unlink()
    assert command.update_index(repo, ["a.md", "n.md", "b.md"])
    status = git(repo, "status", "--porcelain")
    assert sorted(status.splitlines()) == ["A  n.md", "D  b.md", "M  a.md"]
    assert not command.update_index(repo.parent / "nowhere", ["x"])


def test_use_index_v4(repo: Path) -> None:
    assert command.use_index_v4(repo)
    assert (repo / ".git" / "index").read_bytes()[4:8] == (4).to_bytes(4, "big")
    assert not command.use_index_v4(repo.parent / "nowhere")


def test_toplevel_from_a_subfolder(repo: Path) -> None:
    sub = repo / "x" / "y"
    sub.mkdir(parents=True)
    assert command.toplevel(str(sub)) == str(repo)
    assert command.toplevel(str(repo.parent)) is None


def test_git_dirs_in_a_linked_worktree(repo: Path, tmp_path: Path) -> None:
    git(repo, "worktree", "add", "-q", "-b", "side", str(tmp_path / "wt"))
    found = command.git_dirs(tmp_path / "wt")
    assert found is not None
    assert os.path.normpath(found[1]) == str(repo / ".git")
    assert os.path.normpath(found[0]) == str(repo / ".git" / "worktrees" / "wt")
    assert command.git_dirs(tmp_path) is None


def test_hooks_dir_respects_core_hooks_path_and_worktrees(repo: Path, tmp_path: Path) -> None:
    assert command.hooks_dir(repo) == str(repo / ".git" / "hooks")
    git(repo, "worktree", "add", "-q", "-b", "side", str(tmp_path / "wt"))
    assert command.hooks_dir(tmp_path / "wt") == str(repo / ".git" / "hooks")   # hooks are shared
    git(repo, "config", "core.hooksPath", str(tmp_path / "my-hooks"))
    assert command.hooks_dir(repo) == str(tmp_path / "my-hooks")
    assert command.hooks_dir(tmp_path) is None


def test_short_log(repo: Path) -> None:
    git(repo, "commit", "-q", "--allow-empty", "-m", "second")
    lines = command.short_log(repo, 15).splitlines()
    assert [line.split(" ", 1)[1] for line in lines] == ["second", "first"]
    assert command.short_log(repo, 1).count("\n") == 0
    git(repo.parent, "init", "-q", str(repo.parent / "empty"))
    assert command.short_log(repo.parent / "empty", 5) == ""


def test_install_pre_commit_outside_git_fails_quietly(tmp_path: Path) -> None:
    assert command.install_pre_commit(tmp_path) is not None


@pytest.mark.parametrize(("message", "expected"), [
    ("Subject\n\n# a comment\nBody\n", "Subject\n\nBody\n"),
    ("Subject\n\n\n\nBody\n\n\n", "Subject\n\nBody\n"),
    ("Subject\n\nKeep\n# ------------------------ >8 ------------------------\nGone: yes\n", "Subject\n\nKeep\n"),
    ("Subject\n; ------------------------ >8 ------------------------\nGone\n", "Subject\n"),
    ("Subject\n ------------------------ >8 ------------------------ \nKept\n",
     "Subject\n ------------------------ >8 ------------------------\nKept\n"),
    ("", ""),
])
def test_strip_message(repo: Path, message: str, expected: str) -> None:
    assert command.strip_message(repo, message) == expected


def test_strip_message_follows_the_comment_char(repo: Path) -> None:
    git(repo, "config", "core.commentChar", ";")
    assert command.strip_message(repo, "S\n\n; gone\n# kept\n") == "S\n\n# kept\n"


def test_commit_trailers_of_unknown_commits_is_an_error(repo: Path) -> None:
    with pytest.raises(GitError):
        command.commit_trailers(repo, ["0" * 40])


def test_changed_in_index_of_more_paths_than_a_command_line_holds(repo: Path) -> None:
    head = git(repo, "rev-parse", "HEAD").strip()
    (repo / "a.md").write_text("staged\n")
    (repo / "b.md").write_text("staged too, but not asked about\n")
    (repo / "new dir").mkdir()
    (repo / "new dir" / "ü c.md").write_text("added\n")
    git(repo, "add", "-A")
    long = [f"memory/user/{'x' * 60}-{i}.md" for i in range(60_000)]   # ~4 MB of names: past ARG_MAX
    assert command.changed_in_index(repo, head, ["a.md", "new dir/ü c.md", *long]) == ["a.md", "new dir/ü c.md"]
    assert command.changed_in_index(repo, "no-such-rev", long) is None
