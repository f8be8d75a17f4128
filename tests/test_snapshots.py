"""Tests for gitmem.store.snapshots: monthly tags, their stats, and the catch-up of earlier months by the snapshot job."""

from __future__ import annotations

import subprocess
from pathlib import Path

from gitmem.api import MemoryRepo
from gitmem.base.clock import parse_time
from gitmem.store import snapshots
from tests.conftest import head_of


def git(root: Path, *args: str) -> str:
    done = subprocess.run(["git", *args], cwd=root, capture_output=True, text=True)
    assert done.returncode == 0, done.stderr
    return done.stdout.strip()


def test_month_of_is_the_utc_month() -> None:
    assert snapshots.month_of(parse_time("2026-11-30T23:30:00-02:00")) == "2026-12"
    assert snapshots.month_of(parse_time("2026-01-01T00:00:00Z")) == "2026-01"
    assert snapshots.tag_name("2026-01") == "gitmem/snapshot/2026-01"


def test_take_tags_head_once_a_month_with_stats(repo: MemoryRepo) -> None:
    now = parse_time("2026-11-29T12:00:00Z")
    repo.remember("the staging database listens on port 5432", now=now)
    first = snapshots.take(repo.git, head_of(repo), now)
    assert first.created and first.tag == "gitmem/snapshot/2026-11" and first.commit == repo.head
    assert first.stats["memories"] == 1
    body = git(repo.root, "tag", "-l", "--format=%(contents)", first.tag)
    assert "gitmem snapshot 2026-11" in body and "memories: 1" in body and first.commit in body
    assert git(repo.root, "cat-file", "-t", first.tag) == "tag"   # annotated
    repo.remember("a second fact about kafka partitions", now=now)
    again = snapshots.take(repo.git, head_of(repo), parse_time("2026-11-30T08:00:00Z"))
    assert not again.created and again.commit == first.commit


def test_a_write_never_tags_and_the_snapshot_job_tags_each_earlier_month(repo: MemoryRepo) -> None:
    repo.remember("october fact one about redis", now=parse_time("2026-10-03T10:00:00Z"))
    repo.remember("october fact two about nginx", now=parse_time("2026-10-20T10:00:00Z"))
    last_october = repo.head
    repo.remember("november fact about postgres", now=parse_time("2026-11-02T10:00:00Z"))
    assert repo.snapshots() == []                 # writes leave tagging to the one snapshot job
    run = repo.run_job("snapshot", now=parse_time("2026-11-02T11:00:00Z"))
    assert run.ok and run.details["tag"] == "gitmem/snapshot/2026-11"
    tags = repo.snapshots()
    assert tags == ["gitmem/snapshot/2026-10", "gitmem/snapshot/2026-11"]
    assert git(repo.root, "rev-parse", "gitmem/snapshot/2026-10^{commit}") == last_october
    assert git(repo.root, "rev-parse", "gitmem/snapshot/2026-11^{commit}") == repo.head
    repo.remember("another november fact about ceph", now=parse_time("2026-11-05T10:00:00Z"))
    assert repo.snapshots() == tags
    again = repo.run_job("snapshot", now=parse_time("2026-11-05T11:00:00Z"))
    assert again.ok and again.details["created"] is False and repo.snapshots() == tags   # nothing new within the month


def test_catch_up_skips_months_already_tagged_and_months_without_commits(repo: MemoryRepo) -> None:
    repo.remember("july fact about consul", now=parse_time("2026-07-03T10:00:00Z"))
    snapshots.take(repo.git, head_of(repo), parse_time("2026-07-04T00:00:00Z"))
    july = git(repo.root, "rev-parse", "gitmem/snapshot/2026-07^{commit}")
    repo.remember("september fact about vault", now=parse_time("2026-09-03T10:00:00Z"))
    repo.snapshot(parse_time("2026-09-03T11:00:00Z"))
    tags = repo.snapshots()
    assert "gitmem/snapshot/2026-08" not in tags            # no commits in August
    assert git(repo.root, "rev-parse", "gitmem/snapshot/2026-07^{commit}") == july   # kept as it was


def test_catch_up_tags_an_earlier_month_without_a_tag(repo: MemoryRepo) -> None:
    repo.remember("may fact about etcd", now=parse_time("2026-05-03T10:00:00Z"))
    may = repo.head
    assert may is not None
    made = snapshots.catch_up(repo.git, may, parse_time("2026-06-01T00:00:00Z"))
    assert [(s.tag, s.commit) for s in made] == [("gitmem/snapshot/2026-05", may)]
    assert snapshots.catch_up(repo.git, may, parse_time("2026-06-02T00:00:00Z")) == []   # once a month


def test_untagged_months_lists_the_last_commit_of_each_month(repo: MemoryRepo) -> None:
    repo.remember("march fact about etcd", now=parse_time("2026-03-03T10:00:00Z"))
    march = repo.head
    found = dict(snapshots.untagged_months(repo.git, head_of(repo), parse_time("2026-05-01T00:00:00Z")))
    assert found["2026-03"] == march


def test_latest_is_the_newest_month(repo: MemoryRepo) -> None:
    assert snapshots.latest(repo.git) is None
    repo.remember("a fact for a tag", now=parse_time("2026-02-03T10:00:00Z"))
    snapshots.take(repo.git, head_of(repo), parse_time("2026-02-04T00:00:00Z"))
    snapshots.take(repo.git, head_of(repo), parse_time("2026-04-04T00:00:00Z"))
    assert snapshots.latest(repo.git) == "gitmem/snapshot/2026-04"
