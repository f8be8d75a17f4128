"""Rows to import: JSONL lines, a MEMORY.md, or a .learnings/ folder.

Parsing is separate from writing: each source yields ``Row`` values and
``Skipped`` lines (with their line numbers), and the caller commits the rows
in one commit. One bad row never costs the others: a value beyond what a
memory can hold (a number that is not finite or beyond 64 bits, a time outside
1970-9000, nesting, a text over the content cap) skips its row. JSONL is read
line by line with a line cap, so an endless or binary input ends with an error
naming the limit instead of exhausting memory.
"""

from __future__ import annotations

import json
import math
import re
from dataclasses import dataclass
from datetime import datetime
from pathlib import Path
from typing import Any, Callable, Sequence

from gitmem.base.clock import in_range, parse_time
from gitmem.base.config import MAX_CONTENT_BYTES, Config
from gitmem.base.errors import SecurityError, UsageError, ValidationError
from gitmem.base.model import DOMAINS, TYPES, Memory, is_valid_id, iso, name_key, new_id
from gitmem.base.streams import capped_lines
from gitmem.base.text import printable_label
from gitmem.engines import memorize
from gitmem.guards import guard

_INT_DIGITS = 18   # an integer with more digits is beyond what a memory stores (64 bits)
_SCALARS = (str, int, float)


def line_cap(max_content_bytes: int = MAX_CONTENT_BYTES) -> int:
    """The longest JSONL line read: a row whose content fits the cap, every character escaped, plus its fields."""
    return 6 * max_content_bytes + 65_536


class _BadValue(ValueError):
    """A JSON value no memory can hold (reported as the row's reason)."""


def _constant(name: str) -> Any:
    raise _BadValue(f"{name} is not a finite number")


def _int(text: str) -> int:
    if len(text.lstrip("-")) > _INT_DIGITS:
        raise _BadValue(f"number {text[:20]}... is too large ({len(text)} digits)")
    return int(text)


def _float(text: str) -> float:
    value = float(text)
    if not math.isfinite(value):
        raise _BadValue(f"number {text[:20]} is not a finite number")
    return value


def parse_line(text: str) -> Any:
    """One JSON value, refusing what a memory cannot hold; raises ValueError with the reason."""
    try:
        return json.loads(text, parse_constant=_constant, parse_int=_int, parse_float=_float)
    except RecursionError:
        raise _BadValue("nested too deep") from None


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
    if rid is not None and (isinstance(rid, bool) or not isinstance(rid, (str, int))):
        return Skipped(line, "'id' is not a string")
    if isinstance(rid, str) and not printable_label(rid) == rid:
        return Skipped(line, "'id' holds control, invisible or unpaired surrogate characters")
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
        shown = repr(created)[:60]
        if not isinstance(created, str):
            return Skipped(line, f"created {shown} is not an ISO 8601 time")
        try:
            moment = parse_time(created)
        except UsageError:
            return Skipped(line, f"created {shown} is not an ISO 8601 time")
        if not in_range(moment):
            return Skipped(line, f"created {shown} is out of range (1970 to 9000)")
        created = iso(moment)
    tags = obj.get("tags") or ()
    if isinstance(tags, str):
        tags = (tags,)
    if not isinstance(tags, (list, tuple)):
        return Skipped(line, "'tags' is not a list")
    if not all(t is None or isinstance(t, _SCALARS) for t in tags):
        return Skipped(line, "'tags' holds a list or an object, not only strings")
    src = obj.get("source")
    if src is not None and not isinstance(src, _SCALARS):
        return Skipped(line, "'source' is not a string")
    return Row(line, content, None if rid is None else str(rid), created,
               tuple(label for t in tags if t is not None and (label := printable_label(str(t)))), typ, dom,
               None if imp is None else float(imp), None if src is None else printable_label(str(src)))


def read_jsonl(path: Path, max_content_bytes: int = MAX_CONTENT_BYTES) -> tuple[list[Row], list[Skipped]]:
    """Rows of a JSONL file; bad lines are reported with their line numbers, not fatal.

    A line longer than ``line_cap`` is a ValidationError naming the cap: no
    row is that long, so the input is not JSONL (or never ends).
    """
    rows: list[Row] = []
    skipped: list[Skipped] = []
    cap = line_cap(max_content_bytes)
    try:
        with path.open("rb") as fh:
            for n, line in capped_lines(fh, cap, f"{path}"):
                if not line.strip():
                    continue
                r = _parse(line, n)
                if isinstance(r, Row):
                    rows.append(r)
                else:
                    skipped.append(r)
    except OSError as exc:
        raise UsageError(f"cannot read {path}: {exc.strerror}", hint="check the path") from None
    return rows, skipped


