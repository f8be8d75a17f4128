"""The daemon for real: started in the background on a temporary memory repository, watched, stopped."""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import time
from collections.abc import Callable, Iterator
from datetime import timedelta
from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from gitmem.api import MemoryRepo
from gitmem.base import state
from gitmem.base.clock import parse_time
from gitmem.base.config import Config, Daemon
from gitmem.base.errors import ConfigError
from gitmem.base.gitio.reflocks import alive, process_start
from gitmem.faces import daemon
from tests.loop_helpers import START, git, write_transcripts
from tests.conftest import run_cli

WAIT = 90.0   # seconds: shared 2-core machines; each wait ends as soon as its condition holds


def _gitmem(root: Path, *args: str, env: dict[str, str] | None = None) -> subprocess.CompletedProcess[str]:
    return subprocess.run([sys.executable, "-m", "gitmem", "--repo", str(root), *args], capture_output=True,
                          text=True, env={**os.environ, **(env or {})}, timeout=120)


def _wait_for(what: str, ok: Callable[[], object]) -> None:
    deadline = time.monotonic() + WAIT
    while time.monotonic() < deadline:
        if ok():
            return
        time.sleep(0.1)
    raise AssertionError(f"timed out waiting for {what}")


def _pid(root: Path) -> int | None:
    try:
        return int(json.loads(daemon.pid_path(root).read_text())["pid"])
    except (OSError, ValueError, KeyError):
        return None


def _gone(pid: int) -> bool:
    try:
        os.waitpid(pid, os.WNOHANG)
    except ChildProcessError:
        pass
    return not alive(pid, None)


def _runs(root: Path) -> dict[str, dict[str, object]]:
    return MemoryRepo.open(root).job_runs()


def _episodes(root: Path) -> list[Path]:
    return sorted((root / "episodes").rglob("*.md"))


@pytest.fixture
def sessions(tmp_path: Path) -> Path:
    folder = tmp_path / "sessions"
    folder.mkdir()
    return folder


@pytest.fixture
def root(repo_dir: Path, sessions: Path) -> Iterator[Path]:
    """A memory repository whose session folder is ``sessions``; any daemon left running is stopped."""
    cfg = repo_dir / "gitmem.yaml"
    text = cfg.read_text()
    start = text.index("  session_folders:")
    end = text.index("\n", start)
    cfg.write_text(text[:start] + f"  session_folders: ['{sessions}']" + text[end:])
    git(repo_dir, "commit", "-qam", "harvest the test's session folder")
    yield repo_dir
    pid = _pid(repo_dir)
    if pid is not None and not _gone(pid):
        os.kill(pid, signal.SIGTERM)
        deadline = time.monotonic() + 30
        while time.monotonic() < deadline and not _gone(pid):
            time.sleep(0.05)
        if not _gone(pid):
            os.kill(pid, signal.SIGKILL)


def _stop_cleanly(root: Path, pid: int) -> None:
    done = _gitmem(root, "daemon", "stop")
    assert done.returncode == 0 and f"daemon stopped (pid {pid})" in done.stdout, done
    assert not daemon.pid_path(root).exists()
    _wait_for("the process to be gone", lambda: _gone(pid))
    log = daemon.log_path(root).read_text()
    assert "Traceback" not in log and log.rstrip().endswith("daemon stopped"), log


