"""Processes other than git: a person's own tool run as a filter, gitmem itself detached, a system program.

``run_tool`` runs a filter: bytes in on stdin, bytes out on stdout, bounded.

gitmem starts processes only from this package; git's own are in ``command``.
This one runs a command a person configured for their clone or account (never
one a shared repository names): it gets ``stdin``, must finish within
``timeout`` seconds and write at most ``limit`` bytes, else it is killed with
every process it started and the run reports why. Nothing here raises for
the tool's sake: the caller decides what a failed run means.
"""

from __future__ import annotations

import shlex
from dataclasses import dataclass
from typing import IO, Mapping

__all__ = ["ToolRun", "run_tool", "spawn_detached", "run_program"]


@dataclass(frozen=True)
class ToolRun:
    """What a run gave: its stdout, and ``problem`` (empty when it exited 0 within its bounds)."""

    stdout: bytes
    problem: str = ""

    @property
    def ok(self) -> bool:
        """Whether the tool exited 0 within its timeout and output cap."""
        return not self.problem


def _kill(proc: "object") -> None:
    import os
    import signal

    pid = getattr(proc, "pid", None)
    try:
        os.killpg(pid, signal.SIGKILL)  # type: ignore[arg-type]  # pid is set once Popen returned
    except (OSError, TypeError):
        pass


def run_tool(command: str, stdin: bytes, timeout: float, limit: int, env: Mapping[str, str] | None = None) -> ToolRun:
    """Run ``command`` (split as a shell would, but run without a shell) with ``stdin``; bounded by ``timeout`` and ``limit``.
    ``env``: the whole environment it gets (default: ours)."""
    import subprocess
    import threading

    try:
        argv = shlex.split(command)
    except ValueError as exc:
        return ToolRun(b"", f"cannot parse the command: {exc}")
    if not argv:
        return ToolRun(b"", "the command is empty")
    try:
        proc = subprocess.Popen(argv, stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                                start_new_session=True, env=env)
    except OSError as exc:
        return ToolRun(b"", f"cannot start {argv[0]}: {exc.strerror or exc}")
    out = bytearray()
    err = bytearray()
    over = threading.Event()

    def feed(pipe: IO[bytes]) -> None:
        try:
            pipe.write(stdin)
            pipe.close()
        except OSError:
            pass  # the tool exited or stopped reading: its exit status says the rest

    def drain(pipe: IO[bytes], into: bytearray, cap: int, stop: bool) -> None:
        while chunk := pipe.read1(65536):  # type: ignore[attr-defined]  # a BufferedReader: read1 returns what is there
            into.extend(chunk)
            if len(into) > cap:
                if stop:
                    over.set()
                    _kill(proc)
                    return
                del into[: len(into) - cap]  # keep the tail of stderr only

    assert proc.stdin is not None and proc.stdout is not None and proc.stderr is not None
    threads = [threading.Thread(target=feed, args=(proc.stdin,), daemon=True),
               threading.Thread(target=drain, args=(proc.stdout, out, limit, True), daemon=True),
               threading.Thread(target=drain, args=(proc.stderr, err, 2000, False), daemon=True)]
    for t in threads:
        t.start()
    try:
        code = proc.wait(timeout)
    except subprocess.TimeoutExpired:
        _kill(proc)
        proc.wait()
        return ToolRun(b"", f"timed out after {timeout:g} s")
    for t in threads:
        t.join(1.0)
    if over.is_set():
        return ToolRun(b"", f"wrote more than {limit} bytes")
    if code != 0:
        tail = err.decode("utf-8", "replace").strip().splitlines()[-1:] or [""]
        return ToolRun(bytes(out), f"exit code {code}" + (f": {tail[0][:200]}" if tail[0] else ""))
    return ToolRun(bytes(out))


def spawn_detached(argv: list[str], log_path: str, env: dict[str, str] | None = None, stdin: int | None = None) -> int:
    """Start ``argv`` in a new session, detached from this process (stdin closed, or the file descriptor
    ``stdin``; stdout and stderr appended to ``log_path``); returns its pid at once, without waiting. It
    outlives the caller: when the caller (a hook) exits, init adopts it."""
    import subprocess

    with open(log_path, "ab") as log:
        proc = subprocess.Popen(argv, stdin=subprocess.DEVNULL if stdin is None else stdin, stdout=log, stderr=log,
                                start_new_session=True, close_fds=True, env=env)
    return proc.pid


def run_program(argv: list[str], stdin: bytes | None = None, timeout: float = 30.0) -> tuple[int, bytes, bytes]:
    """Run a system program (``crontab -l``, a browser) to completion: (exit code, stdout, stderr).

    A program that cannot be started gives exit code 127 and the reason on stderr; one that runs
    past ``timeout`` seconds is killed and gives 124.
    """
    import subprocess

    try:
        done = subprocess.run(argv, input=stdin, capture_output=True, timeout=timeout,
                              stdin=None if stdin is not None else subprocess.DEVNULL)
    except OSError as exc:
        return 127, b"", f"cannot start {argv[0]}: {exc.strerror or exc}".encode()
    except subprocess.TimeoutExpired as exc:
        return 124, exc.stdout or b"", f"{argv[0]} ran past {timeout:g} s".encode()
    return done.returncode, done.stdout, done.stderr
