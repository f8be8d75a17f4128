"""The verb that serves the memory to any MCP client: serve (stdio, or streamable HTTP with --http)."""

from __future__ import annotations

TYPE_CHECKING = False
if TYPE_CHECKING:
    from typing import Any

from gitmem.faces.console import command, err

DEFAULT_HOST = "127.0.0.1"
DEFAULT_PORT = 8012
MIN_TOKEN = 32   # characters: a shorter bearer token can be guessed
TOKEN_HINT = ("put the token in GITMEM_MCP_TOKEN or in a file given by --token-file (at least "
              f"{MIN_TOKEN} characters, e.g. `python3 -c 'import secrets; print(secrets.token_urlsafe(32))'`)")


def install_hint() -> str:
    """The command that adds the MCP SDK (the ``mcp`` extra) to this gitmem's installation."""
    from gitmem.api.installation import install_hint as hint

    return hint("mcp")


def _serve_args(p: Any) -> None:
    import argparse

    p.add_argument("--http", action="store_true", help="serve streamable HTTP at http://HOST:PORT/mcp (default: stdio)")
    p.add_argument("--host", default=None, help=f"with --http: the address to bind (default {DEFAULT_HOST})")
    p.add_argument("--port", type=int, default=None, help=f"with --http: the port (default {DEFAULT_PORT})")
    p.add_argument("--allow-remote", action="store_true", help="with --http: allow a host other than loopback "
                                                               "(a bearer token is then required)")
    p.add_argument("--token-file", default=None, metavar="FILE",
                   help=f"with --http: a file holding the bearer token every request must carry (at least "
                        f"{MIN_TOKEN} characters; or GITMEM_MCP_TOKEN)")
    # a token on the command line is in every process listing: the option is kept only to refuse it
    p.add_argument("--token", default=None, help=argparse.SUPPRESS)


def is_loopback(host: str) -> bool:
    """True for an address only this machine reaches (127.0.0.0/8, ::1, localhost)."""
    import ipaddress

    if host == "localhost":
        return True
    try:
        return ipaddress.ip_address(host.strip("[]")).is_loopback
    except ValueError:
        return False


@command("serve", "serve the memory to an MCP client: stdio, or streamable HTTP with --http", _serve_args)
def cmd_serve(args: Any) -> int:
    from gitmem.api.clone import mcp_token
    from gitmem.base.errors import ArgumentError
    from gitmem.faces.console import root_of

    if args.token is not None:
        raise ArgumentError("--token would show the token to every process listing", hint=TOKEN_HINT)
    if not args.http and (args.host or args.port is not None or args.allow_remote or args.token_file):
        raise ArgumentError("--host, --port, --allow-remote and --token-file apply to --http only",
                         hint="gitmem serve --http --port 8012")
    host = DEFAULT_HOST if args.host is None else args.host
    port = DEFAULT_PORT if args.port is None else args.port
    if not 0 < port < 65536:
        raise ArgumentError(f"--port {port}: give a port between 1 and 65535")
    if args.http and not is_loopback(host) and not args.allow_remote:
        raise ArgumentError(f"--host {host} is not loopback: other machines could reach the memory",
                            hint="add --allow-remote and a bearer token (GITMEM_MCP_TOKEN), or keep --host 127.0.0.1")
    token = _token(args.token_file) if args.token_file else mcp_token()
    if args.http and token is not None and len(token) < MIN_TOKEN:
        raise ArgumentError(f"the bearer token has {len(token)} characters: at least {MIN_TOKEN} are needed",
                            hint=TOKEN_HINT)
    if args.http and not is_loopback(host) and not token:
        raise ArgumentError(f"--host {host} needs a bearer token",
                            hint=TOKEN_HINT + ", and give it to the client as Authorization: Bearer <token>")
    root = root_of(args)
    server = _server_module()
    if args.http:
        _can_listen(host, port)
        server.serve_http(root, host, port, token)
    else:
        err(f"gitmem: MCP server on stdio for {root}")
        server.serve_stdio(root)
    return 0


def _token(path: str) -> str:
    """The bearer token in the file ``path`` (its first line, blanks stripped); a UsageError when unreadable."""
    from pathlib import Path

    from gitmem.base.errors import UsageError

    try:
        with Path(path).expanduser().open("rb") as fh:
            data = fh.read(4097)
        text = data.decode("utf-8")
    except (OSError, ValueError) as exc:   # UnicodeDecodeError is a ValueError
        raise UsageError(f"cannot read the token file {path}: {getattr(exc, 'strerror', None) or exc}",
                         hint=TOKEN_HINT) from None
    lines = text.strip().splitlines()
    if len(data) > 4096 or len(lines) != 1:
        raise UsageError(f"the token file {path} must hold the token alone, on one line", hint=TOKEN_HINT)
    return lines[0].strip()


def _can_listen(host: str, port: int) -> None:
    """A UsageError when ``host:port`` cannot be listened on (an unknown host, a port in use), before serving."""
    import socket

    from gitmem.base.errors import UsageError

    try:
        family, kind, proto, _, address = socket.getaddrinfo(host, port, type=socket.SOCK_STREAM)[0]
        with socket.socket(family, kind, proto) as probe:
            probe.bind(address)
    except (OSError, UnicodeError, ValueError) as exc:   # gaierror is an OSError; a NUL or a bad label is not
        reason = getattr(exc, "strerror", None) or str(exc) or type(exc).__name__
        raise UsageError(f"cannot listen on {host[:100]}:{port}: {reason}",
                         hint="choose another --port, or a --host of this machine") from None


def _server_module() -> Any:
    """``gitmem.faces.mcp_server``, or a GitmemError with the install hint when the MCP SDK is missing."""
    from gitmem.base.errors import GitmemError

    try:
        from gitmem.faces import mcp_server
    except ImportError as exc:
        if not (exc.name or "").split(".")[0] in ("mcp", "mcp_types"):
            raise
        raise GitmemError(f"the MCP server needs the MCP SDK (mcp>=2,<3): {exc}", hint=install_hint()) from None
    return mcp_server
