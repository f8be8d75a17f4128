"""Tests for gitmem.store.refresh: the recall index kept in step with git, in real repositories."""

from __future__ import annotations

import subprocess
from datetime import datetime, timedelta, timezone
from pathlib import Path
from typing import Any

import pytest

from gitmem.base.errors import IndexCorrupt
from gitmem.base.gitio import Git
from gitmem.store import refresh
from gitmem.store.index import ROWS_VERSION, Index

NOW = datetime(2026, 11, 29, 12, 0, tzinfo=timezone.utc)


def remember(repo: Any, text: str, minutes: int = 0, **kw: Any) -> str:
    done = repo.remember(text, now=NOW + timedelta(minutes=minutes), dedupe=False, **kw)
    return str(done.id)


def git_cli(root: Path, *args: str) -> str:
    out = subprocess.run(["git", "-C", str(root), *args], capture_output=True, text=True, check=True)
    return out.stdout.strip()


# ------------------------------------------------------------------ index_file and row


def test_index_file_lives_in_the_git_dir_and_its_folder_exists(repo: Any) -> None:
    path = refresh.index_file(repo.git)
    assert path == repo.git.git_dir / "gitmem" / "index.sqlite"
    assert path.parent.is_dir()
    assert refresh.index_file(repo.git, "at-x.sqlite").name == "at-x.sqlite"


def test_row_carries_every_field_of_the_memory(repo: Any) -> None:
    mid = remember(repo, "The staging database runs on port 5432", tags=("infra",))
    memory = repo.show(mid)
    row = refresh.row(memory)
    assert (row.id, row.path, row.content) == (memory.id, memory.path, memory.content)
    assert (row.type, row.domain, row.tier, row.band) == (memory.type, memory.domain, memory.tier, memory.band)
    assert row.importance == memory.importance
    assert row.tags == ("infra",)
    assert row.keywords == memory.keywords
    assert row.links == ()


def test_row_source_id_only_for_numbered_sources(repo: Any) -> None:
    numbered = repo.show(remember(repo, "first line of the import", source="import:notes.jsonl#L3"))
    plain = repo.show(remember(repo, "typed by hand, no numbered source", minutes=1))
    assert refresh.row(numbered).source_id == "import:notes.jsonl#L3"
    assert refresh.row(plain).source_id is None


# ------------------------------------------------------------------ rebuild


def test_rebuild_fills_the_index_from_the_tree(repo: Any, tmp_path: Path) -> None:
    ids = {remember(repo, f"memory number {i} about tabs and spaces", minutes=i) for i in range(3)}
    with Index(tmp_path / "ix.sqlite") as ix:
        assert refresh.rebuild(ix, repo.git, repo.head) == 3
        assert {r.id for r in ix.rows()} == ids
        assert ix.get_meta(refresh.META_COMMIT) == repo.head
        assert ix.get_meta("schema") == ROWS_VERSION


def test_rebuild_of_an_empty_history_is_empty(repo: Any, tmp_path: Path) -> None:
    with Index(tmp_path / "ix.sqlite") as ix:
        ix.upsert([])
        assert refresh.rebuild(ix, repo.git, None) == 0
        assert ix.count() == 0
        assert ix.get_meta(refresh.META_COMMIT) == ""


def test_rebuild_skips_an_unreadable_memory_file(repo: Any, repo_dir: Path, tmp_path: Path) -> None:
    good = remember(repo, "a well formed memory about deploys")
    folder = (repo_dir / repo.show(good).path).parent
    (folder / "m-broken.md").write_text("---\nid: [unclosed\n---\nbody\n", encoding="utf-8")
    git_cli(repo_dir, "add", "-A")
    git_cli(repo_dir, "commit", "-q", "--no-verify", "-m", "a broken memory file")
    head = git_cli(repo_dir, "rev-parse", "HEAD")
    with Index(tmp_path / "ix.sqlite") as ix:
        assert refresh.rebuild(ix, repo.git, head) == 1
        assert [r.id for r in ix.rows()] == [good]


def test_rebuild_file_replaces_the_file_and_its_journal(repo: Any) -> None:
    remember(repo, "one memory to index")
    path = refresh.index_file(repo.git)
    path.write_bytes(b"not a database at all")
    Path(str(path) + "-wal").write_bytes(b"stale journal")
    ix = refresh.rebuild_file(repo.git, repo.head)
    try:
        assert ix.count() == 1
    finally:
        ix.close()


# ------------------------------------------------------------------ sync


def test_sync_at_the_indexed_commit_touches_nothing(repo: Any, tmp_path: Path) -> None:
    remember(repo, "the build runs nightly")
    with Index(tmp_path / "ix.sqlite") as ix:
        refresh.rebuild(ix, repo.git, repo.head)
        assert refresh.sync(ix, repo.git, repo.head) == 0