@pytest.mark.slow
def test_the_daemon_harvests_shows_its_runs_refuses_a_second_start_and_stops_cleanly(root: Path, sessions: Path) -> None:
    # a frozen clock for the jobs must not freeze the schedule (it runs on the monotonic clock)
    env = {"GITMEM_DAEMON_TICK": "0.5", "GITMEM_NOW": "2026-11-29T12:00:00Z"}
    started = _gitmem(root, "daemon", "start", env=env)
    assert started.returncode == 0, started
    pid = _pid(root)
    assert pid is not None and f"pid {pid}" in started.stdout
    write_transcripts(sessions, ["the deploy failed, retry it with backoff please"], START)
    _wait_for("the session to become an episode", lambda: _episodes(root))
    _wait_for("the harvest to be recorded", lambda: "1 harvested" in str(_runs(root).get("harvest", {}).get("summary")))
    _wait_for("a second round", lambda: daemon.log_path(root).read_text().count(" harvest ok:") >= 2)

    status = _gitmem(root, "daemon", "status", "--json")
    assert status.returncode == 0, status
    shown = json.loads(status.stdout)
    assert shown["running"] and shown["pid"] == pid and shown["since"]
    assert shown["jobs"]["harvest"]["last"]["event"] == "job.run" and shown["jobs"]["harvest"]["every"] == 0.5
    assert set(shown["jobs"]) == {"harvest", "reflect", "decay", "snapshot"} and shown["jobs"]["decay"]["next"]
    text = _gitmem(root, "daemon", "status").stdout
    assert f"running, pid {pid}" in text and "harvest" in text and "last: 2026-11-29T12:00:00Z ok:" in text

    again = _gitmem(root, "daemon", "start", env=env)
    assert again.returncode == 1 and f"already running (pid {pid})" in again.stderr
    assert "hint: gitmem daemon stop" in again.stderr
    foreground = _gitmem(root, "daemon", "run", env=env)
    assert foreground.returncode == 1 and f"already running (pid {pid})" in foreground.stderr
    assert _pid(root) == pid

    _stop_cleanly(root, pid)
    stopped = _gitmem(root, "daemon", "stop")
    assert stopped.returncode == 0 and "not running" in stopped.stdout
    assert _gitmem(root, "daemon", "status").returncode == 1


@pytest.mark.slow
def test_a_failing_job_is_recorded_and_the_daemon_keeps_running(root: Path, sessions: Path) -> None:
    # a file where git keeps the snapshot tags' folder: the snapshot job fails
    blocker = root / ".git" / "refs" / "tags" / "gitmem"
    assert not blocker.exists()
    blocker.parent.mkdir(parents=True, exist_ok=True)
    blocker.write_text("in the way\n")
    assert _gitmem(root, "daemon", "start", "--every", "harvest=0.5", "--every=reflect=3600",
                   "--every", "decay=3600").returncode == 0
    pid = _pid(root)
    assert pid is not None
    _wait_for("the snapshot failure", lambda: _runs(root).get("snapshot", {}).get("event") == "job.error")
    last_error = MemoryRepo.open(root).status().last_error
    assert last_error is not None and "snapshot" in str(last_error["job"])
    write_transcripts(sessions, ["add backoff to the flaky upload call"], START)
    _wait_for("the loop to go on and harvest", lambda: _episodes(root))
    assert alive(pid, None) and _pid(root) == pid
    assert "FAILED" in _gitmem(root, "daemon", "status").stdout
    blocker.unlink()    # fixed: the snapshot is retried at harvest's pace
    _wait_for("the snapshot to succeed", lambda: _runs(root).get("snapshot", {}).get("event") == "job.run")
    assert git(root, "tag", "--list", "gitmem/snapshot/*")
    _stop_cleanly(root, pid)


def test_a_daemon_whose_pid_file_is_removed_exits(root: Path) -> None:
    """A removed pid file (a deleted repository, a person's `rm`) leaves no daemon running unseen."""
    assert _gitmem(root, "daemon", "start", env={"GITMEM_DAEMON_TICK": "0.2"}).returncode == 0
    pid = _pid(root)
    assert pid is not None
    daemon.pid_path(root).unlink()
    _wait_for("the daemon to exit", lambda: _gone(pid))
    assert "the pid file was removed" in daemon.log_path(root).read_text()


def _dead_pid() -> int:
    proc = subprocess.Popen([sys.executable, "-c", "pass"])
    proc.wait()
    return proc.pid


