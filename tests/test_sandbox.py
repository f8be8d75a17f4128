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
