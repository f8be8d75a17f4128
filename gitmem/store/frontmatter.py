"""Front matter: split a document, parse its YAML, emit it back.

Reading 100k memories must not cost 100k YAML loads (340 µs each with the C
loader), so ``parse`` has a fast path for the flat ``key: scalar`` shape that
gitmem itself writes, and hands anything else (nesting, comments, anchors,
odd scalars) to ruamel.yaml. The fast path only accepts text whose meaning it
knows exactly; a property test checks it against ruamel.yaml.

``emit`` writes new front matter in that same flat, canonical shape;
``update`` rewrites existing front matter and uses ruamel.yaml round-trip
whenever the text holds comments or shapes the fast path does not own, so a
person's comments and key order survive.
"""

from __future__ import annotations

import json
import re
from datetime import date, datetime, timezone
from functools import lru_cache
from typing import Any, Mapping

from gitmem.base.errors import DocumentError

FENCE = "---"

_INT = re.compile(r"[-+]?(?:0|[1-9][0-9]*)$")
_FLOAT = re.compile(r"[-+]?(?:0|[1-9][0-9]*)?\.[0-9]+(?:[eE][-+]?[0-9]+)?$|[-+]?(?:0|[1-9][0-9]*)[eE][-+]?[0-9]+$")
_TIMESTAMP = re.compile(r"\d{4}-\d{2}-\d{2}(?:[Tt ]\d{1,2}:\d{2}:\d{2}(?:\.\d+)?(?:[ ]?(?:Z|[-+]\d{1,2}(?::?\d{2})?))?)?$")
_CANON_TS = re.compile(r"(\d{4})-(\d{2})-(\d{2})T(\d{2}):(\d{2}):(\d{2})Z$")
_SEQ_ITEM = re.compile(r"[A-Za-z0-9_][A-Za-z0-9_.\-/+]*$")
_PLAIN_BAD_START = set("-?:,[]{}#&*!|>'\"%@`")
_SPECIAL_WORDS = {"null", "Null", "NULL", "~", "true", "True", "TRUE", "false", "False", "FALSE",
                  "yes", "Yes", "YES", "no", "No", "NO", "on", "On", "ON", "off", "Off", "OFF", "y", "Y", "n", "N",
                  "=", "<<"}


# Characters YAML takes as-is inside a line (no control characters, no NEL or
# Unicode line separators, which YAML reads as line breaks).
_UNSAFE = re.compile("[^\x09\x20-\x7e\xa0-\u2027\u202a-\ud7ff\ue000-\ufffd\U00010000-\U0010ffff]")


class _Bail(Exception):
    """The fast path does not own this text."""


def split(text: str) -> tuple[str | None, str, int]:
    """(front matter text or None, body, number of lines before the body)."""
    if not text.startswith(FENCE):
        return None, text, 0
    first_nl = text.find("\n")
    if first_nl == -1 or text[:first_nl].rstrip() != FENCE:
        return None, text, 0
    pos = first_nl + 1
    while True:
        nl = text.find("\n", pos)
        line = text[pos:] if nl == -1 else text[pos:nl]
        if line.rstrip() == FENCE or line.rstrip() == "...":
            fm = text[first_nl + 1:pos]
            body = "" if nl == -1 else text[nl + 1:]
            return fm, body, fm.count("\n") + 2
        if nl == -1:
            raise ValueError("front matter is not closed by a '---' line")
        pos = nl + 1


def _plain(value: str) -> Any:
    if not value or value in _SPECIAL_WORDS:
        if value in ("null", "Null", "NULL", "~"):
            return None
        if value in ("true", "True", "TRUE"):
            return True
        if value in ("false", "False", "FALSE"):
            return False
        raise _Bail
    first = value[0]
    if first in _PLAIN_BAD_START or " #" in value or ": " in value or value[-1] == ":" or "\t" in value \
            or value != value.strip():
        raise _Bail
    if first in "+-.0123456789":
        if _INT.match(value):
            return int(value)
        if _FLOAT.match(value):
            return float(value)
        if _TIMESTAMP.match(value):
            if not _canonical_time(value):
                raise _Bail  # YAML turns it into a datetime; only the canonical form reads back the same
            return value
        raise _Bail  # hex, octal, 1_000, .inf and friends: let YAML decide
    return value


@lru_cache(maxsize=4096)
def _canonical_time(value: str) -> bool:
    m = _CANON_TS.match(value)
    if not m:
        return False
    try:
        datetime(*(int(g) for g in m.groups()))
    except ValueError:
        return False
    return True


def _scalar(value: str) -> Any:
    if value.startswith('"'):
        if not value.endswith('"') or len(value) < 2 or "\\x" in value or "\\U" in value:
            raise _Bail
        try:
            out = json.loads(value)
        except ValueError:
            raise _Bail from None
        if not isinstance(out, str):
            raise _Bail
        return out
    if value.startswith("'"):
        inner = value[1:-1]
        if len(value) < 2 or not value.endswith("'") or "'" in inner.replace("''", ""):
            raise _Bail
        return inner.replace("''", "'")
    return _plain(value)


_SEQ_TOKEN = re.compile(r'\s*(?:("(?:[^"\\\x00-\x1f]|\\["\\/bfnrtu])*")|([A-Za-z0-9_][A-Za-z0-9_.\-/+]*))\s*(,|$)')


def _flow_seq(value: str) -> list[Any]:
    inner = value[1:-1].strip()
    if not inner:
        return []
    items: list[Any] = []
    pos = 0
    while pos < len(inner):
        m = _SEQ_TOKEN.match(inner, pos)
        if m is None or m.end() == pos:
            raise _Bail
        items.append(_scalar(m.group(1)) if m.group(1) else _plain(m.group(2)))
        pos = m.end()
        if m.group(3) == "," and pos >= len(inner):
            raise _Bail  # a trailing comma
    return items


