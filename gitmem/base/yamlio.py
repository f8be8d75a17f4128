"""The only module that imports ruamel.yaml.

Two ways in: ``load_safe`` (C loader, for reading and listing) and the
round-trip pair ``load_rt``/``dump_rt`` (for rewriting a document a person
may have commented). Aliases are refused: front matter never needs them and
they are how a YAML bomb expands.
"""

from __future__ import annotations

import io
import re
from functools import lru_cache
from typing import Any


_ALIAS_HINT = re.compile(r"(?:^|[\s\[{,:-])[&*][^\s,\[\]{}]")


class YamlProblem(Exception):
    """A YAML text that does not load; ``line`` is 1-based within that text."""

    def __init__(self, problem: str, line: int | None) -> None:
        super().__init__(problem)
        self.problem = problem
        self.line = line


@lru_cache(maxsize=None)
def _yaml(typ: str) -> Any:
    from ruamel.yaml import YAML

    if typ == "rt":
        y = YAML()
        y.preserve_quotes = True
        y.width = 4096
        y.indent(mapping=2, sequence=4, offset=2)
        return y
    return YAML(typ="safe", pure=False)


def _refuse_aliases(text: str) -> None:
    if not _ALIAS_HINT.search(text):
        return
    from ruamel.yaml.events import AliasEvent

    try:
        for event in _yaml("safe").parse(io.StringIO(text)):
            if isinstance(event, AliasEvent) or getattr(event, "anchor", None):
                mark = getattr(event, "start_mark", None)
                raise YamlProblem("YAML anchors and aliases are not allowed", mark.line + 1 if mark else None)
    except YamlProblem:
        raise
    except Exception as exc:  # the loader below reports syntax errors with their line
        _raise_problem(exc)


def _raise_problem(exc: Exception) -> None:
    # the context mark ("while parsing a flow sequence started here") points at the
    # construct that is broken; the problem mark is where the parser gave up
    mark = getattr(exc, "context_mark", None) or getattr(exc, "problem_mark", None)
    problem = getattr(exc, "problem", None) or str(exc).splitlines()[0]
    raise YamlProblem(str(problem), mark.line + 1 if mark is not None else None) from None


def _load(text: str, typ: str) -> Any:
    _refuse_aliases(text)
    try:
        return _yaml(typ).load(text)
    except Exception as exc:
        _raise_problem(exc)


def load_safe(text: str) -> Any:
    """Parse YAML into plain dicts/lists; raises ``YamlProblem``."""
    return _load(text, "safe")


def load_rt(text: str) -> Any:
    """Parse YAML keeping comments and key order; raises ``YamlProblem``."""
    return _load(text, "rt")


def dump_rt(data: Any) -> str:
    """Serialize round-trip (or plain) data back to YAML text."""
    out = io.StringIO()
    _yaml("rt").dump(data, out)
    return out.getvalue()