def _parse(line: bytes, n: int) -> Row | Skipped:
    try:
        obj = parse_line(line.decode("utf-8"))
    except UnicodeDecodeError:
        return Skipped(n, "not valid UTF-8")
    except _BadValue as exc:
        return Skipped(n, str(exc))
    except ValueError as exc:
        return Skipped(n, f"not valid JSON ({getattr(exc, 'msg', exc)})")
    return _row(obj, n)


def read_markdown(path: Path, default_type: str | None = None, source: str | None = None) -> list[Row]:
    """A MEMORY.md-style file: one memory per top-level list item, else one per section."""
    from gitmem.base import mdio

    data = path.read_bytes()
    try:
        text = data.decode("utf-8")
    except UnicodeDecodeError as exc:
        line = data[:exc.start].count(b"\n") + 1
        raise UsageError(f"{path}:{line}: not valid UTF-8",
                         hint="save the file as UTF-8") from None
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


_PRIORITY = {"critical": 0.9, "high": 0.8, "medium": 0.6, "low": 0.4}
_FIELD = re.compile(r"^\s*(?:[-*]\s+)?\*\*(?P<key>[^*]{1,40})\*\*\s*:\s*(?P<value>.*)$")   # **Logged**: 2025-…
_META = re.compile(r"^\s*(?P<key>[A-Za-z][A-Za-z ]{0,39}):\s*(?P<value>.*)$")                  # Tags: a, b (a list item)
_ENTRY_ID = re.compile(r"^\[(?P<id>[^\]]{1,60})\]\s*(?P<category>.*)$")                         # [LRN-20250115-001] best_practice


def read_learnings(folder: Path, outside: list[str] | None = None) -> list[Row]:
    """A .learnings/ folder: each entry of each Markdown file is ONE memory.

    An entry is a section at the file's top heading level (``## [LRN-…] category``) with
    the deeper sections under it (Summary, Details, Suggested Action); its ``**Logged**``,
    ``**Priority**`` and ``**Area**`` lines and its Metadata section become the memory's
    date, importance and tags, never memories of their own. A file whose real path lies
    outside the folder (a symbolic link pointing out) is not read: its name goes to ``outside``.
    """
    from gitmem.base.files import confined

    rows: list[Row] = []
    for path in sorted(folder.glob("*.md")):
        if not confined(path, [folder]):
            if outside is not None:
                outside.append(path.name)
            continue
        typ = _LEARNING_TYPES.get(path.stem.lower())
        rows.extend(_learning_entries(path, typ, f"import:.learnings/{name_key(path.name, 'f')}"))
    return rows


def _learning_entries(path: Path, typ: str | None, source: str) -> list[Row]:
    from gitmem.base import mdio

    try:
        text = path.read_bytes().decode("utf-8")
    except UnicodeDecodeError:
        raise UsageError(f"{path}: not valid UTF-8", hint="save the file as UTF-8") from None
    sections = [s for s in mdio.sections(text) if s.heading]
    levels = [s.level for s in sections if _ENTRY_ID.match(s.heading)]
    if not levels:
        return read_markdown(path, typ, source)   # a plain notes file: its items or sections
    top = min(levels)
    entries: list[list[mdio.Section]] = []
    inside = False   # under an entry (a heading above the entries' level, a file title, ends one)
    for s in sections:
        if s.level == top:
            entries.append([s])
            inside = True
        elif s.level < top:
            inside = False
        elif inside:
            entries[-1].append(s)
    return [row for entry in entries if (row := _learning_row(entry, typ, source)) is not None]


