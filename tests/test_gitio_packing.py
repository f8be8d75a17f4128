"""A large change written as one pack: the same tree as the loose path, a sound repository, a clean
work tree, untouched files left alone, and a kill in the middle that recovery finishes."""

from __future__ import annotations

import json
import os
import random
import signal
import subprocess
import time
from collections.abc import Mapping
from typing import Any
from datetime import timedelta
from pathlib import Path

import pytest

from gitmem.api import MemoryRepo
from gitmem.base import clock
from gitmem.base.errors import ConflictError, SecurityError
from gitmem.base.gitio import Git, packing, trees
from gitmem.base.model import Memory, memory_path
from gitmem.writer.plan import Plan
from gitmem.store import store
from tests.conftest import NOW

T = clock.parse_time(NOW)


def tree_of(g: Git, rev: str) -> Any:
    """The pygit2 tree of ``rev`` (pygit2 imported here: importing it reads $HOME once, so never at collection)."""
    import pygit2

    return g.repo[rev].peel(pygit2.Tree)


def git(root: Path, *args: str) -> str:
    return subprocess.run(["git", *args], cwd=root, capture_output=True, text=True, check=True).stdout


def loose_count(root: Path) -> int:
    counts = dict(line.split(": ") for line in git(root, "count-objects", "-v").splitlines())
    return int(counts["count"])


def both_ways(g: Git, parent: str | None, changes: Mapping[str, bytes | None]) -> tuple[str, str]:
    """(tree id built loose by trees.build, tree id built by fast-import) of one change."""
    base = tree_of(g, parent) if parent else None
    loose = str(trees.build(g.repo, base, {tuple(p.split("/")): d for p, d in changes.items()}))
    return loose, packing.build(g.root, g.repo, parent, changes)


@pytest.fixture
def plain(tmp_path: Path) -> tuple[Git, str]:
    """A plain repository whose one commit holds 200 files over nested folders, odd names included."""
    from gitmem.base.gitio import init

    g = init(tmp_path / "r")
    files = {f"memory/d{i % 3}/{i % 7:02x}/m{i}.md": f"memory {i}\n".encode() for i in range(200)}
    files.update({'odd "quoted" name.md': b"q\n", "spaced dir/a b.md": b"s\n", "ünïcødé/ñ.md": "ü\n".encode(),
                  "top.md": b"t\n", "nl\nname.md": b"newline in the name\n", "tab\tname.md": b"tab\n"})
    tree = str(trees.build(g.repo, None, {tuple(p.split("/")): d for p, d in files.items()}))
    return g, g.create_commit("main", tree, None, "base", T)


def _cases(rng: random.Random, paths: list[str]) -> list[dict[str, bytes | None]]:
    moved: dict[str, bytes | None] = {p: None for p in paths[:120]}
    moved |= {p.replace("memory/", "archive/", 1): b"archived " + p.encode() for p in paths[:120]}
    every: dict[str, bytes | None] = {p: None for p in paths if p.startswith("memory/d1/")}        # a whole folder emptied file by file
    folder = {"memory/d2": None} | {f"memory/d2/new/{i}.md": b"fresh\n" for i in range(70)}   # folder deleted, refilled
    odd = {p: (b"rewritten " + p.encode() if rng.random() < 0.7 else None) for p in paths if not p.startswith("memory/")}
    odd |= {f"new/{name}-{i}.md": name.encode() for i, name in enumerate(['"', "\\", "\x01", " ", "é", "a\"b\\c"] * 12)}
    same: dict[str, bytes | None] = {p: f"memory {p.rsplit('m', 1)[1][:-3]}\n".encode() for p in paths[:80]
                                     if p.startswith("memory/")}
    shuffled = list(moved.items())
    rng.shuffle(shuffled)
    return [moved, every, folder, odd, same, dict(shuffled), {p: None for p in paths}]


def test_packed_tree_equals_the_loose_tree_of_the_same_change(plain: tuple[Git, str]) -> None:
    g, head = plain
    paths = sorted(p for p, _ in g.files("", head))
    for changes in _cases(random.Random(13), paths):
        loose, packed = both_ways(g, head, changes)
        assert packed == loose, sorted(changes)[:3]


def test_packed_tree_from_no_parent_equals_the_loose_tree(plain: tuple[Git, str]) -> None:
    g, _ = plain
    changes: dict[str, bytes | None] = {f"a/{i % 5}/{i}.md": str(i).encode() for i in range(100)}
    changes["a/0/0.md"] = None
    assert both_ways(g, None, changes)[0] == both_ways(g, None, changes)[1]