def test_sync_applies_only_the_changed_memories(repo: Any, tmp_path: Path) -> None:
    for i in range(4):
        remember(repo, f"stable memory {i} about python packaging", minutes=i)
    with Index(tmp_path / "ix.sqlite") as ix:
        refresh.rebuild(ix, repo.git, repo.head)
        new = remember(repo, "a new fact about kubernetes clusters", minutes=10)
        assert refresh.sync(ix, repo.git, repo.head) == 1
        assert ix.get(new) is not None
        assert ix.count() == 5
        assert ix.get_meta(refresh.META_COMMIT) == repo.head


def test_sync_follows_a_forgotten_memory_into_the_archive(repo: Any, tmp_path: Path) -> None:
    mid = remember(repo, "an outdated fact about the old server")
    with Index(tmp_path / "ix.sqlite") as ix:
        refresh.rebuild(ix, repo.git, repo.head)
        repo.forget(mid, now=NOW + timedelta(hours=1))
        assert refresh.sync(ix, repo.git, repo.head) >= 1
        row = ix.get(mid)
        assert row is not None and row.tier == "archive"


def test_sync_removes_a_deleted_memory_file(repo: Any, repo_dir: Path, tmp_path: Path) -> None:
    keep = remember(repo, "this memory stays")
    gone = remember(repo, "this memory file is deleted by hand", minutes=1)
    with Index(tmp_path / "ix.sqlite") as ix:
        refresh.rebuild(ix, repo.git, repo.head)
        git_cli(repo_dir, "rm", "-q", repo.show(gone).path)
        git_cli(repo_dir, "commit", "-q", "--no-verify", "-m", "delete one memory")
        head = git_cli(repo_dir, "rev-parse", "HEAD")
        assert refresh.sync(ix, repo.git, head) == 1
        assert [r.id for r in ix.rows()] == [keep]


def test_sync_rebuilds_rows_made_another_way(repo: Any, tmp_path: Path) -> None:
    remember(repo, "rows of an older gitmem")
    with Index(tmp_path / "ix.sqlite") as ix:
        refresh.rebuild(ix, repo.git, repo.head)
        ix.set_meta("schema", "2")
        assert refresh.sync(ix, repo.git, repo.head) == 1
        assert ix.get_meta("schema") == ROWS_VERSION


def test_sync_rebuilds_when_the_indexed_commit_is_unknown(repo: Any, tmp_path: Path) -> None:
    remember(repo, "history was rewritten under this index")
    with Index(tmp_path / "ix.sqlite") as ix:
        refresh.rebuild(ix, repo.git, repo.head)
        ix.set_meta(refresh.META_COMMIT, "0" * 40)
        assert refresh.sync(ix, repo.git, repo.head) == 1
        assert ix.get_meta(refresh.META_COMMIT) == repo.head


def test_sync_to_no_commit_empties_the_index(repo: Any, tmp_path: Path) -> None:
    remember(repo, "soon unreachable")
    with Index(tmp_path / "ix.sqlite") as ix:
        refresh.rebuild(ix, repo.git, repo.head)
        assert refresh.sync(ix, repo.git, None) == 0
        assert ix.count() == 0


# ------------------------------------------------------------------ open_synced and open_at


def test_open_synced_replaces_a_corrupt_file(repo: Any) -> None:
    remember(repo, "recall survives a damaged index")
    path = refresh.index_file(repo.git)
    path.write_bytes(b"SQLite format 3\x00" + b"\xff" * 2000)
    with pytest.raises(IndexCorrupt):
        Index(path).close()
    ix = refresh.open_synced(repo.git, repo.head)
    try:
        assert ix.count() == 1
        assert ix.get_meta(refresh.META_COMMIT) == repo.head
    finally:
        ix.close()


def test_open_synced_creates_a_missing_index(repo: Any) -> None:
    remember(repo, "first recall of a fresh clone")
    path = refresh.index_file(repo.git)
    path.unlink(missing_ok=True)
    ix = refresh.open_synced(repo.git, repo.head)
    try:
        assert path.exists() and ix.count() == 1
    finally:
        ix.close()


def test_open_at_indexes_the_past_apart(repo: Any) -> None:
    remember(repo, "the first memory")
    past = repo.head
    remember(repo, "a second memory, later", minutes=5)
    old = refresh.open_at(repo.git, past)
    try:
        assert old.count() == 1
        assert Path(old.path).name == f"at-{past[:16]}.sqlite"
    finally:
        old.close()
    current = refresh.open_synced(repo.git, repo.head)
    try:
        assert current.count() == 2
    finally:
        current.close()


def test_open_at_reuses_its_cached_file(repo: Any) -> None:
    remember(repo, "cached past")
    first = refresh.open_at(repo.git, repo.head)
    first.set_meta("marker", "kept")
    first.close()
    again = refresh.open_at(repo.git, repo.head)
    try:
        assert again.get_meta("marker") == "kept"  # not rebuilt: the commit matched
    finally:
        again.close()


def test_open_at_accepts_a_tag(repo: Any, repo_dir: Path) -> None:
    remember(repo, "tagged memory")
    git_cli(repo_dir, "tag", "v1")
    remember(repo, "after the tag", minutes=1)
    ix = refresh.open_at(Git(repo_dir), "v1")
    try:
        assert [r.content for r in ix.rows()] == ["tagged memory"]
    finally:
        ix.close()
