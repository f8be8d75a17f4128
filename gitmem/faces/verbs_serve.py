"""The verb that serves the memory to any MCP client: serve (stdio, or streamable HTTP with --http)."""

from __future__ import annotations

TYPE_CHECKING = False
if TYPE_CHECKING:
    from typing import Any

from gitmem.faces.console import command, err

DEFAULT_HOST = "127.0.0.1"
DEFAULT_PORT = 8012


def install_hint() -> str:
    """The command that adds the MCP SDK (the ``mcp`` extra) to this gitmem's installation."""
    from gitmem.api.installation import install_hint as hint

    return hint("mcp")


def _serve_args(p: Any) -> None:
    p.add_argument("--http", action="store_true", help="serve streamable HTTP at http://HOST:PORT/mcp (default: stdio)")
    p.add_argument("--host", default=None, help=f"with --http: the address to bind (default {DEFAULT_HOST})")
    p.add_argument("--port", type=int, default=None, help=f"with --http: the port (default {DEFAULT_PORT})")
    p.add_argument("--allow-remote", action="store_true", help="with --http: allow a host other than loopback "
                                                               "(a bearer token is then required)")
    p.add_argument("--token", default=None, help="with --http: the bearer token every request must carry "
                                                 "(better: GITMEM_MCP_TOKEN, which no process listing shows)")


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

    token = args.token or mcp_token()
    if not args.http and (args.host or args.port is not None or args.allow_remote or args.token):
        raise ArgumentError("--host, --port, --allow-remote and --token apply to --http only",
                         hint="gitmem serve --http --port 8012")
    host = DEFAULT_HOST if args.host is None else args.host
    port = DEFAULT_PORT if args.port is None else args.port
    if not 0 < port < 65536:
        raise ArgumentError(f"--port {port}: give a port between 1 and 65535")
    if args.http and not is_loopback(host):
        if not args.allow_remote:
            raise ArgumentError(f"--host {host} is not loopback: other machines could reach the memory",
                             hint="add --allow-remote and a bearer token (GITMEM_MCP_TOKEN), or keep --host 127.0.0.1")
        if not token:
            raise ArgumentError(f"--host {host} needs a bearer token", hint="export GITMEM_MCP_TOKEN=<a long random "
                             "string> (or --token), and give it to the client as Authorization: Bearer <token>")
    root = root_of(args)
    server = _server_module()
    if args.http:
        _can_listen(host, port)
        server.serve_http(root, host, port, token)
    else:
        err(f"gitmem: MCP server on stdio for {root}")
        server.serve_stdio(root)
    return 0


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