@pytest.mark.parametrize("changes, error", [
    ({"top.md/x.md": b"folder over a file\n"}, ConflictError),
    ({"memory/d0": b"file over a folder\n"}, ConflictError),
    ({"fresh": b"a file\n", "fresh/x.md": b"and a folder of the same name\n"}, ConflictError),
    ({"link/x.md": b"under a symlink\n"}, SecurityError),
    ({"link/deeper/x.md": b"under a symlink\n"}, SecurityError),
])
def test_packed_write_refuses_what_the_loose_write_refuses(plain: tuple[Git, str], changes: dict[str, bytes | None],
                                                           error: type[Exception]) -> None:
    g, head = plain
    tb = g.repo.TreeBuilder(tree_of(g, head))
    from pygit2.enums import FileMode

    tb.insert("link", g.repo.create_blob(b"/etc"), FileMode.LINK)
    with_link = g.create_commit("main", str(tb.write()), head, "a symlink", T)
    for parent in (with_link,):
        with pytest.raises(error):
            trees.build(g.repo, tree_of(g, parent), {tuple(p.split("/")): d for p, d in changes.items()})
        with pytest.raises(error):
            packing.build(g.root, g.repo, parent, changes)


def test_deleting_a_file_or_symlink_then_writing_under_its_name_is_allowed_both_ways(plain: tuple[Git, str]) -> None:
    g, head = plain
    changes: dict[str, bytes | None] = {"top.md": None, "top.md/inside.md": b"now a folder\n"}
    assert both_ways(g, head, changes)[0] == both_ways(g, head, changes)[1]


def test_the_scratch_ref_is_gone_after_a_packed_write(plain: tuple[Git, str]) -> None:
    g, head = plain
    packing.build(g.root, g.repo, head, {f"x/{i}.md": b"x\n" for i in range(70)})
    assert g.repo.references.get(packing.PACK_REF) is None


# --- through the write path --------------------------------------------------

def _memories(n: int, tag: str) -> dict[str, bytes]:
    out = {}
    for i in range(n):
        mid = f"m-2026-11-29-{tag}{i:05d}"
        m = Memory(id=mid, content=f"{tag} imported note {i} about the deploy key of service {i % 17}",
                   created="2026-11-29T12:00:00Z", last_accessed="2026-11-29T12:00:00Z",
                   path=memory_path(("user", "project", "world")[i % 3], mid))
        out[m.path] = store.render(m)
    return out


def _sound(root: Path) -> None:
    fsck = subprocess.run(["git", "fsck", "--strict"], cwd=root, capture_output=True, text=True)
    assert fsck.returncode == 0, fsck.stderr
    assert git(root, "status", "--porcelain") == ""


def test_importing_three_hundred_memories_writes_one_pack_and_a_clean_work_tree(repo: MemoryRepo, repo_dir: Path,
                                                                               tmp_path: Path) -> None:
    rows = tmp_path / "rows.jsonl"
    rows.write_text("".join(json.dumps({"content": f"imported {i}: the staging deploy step {i} rotates key {i * 7}"})
                            + "\n" for i in range(300)))
    untouched = {p: p.stat().st_mtime_ns for p in repo_dir.rglob("*") if p.is_file() and ".git" not in p.parts}
    time.sleep(0.01)
    loose, packs = loose_count(repo_dir), len(list((repo_dir / ".git/objects/pack").glob("*.pack")))
    parent = git(repo_dir, "rev-parse", "HEAD").strip()
    repo.import_file(rows, now=T)
    head = git(repo_dir, "rev-parse", "HEAD").strip()
    assert len(git(repo_dir, "diff", "--name-only", parent, head).split()) >= 300
    assert loose_count(repo_dir) <= loose + 1      # the commit object alone is loose
    assert len(list((repo_dir / ".git/objects/pack").glob("*.pack"))) == packs + 1
    _sound(repo_dir)
    for path, mtime in untouched.items():
        assert path.stat().st_mtime_ns == mtime, path
    assert len(repo.list().memories) == 300


def test_a_packed_write_gives_the_tree_the_loose_write_gives(repo: MemoryRepo, repo_dir: Path) -> None:
    changes = _memories(300, "p")
    parent = git(repo_dir, "rev-parse", "HEAD").strip()
    base = tree_of(repo.git, parent)
    expected = str(trees.build(repo.git.repo, base, {tuple(p.split("/")): d for p, d in changes.items()}))
    written = repo.writer.write(lambda p: Plan[None](changes, "import", "memory.import"), T)
    assert repo.git.tree_id(str(written.commit)) == expected
    _sound(repo_dir)


