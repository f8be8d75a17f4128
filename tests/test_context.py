"""Tests for gitmem.api.context (the tip memory is read from) and gitmem.api.duplicates (the duplicate lookup,
the changes of a batch)."""

from __future__ import annotations

import dataclasses
import subprocess
from pathlib import Path

import pytest

from gitmem.api import MemoryRepo
from gitmem.api import duplicates
from gitmem.api.context import Context
from gitmem.base import clock
from gitmem.base.config import Config
from gitmem.base.errors import ConflictError, NotFoundError, UsageError
from gitmem.engines import memorize
from gitmem.store import formats, store
from tests.conftest import NOW

T = clock.parse_time(NOW)
STAGING = "The staging database listens on port 5432"


def git(root: Path, *args: str) -> str:
    done = subprocess.run(["git", *args], cwd=root, capture_output=True, text=True)
    assert done.returncode == 0, done.stderr
    return done.stdout.strip()


def with_similarity(value: float) -> Config:
    cfg = Config()
    return dataclasses.replace(cfg, memory=dataclasses.replace(cfg.memory, reinforce_similarity=value))


# --------------------------------------------------------------------------- head and revisions

def test_head_is_the_tip_of_the_checked_out_branch(repo_dir: Path) -> None:
    ctx = Context.open(repo_dir)
    assert ctx.head == git(repo_dir, "rev-parse", "refs/heads/main")
    assert ctx.root == repo_dir and ctx.writer.root == repo_dir.resolve()


def test_head_follows_commits_made_after_opening(repo: MemoryRepo, repo_dir: Path) -> None:
    first = repo.head
    r = repo.remember(STAGING, now=T)
    assert repo.head == r.commit != first
    git(repo_dir, "commit", "-q", "--allow-empty", "--no-verify", "-m", "a person's commit")
    assert repo.head == git(repo_dir, "rev-parse", "HEAD")


def test_head_when_detached_is_the_checked_out_commit(repo: MemoryRepo, repo_dir: Path) -> None:
    init = repo.head
    repo.remember(STAGING, now=T)
    assert init is not None
    git(repo_dir, "checkout", "-q", "--detach", init)
    ctx = Context.open(repo_dir)
    assert ctx.head == init
    assert ctx.git.head_branch() is None
    assert MemoryRepo.open(repo_dir).list().memories == ()   # read at the detached commit, not at main


def test_a_write_on_a_detached_head_is_refused_and_commits_nothing(repo: MemoryRepo, repo_dir: Path) -> None:
    git(repo_dir, "checkout", "-q", "--detach", "HEAD")
    tip = git(repo_dir, "rev-parse", "refs/heads/main")
    with pytest.raises(ConflictError) as info:
        MemoryRepo.open(repo_dir).remember(STAGING, now=T)
    assert info.value.hint is not None and "git switch" in info.value.hint
    assert git(repo_dir, "rev-parse", "refs/heads/main") == tip


def test_head_in_a_linked_worktree_is_its_own_branch(repo: MemoryRepo, repo_dir: Path, tmp_path: Path) -> None:
    linked = tmp_path / "linked"
    git(repo_dir, "worktree", "add", "-q", "-b", "side", str(linked))
    side = MemoryRepo.open(linked)
    r = side.remember(STAGING, now=T)
    assert side.head == r.commit == git(repo_dir, "rev-parse", "refs/heads/side")
    assert repo.head == git(repo_dir, "rev-parse", "refs/heads/main") != r.commit
    assert repo.list().memories == () and [m.id for m in side.list().memories] == [r.id]


def test_head_of_an_unborn_branch_is_none(repo_dir: Path) -> None:
    git(repo_dir, "switch", "-q", "--orphan", "fresh")
    ctx = Context.open(repo_dir)
    assert ctx.head is None and ctx.rev(None) is None
    assert ctx.format == 0   # nothing committed yet: the oldest format, never a refusal
    assert duplicates.duplicate_lookup(ctx, ctx.head) is None


def test_rev_resolves_names_and_defaults_to_head(repo: MemoryRepo, repo_dir: Path) -> None:
    init = repo.head
    r = repo.remember(STAGING, now=T)
    git(repo_dir, "tag", "before", str(init))
    assert repo._ctx.rev(None) == r.commit
    assert repo._ctx.rev("") == r.commit          # an empty --at means "now"
    assert repo._ctx.rev("before") == init
    assert repo._ctx.rev("HEAD~1") == init
    assert repo._ctx.rev("main") == r.commit
    assert repo._ctx.rev(str(r.commit)[:10]) == r.commit


