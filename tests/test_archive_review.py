"""No silent mass change: an import over a cap says so, and a decay that would archive more than
max(50, memory.max_change_share) live memories at once opens an archive review instead."""

from __future__ import annotations

import json
import subprocess
from datetime import datetime, timedelta, timezone
from pathlib import Path

import pytest

from gitmem.api import MemoryRepo
from gitmem.engines import decay
from gitmem.base.config import Config, Memory as MemoryConfig
from tests.conftest import run_cli

T = datetime(2026, 11, 29, 12, 0, tzinfo=timezone.utc)


def set_config(repo_dir: Path, old: str, new: str) -> None:
    path = repo_dir / "gitmem.yaml"
    text = path.read_text()
    assert old in text
    path.write_text(text.replace(old, new))
    subprocess.run(["git", "commit", "-qam", f"config: {new}"], cwd=repo_dir, check=True)


def rows(tmp_path: Path, n: int, start: int = 0, name: str = "bulk.jsonl") -> Path:
    path = tmp_path / name
    path.write_text("".join(json.dumps({"id": f"bulk-{i}", "content": f"note {i}: the build step {i} caches layer {i * 7}",
                                        "importance": round(0.3 + (i % 50) / 100, 2), "created": "2026-11-01T00:00:00Z"})
                            + "\n" for i in range(start, start + n)))
    return path


def branches(repo_dir: Path, prefix: str) -> list[str]:
    out = subprocess.run(["git", "for-each-ref", "--format=%(refname:short)", "refs/heads/"],
                         cwd=repo_dir, capture_output=True, text=True, check=True).stdout
    return [b for b in out.split() if b.startswith(prefix)]


def live_files(repo_dir: Path, rev: str, folder: str) -> set[str]:
    out = subprocess.run(["git", "ls-tree", "-r", "--name-only", rev, folder], cwd=repo_dir,
                         capture_output=True, text=True, check=True).stdout
    return {p for p in out.split() if p.endswith(".md")}


def test_change_limit_is_the_larger_of_50_and_the_share() -> None:
    cfg = MemoryConfig()
    assert decay.change_limit(10, cfg) == 50
    assert decay.change_limit(499, cfg) == 50
    assert decay.change_limit(3000, cfg) == 300
    assert decay.change_limit(3000, MemoryConfig(max_change_share=0.5)) == 1500


def test_hold_back_keeps_a_small_archive_and_holds_a_large_one() -> None:
    moves = [decay.Move("a", "band active -> core")] + [
        decay.Move(f"m{i}", "archived (over max_short_term)", (f"memory/user/m{i}.md", f"archive/user/m{i}.md"))
        for i in range(3)]
    changes: dict[str, bytes | None] = {"memory/user/a.md": b"a"}
    for i in range(3):
        changes.update({f"memory/user/m{i}.md": None, f"archive/user/m{i}.md": b"x"})
    assert decay.hold_back(changes, moves, 3) == (changes, moves, {}, [])
    kept, kept_moves, held, held_moves = decay.hold_back(changes, moves, 2)
    assert kept == {"memory/user/a.md": b"a"} and kept_moves == moves[:1]
    assert set(held) == set(changes) - {"memory/user/a.md"} and held_moves == moves[1:]


