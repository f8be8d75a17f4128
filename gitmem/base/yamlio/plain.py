"""Front matter read as plain data: gitmem's own shape undone, else a tree built from the C parser's events.

``load_plain`` is the hot path of an index rebuild (100k documents): text in
``dump_plain``'s shape is read line by line and kept only when dumping it
again gives the text back (``read_canonical``); other text is built from the
parser's events (``load_events``); anything beyond a tree of scalars goes to
ruamel's full safe loader.
"""

from __future__ import annotations

import re
from functools import lru_cache
from typing import Any

from gitmem.base.errors import YamlProblem
from gitmem.base.yamlio.emit import KEY, dump_plain, scalar_line
from gitmem.base.yamlio.loaders import load_safe
from gitmem.base.yamlio.scalars import (MAX_DEPTH, STR_TAG, TIMESTAMP_TAG, UNREAD, c_parser, normalize, plain_scalar,
                                        raise_problem, refuse_at, too_deep)

class _Unusual(Exception):
    """The event path does not build this text; the full loader does."""


_SCALAR, _MAP, _SEQ, _END, _ALIAS, _DOC_END, _STREAM_END = range(1, 8)


@lru_cache(maxsize=1)
def _kinds() -> dict[type, int]:
    from ruamel.yaml import events as ev

    return {ev.ScalarEvent: _SCALAR, ev.MappingStartEvent: _MAP, ev.SequenceStartEvent: _SEQ,
            ev.MappingEndEvent: _END, ev.SequenceEndEvent: _END, ev.AliasEvent: _ALIAS,
            ev.DocumentEndEvent: _DOC_END, ev.StreamEndEvent: _STREAM_END}


_NO_KEY = object()


def _build(get_event: Any) -> tuple[Any, bool]:
    """(a tree of plain values, whether the stream ended) from a C parser's events.

    Reads through the end of one document, or of the stream when it holds none.
    """
    kinds = _kinds()
    plain = plain_scalar
    stack: list[Any] = []     # open collections
    keys: list[Any] = []      # the pending key saved for each open collection
    top: Any = None           # the innermost open collection
    key: Any = None           # its pending key (None in a sequence, _NO_KEY between pairs)
    root: Any = None
    while True:
        event = get_event()
        kind = kinds.get(event.__class__, 0)
        if kind == _SCALAR:
            if event.anchor or event.ctag is not None:
                _unusual_node(event)
            value = event.value if event.style else plain(event.value)[1]
            if value is UNREAD:
                raise _Unusual   # a scalar the full loader reports, with its line
        elif kind == _MAP or kind == _SEQ:
            if event.anchor or event.ctag is not None:
                _unusual_node(event)
            value = {} if kind == _MAP else []
            if len(stack) >= MAX_DEPTH:
                raise too_deep(event)
        elif kind == _END:
            stack.pop()
            keys.pop()
            top, key = (stack[-1], keys[-1]) if stack else (None, None)
            continue
        elif kind == _ALIAS:
            refuse_at(event)
        elif kind == _DOC_END or kind == _STREAM_END:
            return root, kind == _STREAM_END
        else:
            continue
        if top is None:
            root = value
        elif key is None:
            top.append(value)
        elif key is _NO_KEY:
            if value.__class__ is not str or (not event.style and value == "<<") or value in top:
                raise _Unusual   # a complex or non-string key, a merge key, a duplicate (reported there)
            key = value
        else:
            top[key] = value
            key = _NO_KEY
        if kind == _MAP or kind == _SEQ:
            if top is not None:
                keys[-1] = key
            stack.append(value)
            keys.append(_NO_KEY if kind == _MAP else None)
            top, key = value, keys[-1]


def _unusual_node(event: Any) -> None:
    if event.anchor:
        refuse_at(event)
    raise _Unusual   # an explicit tag: the full loader knows what it means


def load_plain(text: str) -> Any:
    """Parse YAML into plain values (dates as ISO strings); raises ``YamlProblem``.

    Text in ``dump_plain``'s own shape (what gitmem writes) is read back by
    undoing that shape, and kept only when dumping the result gives the text
    again: the same values as the parser's, at a third of the cost (an index
    rebuild reads 100k documents). Anything else goes to the parser.
    """
    found = read_canonical(text)
    return found if found is not None else load_events(text)


