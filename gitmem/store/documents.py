"""Documents: Markdown with YAML front matter <-> values (memories, patterns).

A document opens with a ``---`` line, its front matter, and a closing ``---``
(or ``...``) line; the body follows. Splitting at the fences is plain text
work; every reading and writing of the YAML between them goes through
``gitmem.base.yamlio`` (ruamel.yaml). Front matter gitmem wrote itself is
rewritten in its canonical shape; front matter a person shaped (comments, key
order, quoting) is rewritten by ruamel's round-trip, so their work survives.

Problems are ``DocumentError`` naming the file and the line; a listing
collects them instead of stopping at the first bad file. A memory file is bad
when it is larger than ``MAX_FILE_BYTES`` (the highest content cap plus a
bounded front matter, so nothing gitmem writes is ever refused here), when its
YAML nests too deep, holds a number that is not finite or too large for the
index, a time outside 1970-9000, or an id that cannot be a file name. Episode documents
are written by the harvest engine with ``render_document``.
"""

from __future__ import annotations

import math
import re
from dataclasses import dataclass
from typing import Any, Mapping

from gitmem.base import yamlio
from gitmem.base.clock import stored_time_problem
from gitmem.base.errors import DocumentError, YamlProblem
from gitmem.base.model import KEY_ORDER, MAX_CONTENT_BYTES, Memory, is_valid_id, memory_from

FENCE = "---"
PATTERN_DIR = "patterns"
INITIAL_WEIGHT = 0.3
_CLOSERS = (FENCE, "...")
FRONT_MATTER_MAX_BYTES = 65_536   # a memory's keys, tags and links; generous for hundreds of links
MAX_FILE_BYTES = MAX_CONTENT_BYTES + FRONT_MATTER_MAX_BYTES
_INT_LIMIT = 1 << 63              # SQLite's integers, and so the recall index's
_TIME_KEYS = ("created", "last_accessed")


def decode(path: str, data: bytes) -> str:
    """UTF-8 text of a document, or a DocumentError naming the line of the bad byte."""
    try:
        return data.decode("utf-8")
    except UnicodeDecodeError as exc:
        line = data[: exc.start].count(b"\n") + 1
        raise DocumentError(path, line, "not valid UTF-8", hint="save the file as UTF-8") from None


def split_front_matter(text: str, path: str = "<text>") -> tuple[str | None, str, int]:
    """(front matter text or None, body, number of lines before the body).

    A text that does not open with a ``---`` line has no front matter; one
    that opens the fence and never closes it is a DocumentError.
    """
    first_nl = text.find("\n")
    if not text.startswith(FENCE) or first_nl == -1 or text[:first_nl].rstrip() != FENCE:
        return None, text, 0
    pos = first_nl + 1
    while True:
        nl = text.find("\n", pos)
        line = text[pos:] if nl == -1 else text[pos:nl]
        if line.rstrip() in _CLOSERS:
            fm = text[first_nl + 1:pos]
            return fm, ("" if nl == -1 else text[nl + 1:]), fm.count("\n") + 2
        if nl == -1:
            raise DocumentError(path, 1, "front matter is not closed by a '---' line",
                                hint="close the front matter with a '---' line")
        pos = nl + 1


def parse_front_matter(fm: str, path: str = "<text>") -> dict[str, Any]:
    """Front matter text as plain values (times as ISO strings); problems name file and line."""
    try:
        data = yamlio.load_plain(fm)
    except YamlProblem as exc:
        # the opening fence is line 1 of the file
        raise DocumentError(path, (exc.line or 0) + 1, f"bad front matter: {exc.problem}",
                            hint="fix the YAML between the '---' lines") from None
    if data is None:
        return {}
    if not isinstance(data, dict):
        raise DocumentError(path, 2, "front matter is not a mapping of keys to values")
    return data


def emit_front_matter(data: Mapping[str, Any]) -> str:
    """Canonical front matter text for ``data`` (no fences), one key a line."""
    return yamlio.dump_plain(data)


def update_front_matter(fm: str, changes: Mapping[str, Any], path: str = "<text>") -> str:
    """Front matter text with ``changes`` applied (a value of ``...`` removes the key).

    Text in gitmem's canonical shape is emitted canonically again; anything a
    person shaped goes through ruamel's round-trip, keeping comments and order.
    """
    data = parse_front_matter(fm, path)
    if yamlio.is_canonical(fm, data):
        for key, value in changes.items():
            if value is ...:
                data.pop(key, None)
            else:
                data[key] = value
        return yamlio.dump_plain(data)
    try:
        doc = yamlio.load_rt(fm)
    except YamlProblem as exc:  # pragma: no cover - parse_front_matter above read it already
        raise DocumentError(path, (exc.line or 0) + 1, f"bad front matter: {exc.problem}") from None
    if doc is None:
        doc = {}
    for key, value in changes.items():
        if value is ...:
            if key in doc:
                del doc[key]
        else:
            doc[key] = list(value) if isinstance(value, tuple) else value
    return yamlio.dump_rt(doc)


