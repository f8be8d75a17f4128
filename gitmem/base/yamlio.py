"""The only module that imports ruamel.yaml.

Ways in:

- ``load_plain``/``dump_plain``: front matter as plain data (str, int, float,
  bool, None, lists, mappings; dates as ISO strings) and its canonical text,
  one key a line with flow collections. Reading 100k documents is the hot path
  of an index rebuild, so ``load_plain`` drives ruamel's C parser (libyaml)
  event by event and lets ruamel's resolver and constructor give each plain
  scalar its meaning (cached: most values repeat); anything beyond a tree of
  scalars (explicit tags, merge keys, complex or duplicate keys, several
  documents) goes to ruamel's full safe loader. ``dump_plain`` feeds events to
  ruamel's C emitter. The two readings beside ruamel's own loader (gitmem's
  shape undone and verified by dumping it again; the tree built from the
  parser's events) stay because ``bench/shortcuts.py`` measures them ~11x and
  ~8x faster than the safe loader on memory front matter, and property tests
  in ``tests/test_yamlio.py`` check them against it.
- ``load_safe``: ruamel's C safe loader, unchanged values (config).
- ``load_rt``/``dump_rt``: round-trip, for rewriting text a person may have
  commented: comments, key order and quoting survive.

Anchors and aliases are refused everywhere: front matter never needs them and
they are how a YAML bomb expands. So is nesting deeper than ``MAX_DEPTH``:
every reader and writer of a tree recurses, and a hand-edited file must not
reach Python's recursion limit. Problems are ``YamlProblem`` with a line.
"""

from __future__ import annotations

import io
import re
from datetime import date, datetime, timezone
from functools import lru_cache
from typing import TYPE_CHECKING, Any, Mapping

from gitmem.base.errors import YamlProblem

if TYPE_CHECKING:  # pragma: no cover
    from ruamel.yaml import YAML

__all__ = ["YamlProblem", "load_plain", "load_plain_shaped", "dump_plain", "scalar_line", "load_safe", "load_rt", "dump_rt", "normalize", "is_canonical"]

MAX_DEPTH = 64   # collections inside collections; front matter needs three
_KEY = re.compile(r"[A-Za-z_][A-Za-z0-9_]*")
_STR_TAG = "tag:yaml.org,2002:str"
_TIMESTAMP_TAG = "tag:yaml.org,2002:timestamp"


class _Unusual(Exception):
    """The event path does not build this text; the full loader does."""


@lru_cache(maxsize=None)
def _yaml(typ: str) -> "YAML":
    from ruamel.yaml import YAML

    if typ == "rt":
        y = YAML()
        y.preserve_quotes = True
        y.width = 4096
        y.indent(mapping=2, sequence=4, offset=2)
        return y
    return YAML(typ="safe", pure=False)


@lru_cache(maxsize=1)
def _loader() -> Any:
    """A C safe loader used only for its resolver and scalar constructors."""
    from ruamel.yaml.cyaml import CSafeLoader

    return CSafeLoader("")


def normalize(value: Any) -> Any:
    """Dates and datetimes as ISO strings (UTC, 'Z'), recursively; mapping keys as strings."""
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


@lru_cache(maxsize=1 << 16)
def _plain_scalar(value: str) -> tuple[str, Any]:
    """(tag, value) of a plain scalar as ruamel's safe loader reads it, dates normalized."""
    from ruamel.yaml.nodes import ScalarNode

    loader = _loader()
    tag = str(loader.resolve(ScalarNode, value, (True, False)))
    if tag == _STR_TAG:
        return tag, value
    try:
        return tag, normalize(loader.construct_object(ScalarNode(tag, value), deep=True))
    except Exception:   # no constructor for the tag, a value ruamel only warns about in context,
        return tag, _UNREAD   # or a time whose offset leaves datetime's range (0001-01-01T00:00+01:00)
    finally:
        loader.constructed_objects.clear()


_UNREAD = object()


def _raise_problem(exc: Exception) -> None:
    # the context mark ("while parsing a flow sequence started here") points at the
    # construct that is broken; the problem mark is where the parser gave up
    mark = getattr(exc, "context_mark", None) or getattr(exc, "problem_mark", None)
    problem = getattr(exc, "problem", None) or str(exc).splitlines()[0]
    raise YamlProblem(str(problem), mark.line + 1 if mark is not None else None) from None


def _refuse_anchor(event: Any) -> None:
    from ruamel.yaml.events import AliasEvent

    if isinstance(event, AliasEvent) or getattr(event, "anchor", None):
        _refuse_at(event)


def _too_deep(event: Any) -> YamlProblem:
    mark = getattr(event, "start_mark", None)
    return YamlProblem(f"nesting deeper than {MAX_DEPTH} levels", mark.line + 1 if mark else None,
                       hint=f"flatten the value: at most {MAX_DEPTH} nested lists or mappings")


