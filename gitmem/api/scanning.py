"""Scanning text for PII and secrets, and stripping PII to typed placeholders: what ``gitmem pii`` and the
MCP ``pii_check`` tool do, with the repository's allowlist when there is one."""

from __future__ import annotations

from collections.abc import Iterator
from typing import TYPE_CHECKING, BinaryIO

if TYPE_CHECKING:
    from gitmem.base.config import Config
    from gitmem.guards.pii import Allowlist, Finding
    from gitmem.guards.pii.stream import Located


def allowlist(cfg: Config | None) -> Allowlist | None:
    """The allowlist of a repository's config (None outside a repository)."""
    from gitmem.guards.redact import allowlist as of_config

    return of_config(cfg) if cfg is not None else None


def scan(text: str, allow: Allowlist | None = None) -> list[Finding]:
    """Every PII and secret finding in ``text``."""
    from gitmem.guards import pii

    return pii.scan(text, allow)


def finding_json(finding: Finding | Located, value: str) -> dict[str, object]:
    """One finding as JSON: kind, offsets, secret or not, and the id ``gitmem purge --finding`` takes."""
    return {"kind": finding.kind, "start": finding.start, "end": finding.end, "secret": finding.secret,
            "id": finding_id(finding.kind, value)}


def finding_id(kind: str, value: str) -> str:
    """The id naming a finding without its value."""
    from gitmem.guards.redact import finding_id as of_value

    return of_value(kind, value)


def scan_stream(stream: BinaryIO, allow: Allowlist | None = None) -> Iterator[Located]:
    """The findings of a stream read a window at a time, each with its line and column."""
    from gitmem.guards.pii.stream import scan_stream as scan_windows

    return scan_windows(stream, allow)


def lines(stream: BinaryIO, cap: int, what: str) -> Iterator[tuple[int, bytes]]:
    """A stream's lines with their numbers, none longer than ``cap`` bytes (a usage error names ``what``)."""
    from gitmem.base.streams import capped_lines

    return capped_lines(stream, cap, what)


def strip(text: str, allow: Allowlist | None = None) -> str:
    """``text`` with its PII replaced by typed placeholders."""
    from gitmem.guards import redact

    return redact.strip(text, allow)