def render_document(front: Mapping[str, Any] | str, body: str) -> str:
    """A whole document: fences, front matter (a mapping or ready text), body."""
    fm = front if isinstance(front, str) else emit_front_matter(front)
    if not fm.endswith("\n"):
        fm += "\n"
    return f"{FENCE}\n{fm}{FENCE}\n{body}"


def split(path: str, text: str) -> tuple[dict[str, Any], str]:
    """(front matter mapping, body) of a document's text."""
    fm, body, _ = split_front_matter(text, path)
    return ({} if fm is None else parse_front_matter(fm, path)), body


def read_front_matter(path: str, data: bytes) -> dict[str, Any]:
    """The front matter mapping of a document's bytes (empty when it has none)."""
    return split(path, decode(path, data))[0]


# -- memories ---------------------------------------------------------------

def read_memory(path: str, data: bytes) -> Memory:
    """Parse a memory file; DocumentError (file, line, what is wrong) when it cannot be used.

    Every reader (list, recall, decay, reflect, the index, the hooks) comes
    through here, so a bad file is one reported problem, never a crash.
    """
    return _read_memory(path, data, False)[0]


def read_memory_shaped(path: str, data: bytes) -> tuple[Memory, bool]:
    """:func:`read_memory`, and whether the file is exactly ``render_memory`` of the result.

    That second part is what lets :func:`rewrite_memory` change a few lines
    instead of rendering the whole file; it costs a comparison beyond the
    reading. False is only ever a missed chance (front matter the quick
    reading of ``yamlio.load_plain_shaped`` does not cover, such as links).
    """
    return _read_memory(path, data, True)


def _read_memory(path: str, data: bytes, want_shape: bool) -> tuple[Memory, bool]:
    if len(data) > MAX_FILE_BYTES:
        raise DocumentError(path, None, f"{len(data)} bytes is over the limit of {MAX_FILE_BYTES} bytes for a memory file",
                            hint="split the memory into smaller ones")
    text = decode(path, data)
    fm, body, _ = split_front_matter(text, path)
    if not want_shape:
        meta, shaped = ({} if fm is None else parse_front_matter(fm, path)), False
    else:
        meta, shaped = ({}, False) if fm is None else _parse_shaped(fm, path)
    problem = _value_problem(meta)
    if problem is not None:
        key, what = problem
        raise DocumentError(path, _key_line(fm or "", key), what, hint="correct the value, or remove the key")
    try:
        memory = memory_from(meta, body, path)
    except (ValueError, TypeError, OverflowError, RecursionError) as exc:  # pragma: no cover - checked above
        raise DocumentError(path, None, f"unusable front matter: {exc}") from None
    if shaped:   # the front matter is dump_plain(meta): the file is render_memory's when the rest agrees
        shaped = (fm is not None and text.startswith(f"{FENCE}\n{fm}{FENCE}\n") and body == memory.content.strip("\n") + "\n"
                  and _same_plain(meta, memory.front_matter()))
    return memory, shaped


def _parse_shaped(fm: str, path: str) -> tuple[dict[str, Any], bool]:
    try:
        data, shaped = yamlio.load_plain_shaped(fm)
    except YamlProblem:
        return parse_front_matter(fm, path), False   # reports the problem with its line
    if not isinstance(data, dict):
        return parse_front_matter(fm, path), False
    return data, shaped


def _same_plain(a: Any, b: Any) -> bool:
    """Equal plain values of equal types (1, 1.0 and True differ; so do 0.0 and -0.0), keys in the same order.

    The repr of plain values (str, int, float, bool, None, lists, dicts) says exactly that: floats'
    repr round-trips, each type writes itself differently, dicts list their keys in order.
    """
    return a.__class__ is b.__class__ and repr(a) == repr(b)


