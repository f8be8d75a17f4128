"""Every field of gitmem.yaml is read by the code.

For each leaf field (``hebbian.learning_rate``), some module other than the
config module must use its name as an attribute or a key (the hook's cached
settings are keys) and also name its section, or the section's class (an
engine handed ``cfg.hebbian`` calls it ``cfg: Hebbian``).
"""

from __future__ import annotations

import ast
import dataclasses
import functools
from collections.abc import Iterator
from pathlib import Path

from gitmem.base.config import Config

PACKAGE = Path(__file__).resolve().parent.parent / "gitmem"
def leaves(cls: type, prefix: tuple[str, ...] = (), owners: tuple[str, ...] = ()) -> Iterator[tuple[str, ...]]:
    """(section..., field, section class names...) for every leaf field of the config."""
    for f in dataclasses.fields(cls):
        default = f.default_factory() if f.default_factory is not dataclasses.MISSING else f.default
        if dataclasses.is_dataclass(default):
            yield from leaves(type(default), prefix + (f.name,), owners + (type(default).__name__,))
        else:
            yield (".".join(prefix + (f.name,)), *owners)


def _words(path: Path) -> tuple[set[str], set[str]]:
    tree = ast.parse(path.read_text(encoding="utf-8"))
    attrs = {n.attr for n in ast.walk(tree) if isinstance(n, ast.Attribute)}
    keys = {n.value for n in ast.walk(tree) if isinstance(n, ast.Constant) and isinstance(n.value, str)}
    names = {n.id for n in ast.walk(tree) if isinstance(n, ast.Name)}
    return attrs | keys, names | attrs | keys


@functools.cache
def readers() -> dict[str, list[str]]:
    """Each leaf field's dotted name → the modules that read it."""
    modules = {p: _words(p) for p in sorted(PACKAGE.rglob("*.py")) if p.name != "config.py"}
    out = {}
    for dotted, *owners in leaves(Config):
        *sections, name = dotted.split(".")
        out[dotted] = [str(p.relative_to(PACKAGE)) for p, (used, named) in modules.items()
                       if name in used and (not sections or sections[-1] in named or any(o in named for o in owners))]
    return out


def test_every_field_is_read() -> None:
    found = readers()
    assert len(found) > 40 and "hebbian.learning_rate" in found   # the walk found the schema
    unread = {field for field, mods in found.items() if not mods}
    assert unread == set(), "read by nothing: wire these fields or remove them"


def test_a_retired_key_is_named_with_what_replaced_it() -> None:
    from gitmem.base import config

    checked = config.check_text("review:\n  expire_minutes: 10080\n")
    assert not checked.problems and checked.config.sediment.veto_timeout_minutes == 10
    assert any("review is no longer read" in w and "sediment.veto_timeout_minutes" in w for w in checked.warnings)


def test_the_search_finds_a_known_reader() -> None:
    found = readers()
    assert "engines/hebbian.py" in found["hebbian.learning_rate"]
    assert "engines/decay.py" in found["memory.decay_base"]
    assert "writer/placement.py" in found["sharing"]   # a top-level field: its name alone
    assert any(m.startswith("faces/") for m in found["sediment.amplitude_max"])   # the hook's settings key
