"""Document bodies known to be scanned clean: what lets a large write skip scanning them again.

A decay archiving every memory rewrites each file's front matter and leaves
its body as it was. ``CleanBodies`` holds the blob ids of bodies the PII guard
found nothing in under the very same scanner, settings and ``pii allow``
records (the writer keeps them per clone, ``gitmem.writer.scanned``); the
guard skips only those bodies and notes the ones it scans clean. Front matter
is always scanned, and a body no write of this clone scanned (a file a person
committed with ``--no-verify``) is scanned whole.
"""

from __future__ import annotations

from dataclasses import dataclass, field


def body_id(body: str) -> bytes:
    """The raw git blob id (20 bytes) of ``body`` as UTF-8."""
    from gitmem.base.gitio.command import blob_id

    return bytes.fromhex(blob_id(body.encode("utf-8")))


@dataclass
class CleanBodies:
    """``known``: ids recorded clean before; ``fresh``: ids the guard scanned clean in this write."""

    known: frozenset[bytes] = frozenset()
    fresh: set[bytes] = field(default_factory=set)

    def is_clean(self, body_key: bytes) -> bool:
        return body_key in self.known

    def note(self, body_key: bytes) -> None:
        if body_key not in self.known:
            self.fresh.add(body_key)
