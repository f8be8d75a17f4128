"""An OpenAI-compatible chat endpoint on this machine as an encoder (a local Ollama or llama.cpp server).

``POST {url}/chat/completions`` with the prompt as the system message and the
session's payload as the user message; the answer is
``choices[0].message.content``. The endpoint must be on loopback: a session
must not leave the machine. The URL's host is checked before anything is sent,
the connection goes to the loopback address it resolved to, through no proxy
(``HTTP_PROXY`` is not read) and follows no redirect. One deadline bounds the
whole exchange, and an answer over the output cap is cut off.
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from http.client import HTTPConnection

    from gitmem.base.gitio.tool import ToolRun

__all__ = ["Target", "answer", "target"]


@dataclass(frozen=True)
class Target:
    """Where a loopback URL leads: the address to connect to, the port, the Host header and the path."""

    scheme: str
    address: str
    port: int
    host: str
    path: str


def _loopback_addresses(host: str) -> list[str]:
    """The addresses ``host`` stands for when every one of them is loopback; else none."""
    import ipaddress
    import socket

    try:
        return [host] if ipaddress.ip_address(host).is_loopback else []
    except ValueError:
        pass
    if host.lower() != "localhost":
        return []   # a name other than localhost may lead anywhere: refused without asking a resolver
    try:
        found = {str(info[4][0]) for info in socket.getaddrinfo(host, None, type=socket.SOCK_STREAM)}
    except OSError:
        return []
    return sorted(found) if found and all(ipaddress.ip_address(a.split("%")[0]).is_loopback for a in found) else []


def target(url: str) -> Target:
    """Where the endpoint ``url`` leads; ``ConfigError`` unless it is http(s) on this machine's loopback."""
    from urllib.parse import urlsplit

    from gitmem.base.errors import ConfigError

    hint = ("run the model server on this machine and give its loopback address, e.g. "
            "`git config gitmem.encoder-url http://127.0.0.1:11434/v1`")
    try:
        parts = urlsplit(url)
        port = parts.port
    except ValueError as exc:
        raise ConfigError(f"gitmem.encoder-url is not a URL ({exc})", hint=hint) from None
    if parts.scheme not in ("http", "https") or not parts.hostname:
        raise ConfigError(f"gitmem.encoder-url must be an http:// URL, not {url[:100]!r}", hint=hint)
    if parts.username is not None or parts.password is not None:
        raise ConfigError("gitmem.encoder-url must not hold a user name or password", hint=hint)
    addresses = _loopback_addresses(parts.hostname)
    if not addresses:
        raise ConfigError(f"gitmem.encoder-url names {parts.hostname!r}, which is not this machine's loopback: "
                          "refused, a session must not leave the machine", hint=hint)
    # localhost: every address it resolves to is loopback; the connection tries each, as a client would
    return Target(parts.scheme, parts.hostname if len(addresses) > 1 else addresses[0],
                  port or (443 if parts.scheme == "https" else 80),
                  parts.netloc.rpartition("@")[2], parts.path.rstrip("/") + "/chat/completions")


def answer(url: str, model: str, system: str, user: str, timeout: float, limit: int) -> ToolRun:
    """One chat completion from the endpoint: the message content as bytes, or the problem."""
    import http.client
    import threading

    from gitmem.base.gitio.tool import ToolRun

    where = target(url)
    body = json.dumps({"model": model, "stream": False, "temperature": 0,
                       "messages": [{"role": "system", "content": system}, {"role": "user", "content": user}]},
                      ensure_ascii=False).encode("utf-8")
    kind = http.client.HTTPSConnection if where.scheme == "https" else http.client.HTTPConnection
    conn = kind(where.address, where.port, timeout=timeout)
    got: list[ToolRun] = []
    worker = threading.Thread(target=lambda: got.append(_exchange(conn, where, body, limit, timeout)), daemon=True)
    worker.start()
    worker.join(timeout)
    if worker.is_alive():
        _abort(conn)
        worker.join(1.0)
        return ToolRun(b"", f"timed out after {timeout:g} s")
    return got[0] if got else ToolRun(b"", "the request ended without an answer")


def _abort(conn: HTTPConnection) -> None:
    import socket

    try:
        if conn.sock is not None:
            conn.sock.shutdown(socket.SHUT_RDWR)
        conn.close()
    except OSError:
        pass


def _exchange(conn: HTTPConnection, where: Target, body: bytes, limit: int, timeout: float) -> ToolRun:
    import http.client

    from gitmem.base.gitio.tool import ToolRun

    try:
        conn.request("POST", where.path, body, {"Host": where.host, "Content-Type": "application/json",
                                                "Accept": "application/json"})
        response = conn.getresponse()
        data = bytearray()
        while chunk := response.read(65536):
            data.extend(chunk)
            if len(data) > limit:
                return ToolRun(b"", f"answered more than {limit} bytes")
    except TimeoutError:
        # the socket's own deadline (the same as the whole exchange's) may fire just before the caller's
        return ToolRun(b"", f"timed out after {timeout:g} s")
    except (OSError, http.client.HTTPException) as exc:
        return ToolRun(b"", f"cannot reach {where.host}: {getattr(exc, 'strerror', None) or exc or type(exc).__name__}")
    finally:
        conn.close()
    if response.status != 200:
        said = bytes(data[:200]).decode("utf-8", "replace").strip()
        return ToolRun(b"", f"HTTP {response.status}" + (f": {said}" if said else ""))
    return _content(bytes(data))


def _content(data: bytes) -> ToolRun:
    """``choices[0].message.content`` of a chat completion, or why it is not there."""
    from gitmem.base.gitio.tool import ToolRun

    try:
        reply = json.loads(data.decode("utf-8"))
        content = reply["choices"][0]["message"]["content"]
    except (UnicodeDecodeError, ValueError, RecursionError, KeyError, IndexError, TypeError):
        return ToolRun(b"", "the answer is not a chat completion (choices[0].message.content)")
    if not isinstance(content, str):
        return ToolRun(b"", "the answer's message content is not text")
    return ToolRun(content.encode("utf-8"))
