"""The per-clone record of bodies scanned clean: a large write skips only those, keyed by what a verdict depends on."""

from __future__ import annotations

import subprocess
from datetime import timedelta
from pathlib import Path

import pytest

from gitmem.api import MemoryRepo
from gitmem.base import clock
from gitmem.base.errors import SecretError
from gitmem.base.model import Memory, memory_path
from gitmem.guards.cleanbodies import body_id
from gitmem.store import documents, store
from gitmem.writer import scanned
from gitmem.writer.plan import Plan
from tests.conftest import NOW

T = clock.parse_time(NOW)
TOKEN = "ghp_" + "R8nV2cX5zL1qW7eT4yU9iO3pA6sD0fGhJkMb"


def _memories(n: int, tag: str = "s") -> dict[str, bytes | None]:
    out: dict[str, bytes | None] = {}
    for i in range(n):
        mid = f"m-2026-11-29-{tag}{i:05d}"
        m = Memory(id=mid, content=f"note {i} about the build cache of service {i % 7}", created=NOW,
                   last_accessed=NOW, path=memory_path("project", mid))
        out[m.path] = store.render(m)
    return out


def _record(repo: MemoryRepo) -> Path:
    return scanned.record_path(repo.git, repo.cfg, str(repo.head))


def _plant(repo_dir: Path, body: str) -> str:
    """A memory file committed past the hooks (never scanned by the write path); its path."""
    mid = "m-2026-11-29-planted"
    path = memory_path("project", mid)
    m = Memory(id=mid, content=body, created=NOW, last_accessed=NOW, path=path)
    (repo_dir / path).parent.mkdir(parents=True, exist_ok=True)
    (repo_dir / path).write_bytes(store.render(m))
    subprocess.run(["git", "add", path], cwd=repo_dir, check=True)
    subprocess.run(["git", "commit", "-q", "--no-verify", "-m", "by hand"], cwd=repo_dir, check=True)
    return path


def _head(repo_dir: Path) -> str:
    return subprocess.run(["git", "rev-parse", "HEAD"], cwd=repo_dir, capture_output=True, text=True,
                          check=True).stdout


def test_a_large_write_records_each_body_it_scanned_clean(repo: MemoryRepo) -> None:
    changes = _memories(scanned.LARGE)
    repo.writer.write(lambda parent: Plan(changes, "seed", "test.seed"), T)
    known = scanned.load(_record(repo)).known
    bodies = {body_id(documents.split_front_matter(d.decode(), p)[1]) for p, d in changes.items() if d is not None}
    assert bodies <= known and len(known) == len(bodies)


def test_a_small_write_keeps_no_record(repo: MemoryRepo) -> None:
    changes = _memories(3)
    repo.writer.write(lambda parent: Plan(changes, "seed", "test.seed"), T)
    assert not _record(repo).exists()


def test_a_secret_planted_in_a_moved_file_refuses_a_large_decay(repo: MemoryRepo, repo_dir: Path) -> None:
    """Every other body is in the record; the planted one never passed the write path, so it is scanned."""
    changes = _memories(scanned.LARGE + 2)
    repo.writer.write(lambda parent: Plan(changes, "seed", "test.seed"), T)
    _plant(repo_dir, f"deploy with {TOKEN}")
    head = _head(repo_dir)
    with pytest.raises(SecretError):
        MemoryRepo.open(repo_dir).decay(now=T + timedelta(days=400))
    assert _head(repo_dir) == head


def test_the_record_is_what_is_skipped_and_other_settings_make_it_stale(repo: MemoryRepo, repo_dir: Path) -> None:
    """A body id in the record is not scanned again (here one holding a secret, written into the record by
    hand to show it); any change to the pii settings names another record, and it is scanned again."""
    changes = _memories(scanned.LARGE + 2)
    repo.writer.write(lambda parent: Plan(changes, "seed", "test.seed"), T)
    path = _plant(repo_dir, f"deploy with {TOKEN}")
    body = documents.split_front_matter((repo_dir / path).read_text(), path)[1]
    record = _record(MemoryRepo.open(repo_dir))
    record.write_bytes(record.read_bytes() + body_id(body))
    cfg = repo_dir / "gitmem.yaml"
    original = cfg.read_text()
    cfg.write_text(original.replace("max_change_share: 0.1", "max_change_share: 1.0"))
    subprocess.run(["git", "commit", "-qam", "every archive at once"], cwd=repo_dir, check=True)
    report = MemoryRepo.open(repo_dir).decay(now=T + timedelta(days=400), dry_run=False)
    assert report.commit is not None   # the recorded body was trusted

    subprocess.run(["git", "reset", "-q", "--hard", "HEAD~1"], cwd=repo_dir, check=True)
    cfg.write_text(cfg.read_text().replace("values: []", "values: [not-a-secret-value]"))
    assert "not-a-secret-value" in cfg.read_text()
    subprocess.run(["git", "commit", "-qam", "allow a value"], cwd=repo_dir, check=True)
    assert _record(MemoryRepo.open(repo_dir)) != record
    with pytest.raises(SecretError):
        MemoryRepo.open(repo_dir).decay(now=T + timedelta(days=400))
