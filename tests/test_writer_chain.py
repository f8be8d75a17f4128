"""The guards' verdicts and what the writer does with them: allow, refuse with a reason, or commit a
batch and queue the rest in .gitmem/pending/ (the amplitude rule of sedimentation)."""

from __future__ import annotations

import json
import subprocess
from pathlib import Path

import pytest
from hypothesis import given
from hypothesis import strategies as st

from gitmem.api import MemoryRepo
from gitmem.base import clock, state
from gitmem.base.errors import CheckFailed, SecretError, SecurityError, ValidationError
from gitmem.guards import amplitude
from gitmem.guards.verdict import Allow, Defer, Refuse, then
from gitmem.writer import chain, pending
from gitmem.writer.plan import Plan, Written
from tests.conftest import NOW

T = clock.parse_time(NOW)
BANK = "bank/MEMORY.md"
QUEUE = ".gitmem/pending/bank/MEMORY.md"


def git(repo_dir: Path, *args: str) -> str:
    return subprocess.run(["git", *args], cwd=repo_dir, capture_output=True, text=True, check=True).stdout


def write(repo: MemoryRepo, changes: dict[str, bytes | None], *, auto: bool = True, defer: bool = True) -> Written[None]:
    return repo.writer.write(lambda parent: Plan(changes, "sediment", "sediment.reflect", auto=auto, defer=defer), T)


def entries(first: int, count: int) -> str:
    """Reflections of three lines each, a blank line after each."""
    return "".join(f"## reflection {n}\nscore: 4\n\n" for n in range(first, first + count))


# --- the verdict values ---------------------------------------------------------------------------

def test_a_refusal_wins_over_anything_after_or_before_it() -> None:
    no = Refuse(ValidationError("too big"))
    assert then(no, Allow({"a": b"x"})) is no
    assert then(Allow({"a": b"x"}), no) is no
    assert then(Defer({"a": b"x"}, ("a",), "queued"), no) is no
    assert no.reason == "too big"


def test_a_deferral_is_kept_with_the_later_changes() -> None:
    later = Allow({"a": b"y"})
    joined = then(Defer({"a": b"x"}, ("a",), "queued"), later)
    assert joined == Defer({"a": b"y"}, ("a",), "queued")
    assert then(Allow({"a": b"x"}), later) is later
    both = then(Defer({}, ("a",), "one"), Defer({"b": None}, ("b", "a"), "two"))
    assert both == Defer({"b": None}, ("a", "b"), "one; two")


# --- the split ------------------------------------------------------------------------------------

def test_split_takes_whole_entries_within_the_limit() -> None:
    old = "# Memory\n" + "line\n" * 19                     # 20 lines: the floor of 10 allows more than 5 %
    now, rest = amplitude.split(BANK, old, old + entries(0, 5), "", 0.05, 10) or ("", "")
    assert now == old + entries(0, 3)                     # 9 lines: a fourth entry would be cut
    assert rest == entries(3, 2)


def test_split_puts_the_queue_before_the_new_lines() -> None:
    old = "x\n" * 10
    now, rest = amplitude.split(BANK, old, old + "new\n", "q1\nq2\n", 0.05, 2) or ("", "")
    assert now == old + "q1\nq2\n" and rest == "new\n"


def test_split_refuses_what_is_no_append() -> None:
    old = "a\nb\n"
    assert amplitude.split(BANK, old, "a\nchanged\n" + "x\n" * 30, "", 0.05, 10) is None
    assert amplitude.split("CLAUDE.md", old, old + "x\n" * 30, "", 0.05, 10) is None
    assert amplitude.split(BANK, "a\nno newline", "a\nno newline" + "x\n" * 30, "", 0.05, 10) is None
    assert amplitude.split(BANK, "", "x\n", "", 0.05, 0) is None      # a limit of no line at all never drains


def test_split_without_a_blank_line_cuts_at_the_limit() -> None:
    old = "x\n" * 100
    now, rest = amplitude.split(BANK, old, old + "y\n" * 12, "", 0.05, 0) or ("", "")
    assert now == old + "y\n" * 5 and rest == "y\n" * 7


# --- the writer acting on the verdict -----------------------------------------------------------

def test_an_over_limit_append_commits_a_batch_and_queues_the_rest(repo: MemoryRepo, repo_dir: Path) -> None:
    base = "# Memory\n\n" + "lesson\n" * 18
    write(repo, {BANK: base.encode()}, auto=False)
    full = base + entries(0, 8)                           # 24 lines over a limit of 10
    w = write(repo, {BANK: full.encode()})
    assert w.commit is not None and w.deferred == (BANK,)
    assert git(repo_dir, "show", f"{w.commit}:{BANK}") == base + entries(0, 3)
    assert git(repo_dir, "show", f"{w.commit}:{QUEUE}") == entries(3, 5)
    msg = git(repo_dir, "log", "-1", "--format=%B")
    assert f"Gitmem-Deferred: {BANK}" in msg and "Gitmem-Files: 2" in msg
    assert (repo_dir / QUEUE).read_text() == entries(3, 5)   # the work tree follows
    assert pending.queued(repo.git, repo.head) == [BANK]
    logged = [json.loads(line) for line in state.events_path(repo.root).read_text().splitlines()]
    assert logged[-1]["event"] == "write" and logged[-1]["deferred"] == [BANK] and logged[-1]["commit"] == w.commit