def test_rev_of_an_unknown_name_is_not_found(repo: MemoryRepo) -> None:
    with pytest.raises(NotFoundError, match="no-such-tag"):
        repo._ctx.rev("no-such-tag")


# --------------------------------------------------------------------------- format check on open

def test_format_is_read_from_the_committed_state(repo_dir: Path) -> None:
    assert Context.open(repo_dir).format == formats.FORMAT
    state = repo_dir / formats.STATE_FILE
    state.write_text(state.read_text().replace(f"format: {formats.FORMAT}", "format: 99"))
    assert Context.open(repo_dir).format == formats.FORMAT   # an uncommitted edit is not the repository's format


def test_a_committed_newer_format_refuses_to_open(repo_dir: Path) -> None:
    state = repo_dir / formats.STATE_FILE
    state.write_text(state.read_text().replace(f"format: {formats.FORMAT}", f"format: {formats.FORMAT + 1}"))
    git(repo_dir, "commit", "-qam", "from the future", "--no-verify")
    with pytest.raises(UsageError, match="reads formats up to"):
        Context.open(repo_dir)
    git(repo_dir, "checkout", "-q", "--detach", "HEAD~1")   # the older commit is still readable
    assert Context.open(repo_dir).format == formats.FORMAT


@pytest.mark.parametrize("text, message", [("format: [1\n", "not valid YAML"), ("format: -1\n", "not a format number"),
                                           ("format: yes\n", "not a format number")])
def test_a_damaged_state_file_refuses_to_open_with_a_hint(repo_dir: Path, text: str, message: str) -> None:
    (repo_dir / formats.STATE_FILE).write_text(text)
    git(repo_dir, "commit", "-qam", "damage", "--no-verify")
    with pytest.raises(UsageError, match=message) as info:
        Context.open(repo_dir)
    assert info.value.hint is not None and "git checkout" in info.value.hint


def test_a_state_file_without_a_format_key_is_format_zero(repo_dir: Path) -> None:
    (repo_dir / formats.STATE_FILE).write_text("threshold: 15\n")
    git(repo_dir, "commit", "-qam", "as 0.1.0 wrote it", "--no-verify")
    assert Context.open(repo_dir).format == 0


def test_a_given_config_is_used_instead_of_gitmem_yaml(repo_dir: Path) -> None:
    cfg = with_similarity(0.95)
    ctx = Context.open(repo_dir, cfg)
    assert ctx.cfg is cfg and ctx.writer.cfg is cfg
    assert Context.open(repo_dir).cfg.memory.reinforce_similarity == 0.0


# --------------------------------------------------------------------------- similar_memory

def test_similar_memory_finds_the_live_duplicate_in_its_domain(repo: MemoryRepo) -> None:
    r = repo.remember(STAGING, domain="project", now=T)
    head = repo.head
    assert head is not None
    found = repo.similar_memory("the staging database listens on port 5432", "project", head, ())
    assert found is not None and found.id == r.id and found.content == STAGING
    assert repo.similar_memory(STAGING, "user", head, ()) is None   # another domain is never merged
    assert repo.similar_memory("the release train leaves on Fridays", "project", head, ()) is None


def test_similar_memory_at_an_older_revision_sees_what_was_stored_then(repo: MemoryRepo) -> None:
    init = repo.head
    repo.remember(STAGING, domain="project", now=T)
    assert init is not None
    assert repo.similar_memory(STAGING, "project", init, ()) is None


def test_similar_memory_ignores_archived_memories(repo: MemoryRepo) -> None:
    r = repo.remember(STAGING, domain="project", now=T)
    repo.forget(r.id, now=T)
    head = repo.head
    assert head is not None
    assert repo.similar_memory(STAGING, "project", head, ()) is None
    again = repo.remember(STAGING, domain="project", now=T)
    assert again.action == "created" and again.id != r.id


def test_similar_memory_searches_by_keywords_when_given(repo: MemoryRepo) -> None:
    r = repo.remember(STAGING, domain="project", now=T)
    head = repo.head
    assert head is not None
    assert repo.similar_memory(STAGING, "project", head, ("staging", "database")) is not None
    # keywords that match nothing find no candidate, however close the text
    assert repo.similar_memory(STAGING, "project", head, ("zeppelin",)) is None
    found = repo.similar_memory(STAGING, "project", head, r.memory.keywords)
    assert found is not None and found.id == r.id


