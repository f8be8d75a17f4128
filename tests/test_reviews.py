"""Tests for gitmem.api.reviews, review_decisions and review_merges: the review loop on real repositories."""

from __future__ import annotations

import subprocess
import sys
from datetime import timedelta
from pathlib import Path

import pytest

from tests.conftest import head_of, run_cli
from gitmem.api import MemoryRepo
from gitmem.base.clock import parse_time
from gitmem.api.review_decisions import StaleReview
from gitmem.base.errors import ConflictError, NotFoundError, UsageError
from gitmem.store import enginestate, formats
from tests.loop_helpers import START, add_sessions, git, proposed

T = parse_time("2026-10-30T12:00:00Z")
LATER = START + timedelta(days=10)


def test_list_and_show_a_weights_review(repo: MemoryRepo) -> None:
    branch = proposed(repo)
    (info,) = repo.reviews()
    assert (info.name, info.kind, info.behind) == (branch, "weights", False)
    shown = repo.review_show(branch.rsplit("/", 1)[-1])          # the short name works too
    assert shown.semantic == ("retry-flaky-calls-with-backoff: weight 0.3 -> 0.45",)
    assert "+weight: 0.45" in shown.diff and "Gitmem-Event: hebbian.weights.propose" in shown.message


def test_accept_merges_with_approval_regenerates_layer_two_and_resets_the_counter(repo: MemoryRepo) -> None:
    branch = proposed(repo)
    main = repo.head
    done = repo.review_accept(branch, i_am_the_reviewer=True, now=LATER)
    assert done.action == "accepted" and not done.recomputed and done.commit == repo.head
    parents = git(repo.root, "log", "-1", "--format=%P").split()
    assert parents[0] == main and len(parents) == 2
    body = git(repo.root, "log", "-1", "--format=%B")
    assert "Gitmem-Approved-By: Test Person <test@example.com>" in body and "Gitmem-Auto" not in body
    assert repo.patterns()[0].weight == 0.45 and repo.reviews() == []
    assert "Retry flaky calls with backoff" in (repo.root / "CLAUDE.md").read_text()
    assert enginestate.read(repo.git.read(formats.STATE_FILE, head_of(repo))).auto_streak == 0
    assert git(repo.root, "status", "--porcelain") == ""


def test_accept_of_a_stale_proposal_recomputes_and_never_counts_twice(repo: MemoryRepo) -> None:
    branch = proposed(repo, sessions=2)                           # counts sessions 0 and 1
    add_sessions(repo.root, ["backoff once more"], START + timedelta(days=1), first=2)   # main moves
    tip = repo.head
    with pytest.raises(StaleReview) as stale:                      # shown, and asked for again
        repo.review_accept(branch, i_am_the_reviewer=True, now=LATER)
    assert stale.value.semantic == ("retry-flaky-calls-with-backoff: weight 0.3 -> 0.45",)
    assert repo.head == tip and [r.name for r in repo.reviews()] == [branch]
    with pytest.raises(StaleReview):                               # a digest of another change is no answer
        repo.review_accept(branch, i_am_the_reviewer=True, now=LATER, recomputed="0" * 12)
    done = repo.review_accept(branch, i_am_the_reviewer=True, now=LATER, recomputed=stale.value.digest)
    assert done.recomputed
    (p,) = repo.patterns()
    assert p.weight == 0.45                                       # three sessions, each once
    assert repo.weights().rows == ()


def test_a_superseded_proposal_never_double_counts(repo: MemoryRepo) -> None:
    first = proposed(repo, sessions=2)
    add_sessions(repo.root, ["backoff"], START + timedelta(days=1), first=2)
    second = repo.propose_weights(now=T + timedelta(seconds=5)).branch   # on the current tip: not stale
    assert second and second != first and [r.name for r in repo.reviews()] == [second]
    repo.review_accept(second, i_am_the_reviewer=True, now=LATER)
    assert repo.patterns()[0].weight == 0.45


def test_reject_keeps_the_branch_and_records_the_veto(repo: MemoryRepo) -> None:
    branch = proposed(repo)
    tip = git(repo.root, "rev-parse", branch)
    done = repo.review_reject(branch, "too eager", i_am_the_reviewer=True, now=LATER)
    assert done.kept_at == f"refs/gitmem/rejected/{branch}" and repo.reviews() == []
    assert git(repo.root, "rev-parse", done.kept_at) == tip
    body = git(repo.root, "log", "-1", "--format=%B")
    assert "Gitmem-Veto: too eager" in body and "reason: too eager" in body
    state = enginestate.read(repo.git.read(formats.STATE_FILE, head_of(repo)))
    assert state.veto_streak == 0 and state.auto_streak == 0   # only a sedimentation review counts as a veto
    assert repo.patterns()[0].weight == 0.3


@pytest.mark.parametrize("action", ["accept", "reject"])
def test_an_agent_cannot_decide_its_own_review(repo: MemoryRepo, monkeypatch: pytest.MonkeyPatch, action: str) -> None:
    branch = proposed(repo)
    monkeypatch.setenv("CLAUDECODE", "1")
    tip = repo.head
    with pytest.raises(UsageError, match="CLAUDECODE"):
        if action == "accept":
            repo.review_accept(branch, interactive=True, now=LATER)
        else:
            repo.review_reject(branch, "x", interactive=True, now=LATER)
    assert repo.head == tip and [r.name for r in repo.reviews()] == [branch]


