"""Background jobs: one call each, outcomes recorded in the event log, failures returned, never raised."""

from __future__ import annotations

from datetime import timedelta
from pathlib import Path

import pytest

from gitmem.api import MemoryRepo
from gitmem.api.jobs import JOBS
from gitmem.base.errors import UsageError
from gitmem.base.model import iso
from tests.agent_helpers import configure_folders
from tests.conftest import run_cli
from tests.loop_helpers import START, git, write_transcripts

T = START + timedelta(days=2)


def test_harvest_job_reads_the_session_folders_then_proposes_a_weight_update(repo: MemoryRepo, tmp_path: Path) -> None:
    repo.pattern_add("Retry flaky calls with backoff", ["backoff"], now=T)
    folder = tmp_path / "sessions"
    write_transcripts(folder, ["the deploy failed, retry it with backoff please",
                               "add backoff to the flaky upload call"], START + timedelta(days=3))
    repo = _reopened(repo, folder)
    run = repo.run_job("harvest", now=T + timedelta(days=2))
    assert run.ok and run.details["harvested"] == 2, run
    assert str(run.details["review"]).startswith("gitmem/review/weights-")
    again = repo.run_job("harvest", now=T + timedelta(days=2, hours=1))
    assert again.ok and again.details["harvested"] == 0 and "review" not in again.details
    assert repo.job_runs()["harvest"]["summary"] == again.summary


def test_a_failing_job_is_recorded_and_shown_by_status_not_raised(repo: MemoryRepo, tmp_path: Path) -> None:
    assert repo.status(now=T).last_error is None
    failed = repo.run_job("harvest", now=T, paths=[tmp_path / "gone.jsonl"])
    assert not failed.ok and "gone.jsonl" in failed.summary
    error = repo.status(now=T).last_error
    assert error is not None and error["job"] == "harvest" and error["summary"] == failed.summary
    assert repo.job_runs()["harvest"]["event"] == "job.error"
    assert repo.run_job("snapshot", now=T).ok        # the next job runs as usual


def test_reflect_runs_only_after_new_writes(repo: MemoryRepo) -> None:
    for n in range(3):
        repo.remember(f"the build cache must be cleared after a toolchain upgrade, case {n}", now=T)
    first = repo.run_job("reflect", now=T)
    assert first.ok and "new patterns" in first.summary
    second = repo.run_job("reflect", now=T + timedelta(minutes=30))
    assert second.ok and second.summary == "no new writes since the last reflect"


def test_only_runs_that_change_something_or_fail_go_to_the_event_log(repo: MemoryRepo, tmp_path: Path) -> None:
    from gitmem.base import state

    def job_events() -> list[tuple[str, str]]:
        return [(str(e["job"]), str(e["event"])) for e in state.read(state.events_path(repo.root))
                if str(e.get("event", "")).startswith("job.")]

    folder = tmp_path / "sessions"
    folder.mkdir()
    repo = _reopened(repo, folder)
    for n in range(50):   # the daemon's checks every few minutes: a file rewritten, not a growing log
        assert repo.run_job("harvest", now=T + timedelta(minutes=5 * n)).ok
    assert job_events() == []
    last = repo.job_runs()["harvest"]
    assert last["event"] == "job.run" and last["summary"] == "no transcripts found"
    assert last["at"] == iso(T + timedelta(minutes=5 * 49))   # the latest check
    write_transcripts(folder, ["the deploy failed, retry it with backoff please"], START + timedelta(days=3))
    assert repo.run_job("harvest", now=T + timedelta(days=1)).details["harvested"] == 1
    assert job_events() == [("harvest", "job.run")]
    assert not repo.run_job("harvest", now=T + timedelta(days=1, minutes=5), paths=[tmp_path / "gone.jsonl"]).ok
    assert job_events() == [("harvest", "job.run"), ("harvest", "job.error")]
    assert repo.job_runs()["harvest"]["event"] == "job.error"   # the later of the log and the last check
    assert repo.run_job("harvest", now=T + timedelta(days=1, minutes=10)).ok
    assert repo.job_runs()["harvest"]["event"] == "job.run" and len(job_events()) == 2


def test_an_unknown_job_is_a_usage_error(repo: MemoryRepo) -> None:
    with pytest.raises(UsageError) as info:
        repo.run_job("nap")
    assert info.value.hint and all(j in info.value.hint for j in JOBS)


def test_paths_outside_the_session_folders_are_told_apart(repo: MemoryRepo, tmp_path: Path) -> None:
    folder = tmp_path / "sessions"
    folder.mkdir()
    repo = _reopened(repo, folder)
    assert repo.inside_session_folders(folder / "a.jsonl")
    assert not repo.inside_session_folders(folder / ".." / "elsewhere.jsonl")
    (folder / "link").symlink_to(tmp_path)
    assert not repo.inside_session_folders(folder / "link" / "x.jsonl")