@pytest.mark.parametrize("case", ["dead", "reused", "torn"])
def test_a_stale_pid_file_is_cleaned_up(root: Path, case: str) -> None:
    path = daemon.pid_path(root)
    if case == "dead":
        record = {"pid": _dead_pid(), "start": None, "since": "2026-11-29T12:00:00Z"}
    elif case == "reused":   # a live pid (this test's own) that started at another time: another program
        record = {"pid": os.getpid(), "start": str(int(process_start(os.getpid()) or "0") + 1), "since": "x"}
    else:
        record = None
    path.write_text("{\"pid\": 12" if record is None else json.dumps(record))
    status = _gitmem(root, "daemon", "status")
    assert status.returncode == 1 and "not running" in status.stdout
    assert not path.exists()
    path.write_text("{\"pid\": 12" if record is None else json.dumps(record))
    started = _gitmem(root, "daemon", "start", env={"GITMEM_DAEMON_TICK": "3600"})
    assert started.returncode == 0, started
    pid = _pid(root)
    assert pid is not None and pid != os.getpid()
    _stop_cleanly(root, pid)


def test_sigint_stops_the_foreground_loop_between_jobs(root: Path) -> None:
    proc = subprocess.Popen([sys.executable, "-m", "gitmem", "--repo", str(root), "daemon", "run"],
                            stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
                            env={**os.environ, "GITMEM_DAEMON_TICK": "0.2"})
    try:
        _wait_for("the pid file", lambda: _pid(root) == proc.pid)
        _wait_for("a job run", lambda: "harvest" in _runs(root))
        proc.send_signal(signal.SIGINT)
        out, err = proc.communicate(timeout=60)
    finally:
        if proc.poll() is None:
            proc.kill()
            proc.wait()
    assert proc.returncode == 0 and err == "", err
    assert "daemon started" in out and out.rstrip().endswith("daemon stopped")
    assert not daemon.pid_path(root).exists()


