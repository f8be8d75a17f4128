"""``gitmem recall`` answered by the running daemon: the process that asks skips loading the recall path.

A recall process costs an interpreter start plus the imports and set-up of the recall
path; a SessionStart hook or a shell loop pays it on every call. While ``gitmem daemon``
runs, it listens on a Unix socket, and ``gitmem recall`` sends it its arguments, folder,
clock and stdin, and prints what comes back. The daemon runs the very same verb
(``verbs_recall.cmd_recall`` through ``console.guarded``), printing into the caller's
buffers (``console.serving``): the output and the exit code are those of an in-process run.

The socket is in Linux's abstract namespace (no file to go stale when the daemon is
killed, no path length limit), named from the work tree's path and the user's id. Both
ends check the other's user id (SO_PEERCRED): no other user is answered, and no other
user's process can pose as the daemon. Anything short of an answer (no daemon, another
version of gitmem, a request the daemon will not serve, a time-out) and the recall runs
in-process, as it does without a daemon. Other systems always recall in-process.
"""

from __future__ import annotations

import _socket   # socket's own C module: `import socket` adds enum and selectors to every recall process
import os
import sys

from gitmem.faces.parser import FORWARDED  # the verbs the daemon answers

TYPE_CHECKING = False
if TYPE_CHECKING:
    import socketserver
    from collections.abc import Sequence
    from pathlib import Path

TIMEOUT = 120.0
"""Seconds the caller waits for an answer (an index rebuild at 100k memories takes ~10 s)."""
_MAX_REQUEST = 16 * 1024 * 1024


def available() -> bool:
    """Whether this system has abstract sockets with peer credentials (Linux)."""
    return sys.platform.startswith("linux") and hasattr(_socket, "SO_PEERCRED")


def address(root: str) -> str:
    """The daemon's socket name for the work tree at ``root`` (a resolved path)."""
    if len(root) <= 60:
        return f"\0gitmem-{os.getuid()}:{root}"
    import zlib   # only for a long path: a recall process that asks pays nothing for it otherwise

    return f"\0gitmem-{os.getuid()}:{root[-40:]}#{zlib.crc32(root.encode()):08x}{len(root)}"


def _peer_uid(sock: _socket.socket) -> int:
    """The user id of the process at the other end of a connected Unix socket."""
    import struct

    _pid, uid, _gid = struct.unpack("3i", sock.getsockopt(_socket.SOL_SOCKET, _socket.SO_PEERCRED, struct.calcsize("3i")))
    return int(uid)


def _repo_option(argv: Sequence[str]) -> str | None:
    """The value of ``--repo`` in ``argv`` (the last one given, as argparse takes it)."""
    found = None
    for n, arg in enumerate(argv):
        if arg == "--repo" and n + 1 < len(argv):
            found = argv[n + 1]
        elif arg.startswith("--repo="):
            found = arg[len("--repo="):]
    return found


# --- the caller ---------------------------------------------------------------------

def ask(argv: Sequence[str], cwd: str | None = None) -> int | None:
    """Have the running daemon answer the gitmem command ``argv`` (a forwarded verb), run from ``cwd``
    (default: this process's folder): print its output and return its exit code; None when no daemon
    answers (the caller runs the command itself)."""
    if not available():
        return None
    from gitmem import __version__
    from gitmem.api.clone import root_path
    from gitmem.base.errors import GitmemError

    try:
        root = root_path(_repo_option(argv))
    except (GitmemError, OSError):
        return None   # run in-process, which says what is wrong
    batch = "--batch" in argv
    request = {"version": __version__, "root": root, "argv": list(argv), "cwd": cwd or os.getcwd(),
               "now": os.environ.get("GITMEM_NOW") or None, "stdin": sys.stdin.read() if batch else ""}
    reply = _exchange(root, request)
    if reply is None:
        if batch:   # stdin was read: hand it on to the in-process run
            import io

            sys.stdin = io.StringIO(str(request["stdin"]))
        return None
    printed, said, code = reply
    sys.stdout.write(printed)
    sys.stderr.write(said)
    sys.stdout.flush()
    return code