def test_the_harvest_job_never_follows_a_link_out_of_the_session_folders(repo: MemoryRepo, tmp_path: Path) -> None:
    folder, outside = tmp_path / "sessions", tmp_path / "elsewhere"
    write_transcripts(folder, ["ship the inside session with backoff"], START + timedelta(days=3))
    linked = write_transcripts(outside, ["an older session", "ship the outside session"], START + timedelta(days=3))[1]
    (folder / "linked-file.jsonl").symlink_to(linked)   # another session id than the one inside
    (folder / "link").symlink_to(outside)   # a linked folder is not walked at all
    repo = _reopened(repo, folder)
    found = repo.session_files()
    assert [f.name for f in found.files] == [f.name for f in folder.rglob("*.jsonl") if not f.is_symlink()]
    assert found.outside == (folder / "linked-file.jsonl",)
    run = repo.run_job("harvest", now=T + timedelta(days=2))
    assert run.ok and run.details["harvested"] == 1 and run.details["outside"] == [str(folder / "linked-file.jsonl")]
    log = git(repo.root, "log", "-p", "--all")
    assert "inside session" in log and "outside session" not in log


def test_session_files_refuses_a_path_outside_the_session_folders(repo: MemoryRepo, tmp_path: Path) -> None:
    from gitmem.base.errors import SecurityError

    folder = tmp_path / "sessions"
    write_transcripts(folder, ["a session"], START)
    write_transcripts(tmp_path / "elsewhere", ["another"], START)
    repo = _reopened(repo, folder)
    for bad in (tmp_path / "elsewhere", folder / ".." / "elsewhere"):
        with pytest.raises(SecurityError, match="outside the configured session folders"):
            repo.session_files([bad])
    assert len(repo.session_files([folder]).files) == 1


def test_a_deferred_append_is_applied_by_the_next_job_run(repo: MemoryRepo, repo_dir: Path,
                                                          capsys: pytest.CaptureFixture[str]) -> None:
    """The amplitude guard commits one batch of a large automated append and queues the rest; the next run
    of any job applies the next batch as a commit of its own, and status shows what still waits."""
    from gitmem.writer import pending
    from gitmem.writer.plan import Plan, Written

    bank, queue = "bank/MEMORY.md", ".gitmem/pending/bank/MEMORY.md"
    base = "# Memory\n\n" + "lesson\n" * 18
    reflections = "".join(f"## reflection {n}\nscore: 4\n\n" for n in range(8))   # 24 lines, the limit is 10
    repo.writer.write(lambda parent: Plan({bank: base.encode()}, "seed", "test.seed"), T)
    w: Written[None] = repo.writer.write(
        lambda parent: Plan({bank: (base + reflections).encode()}, "sediment", "sediment.reflect", auto=True,
                            defer=True), T)
    assert w.deferred == (bank,) and pending.queued(repo.git, repo.head) == [bank]
    assert repo.status(T).pending == (bank,)
    assert repo.status(T).to_json()["pending"] == {"count": 1, "files": [bank]}
    code, out, _ = run_cli(["--repo", str(repo_dir), "status", "--now", iso(T)], capsys)
    assert code == 0 and f"growth queued in .gitmem/pending/: 1 ({bank})" in out
    first, queued_before = (repo_dir / bank).read_text(), (repo_dir / queue).read_text()
    head = repo.head

    run = repo.run_job("snapshot", now=T + timedelta(hours=2))
    assert run.ok and run.details["drained"] == [bank] and "applied queued growth of 1 files" in run.summary
    drained = run.details["drain_commit"]
    assert isinstance(drained, str) and git(repo_dir, "rev-parse", f"{drained}~1") == head   # its own commit
    assert "amplitude.pending" in git(repo_dir, "log", "-1", "--format=%B", drained)
    grown = (repo_dir / bank).read_text()
    assert grown.startswith(first) and len(grown) > len(first)           # the next batch, in order
    assert first + queued_before == base + reflections                   # nothing was dropped
    assert not (repo_dir / queue).exists() or len((repo_dir / queue).read_text()) < len(queued_before)
    assert git(repo_dir, "status", "--porcelain") == ""

    rounds = 1
    while pending.queued(repo.git, repo.head):   # one batch per run, until nothing waits
        rounds += 1
        assert rounds < 10 and repo.run_job("decay", now=T + timedelta(hours=2 + rounds)).details.get("drained")
    assert (repo_dir / bank).read_text() == base + reflections and not (repo_dir / queue).exists()
    assert repo.status(T).pending == ()
    assert "drained" not in repo.run_job("snapshot", now=T + timedelta(days=1)).details   # nothing left to apply


def _reopened(repo: MemoryRepo, folder: Path) -> MemoryRepo:
    """``repo`` reopened with ``folder`` as its session folder."""
    configure_folders(repo.root, [folder])
    return MemoryRepo.open(repo.root)