def _refuse_at(event: Any) -> None:
    mark = getattr(event, "start_mark", None)
    raise YamlProblem("YAML anchors and aliases are not allowed", mark.line + 1 if mark else None)


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
    plain = _plain_scalar
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
            if value is _UNREAD:
                raise _Unusual   # a scalar the full loader reports, with its line
        elif kind == _MAP or kind == _SEQ:
            if event.anchor or event.ctag is not None:
                _unusual_node(event)
            value = {} if kind == _MAP else []
            if len(stack) >= MAX_DEPTH:
                raise _too_deep(event)
        elif kind == _END:
            stack.pop()
            keys.pop()
            top, key = (stack[-1], keys[-1]) if stack else (None, None)
            continue
        elif kind == _ALIAS:
            _refuse_at(event)
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
        _refuse_at(event)
    raise _Unusual   # an explicit tag: the full loader knows what it means


def _parser(text: str) -> Any:
    # ruamel re-exports its C classes from _ruamel_yaml without listing them
    from ruamel.yaml.cyaml import CParser  # type: ignore[attr-defined]  # not in cyaml's __all__

    return CParser(text)


def load_plain(text: str) -> Any:
    """Parse YAML into plain values (dates as ISO strings); raises ``YamlProblem``.

    Text in ``dump_plain``'s own shape (what gitmem writes) is read back by
    undoing that shape, and kept only when dumping the result gives the text
    again: the same values as the parser's, at a third of the cost (an index
    rebuild reads 100k documents). Anything else goes to the parser.
    """
    found = _canonical(text)
    return found if found is not None else _load_events(text)


def load_plain_shaped(text: str) -> tuple[Any, bool]:
    """``load_plain`` and whether ``text`` is exactly ``dump_plain``'s output for the result.

    The second part comes free of the first: the quick reading of gitmem's own
    shape is only kept after that very check.
    """
    found = _canonical(text)
    return (found, True) if found is not None else (_load_events(text), False)


@lru_cache(maxsize=1 << 16, typed=True)
def scalar_line(key: str, value: str | int | float | bool | None) -> str:
    """The line (with its newline) ``dump_plain`` writes for ``key: value`` in any mapping.

    Each key of the canonical shape is one line whose text depends only on its
    key and value, so a rewrite that changes a few scalars can replace their
    lines; cached because decay writes the same few values again and again.
    """
    return dump_plain({key: value})


_NOT_PLAIN_START = frozenset("[]{}\"'!&*|>%@`#,?")


def _canonical_scalar(raw: str) -> Any:
    if not raw or raw[0] in _NOT_PLAIN_START:
        return "" if raw == '""' else _UNREAD
    return _plain_scalar(raw)[1]


def _canonical(text: str) -> dict[str, Any] | None:
    """The mapping ``text`` holds when it is exactly ``dump_plain``'s output for it, else None.

    Each line is read as ``key: value``, a value being one plain scalar (read
    by ruamel's resolver) or a flow list of them; the check that dumping the
    result rebuilds ``text`` byte for byte is what makes the reading right.
    """
    if not text.endswith("\n") or "\r" in text:
        return None
    out: dict[str, Any] = {}
    for line in text[:-1].split("\n"):
        key, sep, raw = line.partition(": ")
        if not sep or key in out:
            return None
        if raw[:1] == "[":
            inner = raw[1:-1] if raw.endswith("]") else None
            if inner is None:
                return None
            value: Any = [_canonical_scalar(item) for item in inner.split(", ")] if inner else []
            if _UNREAD in value:
                return None
        else:
            value = _canonical_scalar(raw)
            if value is _UNREAD:
                return None
        out[key] = value
    try:
        return out if dump_plain(out) == text else None
    except ValueError:
        return None


def _load_events(text: str) -> Any:
    """``load_plain`` by the C parser's events (the full loader for what they do not cover)."""
    parser = _parser(text)
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
        _raise_problem(exc)
    finally:
        parser.dispose()


def _refuse_aliases(text: str) -> None:
    """Read the events of ``text`` once with the C parser; an anchor, an alias or deep nesting is a YamlProblem."""
    from ruamel.yaml import events as ev

    parser = _parser(text)
    depth = 0
    try:
        while parser.check_event():
            event = parser.get_event()
            _refuse_anchor(event)
            if isinstance(event, ev.CollectionStartEvent):
                depth += 1
                if depth > MAX_DEPTH:
                    raise _too_deep(event)
            elif isinstance(event, ev.CollectionEndEvent):
                depth -= 1
    except YamlProblem:
        raise
    except Exception as exc:  # a syntax error, reported with its line
        _raise_problem(exc)
    finally:
        parser.dispose()


def _load(text: str, typ: str) -> Any:
    _refuse_aliases(text)
    try:
        return _yaml(typ).load(text)
    except Exception as exc:
        _raise_problem(exc)