def test_similar_memory_honours_the_configured_threshold(repo: MemoryRepo, repo_dir: Path) -> None:
    repo.remember(STAGING, domain="project", now=T)
    near = "the shared staging database listens on port 5432"   # similarity 0.91
    head = repo.head
    assert head is not None
    keys = ("staging", "database")
    assert repo.similar_memory(near, "project", head, keys) is not None
    strict = Context.open(repo_dir, with_similarity(0.999))
    assert duplicates.similar_memory(strict, near, "project", head, keys) is None
    assert duplicates.similar_memory(strict, STAGING, "project", head, keys) is not None   # identical text always matches


@pytest.mark.parametrize("text, keywords", [('foo "bar', ()), ("NOT AND OR", ()), ("a-b c* (x) NEAR(y)", ()),
                                            ("", ()), ("   ", ()), ("x", ("NOT", '"', "c*", "^a", "col:val"))])
def test_similar_memory_survives_search_syntax_in_its_input(repo: MemoryRepo, text: str,
                                                            keywords: tuple[str, ...]) -> None:
    repo.remember(STAGING, domain="project", now=T)
    head = repo.head
    assert head is not None
    assert repo.similar_memory(text, "project", head, keywords) is None


def test_similar_memory_never_merges_a_negation(repo: MemoryRepo) -> None:
    repo.remember("use tabs for indentation in this repo", domain="project", now=T)
    head = repo.head
    assert head is not None
    assert repo.similar_memory("never use tabs for indentation in this repo", "project", head, ()) is None


# --------------------------------------------------------------------------- the lookup and the changes

def test_lookup_asks_the_stored_memories_at_the_parent(repo: MemoryRepo) -> None:
    r = repo.remember(STAGING, domain="project", now=T)
    lookup = duplicates.duplicate_lookup(repo._ctx, repo.head)
    assert lookup is not None
    probe = memorize.new_memory("m-2026-11-29-aaaaaaaaaa", STAGING, "fact", "project", 0.5, NOW, T, repo.cfg.memory)
    found = lookup(probe)
    assert found is not None and found.id == r.id
    assert lookup(probe.with_(domain="user")) is None
    assert duplicates.duplicate_lookup(repo._ctx, None) is None


def test_changes_render_a_new_memory_at_its_path(repo: MemoryRepo) -> None:
    parent = repo.head
    batch = memorize.Batch(duplicates.duplicate_lookup(repo._ctx, parent), T, repo.cfg.memory)
    mem = memorize.new_memory("m-2026-11-29-bbbbbbbbbb", STAGING, "fact", "project", 0.5, NOW, T, repo.cfg.memory)
    batch.add(mem)
    changes = duplicates.batch_changes(repo._ctx, batch, parent)
    assert changes == {mem.path: store.render(mem)}


def test_changes_rewrite_a_reinforced_memory_in_place(repo: MemoryRepo, repo_dir: Path) -> None:
    r = repo.remember(STAGING, domain="project", now=T)
    path = repo_dir / r.memory.path
    path.write_text(path.read_text().replace("\n---", "\n# kept by hand\n---", 1))
    git(repo_dir, "commit", "-qam", "a comment in the front matter", "--no-verify")
    parent = repo.head
    batch = memorize.Batch(duplicates.duplicate_lookup(repo._ctx, parent), T, repo.cfg.memory)
    probe = memorize.new_memory("m-2026-11-29-cccccccccc", STAGING, "fact", "project", 0.5, NOW, T, repo.cfg.memory)
    assert batch.add(probe).action == "reinforced"
    changes = duplicates.batch_changes(repo._ctx, batch, parent)
    assert list(changes) == [r.memory.path]
    data = changes[r.memory.path]
    assert data is not None and b"# kept by hand" in data and b"reinforced: 1" in data


def test_changes_without_a_parent_render_every_memory(repo: MemoryRepo) -> None:
    stored = repo.remember(STAGING, domain="project", now=T).memory
    batch = memorize.Batch(lambda mem: stored, T, repo.cfg.memory)
    probe = memorize.new_memory("m-2026-11-29-dddddddddd", STAGING, "fact", "project", 0.5, NOW, T, repo.cfg.memory)
    out = batch.add(probe)
    assert out.action == "reinforced"
    assert duplicates.batch_changes(repo._ctx, batch, None) == {stored.path: store.render(out.memory)}


def test_changes_of_an_empty_batch_are_empty(repo: MemoryRepo) -> None:
    assert duplicates.batch_changes(repo._ctx, memorize.Batch(None, T, repo.cfg.memory), repo.head) == {}


