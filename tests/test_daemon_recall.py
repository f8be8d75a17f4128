"""`gitmem recall` answered by a running daemon, for real: a daemon process, recall processes, its socket."""

from __future__ import annotations

import json
import os
import signal
import socket
import subprocess
import sys
import threading
import time
from collections.abc import Iterator
from datetime import datetime, timezone
from pathlib import Path
from typing import Any

import pytest

from gitmem.api import MemoryRepo
from gitmem.base import state
from gitmem.base.clock import parse_time
from gitmem.faces import daemon, daemon_recall
from tests.conftest import NOW

QUERY = "deploy build host"
WAIT = 90.0


def _gitmem(root: Path, *args: str, env: dict[str, str] | None = None, cwd: Path | None = None,
            stdin: str | None = None) -> tuple[int, str, str]:
    done = subprocess.run([sys.executable, "-m", "gitmem", "--repo", str(root), *args], capture_output=True, text=True,
                          env={**os.environ, **(env or {})}, cwd=cwd, input=stdin, timeout=120)
    return done.returncode, done.stdout, done.stderr


def _git(cwd: Path, *args: str) -> None:
    subprocess.run(["git", *args], cwd=cwd, check=True, capture_output=True)


@pytest.fixture
def root(repo_dir: Path, tmp_path: Path) -> Path:
    """A memory repository with a memory of each of two projects and two global ones."""
    repo = MemoryRepo.open(repo_dir)
    for name in ("shop", "billing"):
        (tmp_path / name).mkdir()
        _git(tmp_path / name, "init", "-q")
    now = parse_time(NOW)
    repo.remember("The deploy script runs make release on the build host", domain="project",
                  project=str(tmp_path / "shop"), now=now)
    repo.remember("The deploy script uploads invoices before the build host restarts", domain="project",
                  project=str(tmp_path / "billing"), now=now)
    repo.remember("The build host deploy takes ten minutes", domain="project", now=now)
    repo.remember("The person wants deploy summaries on the build host", domain="user", now=now)
    return repo_dir


def _start(root: Path, env: dict[str, str] | None = None) -> int:
    """Start the daemon; once it has run its first round of jobs (none are due on a restart), its pid."""
    fresh = not daemon.log_path(root).exists()
    code, out, err = _gitmem(root, "daemon", "start", env=env)
    assert code == 0, (out, err)
    pid = int(json.loads(daemon.pid_path(root).read_text())["pid"])
    deadline = time.monotonic() + WAIT
    while fresh and "Z snapshot " not in daemon.log_path(root).read_text():
        assert time.monotonic() < deadline, daemon.log_path(root).read_text()
        time.sleep(0.1)
    assert "answering recall" in daemon.log_path(root).read_text()
    return pid


@pytest.fixture
def served(root: Path) -> Iterator[Path]:
    """``root`` with its daemon running; stopped (or killed) afterwards."""
    pid = _start(root)
    yield root
    if _gitmem(root, "daemon", "stop")[0] != 0:
        os.kill(pid, signal.SIGKILL)
    assert "Traceback" not in daemon.log_path(root).read_text()


def _ask(argv: list[str], capsys: pytest.CaptureFixture[str]) -> tuple[int | None, str, str]:
    code = daemon_recall.ask(argv)
    captured = capsys.readouterr()
    return code, captured.out, captured.err


COMMANDS = [
    ["recall", QUERY],
    ["recall", "--json", "-k", "2", QUERY],
    ["recall", "--all-projects", "--type", "fact", QUERY],
    ["recall", "-k", "0", QUERY],          # a usage error the verb raises: exit 2 as well
    ["recall", "--rep", "elsewhere", QUERY],   # no abbreviation of --repo: a usage error, never this repository
    ["recall", "--bogus", QUERY],          # one argparse raises: usage and exit 2
    ["recall"],                            # no query
    ["recall", "--help"],
    ["recall", "nothing matches zzyzx"],
]


