"""Per-clone logs under .git/gitmem/: events (alerts, writes) and the access log."""

from __future__ import annotations

import json
import os
from pathlib import Path

TYPE_CHECKING = False
if TYPE_CHECKING:
    from typing import Any, Iterator

STATE_DIR = "gitmem"


def state_dir(git_dir: Path) -> Path:
    """.git/gitmem/, created on demand; never committed."""
    path = git_dir / STATE_DIR
    path.mkdir(parents=True, exist_ok=True)
    return path


def append(path: Path, record: dict[str, Any]) -> None:
    """Append one JSON line; a single write() call so concurrent appenders do not interleave."""
    line = (json.dumps(record, ensure_ascii=False, sort_keys=True) + "\n").encode()
    fd = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_APPEND, 0o600)
    try:
        os.write(fd, line)
    finally:
        os.close(fd)


def set_aside(log: Path, aside: Path) -> None:
    """Move ``log``'s records to ``aside`` (appending if it exists); new appends start a fresh log.

    Folding a log into a commit works on the set-aside file, which is removed
    only once the commit has landed: a crash in between loses no record.
    """
    if not log.exists():
        return
    if not aside.exists():
        os.replace(log, aside)
        return
    moving = aside.with_name(f"{aside.name}.{os.getpid()}")
    os.replace(log, moving)
    with aside.open("ab") as dst:
        dst.write(moving.read_bytes())
    moving.unlink()


def read(path: Path) -> Iterator[dict[str, Any]]:
    """Records of a JSON-lines log; a torn last line is skipped."""
    try:
        with path.open(encoding="utf-8") as fh:
            for line in fh:
                try:
                    record = json.loads(line)
                except ValueError:
                    continue
                if isinstance(record, dict):
                    yield record
    except FileNotFoundError:
        return


def log_event(git_dir: Path, event: str, at: str, **fields: Any) -> None:
    """Record an event (``secret.rejected``, ``write``, …) in events.jsonl."""
    append(state_dir(git_dir) / "events.jsonl", {"event": event, "at": at, **fields})
