"""Reviews accepted on the git server as pull requests merged with a merge commit, squashed or rebased, and
reviews decided in another clone: recognised by sync over a real git daemon, and never from an unrelated commit."""

from __future__ import annotations

import json
import subprocess
from collections.abc import Iterator
from datetime import datetime
from pathlib import Path

import pytest

from gitmem.api import MemoryRepo
from gitmem.engines import landing
from gitmem.engines.sediment import threshold
from gitmem.base.clock import parse_time
from gitmem.base.config import Sediment
from tests import servers
from tests.loop_helpers import START, add_sessions, git
from tests.sediment_helpers import T0, at, reflect, state

BEFORE = parse_time("2026-10-30T12:00:00Z")   # a pattern made before the sessions of START
RITA = ("-c", "user.name=Rita Reviewer", "-c", "user.email=rita@example.com")


@pytest.fixture
def url(tmp_path: Path) -> Iterator[str]:
    with servers.served(tmp_path) as (_, found):
        yield found


@pytest.fixture(params=sorted(servers.SERVERS))
def any_url(request: pytest.FixtureRequest, tmp_path: Path) -> Iterator[str]:
    """Each of the two servers (the squash of a sedimentation promotion is the case that writes most)."""
    with servers.served(tmp_path, request.param) as (_, found):
        yield found


def machine(tmp_path: Path, url: str, name: str = "a", when: datetime = T0) -> MemoryRepo:
    repo = MemoryRepo.init(tmp_path / name, when)
    git(repo.root, "remote", "add", "origin", url)
    assert repo.sync(now=when).pushed
    return repo


def clone(tmp_path: Path, url: str, name: str) -> MemoryRepo:
    subprocess.run(["git", "clone", "-q", url, str(tmp_path / name)], check=True, capture_output=True)
    return MemoryRepo.init(tmp_path / name, T0)


def on_server(tmp_path: Path, url: str, name: str = "forge") -> Path:
    """A checkout that plays the git server's side of a pull request (its commits dated by a fixed clock)."""
    target = tmp_path / name
    if not target.exists():
        subprocess.run(["git", "clone", "-q", url, str(target)], check=True, capture_output=True)
    else:
        git(target, "fetch", "-q", "origin")
        git(target, "reset", "-q", "--hard", "origin/main")
    return target


def forge(root: Path, *args: str, minutes: float = 30) -> str:
    """``git ARGS`` as Rita, the reviewer, at a fixed time."""
    stamp = at(minutes).strftime("%Y-%m-%dT%H:%M:%SZ")
    done = subprocess.run(["git", *RITA, *args], cwd=root, capture_output=True, text=True,
                          env={**_env(), "GIT_AUTHOR_DATE": stamp, "GIT_COMMITTER_DATE": stamp})
    assert done.returncode == 0, done.stderr
    return done.stdout.strip()


def _env() -> dict[str, str]:
    import os

    return dict(os.environ)


def promoted(repo: MemoryRepo, n: int = 1) -> str:
    """A reflection of ``repo`` proposed for promotion, its review pushed with main; the branch."""
    reflect(repo, n)
    [p] = repo.sediment_promote(now=at(n + 1))
    assert p.branch and p.branch in repo.sync(now=at(n + 2)).reviews
    return p.branch


def main_moves_on(root: Path, text: str = "unrelated work on the server\n", minutes: float = 20) -> None:
    """The server's main gets a commit of its own, so that a squash has other context than the branch."""
    (root / "NOTES.txt").write_text(text)
    forge(root, "add", "NOTES.txt", minutes=minutes)
    forge(root, "commit", "-q", "-m", "notes", minutes=minutes)


def squash(root: Path, branch: str, message: str, minutes: float = 30) -> str:
    forge(root, "merge", "--squash", "-q", f"origin/{branch}", minutes=minutes)
    forge(root, "commit", "-q", "-m", message, minutes=minutes)
    forge(root, "push", "-q", "origin", "main", minutes=minutes)
    return git(root, "rev-parse", "HEAD")


def subject(repo: MemoryRepo, branch: str) -> str:
    return git(repo.root, "log", "-1", "--format=%s", branch)


def events(repo: MemoryRepo) -> list[dict[str, object]]:
    path = Path(repo.root) / ".git" / "gitmem" / "events.jsonl"
    return [json.loads(line) for line in path.read_text().splitlines()]


# --- the key of a change ---------------------------------------------------------------------------

def test_a_change_key_ignores_context_and_line_numbers_but_not_the_lines() -> None:
    one = "diff --git a/x b/x\nindex 1..2 100644\n--- a/x\n+++ b/x\n@@ -3,0 +4 @@\n+rule\n"
    other = "diff --git a/x b/x\nindex 7..8 100644\n--- a/x\n+++ b/x\n@@ -9,0 +10 @@\n+rule\n"
    assert landing.change_key(one) == landing.change_key(other) != ""
    assert landing.change_key(one) != landing.change_key(one.replace("+rule", "+rule2"))
    assert landing.change_key(one) != landing.change_key(one.replace("a/x b/x", "a/y b/y"))
    assert landing.change_key("") == "" and landing.change_key("diff --git a/x b/x\nold mode 100644\n") != ""


