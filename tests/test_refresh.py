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


# ------------------------------------------------------------------ rebuilt equals kept up


def _commit_files(root: Path, files: dict[str, str | None], message: str) -> None:
    for path, text in files.items():
        full = root / path
        if text is None:
            full.unlink()
        else:
            full.parent.mkdir(parents=True, exist_ok=True)
            full.write_text(text, encoding="utf-8")
    git_cli(root, "add", "-A")
    git_cli(root, "commit", "-q", "--no-verify", "-m", message)


def test_a_rebuilt_index_equals_the_index_kept_up_commit_by_commit(repo: Any, repo_dir: Path, tmp_path: Path) -> None:
    import json

    def search_all(ix: Index) -> list[list[tuple[float, str]]]:
        # equal scores are ordered by row number, which follows the order rows were written in
        return [sorted((-round(h.score, 9), h.id) for h in ix.search(q, k=50, now=NOW))
                for q in ("deploy", "kafka retry", "staging", "déploiement", "会议")]

    kept = Index(tmp_path / "kept.sqlite")
    refresh.sync(kept, repo.git, repo.head)
    steps = []
    first = [remember(repo, f"deploy step {i} of the staging cluster needs kafka retry {i}", minutes=i,
                      tags=("infra",) if i % 2 else ()) for i in range(6)]
    steps.append(repo.head)
    rows = tmp_path / "rows.jsonl"   # a numbered source orders its memories
    rows.write_text("".join(json.dumps({"content": c}) + "\n" for c in
                            ("déploiement du vendredi", "会议 在 周一", "the staging deploy is manual", "kafka retry backoff")))
    repo.import_file(rows, now=NOW + timedelta(minutes=30))
    steps.append(repo.head)
    repo.link(first[0], first[1], now=NOW + timedelta(minutes=40))
    steps.append(repo.head)
    repo.forget(first[2], now=NOW + timedelta(minutes=50))
    steps.append(repo.head)
    folder = repo_dir / repo.show(first[3]).path
    _commit_files(repo_dir, {str(folder.relative_to(repo_dir)): None,
                             "memory/project/ab/m-broken.md": "---\nid: [unclosed\n---\nbody\n",
                             "memory/world/m-hand-written.md": "---\n# a person's note\nid: m-hand-written\n"
                                                               "type: fact\ntags: [staging]\n---\nstaging deploy by hand\n",
                             "episodes/2026/s-1.md": "---\ntitle: a staging deploy\nstarted: 2026-11-29T10:00:00Z\n---\n"
                                                     "## Summary\n\nWe fixed the kafka retry.\n"}, "a person's edits")
    steps.append(git_cli(repo_dir, "rev-parse", "HEAD"))
    for i in range(2):   # the same memory written again: reinforced in place
        remember(repo, "deploy step 0 of the staging cluster needs kafka retry 0", minutes=60 + i)
    steps.append(repo.head)
    for rev in steps:
        refresh.sync(kept, repo.git, rev)
    rebuilt = Index(tmp_path / "rebuilt.sqlite")
    refresh.rebuild(rebuilt, repo.git, steps[-1])
    try:
        assert list(rebuilt.rows()) == list(kept.rows())
        assert len(list(kept.rows())) >= 11
        assert search_all(rebuilt) == search_all(kept)
        for key in (refresh.META_COMMIT, "schema"):
            assert rebuilt.get_meta(key) == kept.get_meta(key)
    finally:
        kept.close()
        rebuilt.close()


def test_fill_refuses_an_index_that_holds_rows(tmp_path: Path) -> None:
    from gitmem.store.index import IndexRow

    row = IndexRow("m-1", "memory/user/m-1.md", "text", "fact", "user", "short", "active", 0.5,
                   "2026-11-29T12:00:00Z", "2026-11-29T12:00:00Z")
    with Index(tmp_path / "ix.sqlite") as ix:
        assert ix.fill([row, row._replace(content="the last one wins")]) == 1
        assert ix.get("m-1") == row._replace(content="the last one wins")
        with pytest.raises(ValueError):
            ix.fill([row])
