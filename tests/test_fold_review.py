"""No silent mass change, for reflect: a run that would fold more than max(50, memory.max_change_share)
live memories into patterns at once commits nothing to the branch and opens a fold review
(gitmem/review/archive-fold-…) beside decay's archive review, which lists each pattern and the memories
it would take; accept folds them, the scope refuses anything else."""

from __future__ import annotations

import json
import subprocess
from datetime import timedelta
from pathlib import Path

import pytest

from gitmem.api import MemoryRepo
from gitmem.engines import reviewkinds
from tests.conftest import run_cli
from tests.test_archive_review import T, branches, rows, set_config


def word(i: int) -> str:
    """A made-up word of its own for each pair, so no two pairs read alike."""
    return "".join("bcdfghjklmnpqrstvwxz"[int(c)] for c in f"{i:03d}") + "o"


def pairs(tmp_path: Path, n: int, name: str = "pairs.jsonl") -> Path:
    """``n`` pairs of memories saying the same thing in other words: reflect folds each pair."""
    path = tmp_path / name
    with path.open("w") as f:
        for i in range(n):
            w = word(i)
            for j, text in enumerate((f"always run the {w} migrations before deploying the {w} service",
                                      f"run the {w} migrations before you deploy the {w} service")):
                f.write(json.dumps({"id": f"pair-{i}-{j}", "content": text, "created": "2026-11-01T00:00:00Z"}) + "\n")
    return path


def git(repo_dir: Path, *args: str) -> str:
    return subprocess.run(["git", *args], cwd=repo_dir, capture_output=True, text=True, check=True).stdout


def test_a_mass_fold_goes_to_a_review_and_accept_folds_it(repo_dir: Path, tmp_path: Path,
                                                         capsys: pytest.CaptureFixture[str]) -> None:
    repo = MemoryRepo.open(repo_dir)
    repo.import_file(pairs(tmp_path, 35), now=T)
    head = repo.head
    code, out, err = run_cli(["--repo", str(repo_dir), "--now", "2026-11-29T12:00:00Z", "reflect"], capsys)
    assert code == 0, err
    assert ("reflect: 70 memories would be folded at once, more than 50 (memory.max_change_share): held for review "
            "on gitmem/review/archive-fold-20261129T120000Z") in out
    assert MemoryRepo.open(repo_dir).head == head                      # nothing on the branch
    review = "gitmem/review/archive-fold-20261129T120000Z"
    assert reviewkinds.kind_of(review) is reviewkinds.FOLD
    touched = git(repo_dir, "diff", "--name-only", head or "", review).split()
    assert touched and all(p.startswith("patterns/") for p in touched), touched
    message = git(repo_dir, "log", "-1", "--format=%B", review)
    assert "70 of 70 live memories would be folded into patterns at once, more than 50" in message
    assert "pair-0-0" in message and "pair-34-1" in message and "(new)" in message
    again = MemoryRepo.open(repo_dir).reflect(now=T + timedelta(hours=1))   # the same fold: the open review is kept
    assert again.review == review and again.superseded == () and again.commit is None
    code, shown, err = run_cli(["--repo", str(repo_dir), "review", "show", review], capsys)
    assert code == 0 and "OUTSIDE" not in shown, shown + err
    code, _, err = run_cli(["--repo", str(repo_dir), "review", "accept", review, "--i-am-the-reviewer"], capsys)
    assert code == 0, err
    repo = MemoryRepo.open(repo_dir)
    folded = {s for p in repo.patterns() for s in p.sources}
    assert len(folded) == 70 and branches(repo_dir, "gitmem/review/archive-fold-") == []
    index = git(repo_dir, "show", "HEAD:patterns.md")   # the generated index is written by accept
    assert all(p.title in index for p in repo.patterns()), index
    after = repo.reflect(now=T + timedelta(hours=2))
    assert after.consumed == () and after.review is None   # nothing left to fold


def test_a_small_fold_still_commits_to_the_branch(repo_dir: Path, tmp_path: Path) -> None:
    repo = MemoryRepo.open(repo_dir)
    repo.import_file(pairs(tmp_path, 20), now=T)
    done = repo.reflect(now=T)
    assert len(done.consumed) == 40 and done.commit is not None and done.review is None and done.limit == 50


def test_the_fold_review_and_the_archive_review_stand_side_by_side(repo_dir: Path, tmp_path: Path) -> None:
    set_config(repo_dir, "max_short_term: 100", "max_short_term: 20")
    repo = MemoryRepo.open(repo_dir)
    repo.import_file(rows(tmp_path, 150), now=T)
    archive = repo.decay(now=T + timedelta(days=40)).review
    assert archive is not None
    repo = MemoryRepo.open(repo_dir)
    repo.import_file(pairs(tmp_path, 60), now=T + timedelta(days=40))
    fold = repo.reflect(now=T + timedelta(days=41))
    assert fold.review is not None and fold.superseded == ()
    assert archive in branches(repo_dir, "gitmem/review/archive-")             # reflect never supersedes decay's
    decayed = MemoryRepo.open(repo_dir).decay(now=T + timedelta(days=42))
    assert fold.review not in decayed.superseded
    assert branches(repo_dir, "gitmem/review/archive-fold-") == [fold.review]   # nor decay a fold


def test_the_fold_scope_takes_pattern_growth_only() -> None:
    judge = reviewkinds.judge
    branch = "gitmem/review/archive-fold-20261129T120000Z"
    ok = [reviewkinds.Change("patterns/a.md", "added"),
          reviewkinds.Change("patterns/b.md", "modified", frozenset({"sources", "verified", "last_verified", "body"}))]
    assert judge(reviewkinds.FOLD, branch, ok) == []
    bad = [reviewkinds.Change("patterns/b.md", "modified", frozenset({"weight", "sources"})),
           reviewkinds.Change("patterns/c.md", "deleted"),
           reviewkinds.Change("memory/user/x.md", "modified", frozenset({"body"})),
           reviewkinds.Change("patterns.md", "modified")]
    reasons = {o.change.path: o.reason for o in judge(reviewkinds.FOLD, branch, bad)}
    assert set(reasons) == {"patterns/b.md", "patterns/c.md", "memory/user/x.md", "patterns.md"}
    assert "weight" in reasons["patterns/b.md"] and "never deletes" in reasons["patterns/c.md"]