def load_plain_shaped(text: str) -> tuple[Any, bool]:
    """``load_plain`` and whether ``text`` is exactly ``dump_plain``'s output for the result.

    The second part comes free of the first: the quick reading of gitmem's own
    shape is only kept after that very check.
    """
    found = read_canonical(text)
    return (found, True) if found is not None else (load_events(text), False)


_NOT_PLAIN_START = frozenset("[]{}\"'!&*|>%@`#,?")
# A string libyaml's emitter writes plain, as it stands, wherever it reads as a string: no indicator
# anywhere (a ':' only inside, and only outside a flow), no space, nothing but ASCII letters, digits
# and ``_./+-``; ``bench/bulk.py`` and the property tests in tests/test_yamlio.py keep it honest.
_BLOCK_TOKEN = re.compile(r"[A-Za-z0-9_](?:[A-Za-z0-9_./+:-]*[A-Za-z0-9_./+-])?")
_FLOW_TOKEN = re.compile(r"[A-Za-z0-9_][A-Za-z0-9_./+-]*")
_MAX_QUICK_LINE = 4096   # far below the emitter's width: nothing is folded


def _as_written(raw: str, token: re.Pattern[str]) -> tuple[Any, bool]:
    """(the value of plain scalar ``raw``, whether ``dump_plain`` writes that value as ``raw`` itself).

    False in the second part only means the line is checked by dumping it.
    """
    if not raw or raw[0] in _NOT_PLAIN_START:
        if len(raw) >= 2 and raw[0] == raw[-1] == '"' and '"' not in raw[1:-1] and "\\" not in raw:
            return raw[1:-1], False   # quoted without an escape ("12"): kept only if dumping gives the line
        return UNREAD, False
    tag, value = plain_scalar(raw)
    if token.fullmatch(raw) is None:
        return value, False
    return value, tag == STR_TAG or (tag == TIMESTAMP_TAG and value == raw)


@lru_cache(maxsize=1024)
def _plain_key(key: str) -> bool:
    """``key`` is written plain, as it stands: an identifier the resolver reads as a string."""
    return KEY.fullmatch(key) is not None and plain_scalar(key)[0] == STR_TAG


def read_canonical(text: str) -> dict[str, Any] | None:
    """The mapping ``text`` holds when it is exactly ``dump_plain``'s output for it, else None.

    Each line is read as ``key: value``, a value being one plain scalar (read
    by ruamel's resolver) or a flow list of them. ``dump_plain`` writes each
    key on one line that depends only on that key and its value
    (``scalar_line``), so the text is its output exactly when every line is:
    a line of plain words is that by the emitter's own rules (``_as_written``),
    any other line is dumped again and compared byte for byte.
    """
    if not text.endswith("\n") or "\r" in text:
        return None
    out: dict[str, Any] = {}
    for line in text[:-1].split("\n"):
        key, sep, raw = line.partition(": ")
        if not sep or key in out or not _plain_key(key):
            return None
        quick = len(line) < _MAX_QUICK_LINE
        value: Any
        if raw[:1] == "[":
            if not raw.endswith("]"):
                return None
            inner = raw[1:-1]
            value = []
            for item in inner.split(", ") if inner else ():
                one, written = _as_written(item, _FLOW_TOKEN)
                if one is UNREAD:
                    return None
                value.append(one)
                quick = quick and written
            if not quick and _dumped_line(key, value) != line:
                return None
        else:
            value, written = _as_written(raw, _BLOCK_TOKEN)
            if value is UNREAD:
                return None
            if not (quick and written) and _dumped_line(key, value) != line:
                return None
        out[key] = value
    return out


def _dumped_line(key: str, value: Any) -> str | None:
    """The line ``dump_plain`` writes for ``key: value`` (without its newline)."""
    try:
        return (scalar_line(key, value) if not isinstance(value, list) else dump_plain({key: value}))[:-1]
    except (ValueError, TypeError):
        return None


def load_events(text: str) -> Any:
    """``load_plain`` by the C parser's events (the full loader for what they do not cover)."""
    parser = c_parser(text)
    try:
        root, ended = _build(parser.get_event)
        if not ended and not _build(parser.get_event)[1]:
            raise _Unusual   # a second document: the full loader refuses it
        return root
    except _Unusual:
        data = load_safe(text)
        try:
            return normalize(data)
        except (OverflowError, ValueError) as exc:   # a time whose offset leaves datetime's range
            raise YamlProblem(f"a value out of range ({exc})", None) from None
    except YamlProblem:
        raise
    except Exception as exc:
        raise_problem(exc)
    finally:
        parser.dispose()
