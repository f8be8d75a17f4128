"""Tree writing along the changed paths: untouched subtrees are reused, empty folders vanish."""

from __future__ import annotations

import subprocess
from datetime import datetime, timezone
from pathlib import Path

import pytest

from gitmem.base import gitio
from gitmem.base.errors import ConflictError
from gitmem.base.gitio import Git

WHEN = datetime(2026, 11, 29, 12, 0, tzinfo=timezone.utc)


def git(root: Path, *args: str) -> str:
    done = subprocess.run(["git", *args], cwd=root, capture_output=True, text=True)
    assert done.returncode == 0, done.stderr
    return done.stdout.strip()


@pytest.fixture
def g(tmp_path: Path) -> Git:
    return gitio.init(tmp_path / "r")


def commit(g: Git, changes: dict[str, bytes | None]) -> str:
    parent = g.tip("main")
    return g.create_commit("main", g.build_tree(parent, changes), parent, "c\n", WHEN)


def test_untouched_subtrees_keep_their_ids(g: Git) -> None:
    first = commit(g, {f"memory/{d}/m-{i}.md": f"{d}{i}".encode() for d in ("user", "self", "world") for i in range(5)})
    second = commit(g, {"memory/user/m-0.md": b"changed"})
    for folder in ("memory/self", "memory/world"):
        assert git(g.root, "rev-parse", f"{first}:{folder}") == git(g.root, "rev-parse", f"{second}:{folder}")
    assert git(g.root, "rev-parse", f"{first}:memory/user") != git(g.root, "rev-parse", f"{second}:memory/user")


def test_build_tree_matches_what_git_would_write(g: Git) -> None:
    files = {"a.md": b"a\n", "d/e/f.md": b"f\n", "d/g.md": b"g\n"}
    tree = g.build_tree(None, files)
    for path, data in files.items():
        (g.root / path).parent.mkdir(parents=True, exist_ok=True)
        (g.root / path).write_bytes(data)
    git(g.root, "add", "-A")
    assert tree == git(g.root, "write-tree")


def test_a_change_that_changes_nothing_keeps_the_tree(g: Git) -> None:
    first = commit(g, {"a/b.md": b"b"})
    assert g.build_tree(first, {"a/b.md": b"b", "a/none.md": None}) == g.tree_id(first)


def test_deleting_everything_gives_the_empty_tree(g: Git) -> None:
    first = commit(g, {"a/b/c.md": b"c"})
    assert g.build_tree(first, {"a/b/c.md": None}) == git(g.root, "hash-object", "-t", "tree", "/dev/null")


def test_replacing_a_folder_in_one_change_is_refused(g: Git) -> None:
    first = commit(g, {"x/y.md": b"y"})
    with pytest.raises(ConflictError) as caught:
        g.build_tree(first, {"x": b"a file now"})
    assert "a folder of that name exists" in caught.value.message


def test_many_changes_in_one_folder_at_once(g: Git) -> None:
    changes: dict[str, bytes | None] = {f"bank/f{i}.md": str(i).encode() for i in range(300)}
    first = commit(g, changes)
    assert len(dict(g.files("bank", first))) == 300
    half: dict[str, bytes | None] = {f"bank/f{i}.md": None for i in range(0, 300, 2)}
    second = commit(g, half)
    assert sorted(dict(g.files("bank", second))) == sorted(f"bank/f{i}.md" for i in range(1, 300, 2))


def test_blob_entries_and_entry_ids_read_each_path_as_a_walk_from_the_top_would(tmp_path: Path) -> None:
    import pygit2

    from gitmem.base.gitio import trees as trees_mod

    repo = pygit2.init_repository(str(tmp_path / "r"))
    files: dict[tuple[str, ...], bytes | None] = {("top.md",): b"t\n", ("a", "b", "c.md"): b"c\n", ("a", "b", "d.md"): b"d\n", ("a", "f"): b"f\n",
             ("x", "y.md"): b"y\n"}
    tree = repo[trees_mod.build(repo, None, files)]
    assert isinstance(tree, pygit2.Tree)
    paths = ["top.md", "a/b/c.md", "a/b/d.md", "a/b/none.md", "a/b", "a/f", "a/f/under-a-file.md", "none/z.md",
             "x/y.md", "x/", "a//c.md", ""]
    for path in paths:
        try:
            walked = tree[path] if path else None
        except KeyError:
            walked = None
        want = (str(walked.id), int(walked.filemode)) if isinstance(walked, pygit2.Blob) else None
        assert trees_mod.blob_entries(tree, [path]) == {path: want}
    assert trees_mod.blob_entries(tree, paths) == {p: trees_mod.blob_entries(tree, [p])[p] for p in paths}
    assert trees_mod.entry_ids(tree, ["a/b", "a/b/c.md"])["a/b"] == str(tree["a/b"].id)