def test_a_key_alone_never_makes_a_squash() -> None:
    own = [landing.Landed("1", "gitmem <g@x>", "2026-12-01T10:00:00Z", "gitmem <g@x>", "", "gitmem: promote r-1", "k")]
    line = [landing.Landed("2", "Rita <r@x>", "2026-12-01T11:00:00Z", "Rita <r@x>", "", "my own edit", "k")]
    assert landing.find("gitmem/review/x", "k", own, line) is None                       # unrelated message
    assert landing.find("gitmem/review/x", "k", own, line, deleted=True) is not None     # the branch went
    assert landing.find("gitmem/review/x", "", own, line, deleted=True) is None          # an empty change
    named = [landing.Landed("3", "Rita <r@x>", "t", "Rita <r@x>", "", "gitmem: promote r-1 (#7)", "k")]
    assert landing.find("gitmem/review/x", "k", own, named) == landing.Landing("squash", named[0])


def test_a_review_decided_twice_counts_once_in_the_streaks() -> None:
    lines = ["2026-12-01T10:00:00Z approve b", "2026-12-01T10:05:00Z approve b", "2026-12-01T10:06:00Z veto c",
             "2026-12-01T10:07:00Z veto c"]
    t = threshold.current(lines, Sediment(), at(60))
    assert (t.approve_streak, t.veto_streak) == (0, 1)


# --- squash and rebase merges of a weights review ---------------------------------------------------

def weights_review(tmp_path: Path, url: str) -> tuple[MemoryRepo, str]:
    repo = machine(tmp_path, url, when=BEFORE)
    repo.pattern_add("Retry flaky calls with backoff", ["backoff"], now=BEFORE)
    add_sessions(repo.root, ["the backoff helped", "the backoff again"], START, first=0)
    proposed = repo.propose_weights(now=at(1))
    assert proposed.branch and proposed.branch in repo.sync(now=at(2)).reviews
    return repo, proposed.branch


def test_a_squash_merge_with_the_forges_message_is_recorded_as_accepted_by_its_committer(
        tmp_path: Path, url: str) -> None:
    repo, branch = weights_review(tmp_path, url)
    server = on_server(tmp_path, url)
    main_moves_on(server)
    squashed = squash(server, branch, f"{subject(repo, branch)} (#7)")
    done = repo.sync(now=at(40))
    assert done.accepted == (branch,) and branch not in repo.git.branches()
    [e] = [e for e in events(repo) if e["event"] == "review.merged"]
    assert (e["how"], e["merge"], e["merged_by"]) == ("squash", squashed, "Rita Reviewer <rita@example.com>")
    assert git(repo.root, "rev-parse", f"refs/gitmem/accepted/{branch}") == git(repo.root, "rev-parse",
                                                                                  f"origin/{branch}")


def test_a_squash_under_a_message_of_its_own_counts_only_once_the_server_deleted_the_branch(
        tmp_path: Path, url: str) -> None:
    repo, branch = weights_review(tmp_path, url)
    server = on_server(tmp_path, url)
    squash(server, branch, "tidy the weights")
    assert repo.sync(now=at(40)).accepted == () and branch in repo.git.branches()    # could be anyone's edit
    forge(server, "push", "-q", "origin", f":refs/heads/{branch}")                    # the forge deletes it
    assert repo.sync(now=at(41)).accepted == (branch,)


def test_a_rebase_merge_is_recognised_by_author_date_and_change(tmp_path: Path, url: str) -> None:
    repo, branch = weights_review(tmp_path, url)
    server = on_server(tmp_path, url)
    main_moves_on(server)
    forge(server, "checkout", "-q", "-b", "pr", f"origin/{branch}")
    forge(server, "rebase", "-q", "main")
    forge(server, "checkout", "-q", "main")
    forge(server, "merge", "-q", "--ff-only", "pr")
    forge(server, "push", "-q", "origin", "main")
    assert repo.sync(now=at(40)).accepted == (branch,)
    [e] = [e for e in events(repo) if e["event"] == "review.merged"]
    assert e["how"] == "rebase" and e["merged_by"] == "Rita Reviewer <rita@example.com>"


def test_unrelated_commits_and_a_deleted_branch_are_no_acceptance(tmp_path: Path, url: str) -> None:
    repo, branch = weights_review(tmp_path, url)
    server = on_server(tmp_path, url)
    main_moves_on(server, f"a note that names {branch} and its subject\n")
    forge(server, "commit", "-q", "--allow-empty", "-m", f"{subject(repo, branch)} (#7)")   # names it, changes nothing
    forge(server, "push", "-q", "origin", "main")
    forge(server, "push", "-q", "origin", f":refs/heads/{branch}")   # a pull request closed unmerged: no veto
    done = repo.sync(now=at(40))
    assert done.accepted == () and [r.name for r in repo.reviews()] == [branch]
    assert not [e for e in events(repo) if e["event"] in ("review.merged", "review.decided_elsewhere")]


# --- a sedimentation promotion accepted on the server -------------------------------------------------