def parse_fast(fm: str) -> dict[str, Any]:
    """Parse gitmem's flat front matter shape; raises _Bail on anything else."""
    out: dict[str, Any] = {}
    if _UNSAFE.search(fm.replace("\n", "")):
        raise _Bail
    for line in fm.split("\n"):
        if not line:
            continue
        key, sep, value = line.partition(":")
        if not sep or not key.isidentifier() or not key.isascii() or key in out:
            raise _Bail
        if value[:1] != " ":
            raise _Bail      # "key:value" or a bare "key:" (a nested block follows)
        value = value.strip()
        if not value:
            raise _Bail
        if value[0] == "[":
            if value[-1] != "]":
                raise _Bail
            out[key] = _flow_seq(value)
        else:
            out[key] = _scalar(value)
    return out


def normalize(value: Any) -> Any:
    """Dates and datetimes from the YAML loader as ISO strings, recursively."""
    if isinstance(value, datetime):
        if value.tzinfo is None:
            value = value.replace(tzinfo=timezone.utc)
        return value.astimezone(timezone.utc).isoformat().replace("+00:00", "Z")
    if isinstance(value, date):
        return value.isoformat()
    if isinstance(value, dict):
        return {str(k): normalize(v) for k, v in value.items()}
    if isinstance(value, list):
        return [normalize(v) for v in value]
    return value


def _load_yaml(fm: str, path: str, round_trip: bool) -> Any:
    """ruamel.yaml's reading of front matter; problems name the file and line (the fence is line 1)."""
    from gitmem.base import yamlio

    try:
        return yamlio.load_rt(fm) if round_trip else yamlio.load_safe(fm)
    except yamlio.YamlProblem as exc:
        raise DocumentError(path, (exc.line or 0) + 1, f"bad front matter: {exc.problem}",
                            hint="fix the YAML between the '---' lines") from None


def parse(fm: str, path: str = "<text>") -> dict[str, Any]:
    """Front matter text as a plain dict; a problem is a DocumentError with file and line."""
    try:
        return parse_fast(fm)
    except _Bail:
        pass
    data = _load_yaml(fm, path, round_trip=False)
    if data is None:
        return {}
    if not isinstance(data, dict):
        raise DocumentError(path, 2, "front matter is not a mapping of keys to values")
    return normalize(data)


def _double_quoted(text: str) -> str:
    return _UNSAFE.sub(lambda m: f"\\u{ord(m.group()):04x}", json.dumps(text, ensure_ascii=False)[1:-1]).join('""')


def _emit_scalar(value: Any) -> str:
    if value is None:
        return "null"
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, int):
        return str(value)
    if isinstance(value, float):
        text = repr(value)
        return text if ("." in text or "e" in text) and "inf" not in text and "nan" not in text else json.dumps(str(value))
    text = str(value)
    try:
        if _plain(text) == text and not _UNSAFE.search(text):
            return text
    except _Bail:
        pass
    return _double_quoted(text)


def _emit_value(value: Any) -> str:
    if isinstance(value, (list, tuple)):
        if all(not isinstance(v, (dict, list, tuple)) for v in value):
            if all(isinstance(v, str) for v in value):
                return "[" + ", ".join(v if _emit_scalar(v) == v and _SEQ_ITEM.match(v) else _double_quoted(v)
                                       for v in value) + "]"
        return _flow(list(value))
    if isinstance(value, dict):
        return _flow(value)
    return _emit_scalar(value)


def _flow(value: Any) -> str:
    """A list or mapping as a JSON flow collection, which is valid YAML."""
    if isinstance(value, dict):
        return "{" + ", ".join(f"{_double_quoted(str(k))}: {_flow(v)}" for k, v in value.items()) + "}"
    if isinstance(value, (list, tuple)):
        return "[" + ", ".join(_flow(v) for v in value) + "]"
    if isinstance(value, str):
        return _double_quoted(value)
    return _emit_scalar(value)


def emit(data: Mapping[str, Any]) -> str:
    """Canonical front matter text for ``data`` (no fences), one key a line."""
    lines = []
    for key, value in data.items():
        if not re.fullmatch(r"[A-Za-z_][A-Za-z0-9_]*", key):
            raise ValueError(f"bad front matter key: {key!r}")
        lines.append(f"{key}: {_emit_value(value)}")
    return "\n".join(lines) + "\n"


def update(fm: str, changes: Mapping[str, Any], path: str = "<text>") -> str:
    """Front matter text with ``changes`` applied (a value of ``...`` removes the key).

    Text gitmem wrote itself (flat, no comments) is re-emitted canonically;
    anything a person shaped goes through ruamel.yaml round-trip.
    """
    try:
        if "#" in fm:
            raise _Bail
        data = parse_fast(fm)
        for key, value in changes.items():
            if value is ...:
                data.pop(key, None)
            else:
                data[key] = value
        return emit(data)
    except _Bail:
        pass
    from gitmem.base import yamlio

    doc = _load_yaml(fm, path, round_trip=True)
    if doc is None:
        doc = {}
    for key, value in changes.items():
        if value is ...:
            if key in doc:
                del doc[key]
        else:
            doc[key] = list(value) if isinstance(value, tuple) else value
    return yamlio.dump_rt(doc)


def render(data: Mapping[str, Any] | str, body: str) -> str:
    """A whole document: fences, front matter (a mapping or ready text), body."""
    fm = data if isinstance(data, str) else emit(data)
    if not fm.endswith("\n"):
        fm += "\n"
    return f"{FENCE}\n{fm}{FENCE}\n{body}"