def _learning_row(entry: list[Any], typ: str | None, source: str) -> Row | None:
    head = entry[0]
    found = _ENTRY_ID.match(head.heading)
    rid, category = (found.group("id"), found.group("category").strip()) if found else (None, "")
    fields: dict[str, str] = {}
    parts: list[str] = []
    title = head.heading if not found else ""
    for n, section in enumerate(entry):
        name = section.heading.strip().lower() if n else ""
        kept = []
        for line in section.text.split("\n"):
            field = _FIELD.match(line) or (_META.match(line.lstrip("-* ")) if name == "metadata" else None)
            if field:
                fields[field.group("key").strip().lower()] = field.group("value").strip()
            elif name != "metadata" and line.strip() not in ("---", "***", "___"):   # the break between entries
                kept.append(line)
        body = "\n".join(kept).strip()
        if not body:
            continue
        if name in ("", "summary", "details"):
            parts.append(body)
        else:
            parts.append(f"{section.heading.strip()}: {body}")
    content = "\n\n".join(([title] if title and not parts else []) + parts).strip()
    if not content:
        return None
    tags = [t for t in (category, fields.get("area", "")) if t]
    tags += [t.strip() for t in fields.get("tags", "").split(",") if t.strip()]
    created = fields.get("logged") or None
    if created is not None:
        try:
            created = iso(parse_time(created))
        except UsageError:
            created = None
    return Row(head.line, content, rid, created, tuple(label for t in tags if (label := printable_label(_tag(t)))),
               typ, None, _PRIORITY.get(fields.get("priority", "").lower()), source)


def duplicate_ids(rows: Sequence[Row]) -> tuple[list[Row], list[Skipped]]:
    """``rows`` without a second row bearing an id an earlier row bears, and those left out, as skipped lines
    (a second row with the same id is a duplicate, never "unchanged")."""
    first: dict[str, int] = {}
    kept: list[Row] = []
    dropped: list[Skipped] = []
    for r in rows:
        if r.id is not None and is_valid_id(r.id):
            if r.id in first:
                dropped.append(Skipped(r.line, f"duplicate id {r.id}: line {first[r.id]} has it already"))
                continue
            first[r.id] = r.line
        kept.append(r)
    return kept, dropped


def detect(path: Path) -> str:
    """'jsonl', 'markdown' or 'learnings' for an import source."""
    if path.is_dir():
        return "learnings"
    if path.suffix.lower() in (".md", ".markdown"):
        return "markdown"
    return "jsonl"


def iter_rows(path: Path, max_content_bytes: int = MAX_CONTENT_BYTES) -> tuple[list[Row], list[Skipped]]:
    """Rows and skipped lines of any supported import source."""
    try:
        exists = path.exists()
    except (OSError, ValueError):   # a name too long for the system, or holding a NUL
        exists = False
    if not exists:
        raise UsageError(f"no such file or folder: {str(path)[:200]}", hint="check the path")
    kind = detect(path)
    if kind == "learnings":
        outside: list[str] = []
        rows = read_learnings(path, outside)
        if outside:
            raise SecurityError(f"{len(outside)} file(s) of {path} lead outside it through a symbolic link: "
                                + ", ".join(outside[:5]), hint="copy the files into the folder to import them")
        if not rows:
            found = "holds no Markdown (.md) files" if not any(path.glob("*.md")) else "has Markdown files without entries"
            raise UsageError(f"nothing to import in {path}: the folder {found}",
                             hint="import a .learnings/ folder, a MEMORY.md or a JSONL file")
        return duplicate_ids(rows)
    if kind == "markdown":
        return duplicate_ids(read_markdown(path))
    rows, skipped = read_jsonl(path, max_content_bytes)
    kept, dropped = duplicate_ids(rows)
    return kept, sorted([*skipped, *dropped], key=lambda s: s.line)


def to_memories(rows: Sequence[Row], source_name: str, now: datetime, cfg: Config,
                progress: Callable[[int, int], None] | None = None,
                screen: Callable[[str, str], object] | None = None) -> tuple[list[Memory], list[Skipped]]:
    """The new memories ``rows`` become, and the rows refused (content too big, not text).

    A row's recorded source defaults to ``import:<hash of source_name>#L<line>``:
    a file's name is never recorded (it may name a person).

    Each row keeps its ``created``; its last access is ``now``, so old data is
    not born faded. A row id that is a valid file id becomes the memory's id,
    any other id is kept as ``source_id``; generated ids are derived from the
    source, line and content, so a re-import plans the same memories.
    ``screen(text, where)`` sees each row's texts with ``where`` naming the
    input file and line (the caller's secret check raises there).
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
        if screen is not None:
            for value in (text, *r.tags, r.source or ""):
                screen(value, f"{source_name}:{r.line}")
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