def test_a_sediment_promotion_squashed_on_the_server_writes_what_accept_writes_once_across_clones(
        tmp_path: Path, any_url: str) -> None:
    url = any_url
    a = machine(tmp_path, url)
    branch = promoted(a)
    b = clone(tmp_path, url, "b")                     # a second machine that holds the review too
    git(b.root, "fetch", "-q", "origin", f"{branch}:{branch}")
    server = on_server(tmp_path, url)
    main_moves_on(server)
    squash(server, branch, f"{subject(a, branch)} (#3)")
    assert a.sync(now=at(40)).accepted == (branch,)
    rid = branch.rsplit("sediment-", 1)[1]
    taboos = (Path(a.root) / "bank" / "TABOOS.md").read_text()
    assert taboos.count(f"({rid}, 2026-12-01, promoted)") == 1 and "- Rule: check for flaky clock test" in taboos
    log = (Path(a.root) / "bank" / "promotions.md").read_text()
    assert f"**Review**: {branch} accepted by Rita Reviewer <rita@example.com>" in log
    assert f"{at(30).strftime('%Y-%m-%dT%H:%M:%SZ')} approve {branch}" in state(a).decisions
    assert state(a).approve_streak == 1
    assert any(e["event"] == "sedimentation.promote" and e.get("decision") == "accepted" for e in events(a))
    assert git(a.root, "log", "-1", "--format=%(trailers:key=Gitmem-Merged-In,valueonly)").strip() == git(
        server, "rev-parse", "HEAD")
    assert b.sync(now=at(50)).accepted == (branch,)   # b takes a's record and records nothing itself
    assert git(b.root, "rev-parse", "HEAD") == git(a.root, "rev-parse", "HEAD")
    assert state(b).approve_streak == 1 and branch not in b.git.branches()
    assert (Path(b.root) / "bank" / "promotions.md").read_text().count(f"**Review**: {branch}") == 1


def test_two_clones_that_both_record_the_merge_count_one_approval(tmp_path: Path, url: str) -> None:
    a = machine(tmp_path, url)
    branch = promoted(a)
    b = clone(tmp_path, url, "b")
    git(b.root, "fetch", "-q", "origin", f"{branch}:{branch}")
    server = on_server(tmp_path, url)
    squash(server, branch, f"{subject(a, branch)} (#3)")
    git(a.root, "fetch", "-q", "origin")
    assert [m.how for m in a.merged_reviews(now=at(40))] == ["squash"]      # a records, and has not pushed
    assert b.sync(now=at(41)).accepted == (branch,)                        # b records too, and pushes
    a.sync(now=at(42))
    b.sync(now=at(43))
    for repo in (a, b):
        assert state(repo).approve_streak == 1
        assert [d for d in state(repo).decisions if d.endswith(f"approve {branch}")] == [
            f"{at(30).strftime('%Y-%m-%dT%H:%M:%SZ')} approve {branch}"]
        log = (Path(repo.root) / "bank" / "promotions.md").read_text()
        assert log.count(f"**Review**: {branch}") == 1 and "<<<<<<<" not in log


def test_a_rejection_in_another_clone_closes_the_review_here_and_counts_one_veto(tmp_path: Path, url: str) -> None:
    a = machine(tmp_path, url)
    branch = promoted(a)
    b = clone(tmp_path, url, "b")
    git(b.root, "fetch", "-q", "origin", f"{branch}:{branch}")
    b.review_reject(branch, "too broad", i_am_the_reviewer=True, now=at(20))
    b.sync(now=at(21))
    done = a.sync(now=at(30))
    assert done.accepted == () and branch not in a.git.branches()
    assert git(a.root, "rev-parse", f"refs/gitmem/rejected/{branch}") == git(b.root, "rev-parse",
                                                                               f"refs/gitmem/rejected/{branch}")
    [e] = [e for e in events(a) if e["event"] == "review.decided_elsewhere"]
    assert e["outcome"] == "rejected" and state(a).veto_streak == 1


def test_a_sediment_review_merged_with_changes_outside_its_target_counts_nothing(tmp_path: Path, url: str) -> None:
    a = machine(tmp_path, url)
    branch = promoted(a)
    server = on_server(tmp_path, url)
    forge(server, "checkout", "-q", "-b", "pr", f"origin/{branch}")
    (server / "NOTES.txt").write_text("carried along by the pull request\n")
    forge(server, "add", "NOTES.txt")
    forge(server, "commit", "-q", "-m", "and a note")
    forge(server, "checkout", "-q", "main")
    forge(server, "merge", "--no-ff", "-q", "-m", "Merge pull request #4", "pr")
    forge(server, "push", "-q", "origin", "main")
    a.sync(now=at(40))
    [m] = [e for e in events(a) if e["event"] == "review.merged"]
    outside = m["outside_its_scope"]
    assert m["how"] == "merge" and isinstance(outside, list) and any("NOTES.txt" in str(o) for o in outside)
    assert state(a).approve_streak == 0 and branch not in a.git.branches()
    assert "**Review**" not in ((Path(a.root) / "bank" / "promotions.md").read_text()
                                if (Path(a.root) / "bank" / "promotions.md").exists() else "")
