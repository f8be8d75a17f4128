"""Tests for gitmem.api.patterns: pattern add, the weight update (dry run, propose, apply), analyze, atrophy."""

from __future__ import annotations

from datetime import timedelta
from pathlib import Path

import pytest

from tests.conftest import head_of, run_cli
from gitmem.api import MemoryRepo
from gitmem.base.clock import parse_time
from gitmem.base.errors import ConflictError, UsageError
from gitmem.store import enginestate, formats
from tests.loop_helpers import START, add_sessions, git

T = parse_time("2026-10-30T12:00:00Z")   # patterns are made before the sessions of loop_helpers.START


def test_pattern_add_starts_at_the_initial_weight(repo: MemoryRepo) -> None:
    added = repo.pattern_add("Retry flaky network calls with exponential backoff", ["backoff", "retry"], now=T)
    assert added.weight == 0.3 and added.slug == "retry-flaky-network-calls-with-exponential"
    (p,) = repo.patterns()
    assert (p.weight, p.stage, p.triggers, p.created) == (0.3, "episodic", ("backoff", "retry"), "2026-10-30T12:00:00Z")
    again = repo.pattern_add("Retry flaky network calls with exponential backoff", ["x"], weight=0.5, now=T)
    assert again.slug.endswith("-2") and again.weight == 0.5


def test_a_pattern_slug_takes_whole_words_as_the_tokenizer_cuts_them(repo: MemoryRepo) -> None:
    """Accented words fold to ASCII whole ("école" -> "ecole", not "cole"); words of other scripts leave no
    trace in the file name; the underscore parts words, as in recall."""
    added = repo.pattern_add("Réunion à l'école: check_ports avant Наш деплой", ["reunion"], now=T)
    assert added.slug == "reunion-a-l-ecole-check-ports-avant"
    assert repo.pattern_add("Наш деплой", ["deploy"], now=T).slug == "pattern"


@pytest.mark.parametrize("text,triggers,weight,match", [
    ("", ["a"], None, "needs text"), ("rule", [" ", ""], None, "at least one trigger"),
    ("rule", ["a"], 1.0, "outside"), ("rule", ["a"], -0.1, "outside")])
def test_pattern_add_refuses_bad_input(repo: MemoryRepo, text: str, triggers: list[str], weight: float | None,
                                       match: str) -> None:
    tip = repo.head
    with pytest.raises(UsageError, match=match):
        repo.pattern_add(text, triggers, weight, now=T)
    assert repo.head == tip


def test_thirty_sessions_give_the_formulas_weights(repo: MemoryRepo) -> None:
    repo.pattern_add("Retry flaky calls with backoff", ["backoff"], now=T)
    repo.pattern_add("Pin dependency versions", ["lockfile"], now=T)
    add_sessions(repo.root, ["the backoff helped the flaky test"] * 30)
    report = repo.weights()
    rows = {r.slug: r for r in report.rows}
    assert rows["retry-flaky-calls-with-backoff"].after == 0.95 and rows["retry-flaky-calls-with-backoff"].counted == 30
    assert rows["pin-dependency-versions"].after == 0.0                 # 0.3 - 30 * 0.02, floored
    assert rows["retry-flaky-calls-with-backoff"].stage_after == "core-candidate"
    assert "-weight: 0.3\n" in report.diff and "+weight: 0.95\n" in report.diff
    assert repo.patterns()[0].weight == 0.3                             # a dry run writes nothing


def test_apply_counts_each_session_once_and_forces_a_review_after_three(repo: MemoryRepo) -> None:
    repo.pattern_add("Retry flaky calls with backoff", ["backoff"], now=T)
    for n in range(3):
        add_sessions(repo.root, ["backoff again"], START + timedelta(days=n), first=n)
        done = repo.apply_weights(now=T)
        assert done.commit is not None and [r.counted for r in done.rows] == [1]
        assert repo.apply_weights(now=T).commit is None                 # a re-run counts nothing
    assert repo.patterns()[0].weight == 0.45
    assert enginestate.read(repo.git.read(formats.STATE_FILE, head_of(repo))).auto_streak == 3
    add_sessions(repo.root, ["backoff a fourth time"], START + timedelta(days=5), first=5)
    with pytest.raises(ConflictError, match="must be reviewed") as info:
        repo.apply_weights(now=T)
    assert info.value.hint and "--propose" in info.value.hint


