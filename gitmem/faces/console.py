"""What every verb of the ``gitmem`` command shares: the verb registry, output, and the one error handler.

Exit codes: 0 ok, 1 a failed check or a gitmem error, 2 usage, 3 a bug, 130 ^C.
Nothing heavy is imported at module level: ``gitmem --help`` and the hooks must
start in a few milliseconds.
"""

from __future__ import annotations

import sys
from contextvars import ContextVar

from gitmem.base.notice import set_sink

TYPE_CHECKING = False
if TYPE_CHECKING:
    from collections.abc import Iterator
    from datetime import datetime
    from typing import IO, Any, Callable

    from gitmem.api import MemoryRepo

    Handler = Callable[[Any], int]
    Configure = Callable[[Any], None]

COMMANDS: "dict[str, tuple[Handler, str, Configure | None]]" = {}


def command(name: str, help_text: str, configure: Configure | None = None) -> Callable[[Handler], Handler]:
    """Register a verb: its handler, its one-line help, and a function adding its arguments."""
    def register(fn: Handler) -> Handler:
        COMMANDS[name] = (fn, help_text, configure)
        return fn
    return register


class Caller:
    """Where a verb run for another process (the daemon answering a recall) prints and reads,
    and the folder it was run from; a verb run in its own process uses sys's streams and os.getcwd()."""

    def __init__(self, cwd: str, stdin: str = "") -> None:
        import io

        self.cwd, self.stdin = cwd, io.StringIO(stdin)
        self.stdout, self.stderr = io.StringIO(), io.StringIO()


_CALLER: ContextVar[Caller | None] = ContextVar("gitmem_caller", default=None)


def serving(caller: Caller) -> Any:
    """A context in which this thread's verb prints to and reads from ``caller``."""
    from contextlib import contextmanager

    @contextmanager
    def scope() -> Iterator[Caller]:
        token = _CALLER.set(caller)
        try:
            yield caller
        finally:
            _CALLER.reset(token)
    return scope()


def stdout() -> IO[str]:
    """The verb's stdout."""
    caller = _CALLER.get()
    return sys.stdout if caller is None else caller.stdout


def stderr() -> IO[str]:
    """The verb's stderr."""
    caller = _CALLER.get()
    return sys.stderr if caller is None else caller.stderr


def stdin() -> IO[str]:
    """The verb's stdin."""
    caller = _CALLER.get()
    return sys.stdin if caller is None else caller.stdin


def cwd() -> str:
    """The folder the verb was run from."""
    import os

    caller = _CALLER.get()
    return os.getcwd() if caller is None else caller.cwd


def out(text: str = "") -> None:
    """Print a line on stdout."""
    stdout().write(text + "\n")


def err(text: str) -> None:
    """Print a line on stderr."""
    stderr().write(text + "\n")


_WARNED: set[str] = set()


def show_warnings() -> None:
    """Print what the layers below report (``gitmem.base.notice.warn``) as ``warning:`` lines on
    stderr, each text once a run."""
    _WARNED.clear()
    set_sink(_print_warning)


def _print_warning(text: str) -> None:
    if text not in _WARNED:
        _WARNED.add(text)
        err(f"warning: {text}")


def emit_json(value: Any) -> None:
    """Print one JSON document on one line."""
    import json

    stdout().write(json.dumps(value, ensure_ascii=False, indent=None) + "\n")


def json_flag(p: Any) -> None:
    """Add ``--json`` to a verb's parser."""
    p.add_argument("--json", action="store_true", help="print JSON for scripts")


def now_of(args: Any) -> datetime:
    """The clock of this run: --now, else GITMEM_NOW, else the system time."""
    from gitmem.base import clock

    return clock.now(getattr(args, "now", None))


def repo_of(args: Any) -> MemoryRepo:
    """The memory repository of this run: --repo, else GITMEM_DIR, else the nearest parent."""
    from gitmem.api import MemoryRepo

    return MemoryRepo.open(getattr(args, "repo", None))


def choices(name: str) -> tuple[str, ...]:
    """A closed set of the model (types, domains, tiers, bands) for a verb's ``choices``."""
    from gitmem.base import kinds

    sets: dict[str, tuple[str, ...]] = {"type": kinds.TYPES, "domain": kinds.DOMAINS,
                                        "tier": kinds.TIERS, "band": kinds.BANDS}
    return sets[name]


def progress_bar(label: str) -> Callable[[int, int], None] | None:
    """A one-line progress bar on stderr when it is a terminal."""
    if not stderr().isatty():
        return None

    def show(done: int, total: int) -> None:
        width = 30
        filled = int(width * done / total) if total else width
        sys.stderr.write(f"\r{label} [{'#' * filled}{'.' * (width - filled)}] {done}/{total}")
        if done >= total:
            sys.stderr.write("\n")
        sys.stderr.flush()
    return show


def guarded(run: Callable[[], int]) -> int:
    """Run a verb or a hook and map what it raises to an exit code, printing ``error:`` and ``hint:``.

    A ``GitmemError`` exits 1 (a failed check prints its problems), ^C 130, a
    closed pipe 0, and anything else is a bug: its traceback and exit 3.
    """
    from gitmem.base.errors import CheckFailed, GitmemError

    try:
        return run()
    except CheckFailed as exc:
        err(f"gitmem: {exc.message}")
        for problem in exc.problems:
            err(f"  {problem}")
        if exc.hint:
            err(f"hint: {exc.hint}")
        return 1
    except GitmemError as exc:
        err(f"gitmem: error: {exc.message}")
        if exc.hint:
            err(f"hint: {exc.hint}")
        return 1
    except KeyboardInterrupt:
        err("gitmem: interrupted")
        return 130
    except BrokenPipeError:
        return 0
    except Exception:  # a bug: say so, with the traceback
        import traceback

        traceback.print_exc(file=stderr())
        err("gitmem: internal error (this is a bug in gitmem; please report it with the traceback above)")
        return 3