def test_an_atrophy_branch_that_no_longer_applies_is_refused(repo: MemoryRepo) -> None:
    repo.pattern_add("An old habit", ["fortran"], weight=0.12, now=T)
    add_sessions(repo.root, ["nothing relevant"] * 2)
    repo.apply_weights(now=T)
    (branch,) = repo.atrophy(now=START + timedelta(weeks=5))
    add_sessions(repo.root, ["fortran is back"], START + timedelta(days=1), first=2)
    repo.apply_weights(now=T)                                     # the pattern changed on main since
    tip = repo.head
    with pytest.raises(ConflictError, match="no longer applies") as info:
        repo.review_accept(branch, i_am_the_reviewer=True, now=LATER)
    assert info.value.hint and "reject" in info.value.hint and repo.head == tip


def test_accepting_an_atrophy_branch_deletes_the_pattern(repo: MemoryRepo) -> None:
    repo.pattern_add("An old habit", ["fortran"], weight=0.12, now=T)
    repo.pattern_add("A good habit", ["tests"], now=T)
    add_sessions(repo.root, ["tests pass"] * 2)
    repo.apply_weights(now=T)
    (branch,) = repo.atrophy(now=START + timedelta(weeks=5))
    shown = repo.review_show(branch)
    assert shown.semantic[0].startswith("delete an-old-habit: weight 0.08") and "weight history" in shown.semantic[0]
    repo.review_accept(branch, i_am_the_reviewer=True, now=LATER)
    assert [p.slug for p in repo.patterns()] == ["a-good-habit"]
    assert "An old habit" not in (repo.root / "CLAUDE.md").read_text()


def test_show_makes_invisible_characters_visible(repo: MemoryRepo) -> None:
    repo.pattern_add("Deploy\u202e on fridays", ["deploy"], now=T)
    add_sessions(repo.root, ["deploy"])
    branch = repo.propose_weights(now=T).branch
    assert branch is not None
    assert "<U+202E>" in repo.review_show(branch).diff


def test_unknown_review_is_a_clear_error(repo: MemoryRepo) -> None:
    with pytest.raises(NotFoundError, match="no open review 'nope'"):
        repo.review_show("nope")


def test_push_sends_open_reviews_to_a_bare_remote_without_force(repo: MemoryRepo, tmp_path: Path) -> None:
    bare = tmp_path / "remote.git"
    subprocess.run(["git", "init", "-q", "--bare", str(bare)], check=True)
    git(repo.root, "remote", "add", "origin", str(bare))
    branch = proposed(repo)
    assert repo.review_push("origin") == [branch]
    assert git(bare, "rev-parse", branch) == git(repo.root, "rev-parse", branch)


def test_cli_review_loop(repo_dir: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch) -> None:
    repo = MemoryRepo.open(repo_dir)
    branch = proposed(repo)
    base = ["--repo", str(repo_dir), "--now", "2026-11-15T00:00:00Z"]
    code, out, _ = run_cli(["review", "list", *base], capsys)
    assert code == 0 and branch in out
    code, out, _ = run_cli(["review", "show", branch, *base], capsys)
    assert code == 0 and "weight 0.3 -> 0.45" in out and "diff --git" in out
    code, _, err = run_cli(["review", "accept", branch, *base], capsys)   # no terminal under pytest
    assert code == 2 and "no terminal" in err                               # a usage error
    code, out, _ = run_cli(["review", "accept", branch, "--i-am-the-reviewer", *base], capsys)
    assert code == 0 and "accepted" in out
    code, out, _ = run_cli(["review", "list", "--json", *base], capsys)
    assert code == 0 and out.strip() == "[]"


def test_a_core_candidate_reaches_layer_one_only_through_a_persons_accept(repo: MemoryRepo) -> None:
    repo.pattern_add("Run the full test suite before pushing", ["pushing"], now=T)
    add_sessions(repo.root, ["before pushing we ran everything"] * 30)
    repo.apply_weights(now=T)
    (p,) = repo.patterns()
    assert (p.weight, p.stage) == (0.95, "core-candidate")
    (review_info,) = repo.reviews()
    assert review_info.name == "gitmem/review/promote-run-the-full-test-suite-before-pushing"
    layer1 = (repo.root / "CLAUDE.md").read_text().split("<!-- /gitmem:layer -->")[0]
    assert "Run the full test suite" not in layer1                 # nothing in Layer 1 without a person
    assert repo.promote(now=T) == []                               # never twice while open
    done = repo.review_accept(review_info.name, i_am_the_reviewer=True, now=LATER)
    text = (repo.root / "CLAUDE.md").read_text()
    layer1, rest = text.split("<!-- /gitmem:layer -->", 1)
    assert "- Run the full test suite before pushing" in layer1 and "Run the full test suite" not in rest
    assert repo.patterns()[0].stage == "core"
    assert "Gitmem-Approved-By" in git(repo.root, "log", "-1", "--format=%B", done.commit or "HEAD")
    code = subprocess.run([sys.executable, "-m", "gitmem", "check", "layers", "--range", f"{done.commit}~1..{done.commit}",
                           "--repo", str(repo.root)], capture_output=True, text=True)
    assert code.returncode == 0, code.stdout + code.stderr


def test_visible_marks_every_ascii_control_character_but_tab_and_newline() -> None:
    from gitmem.engines.review import visible

    for code in range(128):
        ch = chr(code)
        kept = ch in "\t\n" or 32 <= code < 127
        assert visible(f"a{ch}b") == (f"a{ch}b" if kept else f"a<U+{code:04X}>b")


def test_visible_marks_each_character_as_a_look_up_per_character_would() -> None:
    from gitmem.engines.review import _hidden, visible

    text = "a\u202eb\u200b c\u00a0d\te\nf\u2028g\x7fh→ü\U000e0041\ue000\u202e"
    assert visible(text) == "".join(f"<U+{ord(ch):04X}>" if _hidden(ch) else ch for ch in text)
    assert visible(text) == ("a<U+202E>b<U+200B> c<U+00A0>d\te\nf<U+2028>g<U+007F>h→ü<U+E0041><U+E000><U+202E>")