def _value_problem(meta: Mapping[str, Any]) -> tuple[str, str] | None:
    """(key, what is wrong) for the first value no reader can use, or None."""
    mid = meta.get("id")
    if mid is not None and not (isinstance(mid, str) and is_valid_id(mid)):
        return "id", f"id {str(mid)[:80]!r} is not a valid memory id (a-z, 0-9 and '-', at most 128)"
    for key in _TIME_KEYS:
        value = meta.get(key)
        if isinstance(value, str) and (why := stored_time_problem(value)):
            return key, f"{key}: {why}"
    for key, value in meta.items():
        why = _number_problem(value)
        if why:
            return str(key), f"{key}: {why}"
    return None


def _number_problem(value: Any) -> str | None:
    stack = [value]
    while stack:
        item = stack.pop()
        if isinstance(item, bool):
            continue
        if isinstance(item, float) and not math.isfinite(item):
            return f"{item} is not a finite number"
        if isinstance(item, int) and not -_INT_LIMIT <= item < _INT_LIMIT:
            return "a number too large to store (more than 64 bits)"
        if isinstance(item, dict):
            stack.extend(item.values())
        elif isinstance(item, list):
            stack.extend(item)
    return None


def _key_line(fm: str, key: str) -> int:
    """File line of top-level ``key`` in front matter text (the opening fence is line 1)."""
    found = re.search(rf"^['\"]?{re.escape(key)}['\"]?[ \t]*:", fm, re.MULTILINE)
    return fm.count("\n", 0, found.start()) + 2 if found else 2


def render_memory(memory: Memory) -> str:
    """The full text of a memory file."""
    body = memory.content.strip("\n")
    return render_document(memory.front_matter(), body + "\n")


def update_text(path: str, text: str, changes: Mapping[str, Any], body: str | None = None) -> str:
    """Apply front matter ``changes`` (and optionally a new body) to a document's text.

    Comments and key order a person wrote survive; unchanged keys are untouched.
    """
    fm, old_body, _ = split_front_matter(text, path)
    new_fm = update_front_matter(fm or "", changes, path)
    return render_document(new_fm, old_body if body is None else body)


def rewrite_memory(path: str, text: str, old: Memory, new: Memory, shaped: bool = False) -> str:
    """The text of ``old``'s file (``text``) rewritten to hold ``new``.

    A file exactly as gitmem wrote it is rendered anew; a file a person
    shaped keeps their comments, key order and quoting. ``shaped`` says the
    caller knows ``text == render_memory(old)`` (:func:`read_memory_shaped`):
    then a change of a few scalars replaces just their lines.
    """
    if shaped:
        quick = _relined(text, old, new)
        if quick is not None:
            return quick
    try:
        canonical = shaped or text == render_memory(old)
    except ValueError:   # a key a person wrote that gitmem's canonical form cannot hold ("my key")
        canonical = False
    if canonical:
        return render_memory(new)
    body = None if new.content == old.content else new.content.strip("\n") + "\n"
    return update_text(path, text, memory_changes(old, new), body)


_SCALARS = (str, int, float, bool, type(None))


def _relined(text: str, old: Memory, new: Memory) -> str | None:
    """``render_memory(new)`` made from ``text == render_memory(old)`` by replacing the lines of the
    changed scalar keys, or None when the change is more than that (keys added, removed or
    reordered, a list or the body changed). Each canonical key is one line that depends only on
    its key and value, so the result is the full rendering's, byte for byte."""
    if new.content != old.content:
        return None
    before, after = old.front_matter(), new.front_matter()
    if list(before) != list(after):
        return None
    end = text.find(f"\n{FENCE}\n") + 1   # the closing fence: no canonical line is '---'
    if end <= 0:
        return None
    out = text
    for key, value in after.items():
        was = before[key]
        if _same_plain(was, value):
            continue
        if not isinstance(value, _SCALARS) or not isinstance(was, _SCALARS):
            return None
        old_line, new_line = yamlio.scalar_line(key, was), yamlio.scalar_line(key, value)
        at = out.find("\n" + old_line, 0, end)
        if at < 0 or new_line.count("\n") != 1:
            return None
        out = out[:at + 1] + new_line + out[at + 1 + len(old_line):]
        end += len(new_line) - len(old_line)
    return out


def memory_changes(old: Memory, new: Memory) -> dict[str, Any]:
    """Front matter keys whose values differ between two versions of a memory."""
    before, after = old.front_matter(), new.front_matter()
    changes: dict[str, Any] = {k: v for k, v in after.items() if before.get(k) != v}
    for key in KEY_ORDER:
        if key in before and key not in after:
            changes[key] = ...
    return changes


# -- patterns (patterns/<slug>.md, DNA pattern format) -----------------------

