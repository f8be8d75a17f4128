"""Memory documents: bytes in a tree <-> Memory values.

A document is Markdown with YAML front matter. Problems name the file and the
line; a listing collects them instead of stopping at the first bad file.
"""

from __future__ import annotations

from typing import Any, Mapping

from gitmem.store import frontmatter
from gitmem.base.errors import DocumentError
from gitmem.base.model import KEY_ORDER, Memory, memory_from


def decode(path: str, data: bytes) -> str:
    """UTF-8 text of a document, or a DocumentError naming the line of the bad byte."""
    try:
        return data.decode("utf-8")
    except UnicodeDecodeError as exc:
        line = data[: exc.start].count(b"\n") + 1
        raise DocumentError(path, line, "not valid UTF-8", hint="save the file as UTF-8") from None


def split(path: str, text: str) -> tuple[dict[str, Any], str]:
    """(front matter mapping, body) of a document's text."""
    try:
        fm, body, _ = frontmatter.split(text)
    except ValueError as exc:
        raise DocumentError(path, 1, str(exc), hint="close the front matter with a '---' line") from None
    return ({} if fm is None else frontmatter.parse(fm, path)), body


def read_memory(path: str, data: bytes) -> Memory:
    """Parse a memory file; DocumentError when it cannot be read."""
    meta, body = split(path, decode(path, data))
    return memory_from(meta, body, path)


def render_memory(memory: Memory) -> str:
    """The full text of a memory file."""
    body = memory.content.strip("\n")
    return frontmatter.render(memory.front_matter(), body + "\n")


def update_text(path: str, text: str, changes: Mapping[str, Any], body: str | None = None) -> str:
    """Apply front matter ``changes`` (and optionally a new body) to a document's text.

    Comments and key order a person wrote survive; unchanged keys are untouched.
    """
    try:
        fm, old_body, _ = frontmatter.split(text)
    except ValueError as exc:
        raise DocumentError(path, 1, str(exc)) from None
    new_fm = frontmatter.update(fm or "", changes, path)
    return frontmatter.render(new_fm, old_body if body is None else body)


def memory_changes(old: Memory, new: Memory) -> dict[str, Any]:
    """Front matter keys whose values differ between two versions of a memory."""
    before, after = old.front_matter(), new.front_matter()
    changes: dict[str, Any] = {k: v for k, v in after.items() if before.get(k) != v}
    for key in KEY_ORDER:
        if key in before and key not in after:
            changes[key] = ...
    return changes
