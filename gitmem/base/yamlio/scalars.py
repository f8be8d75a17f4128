"""What every YAML reader and writer shares: one plain scalar as ruamel reads it, and the problems raised.

A plain scalar's meaning (``true``, ``12``, ``2026-11-29``…) comes from
ruamel's own resolver and constructors, cached because most values repeat;
dates and times become ISO strings (``normalize``). A syntax error, an anchor
or an alias, and nesting deeper than ``MAX_DEPTH`` are ``YamlProblem`` with
the line they are on.
"""

from __future__ import annotations

from datetime import date, datetime, timezone
from functools import lru_cache
from typing import Any

from gitmem.base.errors import YamlProblem

MAX_DEPTH = 64   # collections inside collections; front matter needs three
STR_TAG = "tag:yaml.org,2002:str"
TIMESTAMP_TAG = "tag:yaml.org,2002:timestamp"


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
def plain_scalar(value: str) -> tuple[str, Any]:
    """(tag, value) of a plain scalar as ruamel's safe loader reads it, dates normalized."""
    from ruamel.yaml.nodes import ScalarNode

    loader = _loader()
    tag = str(loader.resolve(ScalarNode, value, (True, False)))
    if tag == STR_TAG:
        return tag, value
    try:
        return tag, normalize(loader.construct_object(ScalarNode(tag, value), deep=True))
    except Exception:   # no constructor for the tag, a value ruamel only warns about in context,
        return tag, UNREAD   # or a time whose offset leaves datetime's range (0001-01-01T00:00+01:00)
    finally:
        loader.constructed_objects.clear()


UNREAD = object()


def raise_problem(exc: Exception) -> None:
    # the context mark ("while parsing a flow sequence started here") points at the
    # construct that is broken; the problem mark is where the parser gave up
    mark = getattr(exc, "context_mark", None) or getattr(exc, "problem_mark", None)
    problem = getattr(exc, "problem", None) or str(exc).splitlines()[0]
    raise YamlProblem(str(problem), mark.line + 1 if mark is not None else None) from None


def refuse_anchor(event: Any) -> None:
    from ruamel.yaml.events import AliasEvent

    if isinstance(event, AliasEvent) or getattr(event, "anchor", None):
        refuse_at(event)


def too_deep(event: Any) -> YamlProblem:
    mark = getattr(event, "start_mark", None)
    return YamlProblem(f"nesting deeper than {MAX_DEPTH} levels", mark.line + 1 if mark else None,
                       hint=f"flatten the value: at most {MAX_DEPTH} nested lists or mappings")


def refuse_at(event: Any) -> None:
    mark = getattr(event, "start_mark", None)
    raise YamlProblem("YAML anchors and aliases are not allowed", mark.line + 1 if mark else None)


def c_parser(text: str) -> Any:
    # ruamel re-exports its C classes from _ruamel_yaml without listing them
    from ruamel.yaml.cyaml import CParser  # type: ignore[attr-defined]  # not in cyaml's __all__

    return CParser(text)