def _exchange(root: str, request: dict[str, object]) -> tuple[str, str, int] | None:
    """The daemon's (stdout, stderr, exit code) for ``request``, or None when it gives none."""
    sock = _socket.socket(_socket.AF_UNIX, _socket.SOCK_STREAM)
    try:
        sock.settimeout(TIMEOUT)
        sock.connect(address(root))
        if _peer_uid(sock) != os.getuid():
            return None   # not our daemon: never send it a query
        import json   # only with a daemon to talk to: json costs a recall process without one ~2 ms

        sock.sendall(json.dumps(request, ensure_ascii=False).encode() + b"\n")
        sock.shutdown(_socket.SHUT_WR)
        chunks = []
        while chunk := sock.recv(1 << 16):
            chunks.append(chunk)
        reply = json.loads(b"".join(chunks))
    except (OSError, ValueError):
        return None
    finally:
        sock.close()
    if not isinstance(reply, dict):
        return None
    printed, said, code = reply.get("stdout"), reply.get("stderr"), reply.get("code")
    if not isinstance(printed, str) or not isinstance(said, str) or not isinstance(code, int):
        return None   # "not served" (another version, a request it will not take) or not an answer
    return printed, said, code


# --- the daemon ---------------------------------------------------------------------

def answer(root: Path, request: object) -> dict[str, object]:
    """The daemon's answer to one request: ``{"stdout", "stderr", "code"}`` from running the verb,
    or ``{"served": False, "why": …}`` when it will not (the caller then runs it itself)."""
    from gitmem import __version__
    from gitmem.faces import console, parser

    if not isinstance(request, dict):
        return {"served": False, "why": "not a request"}
    argv, cwd, now = request.get("argv"), request.get("cwd"), request.get("now")
    if request.get("version") != __version__:
        return {"served": False, "why": f"the daemon runs gitmem {__version__}"}
    if request.get("root") != str(root):
        return {"served": False, "why": "another repository"}
    if (not isinstance(argv, list) or not all(isinstance(a, str) for a in argv) or not isinstance(cwd, str)
            or not isinstance(request.get("stdin", ""), str) or not (now is None or isinstance(now, str))):
        return {"served": False, "why": "malformed request"}
    if parser.first_word(argv) not in FORWARDED:
        return {"served": False, "why": "not a forwarded verb"}
    for verb in FORWARDED:
        __import__(parser.HOT_VERBS[verb])
    caller = console.Caller(cwd, str(request.get("stdin", "")))
    with console.serving(caller):
        try:
            args = parser.build_parser(parser.first_word(argv)).parse_args(argv)
        except SystemExit as exc:   # --help, or arguments that do not parse: argparse said so to the caller
            code = exc.code if isinstance(exc.code, int) else 2
        else:
            if not _same_repository(getattr(args, "repo", None), _repo_option(argv), cwd, root):
                return {"served": False, "why": "another repository"}   # --repo as parsed names another one
            args.repo = str(root)
            if getattr(args, "now", None) is None:
                args.now = now or _wall_now()   # the caller's clock, never the daemon's GITMEM_NOW
            handler = console.COMMANDS[args.command][0]
            console.show_warnings()   # what the layers below report goes to this caller's stderr, as in-process
            code = console.guarded(lambda: handler(args))
    return {"stdout": caller.stdout.getvalue(), "stderr": caller.stderr.getvalue(), "code": code}


def _same_repository(given: str | None, scanned: str | None, cwd: str, root: Path) -> bool:
    """Whether ``--repo`` as the parser read it (``given``; None: not given) names the repository at
    ``root`` from the caller's ``cwd``. The caller found ``root`` from ``scanned``, its own quick reading
    of argv, which may differ (``-- --repo X`` is a query): then it is not this daemon's to answer."""
    if given is None:
        return scanned is None
    from gitmem.api.clone import root_path
    from gitmem.base.errors import GitmemError

    try:
        return root_path(os.path.join(cwd, given)) == str(root)
    except (GitmemError, OSError):
        return False


def _wall_now() -> str:
    from datetime import datetime, timezone

    return datetime.now(timezone.utc).isoformat()


def serve(root: Path) -> socketserver.BaseServer | None:
    """Start answering on ``root``'s socket in background threads; the server (``shutdown()`` and
    ``server_close()`` it), or None when this system has no such sockets or the name is taken."""
    if not available():
        return None
    import json
    import socketserver
    import threading

    class Handler(socketserver.StreamRequestHandler):
        def handle(self) -> None:
            if _peer_uid(self.connection) != os.getuid():
                return   # another user: no answer at all
            line = self.rfile.readline(_MAX_REQUEST)
            try:
                request = json.loads(line)
            except ValueError:
                request = None
            self.wfile.write(json.dumps(answer(root, request), ensure_ascii=False).encode())

    class Server(socketserver.ThreadingMixIn, socketserver.UnixStreamServer):
        daemon_threads = True

    try:
        server = Server(address(str(root)), Handler)
    except OSError:
        return None
    threading.Thread(target=server.serve_forever, name="gitmem-recall", daemon=True).start()
    return server
