"""Warnings for the person at the terminal: one sink that every layer reports to.

Code below the faces returns values; when it must still tell someone
something that is not an error (a file it skipped, a setting it ignored) it
calls ``warn``. The face that talks to a person installs a sink with
``set_sink`` (the CLI prints ``warning:`` lines on stderr, once per text and
run); without one, a warning goes to stderr as ``gitmem: warning: ...``, so a
library caller still sees it.
"""

from __future__ import annotations

import sys
from collections.abc import Callable

__all__ = ["set_sink", "warn"]

Sink = Callable[[str], None]

_sink: Sink | None = None


def set_sink(sink: Sink | None) -> Sink | None:
    """Send every later warning to ``sink`` (None: back to stderr); returns the sink it replaces."""
    global _sink
    previous, _sink = _sink, sink
    return previous


def warn(text: str) -> None:
    """Report ``text`` to the installed sink, or to stderr when no face installed one."""
    if _sink is not None:
        _sink(text)
    else:
        sys.stderr.write(f"gitmem: warning: {text}\n")
