"""The only package that imports ruamel.yaml.

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

Modules: ``plain`` reads front matter as plain data, ``emit`` writes it,
``loaders`` holds ruamel's own loaders and the round trip, and ``scalars``
what they share (one plain scalar as ruamel's resolver reads it, dates made
ISO strings, the problems every reader raises).
"""

from __future__ import annotations

from gitmem.base.errors import YamlProblem
from gitmem.base.yamlio.emit import dump_plain, is_canonical, scalar_line
from gitmem.base.yamlio.loaders import dump_rt, load_rt, load_safe
from gitmem.base.yamlio.plain import load_plain, load_plain_shaped
from gitmem.base.yamlio.scalars import MAX_DEPTH, normalize

__all__ = ["MAX_DEPTH", "YamlProblem", "dump_plain", "dump_rt", "is_canonical", "load_plain", "load_plain_shaped",
           "load_rt", "load_safe", "normalize", "scalar_line"]
