"""The seed's trigger pre-check on real repositories: an empty output skips everything; an entry more than 0.8
similar to one of the last three reflections skips reflect but leaves distill to run; an older one does not count."""

from __future__ import annotations

from pathlib import Path

from gitmem.api import MemoryRepo
from tests.sediment_helpers import at, reflect


def entries(repo: MemoryRepo) -> int:
    return (Path(repo.root) / "bank" / "reflections.md").read_text().count("**Reusable**")


def test_an_empty_output_skips_and_writes_nothing(repo: MemoryRepo) -> None:
    done = reflect(repo, 1, output="   ")
    assert done.outcome == "skipped" and done.reason.startswith("empty output") and done.commit is None
    assert not (Path(repo.root) / "bank" / "reflections.md").exists() or entries(repo) == 0


def test_a_near_copy_of_a_recent_reflection_skips_reflect_and_distill_still_runs(repo: MemoryRepo) -> None:
    first = reflect(repo, 1)
    assert first.outcome == "written"
    again = reflect(repo, 1, now=at(2), topic="flaky clock test 1 again")    # the same lesson in nearly the same words
    assert again.outcome == "skipped" and "similar" in again.reason and again.commit is None
    assert entries(repo) == 1
    [done] = repo.sediment_distill(now=at(3))
    assert done.id == first.reflection.id and done.target == "bank/TABOOS.md"
    assert "check for flaky clock test early (1)" in (Path(repo.root) / "bank" / "TABOOS.md").read_text()


def test_only_the_last_three_reflections_count(repo: MemoryRepo) -> None:
    reflect(repo, 1)
    for n in (2, 3, 4):                               # three other lessons since
        assert reflect(repo, n).outcome == "written"
    assert reflect(repo, 1, now=at(9), topic="flaky clock test 1 again").outcome == "written"
    assert entries(repo) == 5