@pytest.mark.slow
def test_the_daemon_answers_each_recall_exactly_as_the_process_would(root: Path,
                                                                       capsys: pytest.CaptureFixture[str]) -> None:
    _start(root)   # its first round of jobs (decay folds the access log) changes scores: done before comparing
    assert _gitmem(root, "daemon", "stop")[0] == 0
    alone = [_gitmem(root, *argv) for argv in COMMANDS]
    assert alone[0][0] == 0 and "make release" in alone[0][1]
    assert daemon_recall.ask(["--repo", str(root), *COMMANDS[0]]) is None   # no daemon: the process recalls itself
    pid = _start(root)
    try:
        for argv, before in zip(COMMANDS, alone):
            assert _ask(["--repo", str(root), *argv], capsys) == before, argv   # answered through the socket
            assert _gitmem(root, *argv) == before, argv                         # and so by a recall process
    finally:
        assert _gitmem(root, "daemon", "stop")[0] == 0
        if not _gone(pid):
            os.kill(pid, signal.SIGKILL)
    log = daemon.log_path(root).read_text()
    assert "Traceback" not in log and "usage:" not in log   # nothing of a caller's run went to the daemon's log


def _gone(pid: int) -> bool:
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return True
    return False


def test_batch_queries_come_from_the_callers_stdin(served: Path) -> None:
    code, out, err = _gitmem(served, "recall", "--batch", "-k", "1", stdin="deploy invoices\nten minutes\n")
    assert code == 0, err
    lines = [json.loads(line) for line in out.splitlines()]
    assert [line["query"] for line in lines] == ["deploy invoices", "ten minutes"]
    assert "invoices" in lines[0]["results"][0]["content"] and "ten minutes" in lines[1]["results"][0]["content"]


def test_a_warning_of_the_recall_goes_to_the_caller_not_the_daemons_log(served: Path) -> None:
    broken = served / "memory" / "project" / "zz" / "m-2026-11-29-brokenbroken.md"
    broken.parent.mkdir(parents=True)
    broken.write_text("---\nid: m-2026-11-29-brokenbroken\ntype: [nope\n---\nbroken\n")
    _git(served, "add", "-A")
    _git(served, "commit", "-qm", "a memory file gitmem cannot read")
    code, out, err = _gitmem(served, "recall", QUERY)
    assert code == 0 and "make release" in out
    assert "warning: skipped unreadable file memory/project/zz/m-2026-11-29-brokenbroken.md" in err
    assert "skipped" not in daemon.log_path(served).read_text()


def test_the_callers_folder_scopes_the_recall(served: Path, tmp_path: Path) -> None:
    def found(where: Path, *flags: str) -> set[str]:
        code, out, err = _gitmem(served, "recall", "--json", *flags, QUERY, cwd=where)
        assert code == 0, err
        return {r["content"] for r in json.loads(out)}

    shop, billing = found(tmp_path / "shop"), found(tmp_path / "billing")
    assert any("make release" in t for t in shop) and not any("invoices" in t for t in shop)
    assert any("invoices" in t for t in billing) and not any("make release" in t for t in billing)
    assert len(found(tmp_path / "shop", "--all-projects")) == 4
    assert found(tmp_path, "--project", "billing") == billing   # a folder named relative to the caller's
    assert found(tmp_path, "--project", "./billing") == billing


def test_the_callers_clock_is_used_never_the_daemons(root: Path) -> None:
    # the daemon runs with a fixed clock of its own; the access log shows each recall's clock
    pid = _start(root, env={"GITMEM_NOW": NOW})
    try:
        access = state.shared_dir(root) / "access.jsonl"
        access.unlink(missing_ok=True)
        assert _gitmem(root, "recall", QUERY, env={"GITMEM_NOW": "2027-01-05T08:00:00Z"})[0] == 0
        assert {r["at"] for r in state.read(access)} == {"2027-01-05T08:00:00Z"}
        before = datetime.now(timezone.utc).replace(microsecond=0)
        assert "GITMEM_NOW" not in os.environ and _gitmem(root, "recall", QUERY)[0] == 0
        stamps = {parse_time(r["at"]) for r in state.read(access)} - {parse_time("2027-01-05T08:00:00Z")}
        assert stamps and all(before <= t <= datetime.now(timezone.utc) for t in stamps), stamps
        assert parse_time(NOW) not in stamps
    finally:
        if _gitmem(root, "daemon", "stop")[0] != 0:
            os.kill(pid, signal.SIGKILL)