@dataclass(frozen=True)
class Pattern:
    """A consolidated pattern: trigger, lessons, the memories it was built from."""

    slug: str
    title: str
    weight: float
    stage: str
    triggers: tuple[str, ...]
    lessons: tuple[str, ...]
    sources: tuple[str, ...]
    verified: int
    last_verified: str
    created: str
    path: str
    meta: tuple[tuple[str, Any], ...] = ()


_PATTERN_KEYS = ("slug", "title", "weight", "stage", "triggers", "sources", "verified", "last_verified", "created")


def _lessons(body: str) -> tuple[str, ...]:
    from gitmem.base import mdio

    if (fast := _rendered_lessons(body)) is not None:
        return fast
    items = mdio.section_items(body, "lessons")
    return () if items is None else tuple(mdio.unescape_item(text) for text, _ in items)


def _rendered_lessons(body: str) -> tuple[str, ...] | None:
    """The lessons of a body exactly as ``render_pattern`` writes it, read without markdown-it; None for
    any other body. Every line is a heading, a blank or ``- `` and an item that ``escape_item`` gives
    back unchanged, which opens no block (tests/test_mdio.py), so markdown-it reads these same items."""
    from gitmem.base import mdio

    lines = body.split("\n")
    if lines[-1] != "" or not lines[0].startswith("# ") or lines[1:4] != ["", "## Trigger", ""]:
        return None
    heads = [i for i, line in enumerate(lines) if line in ("## Lessons", "## Sources")]
    if len(heads) != 2 or lines[heads[0]] != "## Lessons" or lines[heads[0] - 1] != "" \
            or lines[heads[1] - 1] != "" or lines[heads[0] + 1] != "" or lines[heads[1] + 1] != "":
        return None
    items = [lines[4:heads[0] - 1], lines[heads[0] + 2:heads[1] - 1], lines[heads[1] + 2:-1]]
    title = lines[0][2:]
    if title != mdio.escape_item(mdio.unescape_item(title)):
        return None
    for line in (line for part in items for line in part):
        if not line.startswith("- ") or not line[2:] or line[2:] != mdio.escape_item(mdio.unescape_item(line[2:])):
            return None
    return tuple(mdio.unescape_item(line[2:]) for line in items[1])


def _number(meta: Mapping[str, Any], key: str, default: float) -> float:
    try:
        return float(meta.get(key, default))
    except (TypeError, ValueError):
        return default


def _strings(value: Any) -> tuple[str, ...]:
    if isinstance(value, (list, tuple)):
        return tuple(str(v) for v in value)
    return () if not value else (str(value),)


def read_pattern(path: str, data: bytes) -> Pattern:
    """A pattern document as a Pattern; DocumentError when it cannot be read."""
    if len(data) > MAX_FILE_BYTES:
        raise DocumentError(path, None, f"{len(data)} bytes is over the limit of {MAX_FILE_BYTES} bytes")
    text = decode(path, data)
    fm, body, _ = split_front_matter(text, path)
    meta = {} if fm is None else parse_front_matter(fm, path)
    for key, value in meta.items():
        if why := _number_problem(value):
            raise DocumentError(path, _key_line(fm or "", str(key)), f"{key}: {why}")
    slug = path.rsplit("/", 1)[-1].removesuffix(".md")
    return Pattern(slug, str(meta.get("title") or slug), _number(meta, "weight", INITIAL_WEIGHT),
                   str(meta.get("stage") or "episodic"), _strings(meta.get("triggers")), _lessons(body),
                   _strings(meta.get("sources")), int(_number(meta, "verified", 0)),
                   str(meta.get("last_verified") or ""), str(meta.get("created") or ""), path,
                   tuple((k, v) for k, v in meta.items() if k not in _PATTERN_KEYS))


def render_pattern(p: Pattern) -> bytes:
    """The bytes of a pattern document."""
    meta: dict[str, Any] = {"slug": p.slug, "title": p.title, "weight": round(p.weight, 6), "stage": p.stage,
                            "triggers": list(p.triggers), "sources": list(p.sources), "verified": p.verified,
                            "last_verified": p.last_verified, "created": p.created}
    meta.update(dict(p.meta))
    from gitmem.base import mdio  # escape everything: a lesson's `# x` must not become a section

    body = [f"# {mdio.escape_item(p.title)}", "", "## Trigger", "", *(f"- {mdio.escape_item(t)}" for t in p.triggers),
            "", "## Lessons", "", *(f"- {mdio.escape_item(line)}" for line in p.lessons), "", "## Sources", "",
            *(f"- {mdio.escape_item(s)}" for s in p.sources)]
    return render_document(meta, "\n".join(body) + "\n").encode("utf-8")