def test_import_over_a_cap_says_so(repo_dir: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    set_config(repo_dir, "max_short_term: 100", "max_short_term: 20")
    code, out, err = run_cli(["--repo", str(repo_dir), "--now", "2026-11-29T12:00:00Z", "import",
                              str(rows(tmp_path, 150))], capsys)
    assert code == 0 and "imported 150 created" in out
    assert "warning: 150 short-term memories, over max_short_term (20) in gitmem.yaml" in err
    assert ("warning: the next decay would archive 130 memories; more than 50 at once, so decay will open an "
            "archive review instead of archiving") in err
    code, out, _ = run_cli(["--repo", str(repo_dir), "--now", "2026-11-29T12:00:00Z", "import", "--json",
                            str(rows(tmp_path, 2, 500, "few.jsonl"))], capsys)
    said = json.loads(out)
    assert said["over_caps"] == [{"tier": "short", "memories": 152, "cap": 20}] and said["would_archive"] == 132


def test_import_within_the_caps_says_nothing(repo_dir: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    code, _, err = run_cli(["--repo", str(repo_dir), "--now", "2026-11-29T12:00:00Z", "import",
                            str(rows(tmp_path, 30))], capsys)
    assert code == 0 and "warning" not in err


def test_mass_archive_goes_to_a_review_and_bands_still_commit(repo_dir: Path, tmp_path: Path,
                                                             capsys: pytest.CaptureFixture[str]) -> None:
    set_config(repo_dir, "max_short_term: 100", "max_short_term: 20")
    repo = MemoryRepo.open(repo_dir)
    repo.import_file(rows(tmp_path, 150), now=T)
    before = live_files(repo_dir, "HEAD", "memory")
    report = repo.decay(now=T + timedelta(days=40))
    assert len(report.held) == 130 and report.archived == () and report.limit == 50
    assert report.review is not None and report.review.startswith("gitmem/review/archive-")
    assert report.commit is not None and report.files_changed > 0         # band changes went to main
    assert live_files(repo_dir, "HEAD", "memory") == before               # nothing archived on main
    assert live_files(repo_dir, "HEAD", "archive") == set()
    on_review = live_files(repo_dir, report.review, "memory")
    assert len(on_review) == 20 and len(live_files(repo_dir, report.review, "archive")) == 130
    message = subprocess.run(["git", "log", "-1", "--format=%B", report.review], cwd=repo_dir,
                             capture_output=True, text=True, check=True).stdout
    assert "130 of 150 live memories would be archived at once, more than 50" in message
    assert sum(1 for line in message.splitlines() if ": archived (" in line) == 130
    assert any(line.endswith(": archived (over max_short_term)") for line in message.splitlines())
    # main's commit touched memories only, never archive/
    touched = subprocess.run(["git", "diff", "--name-only", f"{report.commit}~1", report.commit], cwd=repo_dir,
                             capture_output=True, text=True, check=True).stdout.split()
    assert len(touched) == report.files_changed and all(p.startswith("memory/") for p in touched)


def test_the_same_decay_again_keeps_the_review_and_a_new_one_supersedes_it(repo_dir: Path, tmp_path: Path,
                                                                          capsys: pytest.CaptureFixture[str]) -> None:
    set_config(repo_dir, "max_short_term: 100", "max_short_term: 20")
    repo = MemoryRepo.open(repo_dir)
    repo.import_file(rows(tmp_path, 150), now=T)
    first = repo.decay(now=T + timedelta(days=40))
    again = repo.decay(now=T + timedelta(days=40))
    assert again.review == first.review and again.review_commit == first.review_commit and again.superseded == ()
    repo.import_file(rows(tmp_path, 10, 900, "more.jsonl"), now=T + timedelta(days=41))
    code, out, _ = run_cli(["--repo", str(repo_dir), "--now", "2027-01-10T12:00:00Z", "decay"], capsys)
    assert code == 0
    assert f"decay: superseded the older archive review {first.review}" in out
    assert "memories would be archived at once, more than 50 (memory.max_change_share): held for review on " \
           "gitmem/review/archive-20270110T120000Z" in out
    assert branches(repo_dir, "gitmem/review/archive-") == ["gitmem/review/archive-20270110T120000Z"]
    kept = subprocess.run(["git", "for-each-ref", "--format=%(refname)", "refs/gitmem/rejected/"], cwd=repo_dir,
                          capture_output=True, text=True, check=True).stdout.split()
    assert f"refs/gitmem/rejected/{first.review}" in kept


def test_a_small_archive_still_commits_to_main(repo_dir: Path, tmp_path: Path) -> None:
    repo = MemoryRepo.open(repo_dir)   # max_short_term 100: 40 over it, under the limit of 50
    repo.import_file(rows(tmp_path, 140), now=T)
    report = repo.decay(now=T + timedelta(days=1))
    assert len(report.archived) == 40 and report.held == () and report.review is None
    assert len(live_files(repo_dir, "HEAD", "archive")) == 40


def test_accepting_the_archive_review_archives_them(repo_dir: Path, tmp_path: Path,
                                                   capsys: pytest.CaptureFixture[str]) -> None:
    set_config(repo_dir, "max_short_term: 100", "max_short_term: 20")
    repo = MemoryRepo.open(repo_dir)
    repo.import_file(rows(tmp_path, 150), now=T)
    report = repo.decay(now=T + timedelta(days=40))
    assert report.review
    code, shown, err = run_cli(["--repo", str(repo_dir), "review", "show", report.review], capsys)
    assert code == 0, err
    assert "OUTSIDE" not in shown and "130 of 150 live memories would be archived at once" in shown
    code, _, err = run_cli(["--repo", str(repo_dir), "review", "accept", report.review, "--i-am-the-reviewer"], capsys)
    assert code == 0, err
    assert len(live_files(repo_dir, "HEAD", "memory")) == 20
    assert len(live_files(repo_dir, "HEAD", "archive")) == 130


def test_preview_counts_tiers_and_caps(repo: MemoryRepo) -> None:
    for i in range(3):
        repo.remember(f"a fact number {i} about the cache {i * 11}", importance=0.5, now=T)
    cfg = Config(memory=MemoryConfig(max_short_term=1))
    head = repo.head
    assert head is not None
    seen = decay.preview(repo.git, head, cfg, T)
    assert seen.tiers == {"short": 3} and seen.over() == [("short", 3, 1)] and seen.would_archive == 2