def test_a_request_the_daemon_will_not_serve_says_so(root: Path) -> None:
    import gitmem

    good = {"version": gitmem.__version__, "root": str(root), "argv": ["recall", QUERY], "cwd": str(root),
            "now": NOW, "stdin": ""}
    assert daemon_recall.answer(root, good)["code"] == 0
    bad: object
    for bad in ({**good, "version": "0.0.1"}, {**good, "root": "/elsewhere"}, {**good, "argv": ["forget", "m-1"]},
                {**good, "argv": "recall x"}, {**good, "cwd": None}, {**good, "now": 5}, [], None):
        assert daemon_recall.answer(root, bad)["served"] is False, bad


def _fake_daemon(root: Path, reply: bytes) -> tuple[socket.socket, threading.Thread]:
    server = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
    server.bind(daemon_recall.address(str(root)))
    server.listen()

    def run() -> None:
        conn, _ = server.accept()
        conn.recv(1 << 16)
        conn.sendall(reply)
        conn.close()
    thread = threading.Thread(target=run, daemon=True)
    thread.start()
    return server, thread


@pytest.mark.parametrize("reply", [b"", b"not json", b'{"served": false, "why": "x"}', b'{"stdout": 1}',
                                   b'{"stdout": "forged", "stderr": "", "code": "0"}'])
def test_anything_short_of_an_answer_and_the_process_recalls_itself(root: Path, reply: bytes,
                                                                      capsys: pytest.CaptureFixture[str]) -> None:
    from gitmem.faces.cli import main

    server, thread = _fake_daemon(root, reply)
    try:
        assert main(["--repo", str(root), "recall", QUERY]) == 0
        assert "make release" in capsys.readouterr().out
    finally:
        thread.join(10)
        server.close()


def _as_nobody(work: Any) -> int:
    """Fork a child that runs ``work()`` under another user id (nobody); its pid. It exits 0 when
    ``work`` returns True."""
    pid = os.fork()
    if pid == 0:   # pragma: no cover - the child
        code = 1
        try:
            os.setgid(65534)
            os.setuid(65534)
            code = 0 if work() else 1
        finally:
            os._exit(code)
    return pid


def _exit_code(pid: int) -> int:
    return os.waitstatus_to_exitcode(os.waitpid(pid, 0)[1])


needs_root = pytest.mark.skipif(os.geteuid() != 0, reason="changing user id needs root (CI runs as root)")


@needs_root
def test_another_user_gets_no_answer_from_the_daemon(served: Path) -> None:
    import gitmem

    name = daemon_recall.address(str(served))   # the daemon's, named from its user's id
    request = json.dumps({"version": gitmem.__version__, "root": str(served), "argv": ["recall", QUERY],
                          "cwd": str(served), "now": NOW, "stdin": ""}).encode() + b"\n"

    def work() -> bool:
        sock = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
        sock.settimeout(30)
        sock.connect(name)
        try:
            sock.sendall(request)
            sock.shutdown(socket.SHUT_WR)
            return sock.recv(1 << 16) == b""
        except ConnectionError:   # closed unread: reset
            return True
    assert _exit_code(_as_nobody(work)) == 0
    assert daemon_recall.answer(served, json.loads(request))["code"] == 0   # the same request, from its user


@needs_root
def test_a_socket_of_another_user_is_never_asked(root: Path, capsys: pytest.CaptureFixture[str]) -> None:
    name = daemon_recall.address(str(root))
    ready, done = os.pipe(), os.pipe()

    def work() -> bool:   # another user takes the daemon's name and answers with a forged result
        server = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
        server.bind(name)
        server.listen()
        server.settimeout(30)
        os.write(ready[1], b"x")
        try:
            conn, _ = server.accept()
            conn.settimeout(5)
            while conn.recv(1 << 16):   # all of a request, if one comes: else closing would reset it
                pass
            conn.sendall(b'{"stdout": "forged\\n", "stderr": "", "code": 0}')
            conn.close()
        except OSError:
            pass
        os.read(done[0], 1)
        return True
    pid = _as_nobody(work)
    try:
        assert os.read(ready[0], 1) == b"x"
        code, out, _ = _ask(["--repo", str(root), "recall", QUERY], capsys)
        assert code is None and "forged" not in out   # not our user's daemon: the process recalls itself
    finally:
        os.write(done[1], b"x")
        assert _exit_code(pid) == 0


