"""Which project a directory belongs to: one repository, whatever the subfolder or work tree.

A project is the git repository holding a session's working directory. Its id
is the repository's remote URL without credentials, normalised
(``https://user:token@GitHub.com/Acme/API.git`` and ``git@github.com:acme/api``
are both ``github.com/acme/api``), else a hash of the repository's main folder;
its name is that folder's name. Linked work trees share the common git dir, so
a subfolder and a work tree of one repository are one project. Git is asked
twice (``rev-parse``, ``config``), through ``gitio.command``.
"""

from __future__ import annotations

import hashlib
import os
import re
from collections import namedtuple

from gitmem.base.gitio.command import attempt, git_dirs

__all__ = ["Project", "identify", "normalise_remote"]


class Project(namedtuple("Project", "id name")):
    """A project: ``id`` (normalised remote URL, or ``path:<hash>``) and ``name`` (its folder's name, as found)."""

    __slots__ = ()


# user@host:path, git's scp-like syntax (no scheme; a colon before any slash)
_SCP = re.compile(r"^(?:[^@/\s]+@)?(?P<host>[^:/\s]+):(?P<path>[^\s]*)$")
_SCHEME = re.compile(r"^(?P<scheme>[a-z][a-z0-9+.-]*)://(?P<rest>.*)$", re.I)
_WINDOWS_DRIVE = re.compile(r"^[A-Za-z]:[\\/]")


def normalise_remote(url: str) -> str | None:
    """``url`` as ``host/path``: no scheme, credentials, port, query or ``.git``; lower case.

    A local path (a remote on this disk) is that path, normalised; an empty or
    unreadable URL is None.
    """
    url = url.strip()
    if not url:
        return None
    found = _SCHEME.match(url)
    if found and found.group("scheme").lower() != "file":
        rest = re.split(r"[?#]", found.group("rest"), maxsplit=1)[0]
        authority, _, path = rest.partition("/")
        host = authority.rsplit("@", 1)[-1]              # user:password@ is never part of the id
        host = re.sub(r":\d*$", "", host)                 # nor is the port
        return _joined(host, path)
    if found:  # file://
        return _local(found.group("rest"))
    if _WINDOWS_DRIVE.match(url) or url.startswith(("/", "\\", ".")):
        return _local(url)
    scp = _SCP.match(url)
    if scp:
        return _joined(scp.group("host"), scp.group("path"))
    return _local(url)


def _joined(host: str, path: str) -> str | None:
    path = path.replace("\\", "/").strip("/")
    path = path[:-4] if path.lower().endswith(".git") else path
    path = path.rstrip("/")
    if not host:
        return None
    return f"{host}/{path}".lower() if path else host.lower()


def _local(path: str) -> str:
    path = path.replace("\\", "/").rstrip("/")
    path = path[:-4] if path.lower().endswith(".git") else path
    return "file:" + path.rstrip("/").lower()


def _remote(common: str) -> str | None:
    """The URL of ``origin``, else of the first remote by name."""
    out = attempt(common, "config", "--get-regexp", r"^remote\..*\.url$")
    if not out:
        return None
    urls: dict[str, str] = {}
    for line in out.decode("utf-8", "surrogateescape").splitlines():
        key, _, value = line.partition(" ")
        urls[key[len("remote."):-len(".url")]] = value
    if not urls:
        return None
    return urls.get("origin") or urls[sorted(urls)[0]]


def identify(directory: str | os.PathLike[str]) -> Project | None:
    """The project of the git repository holding ``directory``; None outside one (or when it is missing)."""
    if not os.path.isdir(directory):
        return None
    dirs = git_dirs(os.fspath(directory))
    if dirs is None:
        return None
    common = os.path.normpath(dirs[1])
    main = os.path.dirname(common) if os.path.basename(common) == ".git" else common
    name = os.path.basename(main.rstrip(os.sep)) or main
    url = _remote(common)
    remote = normalise_remote(url) if url else None
    if remote:
        return Project(remote, name)
    digest = hashlib.sha256(os.path.realpath(main).encode("utf-8", "surrogateescape")).hexdigest()[:16]
    return Project(f"path:{digest}", name)