def test_apply_is_refused_while_a_weights_review_is_open(repo: MemoryRepo) -> None:
    repo.pattern_add("Retry flaky calls with backoff", ["backoff"], now=T)
    add_sessions(repo.root, ["backoff"])
    proposed = repo.propose_weights(now=T)
    assert proposed.branch and proposed.branch.startswith("gitmem/review/weights-")
    with pytest.raises(ConflictError, match="a weights review is open"):
        repo.apply_weights(now=T)


def test_propose_makes_one_commit_on_a_branch_and_leaves_main_alone(repo: MemoryRepo) -> None:
    repo.pattern_add("Retry flaky calls with backoff", ["backoff"], now=T)
    add_sessions(repo.root, ["backoff"] * 3)
    main = repo.head
    first = repo.propose_weights(now=T)
    assert repo.head == main and first.branch is not None
    assert git(repo.root, "rev-list", "--count", f"{main}..{first.branch}") == "1"
    assert git(repo.root, "rev-parse", f"{first.branch}^") == main
    assert "Gitmem-Auto: true" in git(repo.root, "log", "-1", "--format=%B", first.branch)
    later = repo.propose_weights(now=T + timedelta(seconds=1))
    assert later.superseded == (first.branch,) and repo.open_weights_review() == later.branch
    assert git(repo.root, "rev-parse", f"refs/gitmem/rejected/{first.branch}") == first.commit


def test_nothing_to_count_proposes_nothing(repo: MemoryRepo) -> None:
    repo.pattern_add("Retry flaky calls with backoff", ["backoff"], now=T)
    assert repo.propose_weights(now=T).branch is None and repo.reviews() == []


def test_analyze_finds_co_activated_patterns(repo: MemoryRepo) -> None:
    repo.pattern_add("Retry with backoff", ["backoff"], now=T)
    repo.pattern_add("Backoff needs jitter", ["jitter"], now=T)
    repo.pattern_add("Pin versions", ["lockfile"], now=T)
    add_sessions(repo.root, ["backoff with jitter"] * 4 + ["lockfile only"] * 2 + ["backoff alone"])
    found = repo.analyze()
    assert found.activations == {"backoff-needs-jitter": 4, "pin-versions": 2, "retry-with-backoff": 5}
    assert found.pairs == (("backoff-needs-jitter", "retry-with-backoff", 0.8),)
    assert found.clusters == (("backoff-needs-jitter", "retry-with-backoff"),)
    assert found.merge_candidates == found.pairs


@pytest.mark.parametrize("threshold, merged", [(0.0, 1), (0.8, 1), (0.81, 0), (1.0, 0)])
def test_the_merge_threshold_is_inclusive_from_0_to_1(repo: MemoryRepo, threshold: float, merged: int) -> None:
    repo.pattern_add("Retry with backoff", ["backoff"], now=T)
    repo.pattern_add("Backoff needs jitter", ["jitter"], now=T)
    add_sessions(repo.root, ["backoff with jitter"] * 4 + ["backoff alone"])
    assert len(repo.analyze(merge_threshold=threshold).merge_candidates) == merged


@pytest.mark.parametrize("value", ["5", "-0.1", "1.01", "nan", "inf"])
def test_a_threshold_that_is_no_jaccard_similarity_is_a_usage_error(repo: MemoryRepo, value: str,
                                                                     capsys: pytest.CaptureFixture[str]) -> None:
    with pytest.raises(UsageError, match="no Jaccard similarity: give a number from 0 to 1"):
        repo.analyze(merge_threshold=float(value))
    with pytest.raises(UsageError, match="the cluster threshold"):
        repo.analyze(cluster_threshold=float(value))
    code, out, err = run_cli(["--repo", str(repo.root), "analyze", "--merge-threshold", value], capsys)
    assert (code, out) == (2, "") and "gitmem: error: the merge threshold" in err and "hint: gitmem analyze" in err


