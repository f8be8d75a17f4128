"""Real git servers on loopback for the sync tests: ``git daemon`` and git's smart HTTP (``git http-backend``
behind a small HTTP server run in a thread)."""

from __future__ import annotations

import os
import socket
import subprocess
import threading
import time
from collections.abc import Iterator
from contextlib import contextmanager
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        port: int = s.getsockname()[1]
        return port


def bare(root: Path, name: str = "memory.git") -> Path:
    """An empty bare repository under ``root`` that accepts pushes over both servers."""
    path = root / name
    subprocess.run(["git", "init", "-q", "--bare", "-b", "main", str(path)], check=True)
    subprocess.run(["git", "-C", str(path), "config", "http.receivepack", "true"], check=True)
    subprocess.run(["git", "-C", str(path), "config", "daemon.receivepack", "true"], check=True)
    return path


def _wait_listening(port: int, proc: subprocess.Popen[bytes] | None = None) -> None:
    for _ in range(200):
        if proc is not None and proc.poll() is not None:
            raise RuntimeError("git daemon exited: " + (proc.stderr.read().decode() if proc.stderr else ""))
        try:
            with socket.create_connection(("127.0.0.1", port), timeout=0.2):
                return
        except OSError:
            time.sleep(0.05)
    raise RuntimeError(f"nothing listens on 127.0.0.1:{port}")


@contextmanager
def git_daemon(base: Path) -> Iterator[str]:
    """``git daemon`` serving the bare repositories under ``base``; yields the URL prefix."""
    port = free_port()
    proc = subprocess.Popen(["git", "daemon", "--reuseaddr", "--export-all", "--enable=receive-pack",
                             f"--base-path={base}", "--listen=127.0.0.1", f"--port={port}", str(base)],
                            stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)
    try:
        _wait_listening(port, proc)
        yield f"git://127.0.0.1:{port}"
    finally:
        proc.terminate()
        proc.wait(timeout=10)


class _Backend(BaseHTTPRequestHandler):
    root = ""

    def log_message(self, format: str, *args: object) -> None:   # quiet
        return

    def _cgi(self) -> None:
        path, _, query = self.path.partition("?")
        length = int(self.headers.get("Content-Length") or 0)
        body = self.rfile.read(length) if length else b""
        env = {**os.environ, "GIT_PROJECT_ROOT": self.root, "GIT_HTTP_EXPORT_ALL": "1", "PATH_INFO": path,
               "QUERY_STRING": query, "REQUEST_METHOD": self.command, "REMOTE_ADDR": "127.0.0.1",
               "CONTENT_TYPE": self.headers.get("Content-Type") or "", "CONTENT_LENGTH": str(len(body)),
               "REMOTE_USER": "tester"}
        if self.headers.get("Content-Encoding"):
            env["HTTP_CONTENT_ENCODING"] = self.headers["Content-Encoding"]
        if self.headers.get("Git-Protocol"):
            env["GIT_PROTOCOL"] = self.headers["Git-Protocol"]
        done = subprocess.run(["git", "http-backend"], input=body, env=env, capture_output=True)
        head, _, payload = done.stdout.partition(b"\r\n\r\n")
        status = 200
        headers = []
        for line in head.decode("latin-1").split("\r\n"):
            key, _, value = line.partition(":")
            if key.lower() == "status":
                status = int(value.strip().split()[0])
            elif key:
                headers.append((key, value.strip()))
        self.send_response(status)
        for key, value in headers:
            self.send_header(key, value)
        self.send_header("Content-Length", str(len(payload)))
        self.end_headers()
        self.wfile.write(payload)

    do_GET = _cgi
    do_POST = _cgi


@contextmanager
def smart_http(base: Path) -> Iterator[str]:
    """git's smart HTTP (``git http-backend``) serving the bare repositories under ``base``."""
    handler = type("Backend", (_Backend,), {"root": str(base)})
    server = ThreadingHTTPServer(("127.0.0.1", 0), handler)
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    try:
        yield f"http://127.0.0.1:{server.server_address[1]}"
    finally:
        server.shutdown()
        server.server_close()
        thread.join(timeout=10)


SERVERS = {"git-daemon": git_daemon, "smart-http": smart_http}


@contextmanager
def served(tmp: Path, kind: str = "git-daemon") -> Iterator[tuple[Path, str]]:
    """An empty bare ``memory.git`` under ``tmp/server``, served by ``kind`` (a key of ``SERVERS``);
    yields its path and its URL."""
    base = tmp / "server"
    base.mkdir()
    path = bare(base)
    with SERVERS[kind](base) as url:
        yield path, f"{url}/memory.git"
