"""Front matter written: plain data as canonical YAML, one key a line, by events fed to ruamel's C emitter."""

from __future__ import annotations

import io
import re
from functools import lru_cache
from typing import Any, Mapping

from gitmem.base.yamlio.scalars import STR_TAG, TIMESTAMP_TAG, plain_scalar

KEY = re.compile(r"[A-Za-z_][A-Za-z0-9_]*")
@lru_cache(maxsize=1 << 16, typed=True)
def scalar_line(key: str, value: str | int | float | bool | None) -> str:
    """The line (with its newline) ``dump_plain`` writes for ``key: value`` in any mapping.

    Each key of the canonical shape is one line whose text depends only on its
    key and value, so a rewrite that changes a few scalars can replace their
    lines; cached because decay writes the same few values again and again.
    """
    return dump_plain({key: value})


@lru_cache(maxsize=1 << 16)
def _str_event(value: str) -> Any:
    """A string as a scalar event: plain where it reads back as itself, else double-quoted.

    Events are never changed by the emitter, so one event serves every use of a value.
    """
    from ruamel.yaml.events import ScalarEvent

    tag, read = plain_scalar(value)
    plain = (tag == STR_TAG or (tag == TIMESTAMP_TAG and read == value)) and value.isprintable()
    return ScalarEvent(None, None, (plain, True), value, style=None if plain else '"')


@lru_cache(maxsize=4096)
def _other_event(kind: str, value: Any) -> Any:
    """A number, boolean or null as ruamel's safe representer writes it."""
    from ruamel.yaml.events import ScalarEvent
    from ruamel.yaml.representer import SafeRepresenter

    node = SafeRepresenter().represent_data(value)
    implicit = plain_scalar(node.value)[0] == str(node.tag)
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
    if not KEY.fullmatch(key):
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