def test_a_recall_naming_another_repository_is_answered_from_that_one(served: Path, tmp_path: Path) -> None:
    other = MemoryRepo.init(tmp_path / "B", parse_time(NOW))
    other.remember("Kafka brokers listen on port 9092 in staging", domain="project", now=parse_time(NOW))

    def recall(*argv: str) -> tuple[int, str, str]:
        done = subprocess.run([sys.executable, "-m", "gitmem", *argv], capture_output=True, text=True, cwd=served,
                              env={k: v for k, v in os.environ.items() if k != "GITMEM_DIR"}, timeout=120)
        return done.returncode, done.stdout, done.stderr

    here = recall("recall", "kafka brokers")
    assert here[0] == 0 and "9092" not in here[1]                     # this repository has no such memory
    for argv in (["recall", "kafka brokers", "--repo", "../B"], ["--repo", "../B", "recall", "kafka brokers"],
                 ["recall", "--repo=../B", "kafka brokers"]):
        code, out, err = recall(*argv)
        assert code == 0 and "9092" in out, (argv, out, err)           # from B, never from the daemon's A
    code, out, err = recall("recall", "kafka brokers", "--rep", "../B")
    assert code == 2 and out == "" and "--rep" in err, (out, err)     # abbreviations are off: a usage error
    import gitmem

    request = {"version": gitmem.__version__, "root": str(served), "cwd": str(served), "now": NOW, "stdin": ""}
    # --repo naming another repository as parsed; a query that only reads like --repo to the caller
    for argv in (["recall", "kafka", "--repo", "../B"], ["recall", "--", f"--repo={served}"]):
        assert daemon_recall.answer(served, {**request, "argv": argv})["served"] is False, argv
    assert daemon_recall.answer(served, {**request, "argv": ["recall", "kafka", "--repo", "."]})["code"] == 0


def _without_pygit2(tmp_path: Path) -> dict[str, str]:
    """An environment whose processes cannot import pygit2: what they print came from the daemon."""
    blocked = tmp_path / "blocked"
    blocked.mkdir(exist_ok=True)
    (blocked / "pygit2.py").write_text("raise ImportError('pygit2 is blocked in this process')\n")
    return {"PYTHONPATH": os.pathsep.join(filter(None, [str(blocked), os.environ.get("PYTHONPATH")]))}


@pytest.mark.slow
def test_load_core_and_the_session_start_hook_are_answered_by_the_daemon(root: Path, tmp_path: Path) -> None:
    hook_input = json.dumps({"session_id": "s-1", "cwd": str(tmp_path / "shop"), "hook_event_name": "SessionStart",
                             "source": "startup"})
    repo = MemoryRepo.open(root)
    for name, text in (("shop", "The shop release needs the staging flag first"),
                       ("billing", "The billing release waits for the invoice run")):
        repo.remember(text, domain="project", project=str(tmp_path / name), importance=0.9, now=parse_time(NOW))
    pid = _start(root)   # its first round of jobs first: the output compared below is after it
    assert _gitmem(root, "daemon", "stop")[0] == 0
    alone_core = _gitmem(root, "load-core", cwd=tmp_path / "shop")
    alone_hook = _gitmem(root, "hook", "session-start", stdin=hook_input)
    assert alone_core[0] == 0 and "staging flag" in alone_core[1] and "invoice run" not in alone_core[1], alone_core
    assert alone_hook[0] == 0 and "staging flag" in alone_hook[1] and "Memory commands" in alone_hook[1], alone_hook
    blocked = _without_pygit2(tmp_path)
    failed = _gitmem(root, "load-core", env=blocked, cwd=tmp_path / "shop")
    assert failed[0] != 0 and "pygit2 is blocked" in failed[2]   # the block works: alone, load-core needs pygit2
    pid = _start(root)
    try:
        assert _gitmem(root, "load-core", env=blocked, cwd=tmp_path / "shop") == alone_core
        assert _gitmem(root, "hook", "session-start", env=blocked, stdin=hook_input) == alone_hook
    finally:
        assert _gitmem(root, "daemon", "stop")[0] == 0
        if not _gone(pid):
            os.kill(pid, signal.SIGKILL)
    assert "Traceback" not in daemon.log_path(root).read_text()


def test_the_socket_name_holds_a_short_root_and_bounds_a_long_one() -> None:
    short = "/srv/mem"
    assert daemon_recall.address(short).endswith(":" + short)
    tail = "/x" * 30
    one, two = daemon_recall.address("/a" + tail * 3), daemon_recall.address("/b" + tail * 3)
    assert one != two and len(one) == len(two) < 80