def test_remember_twice_reinforces_through_the_lookup(repo: MemoryRepo, repo_dir: Path) -> None:
    a = repo.remember(STAGING, domain="project", now=T)
    b = repo.remember("the staging database listens on port 5432", domain="project", now=T)
    assert (b.action, b.id) == ("reinforced", a.id)
    assert git(repo_dir, "ls-files", "memory/project").count(".md") == 1
    assert repo.show(a.id).reinforced == 1


# --------------------------------------------------------------------------- scoring before the write lock

_HOLD_LOCK = """
import fcntl, os, sys, time
fd = os.open(sys.argv[1], os.O_RDWR | os.O_CREAT, 0o600)
fcntl.flock(fd, fcntl.LOCK_EX)
print("held", flush=True)
sys.stdin.read()
"""


def test_duplicate_search_and_scoring_run_while_another_process_holds_the_write_lock(repo: MemoryRepo) -> None:
    import sys

    kept = repo.remember(STAGING, now=T)
    lock = repo.writer.state / "write.lock"
    holder = subprocess.Popen([sys.executable, "-c", _HOLD_LOCK, str(lock)], stdin=subprocess.PIPE,
                              stdout=subprocess.PIPE, text=True)
    try:
        assert holder.stdout is not None and holder.stdout.readline().strip() == "held"
        scan = repo.prescan("the staging DB listens on port 5432", kept.memory.domain, ("staging", "database"))
        assert holder.poll() is None      # the lock was held the whole time
    finally:
        holder.communicate("")
    assert scan.rev == repo.head and scan.found is not None and scan.found.id == kept.id


def test_a_prescan_is_checked_again_when_the_store_moved(repo: MemoryRepo) -> None:
    first = repo.remember("Lunch is at noon on Fridays", now=T)
    scan = repo.prescan(STAGING, "project", ("staging", "database", "port"))
    assert scan.found is None
    mem = memorize.new_memory("m-new", STAGING, "fact", "project", 0.7, NOW, T, repo.cfg.memory)
    # a duplicate written by someone else after the scan is found under the lock
    other = repo.remember("The staging database listens on port 5432.", now=T)
    lookup = duplicates.rechecked(repo._ctx, scan, repo.head)
    assert lookup is not None
    found = lookup(mem)
    assert found is not None and found.id == other.id
    # a scan's answer that was archived since is no duplicate any more
    scan = repo.prescan(STAGING, "project", ("staging", "database", "port"))
    assert scan.found is not None and scan.found.id == other.id
    repo.forget(other.id, now=T)
    lookup = duplicates.rechecked(repo._ctx, scan, repo.head)
    assert lookup is not None and lookup(mem) is None
    assert first.action == "created"


def test_a_text_over_the_compare_cap_is_reinforced_only_by_an_equal_text(repo: MemoryRepo) -> None:
    from gitmem.engines.similarity import COMPARE_CHARS

    long_text = " ".join(f"step {n}: deploy the staging database on port {5000 + n}" for n in range(COMPARE_CHARS // 20))
    assert len(long_text) > COMPARE_CHARS
    first = repo.remember(long_text, now=T)
    again = repo.remember(long_text, now=T)
    assert (first.action, again.action, again.id) == ("created", "reinforced", first.id)
    # one word changed in a text nobody compared in full: never a merge
    changed = repo.remember(long_text.replace("step 7:", "step 7 (skip):"), now=T)
    assert changed.action == "created" and changed.id != first.id


def test_an_import_batch_uses_each_rows_prescan_and_rechecks_a_moved_store(repo: MemoryRepo) -> None:
    kept = repo.remember(STAGING, now=T)
    rev = repo.head
    rows = [memorize.new_memory(f"m-row-{n}", text, "fact", kept.memory.domain, 0.7, NOW, T, repo.cfg.memory)
            for n, text in enumerate(["The staging database listens on port 5432!", "Lunch is at noon on Fridays"])]
    scans = {m.id: repo.prescan(m.content, m.domain, m.keywords, rev) for m in rows}
    lookup = duplicates.rechecked_each(repo._ctx, scans, rev)
    assert lookup is not None
    assert [getattr(lookup(m), "id", None) for m in rows] == [kept.id, None]
    later = repo.remember("Lunch is at noon on Fridays.", domain=kept.memory.domain, now=T)
    lookup = duplicates.rechecked_each(repo._ctx, scans, repo.head)
    assert lookup is not None
    assert [getattr(lookup(m), "id", None) for m in rows] == [kept.id, later.id]