def test_atrophy_opens_one_branch_after_four_weeks_and_never_twice(repo: MemoryRepo) -> None:
    repo.pattern_add("An old habit", ["fortran"], weight=0.12, now=T)
    add_sessions(repo.root, ["nothing relevant"] * 2)
    repo.apply_weights(now=T)                                   # 0.12 -> 0.10 -> 0.08: under 0.10 now
    assert repo.patterns()[0].weight == 0.08
    assert repo.atrophy(now=START + timedelta(weeks=3)) == []  # not yet four weeks
    opened = repo.atrophy(now=START + timedelta(weeks=5))
    assert opened == ["gitmem/atrophy/an-old-habit"]
    body = git(repo.root, "log", "-1", "--format=%B", opened[0])
    assert "weight history" in body and "last activated: never" in body
    assert repo.atrophy(now=START + timedelta(weeks=6)) == []  # the branch is open
    repo.review_reject("an-old-habit", "still useful", i_am_the_reviewer=True, now=START + timedelta(weeks=6))
    assert repo.atrophy(now=START + timedelta(weeks=9)) == []  # rejected once: never again


def test_a_recently_activated_pattern_is_never_proposed_for_atrophy(repo: MemoryRepo) -> None:
    repo.pattern_add("Rare but alive", ["fortran"], weight=0.03, now=T)
    add_sessions(repo.root, ["fortran once"])
    repo.apply_weights(now=T)
    (p,) = repo.patterns()
    assert p.weight == 0.08                                    # under delete_below since it was made
    assert repo.atrophy(now=START + timedelta(days=29)) == []  # under for 4 weeks, but activated 29 days ago
    assert repo.atrophy(now=START + timedelta(days=31)) == ["gitmem/atrophy/rare-but-alive"]


def test_cli_pattern_weights_analyze(repo_dir: Path, capsys: pytest.CaptureFixture[str]) -> None:
    base = ["--repo", str(repo_dir), "--now", "2026-10-30T12:00:00Z"]
    code, out, _ = run_cli(["pattern", "add", "Retry with backoff", "--triggers", "backoff,retry", *base], capsys)
    assert code == 0 and "added pattern retry-with-backoff at weight 0.3" in out
    add_sessions(repo_dir, ["backoff"] * 2)
    code, out, _ = run_cli(["weights", *base], capsys)
    assert code == 0 and "retry-with-backoff\t0.3 -> 0.4\tepisodic\t2 (2 activated)" in out and "dry run" in out
    code, out, _ = run_cli(["weights", "--propose", *base], capsys)
    assert code == 0 and "proposed on gitmem/review/weights-20261030T120000Z" in out
    code, out, _ = run_cli(["pattern", "list", "--json", *base], capsys)
    assert code == 0 and '"weight": 0.3' in out
    code, out, _ = run_cli(["analyze", *base], capsys)
    assert code == 0 and "no two patterns" in out
    code, _, err = run_cli(["pattern", "add", "x", "--triggers", "a", "--weight", "2", *base], capsys)
    assert code == 1 and "error:" in err and "hint:" in err


def test_thirty_harvested_sessions_move_weights_exactly_as_the_formula_says(repo: MemoryRepo, tmp_path: Path) -> None:
    from tests.loop_helpers import write_transcripts

    repo.pattern_add("Retry flaky calls with backoff", ["backoff"], now=T)
    acts = [n % 3 != 2 for n in range(30)]        # two sessions in three mention backoff
    texts = ["the sync needs backoff on the flaky call" if a else "please write the changelog" for a in acts]
    results = repo.harvest(write_transcripts(tmp_path / "sessions", texts), now=START + timedelta(days=2))
    assert [r.status for r in results] == ["harvested"] * 30
    w = 0.3
    for a in acts:
        w = round(min(0.95, max(0.0, w + 0.05 * a - 0.02 * (1 - a))), 6)
    (row,) = repo.weights().rows
    assert (row.counted, row.activated, row.after) == (30, 20, w)
    repo.apply_weights(now=START + timedelta(days=2))
    assert repo.patterns()[0].weight == w and repo.weights().rows == ()
