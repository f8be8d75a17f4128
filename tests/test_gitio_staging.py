"""gitmem.base.gitio.staging: the work tree of a change written, small and large (by threads) alike."""

from __future__ import annotations

import os
from pathlib import Path

import pytest

from gitmem.base.gitio import staging


@pytest.mark.parametrize("size", [3, staging.PARALLEL_FROM + 50])
def test_write_files_deletes_writes_and_prunes_alike_at_any_size(tmp_path: Path, size: int) -> None:
    root, git_dir = tmp_path / "w", tmp_path / "w" / ".git"
    git_dir.mkdir(parents=True)
    old = {f"memory/d{i % 4}/{i % 9:02x}/m{i}.md": f"old {i}\n".encode() for i in range(size)}
    old["keep/k.md"] = b"kept\n"
    old["was-a-file"] = b"becomes a folder\n"
    staging.write_files(root, git_dir, old, frozenset())
    kept = os.stat(root / "keep/k.md").st_mtime_ns
    changes: dict[str, bytes | None] = {p: None for p in old if p.startswith("memory/")}
    changes |= {p.replace("memory/", "archive/", 1): b"archived\n" for p in old if p.startswith("memory/")}
    changes["was-a-file"] = None
    changes = {"was-a-file/inside.md": b"now a folder\n", **changes}   # listed before the deletion it needs
    staging.write_files(root, git_dir, changes, frozenset({"archive/d0/00/m0.md"}))
    assert not (root / "memory").exists()        # every emptied folder is pruned
    assert (root / "was-a-file/inside.md").read_bytes() == b"now a folder\n"
    assert not (root / "archive/d0/00/m0.md").exists()   # skipped: already right, not written
    written = sorted(str(p.relative_to(root)) for p in (root / "archive").rglob("*.md"))
    assert len(written) == size - 1 and all((root / p).read_bytes() == b"archived\n" for p in written)
    assert os.stat(root / "keep/k.md").st_mtime_ns == kept
    assert os.listdir(git_dir / "gitmem" / "tmp") == []


def test_a_failed_write_of_a_large_change_raises(tmp_path: Path) -> None:
    root, git_dir = tmp_path / "w", tmp_path / "w" / ".git"
    git_dir.mkdir(parents=True)
    (root / "blocked").mkdir()
    (root / "blocked" / "m5.md").mkdir()   # a folder where a file must go
    changes: dict[str, bytes | None] = {f"blocked/m{i}.md": b"x\n" for i in range(staging.PARALLEL_FROM + 10)}
    with pytest.raises(IsADirectoryError):
        staging.write_files(root, git_dir, changes, frozenset())


def test_files_of_a_large_change_get_the_mode_a_plain_write_gives(tmp_path: Path) -> None:
    root, git_dir = tmp_path / "w", tmp_path / "w" / ".git"
    git_dir.mkdir(parents=True)
    changes: dict[str, bytes | None] = {f"memory/m{i}.md": (b"x" * (i % 3)) for i in range(staging.PARALLEL_FROM * 3)}
    staging.write_files(root, git_dir, changes, frozenset())
    plain = tmp_path / "plain"
    plain.write_bytes(b"x")
    for path, data in changes.items():
        assert (root / path).read_bytes() == data
        assert os.stat(root / path).st_mode == os.stat(plain).st_mode


def test_a_change_emptying_many_folders_prunes_every_one_and_keeps_the_rest(tmp_path: Path) -> None:
    root, git_dir = tmp_path / "w", tmp_path / "w" / ".git"
    git_dir.mkdir(parents=True)
    n = staging.PARALLEL_FROM * 2   # more emptied folders than the serial path takes
    files = {f"memory/d{i % 3}/{i:04x}/m{j}.md": b"x\n" for i in range(n) for j in range(2)}
    files["memory/d0/keep/k.md"] = b"kept\n"
    staging.write_files(root, git_dir, files, frozenset())
    gone: dict[str, bytes | None] = {p: None for p in files if "/keep/" not in p}
    staging.write_files(root, git_dir, gone, frozenset())
    left = sorted(str(p.relative_to(root)) for p in root.rglob("*") if ".git" not in p.parts)
    assert left == ["memory", "memory/d0", "memory/d0/keep", "memory/d0/keep/k.md"]
