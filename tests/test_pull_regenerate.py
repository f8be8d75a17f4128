"""After a person's plain ``git pull`` that merges, the post-merge hook marks the clone and the next
gitmem command regenerates the generated files in one commit (two clones of a bare repository served
by ``git daemon``)."""

from __future__ import annotations

import os
import subprocess
from collections.abc import Iterator
from pathlib import Path

import pytest

from gitmem.api import MemoryRepo, pulled
from gitmem.base.clock import parse_time
from gitmem.api import initrepo
from tests import servers
from tests.loop_helpers import git

T = parse_time("2026-11-20T12:00:00Z")


@pytest.fixture
def remote_url(tmp_path: Path) -> Iterator[str]:
    with servers.served(tmp_path) as (_, url):
        yield url


def pull(repo: Path) -> subprocess.CompletedProcess[str]:
    # the person's own git, with gitmem's hooks: a merge, not a rebase
    env = {**os.environ, "GIT_MERGE_AUTOEDIT": "no"}
    return subprocess.run(["git", "-C", str(repo), "pull", "--no-rebase", "--quiet", "origin", "main"],
                          capture_output=True, text=True, env=env, check=True)


def test_a_plain_pull_that_merges_is_regenerated_by_the_next_gitmem_command(tmp_path: Path, remote_url: str) -> None:
    a = MemoryRepo.init(tmp_path / "a", T)
    git(a.root, "remote", "add", "origin", remote_url)
    assert a.sync(now=T).pushed
    subprocess.run(["git", "clone", "-q", remote_url, str(tmp_path / "b")], check=True, capture_output=True)
    b = MemoryRepo.init(tmp_path / "b", T)
    assert (b.root / ".git" / "hooks" / "post-merge").read_bytes() \
        == initrepo.hook_scripts()["post-merge"]
    a.remember("Deploys of the billing service need the on-call engineer", importance=0.95, now=T)
    a.sync_core(now=T)
    git(a.root, "push", "-q", "origin", "main")
    b.remember("The release train leaves every Tuesday at noon", importance=0.95, now=T)
    b.sync_core(now=T)

    done = pull(b.root)
    assert "regenerates them" in done.stderr and pulled.pending(b.root)
    merge = git(b.root, "rev-parse", "HEAD").strip()
    core = (b.root / "HIPPOCAMPUS_CORE.md").read_text(encoding="utf-8")
    assert "release train" in core and "billing" not in core        # the driver kept ours: stale

    MemoryRepo.open(b.root)                                           # any gitmem command
    assert not pulled.pending(b.root)
    assert git(b.root, "rev-parse", "HEAD~1").strip() == merge       # one commit of its own
    assert "regenerate the generated files after a merge" in git(b.root, "log", "-1", "--format=%s")
    core = (b.root / "HIPPOCAMPUS_CORE.md").read_text(encoding="utf-8")
    assert "release train" in core and "billing" in core
    assert git(b.root, "status", "--porcelain") == ""
    MemoryRepo.open(b.root)
    assert git(b.root, "rev-parse", "HEAD~1").strip() == merge       # once


def test_a_fast_forward_pull_marks_nothing(tmp_path: Path, remote_url: str) -> None:
    a = MemoryRepo.init(tmp_path / "a", T)
    git(a.root, "remote", "add", "origin", remote_url)
    assert a.sync(now=T).pushed
    subprocess.run(["git", "clone", "-q", remote_url, str(tmp_path / "b")], check=True, capture_output=True)
    b = MemoryRepo.init(tmp_path / "b", T)
    a.remember("Deploys of the billing service need the on-call engineer", importance=0.95, now=T)
    a.sync_core(now=T)
    git(a.root, "push", "-q", "origin", "main")
    done = pull(b.root)
    assert done.stderr == "" and not pulled.pending(b.root)
    assert "billing" in (b.root / "HIPPOCAMPUS_CORE.md").read_text(encoding="utf-8")