def test_later_writes_drain_the_queue_in_order_and_drop_nothing(repo: MemoryRepo, repo_dir: Path) -> None:
    base = "# Memory\n\n" + "lesson\n" * 18
    write(repo, {BANK: base.encode()}, auto=False)
    write(repo, {BANK: (base + entries(0, 8)).encode()})
    current = (repo_dir / BANK).read_text()
    w = write(repo, {BANK: (current + entries(8, 1)).encode()})   # a new reflection waits behind the queue
    assert (repo_dir / BANK).read_text() == base + entries(0, 6) and w.deferred == (BANK,)
    rounds = 0
    while pending.queued(repo.git, repo.head):
        rounds += 1
        assert rounds < 10
        repo.writer.write(pending.planner(repo.git), T)
    assert (repo_dir / BANK).read_text() == base + entries(0, 9)
    assert not (repo_dir / QUEUE).exists() and git(repo_dir, "status", "--porcelain") == ""
    assert repo.writer.write(pending.planner(repo.git), T).commit is None   # nothing left to drain


def test_without_defer_an_over_limit_append_is_still_refused(repo: MemoryRepo, repo_dir: Path) -> None:
    base = "# Memory\n\n" + "lesson\n" * 18
    write(repo, {BANK: base.encode()}, auto=False)
    before = git(repo_dir, "rev-parse", "HEAD")
    with pytest.raises(CheckFailed, match="5% or 10 lines"):
        write(repo, {BANK: (base + entries(0, 8)).encode()}, defer=False)
    assert git(repo_dir, "rev-parse", "HEAD") == before and not (repo_dir / QUEUE).exists()


def test_an_over_limit_rewrite_cannot_be_deferred(repo: MemoryRepo, repo_dir: Path) -> None:
    base = "# Memory\n\n" + "lesson\n" * 18
    write(repo, {BANK: base.encode()}, auto=False)
    with pytest.raises(CheckFailed, match=BANK):
        write(repo, {BANK: ("# Rewritten\n" + entries(0, 12)).encode()})
    assert (repo_dir / BANK).read_text() == base


def test_a_secret_in_a_deferred_append_refuses_it_whole(repo: MemoryRepo, repo_dir: Path) -> None:
    base = "# Memory\n\n" + "lesson\n" * 18
    write(repo, {BANK: base.encode()}, auto=False)
    token = "ghp_" + "A1b2C3d4E5f6G7h8I9j0K1l2M3n4O5p6Q7r8"
    tail = entries(0, 6) + f"the token is {token}\n"       # beyond the batch: it would only be queued
    with pytest.raises(SecretError):
        write(repo, {BANK: (base + tail).encode()})
    assert not (repo_dir / QUEUE).exists()
    assert token not in git(repo_dir, "log", "--all", "-p")


def test_the_chain_returns_a_refusal_instead_of_raising(repo: MemoryRepo) -> None:
    plan: Plan[None] = Plan({"../outside.md": b"x\n"}, "s", "e")
    judged = chain.judge(repo.git, repo.cfg, plan, repo.head, True)
    assert isinstance(judged.verdict, Refuse) and isinstance(judged.verdict.error, SecurityError)
    assert "'..'" in judged.verdict.reason
    ok = chain.judge(repo.git, repo.cfg, Plan({"memory/user/a.md": b"mail jo@corp-mail.net\n"}, "s", "e"),
                     repo.head, True)
    assert isinstance(ok.verdict, Allow) and ok.verdict.changes["memory/user/a.md"] == b"mail [EMAIL]\n"
    assert ok.stripped == (("memory/user/a.md", ("email",)),)


def test_the_queue_stays_inside_the_sandbox(repo: MemoryRepo, repo_dir: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    base = "# Memory\n\n" + "lesson\n" * 18
    write(repo, {BANK: base.encode()}, auto=False)
    monkeypatch.setenv("GITMEM_ALLOWED_DIRS", "bank")      # .gitmem/ is narrowed away: nowhere to queue
    with pytest.raises(SecurityError, match="GITMEM_ALLOWED_DIRS"):
        write(repo, {BANK: (base + entries(0, 8)).encode()})
    assert (repo_dir / BANK).read_text() == base
    assert write(repo, {BANK: (base + entries(0, 3)).encode()}).deferred == ()   # within the limit: no queue


_line = st.text(alphabet="ab \t", max_size=6).map(lambda s: s + "\n")


@given(old=st.lists(_line, max_size=40), queued=st.lists(_line, max_size=30), added=st.lists(_line, max_size=60),
       ratio=st.sampled_from([0.0, 0.05, 0.5]), floor=st.integers(0, 12))
def test_a_split_drops_nothing_keeps_the_order_and_stays_within_the_limit(
        old: list[str], queued: list[str], added: list[str], ratio: float, floor: int) -> None:
    before = "".join(old)
    parts = amplitude.split(BANK, before, before + "".join(added), "".join(queued), ratio, floor)
    if parts is None:
        assert int(max(floor, ratio * len(old))) <= 0 and (queued or added)
        return
    now, rest = parts
    assert now + rest == before + "".join(queued) + "".join(added)   # nothing dropped, queue first
    assert now.startswith(before)
    assert not amplitude.exceeds(len(old), now.count("\n"), ratio, floor)
    if rest:
        assert now != before                                           # every batch makes progress
