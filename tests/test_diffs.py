"""What a staged change does to each file: line counts from blobs, and unidiff over git's patch."""

from __future__ import annotations

import subprocess
from pathlib import Path

import pytest

from gitmem.base import diffs
from gitmem.base.errors import GitError


def git(root: Path, *args: str) -> str:
    done = subprocess.run(["git", *args], cwd=root, capture_output=True, text=True)
    assert done.returncode == 0, done.stderr
    return done.stdout


@pytest.fixture
def repo(tmp_path: Path) -> Path:
    root = tmp_path / "r"
    root.mkdir()
    git(root, "init", "-q", "-b", "main")
    (root / "grow.md").write_text("a\nb\n")
    (root / "shrink.md").write_text("1\n2\n3\n4\n")
    (root / "gone.md").write_text("x\n")
    (root / "same.md").write_text("s\n")
    git(root, "add", "-A")
    git(root, "commit", "-q", "-m", "first")
    return root


@pytest.mark.parametrize(("data", "expected"), [
    (b"", 0), ("", 0), (b"a", 1), ("a", 1), (b"a\n", 1), (b"a\nb", 2), ("a\nb\n", 2), (b"\n\n", 2),
    ("é\nü", 2), (b"a\r\nb\r\n", 2),
])
def test_count_lines_like_git(data: bytes | str, expected: int) -> None:
    assert diffs.count_lines(data) == expected


def test_count_lines_agrees_for_bytes_and_text() -> None:
    samples = ["", "x", "x\n", "x\ny", "\n", "a\n\nb\n"]
    assert samples
    for text in samples:
        assert diffs.count_lines(text) == diffs.count_lines(text.encode()), repr(text)


def stage(repo: Path) -> None:
    (repo / "grow.md").write_text("a\nb\nc\nd\n")
    (repo / "shrink.md").write_text("1\n")
    (repo / "gone.md").unlink()
    (repo / "new.md").write_text("n1\nn2\nn3")
    git(repo, "add", "-A")


def test_staged_line_counts(repo: Path) -> None:
    stage(repo)
    counts = diffs.staged_line_counts(repo, ["grow.md", "shrink.md", "gone.md", "new.md", "same.md", "never.md"])
    assert [(c.path, c.old, c.new) for c in counts] == [
        ("grow.md", 2, 4), ("shrink.md", 4, 1), ("gone.md", 1, None), ("new.md", None, 3),
        ("same.md", 1, 1), ("never.md", None, None),
    ]
    assert diffs.staged_line_counts(repo, []) == []


def test_staged_line_counts_reads_the_index_not_the_work_tree(repo: Path) -> None:
    stage(repo)
    (repo / "grow.md").write_text("unstaged\n" * 50)
    assert diffs.staged_line_counts(repo, ["grow.md"])[0].new == 4


def test_staged_stats(repo: Path) -> None:
    stage(repo)
    stats = {s.path: s for s in diffs.staged_stats(repo, ["grow.md", "shrink.md", "gone.md", "new.md", "same.md"])}
    assert set(stats) == {"grow.md", "shrink.md", "gone.md", "new.md"}      # an unchanged file has no diff
    assert (stats["grow.md"].added, stats["grow.md"].removed) == (2, 0)
    assert (stats["shrink.md"].added, stats["shrink.md"].removed) == (0, 3)
    assert stats["gone.md"].is_deleted and not stats["gone.md"].is_new
    assert stats["new.md"].is_new and stats["new.md"].added == 3
    assert diffs.staged_stats(repo, []) == []


def test_stats_and_counts_agree_on_net_growth(repo: Path) -> None:
    stage(repo)
    paths = ["grow.md", "shrink.md", "new.md", "gone.md"]
    counts = {c.path: c for c in diffs.staged_line_counts(repo, paths)}
    stats = {s.path: s for s in diffs.staged_stats(repo, paths)}
    assert paths
    for path in paths:
        c, s = counts[path], stats[path]
        assert (c.new or 0) - (c.old or 0) == s.added - s.removed, path


def test_staged_stats_outside_git_is_a_git_error(tmp_path: Path) -> None:
    with pytest.raises(GitError):
        diffs.staged_stats(tmp_path, ["x"])


def test_parse_patch_of_any_unified_diff() -> None:
    text = ("--- a/x.md\n+++ b/x.md\n@@ -1,2 +1,3 @@\n keep\n-old\n+new\n+more\n"
            "--- /dev/null\n+++ b/y.md\n@@ -0,0 +1 @@\n+y\n")
    stats = diffs.parse_patch(text)
    assert [(s.path, s.added, s.removed, s.is_new) for s in stats] == [("x.md", 2, 1, False), ("y.md", 1, 0, True)]
    assert diffs.parse_patch("") == []
