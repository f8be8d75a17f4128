"""Step 1 of the write path: nothing leaves the allowed folders."""

from __future__ import annotations

import os
from pathlib import Path

import pytest

from gitmem.base.errors import SecurityError
from gitmem.guards.sandbox import check_path

ALLOWED = ("memory", "archive", "CLAUDE.md")


@pytest.mark.parametrize("path", [
    "../etc/passwd", "memory/../../x.md", "/etc/passwd", "memory//x.md", "memory/./x.md",
    "C:/x.md", "memory\\x.md", ".git/config", "memory/.git/x", "other/x.md", "memory\x00/x.md", "",
])
def test_bad_paths_are_refused(path: str) -> None:
    with pytest.raises(SecurityError):
        check_path(path, ALLOWED, None, None)


def test_allowed_paths_pass_and_env_narrows() -> None:
    assert check_path("memory/user/m-1.md", ALLOWED, None, None)
    assert check_path("CLAUDE.md", ALLOWED, None, None)
    with pytest.raises(SecurityError):
        check_path("CLAUDE.mdx", ALLOWED, None, None)
    with pytest.raises(SecurityError):
        check_path("archive/user/m-1.md", ALLOWED, ("memory",), None)


def test_symlink_leading_out_is_refused(tmp_path: Path) -> None:
    outside = tmp_path / "outside"
    outside.mkdir()
    root = tmp_path / "root"
    (root / "memory").mkdir(parents=True)
    os.symlink(outside, root / "memory" / "user")
    with pytest.raises(SecurityError, match="leading out"):
        check_path("memory/user/m-1.md", ALLOWED, None, root)


@pytest.mark.parametrize("path, message", [
    ("", "empty path"),
    ("memory/a\x00.md", "NUL or backslash"),
    ("memory\\user\\a.md", "NUL or backslash"),
    ("/memory/a.md", "absolute path refused"),
    ("C:/memory/a.md", "absolute path refused"),
    ("memory//a.md", "empty part refused"),
    ("memory/./a.md", "empty part refused"),
    ("memory/a.md/", "empty part refused"),
    ("memory/.GIT/config", "inside .git refused"),
    ("src/app.py", "outside the allowed folders"),
    ("memoryx/a.md", "outside the allowed folders"),
])
def test_each_refusal_names_its_reason_and_hints_at_the_config(path: str, message: str) -> None:
    with pytest.raises(SecurityError) as info:
        check_path(path, ALLOWED, None, None)
    assert message in info.value.message
    assert info.value.hint is not None and "allowed_dirs" in info.value.hint


def test_a_top_level_file_entry_allows_exactly_that_file() -> None:
    assert check_path("CLAUDE.md", ["CLAUDE.md"], None, None) == "CLAUDE.md"
    with pytest.raises(SecurityError):
        check_path("CLAUDE.md.bak", ["CLAUDE.md"], None, None)


def test_allowed_entries_with_slashes_are_normalised() -> None:
    assert check_path("memory/a.md", ["/memory/"], None, None) == "memory/a.md"


def test_narrowing_hint_names_the_variable() -> None:
    with pytest.raises(SecurityError) as info:
        check_path("archive/a.md", ALLOWED, ["memory"], None)
    assert info.value.hint == "widen GITMEM_ALLOWED_DIRS or unset it"


def test_symlink_inside_the_repository_is_refused_too(tmp_path: Path) -> None:
    (tmp_path / "memory" / "real").mkdir(parents=True)
    os.symlink(tmp_path / "memory" / "real", tmp_path / "memory" / "alias")
    with pytest.raises(SecurityError) as info:
        check_path("memory/alias/x.md", ALLOWED, None, tmp_path)
    assert "through a symlink" in info.value.message and "leading out" not in info.value.message
    assert info.value.hint is not None and "real folder" in info.value.hint


def test_symlinked_file_is_refused_even_when_folders_are_not_checked(tmp_path: Path) -> None:
    (tmp_path / "memory").mkdir()
    os.symlink(tmp_path / "elsewhere.md", tmp_path / "memory" / "x.md")
    with pytest.raises(SecurityError):
        check_path("memory/x.md", ALLOWED, None, tmp_path, check_folders=False)


def test_missing_folders_pass_the_symlink_check(tmp_path: Path) -> None:
    assert check_path("memory/user/ab/new.md", ALLOWED, None, tmp_path) == "memory/user/ab/new.md"