def test_a_decay_archiving_two_hundred_memories_is_packed_and_leaves_the_rest_alone(repo: MemoryRepo,
                                                                                      repo_dir: Path) -> None:
    keep = _memories(40, "k")
    repo.writer.write(lambda p: Plan(_memories(200, "a"), "old", "memory.import"), T - timedelta(days=400))
    cfg = repo_dir / "gitmem.yaml"
    # one commit on main archiving them all: no archive review (memory.max_change_share at 100 %)
    cfg.write_text(cfg.read_text().replace("max_short_term: 100", "max_short_term: 100000")
                   .replace("max_change_share: 0.1", "max_change_share: 1.0"))
    git(repo_dir, "commit", "-qam", "raise the cap")
    repo = MemoryRepo.open(repo_dir)
    later = T + timedelta(days=90)
    repo.writer.write(lambda p: Plan({k: v.replace(b"2026-11-29T12:00:00Z", b"2027-02-26T12:00:00Z")
                                     for k, v in keep.items()}, "fresh", "memory.import"), later)
    fresh = {repo_dir / p: (repo_dir / p).stat().st_mtime_ns for p in keep}
    time.sleep(0.01)
    loose = loose_count(repo_dir)
    parent = git(repo_dir, "rev-parse", "HEAD").strip()
    report = repo.decay(now=later)
    archived = [m for m in report.moves if m.change.startswith("archived")]
    assert len(archived) >= 200
    assert loose_count(repo_dir) <= loose + 1
    _sound(repo_dir)
    for path, mtime in fresh.items():
        assert path.stat().st_mtime_ns == mtime, path
    # the same change built loose gives the same tree
    changes = {c.path: repo.git.read(c.path, str(report.commit)) if c.status != "D" else None
               for c in repo.git.diff(parent, str(report.commit))}
    base = tree_of(repo.git, parent)
    assert str(trees.build(repo.git.repo, base, {tuple(p.split("/")): d for p, d in changes.items()})) \
        == repo.git.tree_id(str(report.commit))


@pytest.mark.parametrize("size", [20, packing.PACK_THRESHOLD + 20])
def test_a_change_that_leaves_files_as_they_were_rewrites_only_the_others(repo: MemoryRepo, repo_dir: Path,
                                                                          size: int) -> None:
    first = _memories(size, "s")
    repo.writer.write(lambda p: Plan(first, "first", "memory.import"), T)
    before = {p: (repo_dir / p).stat().st_mtime_ns for p in first}
    time.sleep(0.01)
    changes: dict[str, bytes | None] = dict(first)
    changed = sorted(first)[:10]
    changes.update({p: first[p] + b"more\n" for p in changed})
    repo.writer.write(lambda p: Plan(changes, "second", "memory.import"), T)
    for path, mtime in before.items():
        assert ((repo_dir / path).stat().st_mtime_ns == mtime) == (path not in changed), path
    _sound(repo_dir)


# --- a kill in the middle of a packed write -----------------------------------

def _packing(root: Path) -> bool:
    """True while a packed write is under way (fast-import's temporary pack, or the scratch ref)."""
    return any((root / ".git/objects/pack").glob("tmp_pack_*")) or (root / ".git" / packing.PACK_REF).exists()


@pytest.mark.slow
def test_a_kill_in_the_middle_of_a_packed_write_leaves_a_sound_repository(tmp_path: Path) -> None:
    from bench import kills

    root = kills.make_repo(tmp_path / "mem")
    hit = 0
    for n in range(6):
        p = kills.writer(root, "import", n, tmp_path)
        deadline = time.monotonic() + 30
        while time.monotonic() < deadline and p.poll() is None and not _packing(root):
            time.sleep(0.0005)
        hit += _packing(root)
        os.kill(p.pid, signal.SIGKILL)
        p.wait()
        fsck = subprocess.run(["git", "fsck", "--strict"], cwd=root, capture_output=True, text=True)
        assert fsck.returncode == 0, fsck.stderr
        subprocess.run(kills.gitmem(root, "recover"), check=True, capture_output=True)
        assert git(root, "status", "--porcelain") == ""
        refused, problem = kills.person_commits(root, n, all_flag=n % 2 == 1)
        assert not refused and not problem
    assert hit >= 3    # most rounds were killed with a pack being written
    again = kills.writer(root, "import", 99, tmp_path)
    assert again.wait(timeout=120) == 0
    _sound(root)
    assert not (root / ".git" / packing.PACK_REF).exists()
