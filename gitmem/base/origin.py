"""Where this gitmem was installed from, and the install command that works for it.

pip records how a distribution was installed in its ``direct_url.json`` (PEP 610): a
folder (editable or not), a git URL at a commit, an archive. Without that record the
distribution came from a package index; without a distribution at all, gitmem runs
from a source tree (``python -m gitmem`` in a checkout). A hint that asks for an extra
(``[mcp]``, ``[pre-commit]``) names the same source, so the command it prints works
today, whatever the index holds under the reserved name.
"""

from __future__ import annotations

import os
import sys

TYPE_CHECKING = False
if TYPE_CHECKING:
    from typing import Literal

    Kind = Literal["editable", "folder", "git", "archive", "index", "source"]

DISTRIBUTION = "gitmem-agent"   # the name reserved on the package index for releases


class Origin:
    """How gitmem was installed: ``kind`` and ``where`` (a folder, a URL, or "")."""

    __slots__ = ("kind", "where", "commit")

    def __init__(self, kind: Kind, where: str = "", commit: str = "") -> None:
        self.kind: Kind = kind
        self.where = where
        self.commit = commit

    def describe(self) -> str:
        """One line for ``gitmem --version``."""
        if self.kind == "editable":
            return f"editable install of the clone {self.where}"
        if self.kind == "folder":
            return f"installed from the folder {self.where} into {_site()}"
        if self.kind == "git":
            at = f" at {self.commit}" if self.commit else ""
            return f"installed from {self.where}{at} into {_site()}"
        if self.kind == "archive":
            return f"installed from {self.where} into {_site()}"
        if self.kind == "index":
            return f"installed from a package index as {DISTRIBUTION} into {_site()}"
        return f"run from the source tree {self.where} (not installed)"

    def install_command(self, extra: str | None = None) -> str:
        """The command that installs this same gitmem again, with ``extra`` when given."""
        tail = f"[{extra}]" if extra else ""
        if self.kind == "editable":
            spec = f"-e '{self.where}{tail}'"
        elif self.kind in ("folder", "source"):
            spec = f"'{self.where}{tail}'"
        elif self.kind == "git":
            at = f"@{self.commit}" if self.commit else ""
            spec = f"'{DISTRIBUTION}{tail} @ git+{_with_host(self.where)}{at}'"
        elif self.kind == "archive":
            spec = f"'{DISTRIBUTION}{tail} @ {self.where}'"
        else:
            spec = f"'{DISTRIBUTION}{tail}'"
        return f"{_pip()} install {spec}"

    def upgrade_command(self) -> str:
        """The command that brings this gitmem to its source's newest version."""
        if self.kind in ("editable", "source"):
            return f"git -C '{self.where}' pull"
        if self.kind == "folder":
            return f"git -C '{self.where}' pull && {_pip()} install '{self.where}'"
        if self.kind == "git":
            return f"{_pip()} install --upgrade '{DISTRIBUTION} @ git+{_with_host(self.where)}'"
        if self.kind == "archive":
            return f"{_pip()} install --upgrade '{DISTRIBUTION} @ {self.where}'"
        return f"{_pip()} install --upgrade {DISTRIBUTION}"


def origin() -> Origin:
    """This installation's origin, read from its distribution's metadata."""
    import json
    from importlib import metadata

    try:
        dist = metadata.distribution(DISTRIBUTION)
    except metadata.PackageNotFoundError:
        return Origin("source", _source_tree())
    if not _is_this_package(dist):
        return Origin("source", _source_tree())
    raw = dist.read_text("direct_url.json")
    if not raw:
        return Origin("index")
    try:
        record = json.loads(raw)
        url = str(record["url"])
    except (ValueError, KeyError, TypeError):
        return Origin("index")
    if isinstance(record.get("vcs_info"), dict):
        return Origin("git", url, str(record["vcs_info"].get("commit_id", "")))
    if isinstance(record.get("dir_info"), dict):
        folder = _local(url)
        if record["dir_info"].get("editable"):
            inside = os.path.realpath(_package()).startswith(os.path.realpath(folder) + os.sep)
            return Origin("editable", folder) if inside else Origin("source", _source_tree())
        return Origin("folder", folder)
    return Origin("archive", url)


def _is_this_package(dist: object) -> bool:
    """The distribution found holds the code running now (not a stale install beside a checkout):
    its copy of the package is this one, or it has no copy (an editable install points at a clone)."""
    locate = getattr(dist, "locate_file", None)
    if locate is None:
        return True
    copy = str(locate("gitmem/__init__.py"))
    if not os.path.isfile(copy):
        return True
    return os.path.realpath(copy) == os.path.realpath(os.path.join(_package(), "__init__.py"))


def _package() -> str:
    return os.path.dirname(os.path.dirname(os.path.abspath(__file__)))


def _local(url: str) -> str:
    from urllib.parse import unquote, urlparse

    parsed = urlparse(url)
    return unquote(parsed.path) if parsed.scheme == "file" else url


def _with_host(url: str) -> str:
    """``file:///x`` as ``file://localhost/x``: pip before 24 refuses ``name @ git+file:///x`` (no host)."""
    return "file://localhost/" + url[len("file:///"):] if url.startswith("file:///") else url


def _source_tree() -> str:
    return os.path.dirname(_package())


def _site() -> str:
    return sys.prefix


def _pip() -> str:
    """``pip`` when the one on PATH belongs to this Python's environment, else this Python's ``-m pip``."""
    import shutil

    found = shutil.which("pip")
    if found and os.path.realpath(os.path.dirname(found)) == os.path.realpath(os.path.dirname(sys.executable)):
        return "pip"
    return f"{sys.executable} -m pip"


def install_hint(extra: str | None = None) -> str:
    """The install command for ``extra``, for a hint."""
    return origin().install_command(extra)


def reinstall_hint() -> str:
    """The command that installs this same gitmem again over a broken installation."""
    command = origin().install_command()
    return command.replace(" install ", " install --force-reinstall ", 1)


def upgrade_hint() -> str:
    """The command that upgrades this gitmem."""
    return origin().upgrade_command()
