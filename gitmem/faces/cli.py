"""The ``gitmem`` command: a thin shell over ``gitmem.api``.

Each verb is a small function that calls the library, prints, and returns an
exit code: 0 ok, 1 a failed check or a gitmem error, 2 usage, 3 a bug, 130 ^C.
Nothing heavy is imported at module level: ``gitmem --help`` and the hooks must
start in a few milliseconds.
"""

from __future__ import annotations

import sys

TYPE_CHECKING = False
if TYPE_CHECKING:
    from typing import Any, Callable, Sequence

    Handler = Callable[[Any], int]
    Configure = Callable[[Any], None]

COMMANDS: "dict[str, tuple[Handler, str, Configure | None]]" = {}


def command(name: str, help_text: str, configure: Configure | None = None) -> Callable[[Handler], Handler]:
    """Register a verb: its handler, its one-line help, and a function adding its arguments."""
    def register(fn: Handler) -> Handler:
        COMMANDS[name] = (fn, help_text, configure)
        return fn
    return register


def out(text: str = "") -> None:
    sys.stdout.write(text + "\n")


def emit_json(value: Any) -> None:
    import json

    sys.stdout.write(json.dumps(value, ensure_ascii=False, indent=None) + "\n")


def err(text: str) -> None:
    sys.stderr.write(text + "\n")


def _now(args: Any) -> Any:
    from gitmem.base import clock

    return clock.now(getattr(args, "now", None))


def _repo(args: Any) -> Any:
    from gitmem.api import MemoryRepo

    return MemoryRepo.open(getattr(args, "repo", None))


def progress_bar(label: str) -> Callable[[int, int], None] | None:
    """A one-line progress bar on stderr when it is a terminal."""
    if not sys.stderr.isatty():
        return None

    def show(done: int, total: int) -> None:
        width = 30
        filled = int(width * done / total) if total else width
        sys.stderr.write(f"\r{label} [{'#' * filled}{'.' * (width - filled)}] {done}/{total}")
        if done >= total:
            sys.stderr.write("\n")
        sys.stderr.flush()
    return show


def build_parser(only: str | None = None) -> Any:
    """The argument parser; with ``only``, only that verb's arguments are added (start-up)."""
    import argparse

    from gitmem import __version__

    parser = argparse.ArgumentParser(prog="gitmem", description="An AI agent's memory in a git repository.")
    parser.add_argument("--version", action="version", version=f"gitmem {__version__}")
    parser.add_argument("--repo", metavar="DIR", help="memory repository (default: GITMEM_DIR, then the nearest parent with gitmem.yaml)")
    parser.add_argument("--now", metavar="ISO8601", help="the clock, for replays and tests (also GITMEM_NOW)")
    sub = parser.add_subparsers(dest="command", metavar="COMMAND")
    for name, (_, help_text, configure) in COMMANDS.items():
        if only and only != name:
            continue   # each sub-parser costs ~0.6 ms (argparse looks up translations): build the one that runs
        p = sub.add_parser(name, help=help_text, description=help_text)
        if only is not None and only != name:
            continue
        # Accepted after the verb too; SUPPRESS keeps a value given before the verb.
        p.add_argument("--repo", metavar="DIR", default=argparse.SUPPRESS, help="memory repository")
        p.add_argument("--now", metavar="ISO8601", default=argparse.SUPPRESS, help="the clock (also GITMEM_NOW)")
        if configure is not None:
            configure(p)
    return parser


def overview() -> str:
    """``gitmem --help``: usage and one line per verb."""
    from gitmem import __version__

    width = max(len(n) for n in COMMANDS) + 2
    lines = ["usage: gitmem [-h] [--version] [--repo DIR] [--now ISO8601] COMMAND ...",
             "", f"An AI agent's memory in a git repository (gitmem {__version__}).", "",
             "options:",
             "  -h, --help       show this help message and exit",
             "  --version        show program's version number and exit",
             "  --repo DIR       memory repository (default: GITMEM_DIR, then the nearest parent with gitmem.yaml)",
             "  --now ISO8601    the clock, for replays and tests (also GITMEM_NOW)",
             "", "commands:"]
    lines += [f"  {name:<{width}}{help_text}" for name, (_, help_text, _) in COMMANDS.items()]
    lines += ["", "`gitmem COMMAND --help` describes one command."]
    return "\n".join(lines) + "\n"


def _verb(args: list[str]) -> str | None:
    """The verb in ``args`` (skipping global options and their values); None builds every verb."""
    skip = False
    for arg in args:
        if skip:
            skip = False
        elif arg in ("--repo", "--now"):
            skip = True
        elif not arg.startswith("-"):
            return arg if arg in COMMANDS else None
    return ""


def main(argv: Sequence[str] | None = None) -> int:
    """Run gitmem with ``argv``; returns the exit code."""
    args_list = list(sys.argv[1:] if argv is None else argv)
    if args_list[:1] == ["hook"] and len(args_list) > 1 and not args_list[1].startswith("-"):
        # the pre-commit hot path skips argparse and the API
        from gitmem.faces.githooks import main as hook_main

        return hook_main(args_list[1:])
    from gitmem.faces import cli_commands  # noqa: F401  (registers the verbs)

    if not args_list or args_list in (["--help"], ["-h"]):
        # the overview needs no argparse (~15 ms): it is printed from the registry
        sys.stdout.write(overview())
        return 2 if not args_list else 0
    from gitmem.base.errors import CheckFailed, GitmemError

    parser = build_parser(_verb(args_list))
    try:
        args = parser.parse_args(args_list)
    except SystemExit as exc:
        return int(exc.code or 0) if isinstance(exc.code, int) else 2
    if not args.command:
        sys.stdout.write(overview())
        return 2
    handler = COMMANDS[args.command][0]
    try:
        return handler(args)
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

        traceback.print_exc()
        err("gitmem: internal error (this is a bug in gitmem; please report it with the traceback above)")
        return 3
