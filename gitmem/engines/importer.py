"""Rows to import: JSONL lines, a MEMORY.md, or a .learnings/ folder.

Parsing is separate from writing: each source yields ``Row`` values and
``Skipped`` lines (with their line numbers), and the caller commits the rows
in one commit.
"""

from __future__ import annotations

import json
import re
from dataclasses import dataclass
from datetime import datetime
from pathlib import Path
from typing import Any, Callable, Sequence

from gitmem.base.clock import parse_time
from gitmem.base.config import Config
from gitmem.base.errors import UsageError, ValidationError
from gitmem.base.model import DOMAINS, TYPES, Memory, is_valid_id, iso, name_key, new_id
from gitmem.engines import memorize
from gitmem.guards import guard


@dataclass(frozen=True)
class Row:
    line: int
    content: str
    id: str | None = None
    created: str | None = None
    tags: tuple[str, ...] = ()
    type: str | None = None
    domain: str | None = None
    importance: float | None = None
    source: str | None = None


@dataclass(frozen=True)
class Skipped:
    line: int
    reason: str


def _row(obj: Any, line: int) -> Row | Skipped:
    if not isinstance(obj, dict):
        return Skipped(line, "not a JSON object")
    content = obj.get("content")
    if not isinstance(content, str) or not content.strip():
        return Skipped(line, "no 'content' text")
    if "\x00" in content:
        return Skipped(line, "content holds a NUL character")
    rid = obj.get("id")
    if rid is not None and not isinstance(rid, (str, int)):
        return Skipped(line, "'id' is not a string")
    typ, dom = obj.get("type"), obj.get("domain")
    if typ is not None and typ not in TYPES:
        return Skipped(line, f"type {typ!r} is not one of {', '.join(TYPES)}")
    if dom is not None and dom not in DOMAINS:
        return Skipped(line, f"domain {dom!r} is not one of {', '.join(DOMAINS)}")
    imp = obj.get("importance")
    if imp is not None and (isinstance(imp, bool) or not isinstance(imp, (int, float)) or not 0 <= imp <= 1):
        return Skipped(line, f"importance {imp!r} is not a number in [0, 1]")
    created = obj.get("created")
    if created is not None:
        try:
            created = parse_time(str(created)).isoformat().replace("+00:00", "Z")
        except UsageError:
            return Skipped(line, f"created {created!r} is not an ISO 8601 time")
    tags = obj.get("tags") or ()
    if isinstance(tags, str):
        tags = (tags,)
    if not isinstance(tags, (list, tuple)):
        return Skipped(line, "'tags' is not a list")
    src = obj.get("source")
    return Row(line, content, None if rid is None else str(rid), created,
               tuple(str(t) for t in tags if t is not None), typ, dom,
               None if imp is None else float(imp), None if src is None else str(src))


def read_jsonl(path: Path) -> tuple[list[Row], list[Skipped]]:
    """Rows of a JSONL file; bad lines are reported with their line numbers, not fatal."""
    rows: list[Row] = []
    skipped: list[Skipped] = []
    try:
        raw = path.read_bytes()
    except OSError as exc:
        raise UsageError(f"cannot read {path}: {exc.strerror}", hint="check the path") from None
    for n, line in enumerate(raw.split(b"\n"), 1):
        if not line.strip():
            continue
        try:
            obj = json.loads(line.decode("utf-8"))
        except UnicodeDecodeError:
            skipped.append(Skipped(n, "not valid UTF-8"))
            continue
        except ValueError as exc:
            skipped.append(Skipped(n, f"not valid JSON ({getattr(exc, 'msg', exc)})"))
            continue
        r = _row(obj, n)
        if isinstance(r, Row):
            rows.append(r)
        else:
            skipped.append(r)
    return rows, skipped


def read_markdown(path: Path, default_type: str | None = None, source: str | None = None) -> list[Row]:
    """A MEMORY.md-style file: one memory per top-level list item, else one per section."""
    from gitmem.base import mdio

    text = path.read_text(encoding="utf-8")
    rows: list[Row] = []
    src = source or f"import:{name_key(path.name, 'f')}"
    for section in mdio.sections(text):
        tag = _tag(section.heading)
        items = mdio.list_items(section.text)
        if items:
            for item, line in items:
                rows.append(Row(section.first + line - 1, item, tags=(tag,) if tag else (), type=default_type,
                                source=src))
        elif section.text.strip():
            body = section.text.strip()
            content = f"{section.heading}: {body}" if section.heading else body
            rows.append(Row(section.line, content, tags=(tag,) if tag else (), type=default_type, source=src))
    return rows


def _tag(heading: str) -> str:
    return re.sub(r"[^a-z0-9]+", "-", heading.lower()).strip("-")[:40]


_LEARNING_TYPES = {"errors": "error", "learnings": "skill", "feature_requests": "decision"}


def read_learnings(folder: Path) -> list[Row]:
    """A .learnings/ folder: each entry (a section) of each Markdown file is a memory."""
    rows: list[Row] = []
    for path in sorted(folder.glob("*.md")):
        typ = _LEARNING_TYPES.get(path.stem.lower())
        rows.extend(read_markdown(path, typ, f"import:.learnings/{name_key(path.name, 'f')}"))
    return rows


def detect(path: Path) -> str:
    """'jsonl', 'markdown' or 'learnings' for an import source."""
    if path.is_dir():
        return "learnings"
    if path.suffix.lower() in (".md", ".markdown"):
        return "markdown"
    return "jsonl"


def iter_rows(path: Path) -> tuple[list[Row], list[Skipped]]:
    """Rows and skipped lines of any supported import source."""
    if not path.exists():
        raise UsageError(f"no such file or folder: {path}", hint="check the path")
    kind = detect(path)
    if kind == "learnings":
        return read_learnings(path), []
    if kind == "markdown":
        return read_markdown(path), []
    return read_jsonl(path)


def to_memories(rows: Sequence[Row], source_name: str, now: datetime, cfg: Config,
                progress: Callable[[int, int], None] | None = None) -> tuple[list[Memory], list[Skipped]]:
    """The new memories ``rows`` become, and the rows refused (content too big, not text).

    A row's recorded source defaults to ``import:<hash of source_name>#L<line>``:
    a file's name is never recorded (it may name a person).

    Each row keeps its ``created``; its last access is ``now``, so old data is
    not born faded. A row id that is a valid file id becomes the memory's id,
    any other id is kept as ``source_id``; generated ids are derived from the
    source, line and content, so a re-import plans the same memories.
    """
    from gitmem.engines import encode

    good: list[Memory] = []
    refused: list[Skipped] = []
    total = len(rows)
    for n, r in enumerate(rows, 1):
        try:
            text = guard.check_text(r.content, f"line {r.line} content", cfg.sediment.max_content_bytes).strip()
            enc = encode.encode(text)
        except ValidationError as exc:
            refused.append(Skipped(r.line, exc.message))
            continue
        created = r.created or iso(now)
        if r.id is not None and is_valid_id(r.id):
            mid, source_id = r.id, None
        else:
            mid, source_id = new_id(parse_time(created), f"{source_name}:{r.line}:{r.id or ''}:{text}"), r.id
        importance = r.importance if r.importance is not None else enc.importance
        good.append(memorize.new_memory(mid, text, r.type or enc.type, r.domain or enc.domain, importance, created,
                                        now, cfg.memory, keywords=enc.keywords, tags=r.tags, source_id=source_id,
                                        source=r.source or f"import:{name_key(source_name, 'f')}#L{r.line}"))
        if progress is not None and (n % 200 == 0 or n == total):
            progress(n, total)
    return good, refused
