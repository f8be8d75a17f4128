"""Background jobs: one call each, outcomes recorded in the event log, failures returned, never raised."""

from __future__ import annotations

from datetime import timedelta
from pathlib import Path

import pytest

from gitmem.api import MemoryRepo
from gitmem.api.jobs import JOBS
from gitmem.base.errors import UsageError
from gitmem.base.model import iso
from tests.loop_helpers import START, git, write_transcripts

T = START + timedelta(days=2)


def _configure_folders(repo: MemoryRepo, folder: Path) -> MemoryRepo:
    cfg = repo.root / "gitmem.yaml"
    text = cfg.read_text()
    start = text.index("  session_folders:")
    end = text.index("\n", start)
    cfg.write_text(text[:start] + f"  session_folders: ['{folder}']" + text[end:])
    return MemoryRepo.open(repo.root)


def test_harvest_job_reads_the_session_folders_then_proposes_a_weight_update(repo: MemoryRepo, tmp_path: Path) -> None:
    repo.pattern_add("Retry flaky calls with backoff", ["backoff"], now=T)
    folder = tmp_path / "sessions"
    write_transcripts(folder, ["the deploy failed, retry it with backoff please",
                               "add backoff to the flaky upload call"], START + timedelta(days=3))
    repo = _configure_folders(repo, folder)
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
    repo = _configure_folders(repo, folder)
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
    repo = _configure_folders(repo, folder)
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
    repo = _configure_folders(repo, folder)
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
    repo = _configure_folders(repo, folder)
    for bad in (tmp_path / "elsewhere", folder / ".." / "elsewhere"):
        with pytest.raises(SecurityError, match="outside the configured session folders"):
            repo.session_files([bad])
    assert len(repo.session_files([folder]).files) == 1