def test_a_daemon_that_cannot_start_says_why(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    code, _, err = run_cli(["--repo", str(tmp_path / "none"), "daemon", "start"], capsys)
    assert code == 1 and "not a memory repository" in err


def test_a_daemon_that_exits_at_once_reports_the_reason_from_its_log(root: Path) -> None:
    done = _gitmem(root, "daemon", "start", env={"GITMEM_DAEMON_TICK": "soon"})
    assert done.returncode == 1 and "the daemon did not start: gitmem: error: GITMEM_DAEMON_TICK='soon'" in done.stderr
    assert "hint: read its log:" in done.stderr and not daemon.pid_path(root).exists()


def test_stop_and_status_when_not_running(repo_dir: Path, capsys: pytest.CaptureFixture[str]) -> None:
    code, out, _ = run_cli(["--repo", str(repo_dir), "daemon", "stop"], capsys)
    assert code == 0 and "the daemon is not running" in out
    code, out, _ = run_cli(["--repo", str(repo_dir), "daemon", "status"], capsys)
    assert code == 1 and "not running" in out and "never ran" in out and "every 5 min" in out
    code, out, _ = run_cli(["--repo", str(repo_dir), "daemon", "status", "--json"], capsys)
    assert code == 1 and json.loads(out)["running"] is False


@pytest.mark.parametrize("bad", ["nap=5", "harvest", "harvest=soon", "harvest=0", "decay=-1", "=3"])
def test_a_bad_every_is_a_usage_error(repo_dir: Path, bad: str, capsys: pytest.CaptureFixture[str]) -> None:
    code, _, err = run_cli(["--repo", str(repo_dir), "daemon", "run", "--every", bad], capsys)
    assert code == 2 and ("JOB=SECONDS" in err or "seconds" in err or "out of range" in err), err


def test_run_help_documents_the_schedule_and_how_to_shorten_it(capsys: pytest.CaptureFixture[str]) -> None:
    code, out, _ = run_cli(["daemon", "run", "--help"], capsys)
    assert code == 0
    for word in ("GITMEM_DAEMON_TICK", "--every JOB=SECONDS", "harvest_minutes", "reflect_minutes", "decay_hours",
                 "month turns", "SIGTERM"):
        assert word in out, word


def test_intervals_come_from_the_config_then_the_tick_then_per_job(monkeypatch: pytest.MonkeyPatch) -> None:
    cfg = Config(daemon=Daemon(harvest_minutes=7, reflect_minutes=45, decay_hours=12))
    assert daemon.intervals(cfg) == {"harvest": 420.0, "reflect": 2700.0, "decay": 43200.0, "snapshot": 420.0}
    monkeypatch.setenv("GITMEM_DAEMON_TICK", "2")
    assert daemon.intervals(cfg, {"decay": 9.0}) == {"harvest": 2.0, "reflect": 2.0, "decay": 9.0, "snapshot": 2.0}
    assert daemon.intervals(cfg, {"harvest": 0.5})["snapshot"] == 0.5     # checked at harvest's pace
    assert daemon.intervals(cfg, {"snapshot": 60.0})["snapshot"] == 60.0
    for bad in ("soon", "0", "-3", "nan"):
        monkeypatch.setenv("GITMEM_DAEMON_TICK", bad)
        with pytest.raises(ConfigError):
            daemon.intervals(cfg)


def test_intervals_read_as_a_person_says_them() -> None:
    assert [daemon.span(s) for s in (0.5, 90, 296, 1800, 7200, 86400, 83996)] == \
        ["0.5 s", "90 s", "4.9 min", "30 min", "2 h", "24 h", "23.3 h"]


def test_a_restart_waits_out_the_rest_of_an_interval(repo_dir: Path) -> None:
    loop = daemon.Loop(repo_dir)
    loop.every = {"harvest": 300.0, "reflect": 1800.0, "decay": 86400.0, "snapshot": 300.0}
    now = parse_time("2026-11-29T12:00:00Z")
    loop.now_text = "2026-11-29T12:00:00Z"
    ran = lambda ago, event="job.run": {"event": event, "at": (now - ago).strftime("%Y-%m-%dT%H:%M:%SZ")}  # noqa: E731
    before = time.monotonic()
    loop._start_schedule({"decay": ran(timedelta(hours=1)), "reflect": ran(timedelta(hours=2)),
                          "snapshot": ran(timedelta(days=1))})
    assert loop.due["decay"] - before == pytest.approx(23 * 3600, abs=5)   # not again at once
    assert loop.due["reflect"] - before < 5 and loop.due["harvest"] - before < 5
    assert loop.snapshot_month == "2026-11"


def test_the_pid_file_and_log_live_in_the_work_trees_state_folder(repo_dir: Path) -> None:
    from gitmem.faces.cli import load_verbs

    load_verbs()   # the verb modules register in the CLI's order; importing one at collection would not
    from gitmem.faces import verbs_daemon

    assert verbs_daemon.JOBS == daemon.SCHEDULED   # the verb's copy, kept off the start-up path
    assert daemon.pid_path(repo_dir).parent == daemon.log_path(repo_dir).parent == state.worktree_dir(repo_dir)


HOSTILE_SECONDS = ["harvest=nan", "harvest=inf", "harvest=-inf", "harvest=1e400", "reflect=0x10", "decay= 5",
                   "snapshot=1_000", "harvest=5=5", "HARVEST=5", "harvest =5", "harvest=\u0665", "harvest=0.049",
                   "decay=31536000.5", "nan", "inf", "-1", "0", "", "86400.0001", "1e-9"]


@given(text=st.one_of(st.sampled_from(HOSTILE_SECONDS), st.text(max_size=30),
                      st.floats(allow_nan=True, allow_infinity=True).map(lambda f: f"harvest={f!r}")))
@settings(max_examples=300)
def test_every_and_timeout_accept_a_sane_value_or_refuse_it_as_usage(text: str) -> None:
    import argparse

    from gitmem.faces.cli import load_verbs

    load_verbs()
    from gitmem.faces.verbs_daemon import _every, _timeout

    try:
        job, seconds = _every(text)
        assert job in daemon.SCHEDULED and 0.05 <= seconds <= 31_536_000
    except argparse.ArgumentTypeError:
        pass
    try:
        assert 0 < _timeout(text) <= 86400
    except argparse.ArgumentTypeError:
        pass


@pytest.mark.parametrize("args", [["stop", "--timeout", "nan"], ["stop", "--timeout", "-1"], ["stop", "--timeout", "inf"],
                                  ["status", "--json", "--now", "9999-12-31"], ["nap"], [], ["start", "--every", "x=1"]])
def test_hostile_daemon_arguments_are_usage_errors_or_harmless(repo_dir: Path, args: list[str],
                                                               capsys: pytest.CaptureFixture[str]) -> None:
    code, _, err = run_cli(["--repo", str(repo_dir), "daemon", *args], capsys)
    assert code in (1, 2) and "Traceback" not in err
    assert not daemon.pid_path(repo_dir).exists()


def test_stop_reports_a_daemon_that_does_not_exit_in_time(root: Path) -> None:
    """The loop finishes its current job before exiting; stop waits --timeout seconds, then says what to do."""
    stubborn = subprocess.Popen([sys.executable, "-c", "import signal, time; signal.signal(signal.SIGTERM, signal.SIG_IGN); "
                                 "print('ready', flush=True); time.sleep(60)"], stdout=subprocess.PIPE, text=True)
    try:
        assert stubborn.stdout is not None and stubborn.stdout.readline().strip() == "ready"
        daemon.pid_path(root).write_text(json.dumps({"pid": stubborn.pid, "start": process_start(stubborn.pid),
                                                     "since": "2026-11-29T12:00:00Z"}))
        done = _gitmem(root, "daemon", "stop", "--timeout", "0.5")
        assert done.returncode == 1 and f"(pid {stubborn.pid}) did not stop within 0.5 s" in done.stderr
        assert f"kill {stubborn.pid}" in done.stderr and stubborn.poll() is None
        assert _gitmem(root, "daemon", "start").returncode == 1      # still counted as running
    finally:
        stubborn.kill()
        stubborn.wait()
    assert _gitmem(root, "daemon", "status").returncode == 1 and not daemon.pid_path(root).exists()


def test_start_hands_the_clock_to_the_jobs(root: Path) -> None:
    assert _gitmem(root, "daemon", "start", "--now", "2026-11-30T08:00:00Z", "--every", "harvest=0.3").returncode == 0
    pid = _pid(root)
    assert pid is not None
    _wait_for("a harvest run", lambda: "harvest" in _runs(root))
    assert _runs(root)["harvest"]["at"] == "2026-11-30T08:00:00Z"
    _stop_cleanly(root, pid)


def test_the_daemon_harvests_only_inside_its_session_folders(root: Path, sessions: Path, tmp_path: Path) -> None:
    # the rule the MCP harvest tool follows (api.harvest.session_files): a link pointing out is left out
    outside = write_transcripts(tmp_path / "elsewhere", ["x", "ship the outside session"], START)[1]
    (sessions / "linked-file.jsonl").symlink_to(outside)
    write_transcripts(sessions, ["ship the inside session with backoff"], START)
    started = _gitmem(root, "daemon", "start", env={"GITMEM_DAEMON_TICK": "0.5", "GITMEM_NOW": "2026-11-29T12:00:00Z"})
    assert started.returncode == 0, started
    pid = _pid(root)
    assert pid is not None
    _wait_for("the harvest to be recorded", lambda: "1 harvested" in str(_runs(root).get("harvest", {}).get("summary")))
    _stop_cleanly(root, pid)
    assert "1 left out (outside the session folders)" in daemon.log_path(root).read_text()
    log = git(root, "log", "-p", "--all")
    assert "inside session" in log and "outside session" not in log
