"""Tests for gitmem.base.files: a file replaced whole, its link and mode kept, nothing left on failure."""

from __future__ import annotations

import os
from pathlib import Path

import pytest

from gitmem.base.files import temp_beside, write_atomic


def test_text_and_bytes_replace_the_file_whole(tmp_path: Path) -> None:
    path = tmp_path / "f.json"
    write_atomic(path, "é\n")
    assert path.read_bytes() == "é\n".encode()
    write_atomic(path, b"\x00\xff")
    assert path.read_bytes() == b"\x00\xff" and os.listdir(tmp_path) == ["f.json"]


def test_a_symlink_stays_a_link_and_the_mode_is_kept(tmp_path: Path) -> None:
    real = tmp_path / "real.json"
    real.write_text("old")
    real.chmod(0o600)
    link = tmp_path / "link.json"
    link.symlink_to(real)
    write_atomic(link, "new")
    assert link.is_symlink() and real.read_text() == "new" and real.stat().st_mode & 0o777 == 0o600


def test_a_missing_folder_fails_unless_asked_to_make_it(tmp_path: Path) -> None:
    path = tmp_path / "a" / "b" / "f"
    with pytest.raises(FileNotFoundError):
        write_atomic(path, "x")
    assert not (tmp_path / "a").exists()
    write_atomic(path, "x", make_folders=True)
    assert path.read_text() == "x"


def test_a_failed_write_leaves_the_old_file_and_no_temporary(tmp_path: Path) -> None:
    path = tmp_path / "f"
    path.write_text("old")
    Path(temp_beside(path)).mkdir()     # the temporary name is taken: the write fails
    with pytest.raises(OSError):
        write_atomic(path, "new")
    assert path.read_text() == "old"


def test_threads_of_one_process_replace_one_file_at_once(tmp_path: Path) -> None:
    from tests.conftest import at_once

    path = tmp_path / "f.json"
    def write_all() -> None:
        for n in range(20):
            write_atomic(path, str(n))

    _, errors = at_once(16, write_all)
    assert errors == [] and path.read_text() in {str(n) for n in range(20)} and os.listdir(tmp_path) == ["f.json"]
