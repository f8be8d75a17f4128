"""ruamel's own loaders: the safe one for plain values with ruamel's types, the round trip for text a person wrote.

Both read the text's events once with the C parser first, so that an anchor,
an alias or deep nesting is refused before ruamel builds anything.
"""

from __future__ import annotations

import io
from functools import lru_cache
from typing import TYPE_CHECKING, Any

from gitmem.base.errors import YamlProblem
from gitmem.base.yamlio.scalars import MAX_DEPTH, c_parser, raise_problem, refuse_anchor, too_deep

if TYPE_CHECKING:  # pragma: no cover
    from ruamel.yaml import YAML

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


def _refuse_aliases(text: str) -> None:
    """Read the events of ``text`` once with the C parser; an anchor, an alias or deep nesting is a YamlProblem."""
    from ruamel.yaml import events as ev

    parser = c_parser(text)
    depth = 0
    try:
        while parser.check_event():
            event = parser.get_event()
            refuse_anchor(event)
            if isinstance(event, ev.CollectionStartEvent):
                depth += 1
                if depth > MAX_DEPTH:
                    raise too_deep(event)
            elif isinstance(event, ev.CollectionEndEvent):
                depth -= 1
    except YamlProblem:
        raise
    except Exception as exc:  # a syntax error, reported with its line
        raise_problem(exc)
    finally:
        parser.dispose()


def _load(text: str, typ: str) -> Any:
    _refuse_aliases(text)
    try:
        return _yaml(typ).load(text)
    except Exception as exc:
        raise_problem(exc)


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