def load_safe(text: str) -> Any:
    """Parse YAML into plain dicts/lists with ruamel's own types (datetime...); raises ``YamlProblem``."""
    return _load(text, "safe")


def load_rt(text: str) -> Any:
    """Parse YAML keeping comments and key order; raises ``YamlProblem``."""
    return _load(text, "rt")


def dump_rt(data: Any) -> str:
    """Serialize round-trip (or plain) data back to YAML text."""
    out = io.StringIO()
    _yaml("rt").dump(data, out)
    return out.getvalue()


@lru_cache(maxsize=1 << 16)
def _str_event(value: str) -> Any:
    """A string as a scalar event: plain where it reads back as itself, else double-quoted.

    Events are never changed by the emitter, so one event serves every use of a value.
    """
    from ruamel.yaml.events import ScalarEvent

    tag, read = _plain_scalar(value)
    plain = (tag == _STR_TAG or (tag == _TIMESTAMP_TAG and read == value)) and value.isprintable()
    return ScalarEvent(None, None, (plain, True), value, style=None if plain else '"')


@lru_cache(maxsize=4096)
def _other_event(kind: str, value: Any) -> Any:
    """A number, boolean or null as ruamel's safe representer writes it."""
    from ruamel.yaml.events import ScalarEvent
    from ruamel.yaml.representer import SafeRepresenter

    node = SafeRepresenter().represent_data(value)
    implicit = _plain_scalar(node.value)[0] == str(node.tag)
    return ScalarEvent(None, None if implicit else str(node.tag), (implicit, False), node.value)


@lru_cache(maxsize=1)
def _collection_events() -> tuple[Any, Any, Any, Any]:
    from ruamel.yaml.events import MappingEndEvent, MappingStartEvent, SequenceEndEvent, SequenceStartEvent

    return (MappingStartEvent(None, None, True, flow_style=True), MappingEndEvent(),
            SequenceStartEvent(None, None, True, flow_style=True), SequenceEndEvent())


def _events(value: Any, out: list[Any]) -> None:
    if isinstance(value, str):
        out.append(_str_event(value))
    elif isinstance(value, dict):
        map_start, map_end, _, _ = _collection_events()
        out.append(map_start)
        for k, v in value.items():
            out.append(_str_event(str(k)))
            _events(v, out)
        out.append(map_end)
    elif isinstance(value, (list, tuple)):
        _, _, seq_start, seq_end = _collection_events()
        out.append(seq_start)
        for v in value:
            _events(v, out)
        out.append(seq_end)
    elif value is None or isinstance(value, (bool, int, float)):
        out.append(_other_event(type(value).__name__, value))
    elif isinstance(value, Mapping):
        _events(dict(value), out)
    else:
        out.append(_other_event.__wrapped__(type(value).__name__, value))


@lru_cache(maxsize=1024)
def _key_event(key: str) -> Any:
    if not _KEY.fullmatch(key):
        raise ValueError(f"bad front matter key: {key!r}")
    return _str_event(key)


@lru_cache(maxsize=1)
def _document_events() -> tuple[list[Any], list[Any]]:
    from ruamel.yaml.events import (DocumentEndEvent, DocumentStartEvent, MappingEndEvent, MappingStartEvent,
                                    StreamEndEvent, StreamStartEvent)

    return ([StreamStartEvent(), DocumentStartEvent(explicit=False), MappingStartEvent(None, None, True, flow_style=False)],
            [MappingEndEvent(), DocumentEndEvent(explicit=False), StreamEndEvent()])


def dump_plain(data: Mapping[str, Any]) -> str:
    """Canonical YAML for a mapping of plain values: one key a line, collections in flow style.

    Strings stay plain where they read back as the same string (an ISO time
    too: ``load_plain`` gives it back as written), otherwise double-quoted
    with escapes, so every key stays on one line. Keys must be identifiers.
    """
    # ruamel re-exports its C classes from _ruamel_yaml without listing them
    from ruamel.yaml.cyaml import CEmitter  # type: ignore[attr-defined]  # not in cyaml's __all__

    if not data:
        return ""
    head, tail = _document_events()
    events = list(head)
    for key, value in data.items():
        if not isinstance(key, str):
            raise ValueError(f"bad front matter key: {key!r}")
        events.append(_key_event(key))
        _events(value, events)
    events += tail
    out = io.StringIO()
    emitter = CEmitter(out, width=1 << 20, allow_unicode=True)
    try:
        for event in events:
            emitter.emit(event)
    finally:
        emitter.dispose()
    return out.getvalue()


def is_canonical(text: str, data: Mapping[str, Any]) -> bool:
    """True when ``text`` is exactly ``dump_plain(data)``: nothing a person shaped would be lost."""
    try:
        return dump_plain(data) == text
    except ValueError:
        return False
