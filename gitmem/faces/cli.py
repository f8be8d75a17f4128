"""The ``gitmem`` command: a thin shell over ``gitmem.api``.

Each verb is a small function (in the ``verbs_*`` modules) that calls the
library, prints, and returns an exit code; ``console.guarded`` maps what it
raises to an exit code, for the hook path too. Nothing heavy is imported at
module level: ``gitmem --help`` and the hooks must start in a few milliseconds.
"""

from __future__ import annotations

import sys

from gitmem.faces.console import COMMANDS, guarded, show_warnings

TYPE_CHECKING = False
if TYPE_CHECKING:
    import argparse
    from typing import Any, Callable, Sequence

GLOBAL_OPTIONS = ("--repo", "--now")
# Verbs a process is often started for on its own (a SessionStart hook, a shell loop): only their
# module is imported. Every other verb, and the overview, imports them all (load_verbs).
HOT_VERBS = {"recall": "gitmem.faces.verbs_recall"}


def load_verbs() -> dict[str, tuple[Callable[[Any], int], str, Callable[[Any], None] | None]]:
    """Import the verb modules (each registers its verbs, in this order) and return the registry.

    Not at import time: the pre-commit hook path needs none of them.
    """
    from gitmem.faces import verbs_memory, verbs_recall, verbs_checks, verbs_timeline, verbs_review  # noqa: F401,I001
    from gitmem.faces import verbs_purge  # noqa: F401
    from gitmem.faces import verbs_dashboard  # noqa: F401
    from gitmem.faces import verbs_agent  # noqa: F401
    from gitmem.faces import verbs_serve  # noqa: F401
    from gitmem.faces import verbs_daemon  # noqa: F401

    return COMMANDS


def build_parser(only: str | None = None, overview: bool = False) -> argparse.ArgumentParser:
    """The argument parser; with ``only``, only that verb gets its arguments (start-up).

    ``overview`` (``gitmem``, ``gitmem --help``) lists the verbs in the epilog
    instead of building a sub-parser for each: argparse spends ~0.6 ms on one.
    """
    import argparse

    from gitmem import __version__

    epilog = "`gitmem COMMAND --help` describes one command."
    if overview:
        width = max(map(len, COMMANDS)) + 2
        epilog = "commands:\n" + "".join(f"  {name:<{width}}{text}\n" for name, (_, text, _) in COMMANDS.items()) \
            + "\n" + epilog
    parser = argparse.ArgumentParser(prog="gitmem", description=f"An AI agent's memory in a git repository (gitmem {__version__}).",
                                     epilog=epilog, formatter_class=_sized(argparse.RawDescriptionHelpFormatter))
    parser.add_argument("--version", action="version", version=f"gitmem {__version__}")
    parser.add_argument("--repo", metavar="DIR", help="memory repository (default: GITMEM_DIR, then the nearest parent with gitmem.yaml)")
    parser.add_argument("--now", metavar="ISO8601", help="the clock, for replays and tests (also GITMEM_NOW)")
    if overview:   # the verbs are listed in the epilog
        parser.usage = "gitmem [-h] [--version] [--repo DIR] [--now ISO8601] COMMAND ..."
        parser.add_subparsers(dest="command", metavar="COMMAND", help=argparse.SUPPRESS)
        return parser
    sub = parser.add_subparsers(dest="command", metavar="COMMAND", title="commands")
    for name, (_, help_text, configure) in COMMANDS.items():
        if only and only != name:
            continue   # each sub-parser costs ~0.6 ms (argparse looks up translations): build the one that runs
        p = sub.add_parser(name, help=help_text, description=help_text, formatter_class=_sized(argparse.HelpFormatter))
        if only is None:
            continue   # the overview lists the verbs; their arguments are not needed
        if configure is not None:
            configure(p)
        _common_options(p)
    return parser


def _sized(kind: type[argparse.HelpFormatter]) -> Callable[..., argparse.HelpFormatter]:
    """argparse's formatter ``kind`` at the width argparse would take, without importing shutil
    (~2 ms of every start: argparse makes a formatter for each argument it adds) when stdout is not
    a terminal and COLUMNS is unset, where shutil.get_terminal_size answers its fallback of 80."""
    import os

    def make(*, prog: str) -> argparse.HelpFormatter:
        try:
            piped = "COLUMNS" not in os.environ and not os.isatty(sys.__stdout__.fileno())  # type: ignore[union-attr]  # None is caught
        except (AttributeError, ValueError, OSError):
            piped = True   # no stdout to ask: shutil takes its fallback too
        if piped:
            return kind(prog, width=80 - 2)   # argparse keeps 2 columns of margin
        import shutil

        return kind(prog, width=shutil.get_terminal_size().columns - 2)
    return make


def _common_options(p: argparse.ArgumentParser) -> None:
    """--repo and --now, accepted after the verb and after a verb's action too (``review show X --repo D``);
    SUPPRESS keeps a value given earlier."""
    import argparse

    p.add_argument("--repo", metavar="DIR", default=argparse.SUPPRESS, help="memory repository")
    p.add_argument("--now", metavar="ISO8601", default=argparse.SUPPRESS, help="the clock (also GITMEM_NOW)")
    for action in p._actions:   # argparse offers no public way to reach the sub-parsers
        if isinstance(action, argparse._SubParsersAction):
            for child in dict.fromkeys(action.choices.values()):
                _common_options(child)


def _verb(args: list[str]) -> str | None:
    """The verb in ``args`` (skipping global options and their values); None when there is none."""
    word = _word(args)
    return word if word in COMMANDS else None


def _word(args: list[str]) -> str | None:
    """The first word of ``args`` that is neither an option nor a global option's value."""
    skip = False
    for arg in args:
        if skip:
            skip = False
        elif arg in GLOBAL_OPTIONS:
            skip = True
        elif not arg.startswith("-"):
            return arg
    return None


def main(argv: Sequence[str] | None = None) -> int:
    """Run gitmem with ``argv``; returns the exit code."""
    args_list = list(sys.argv[1:] if argv is None else argv)
    if args_list[:1] == ["hook"] and len(args_list) > 1 and not args_list[1].startswith("-"):
        # the pre-commit hot path skips argparse and the API
        from gitmem.faces.githooks import main as hook_main

        return guarded(lambda: hook_main(args_list[1:]))
    hot = HOT_VERBS.get(_word(args_list) or "")
    if hot is not None:
        __import__(hot)   # registers its verbs
    else:
        load_verbs()
    parser = build_parser(_verb(args_list), overview=args_list in ([], ["-h"], ["--help"]))
    try:
        args = parser.parse_args(args_list)
    except SystemExit as exc:
        return exc.code if isinstance(exc.code, int) else 2
    if not args.command:
        parser.print_help()
        return 2
    handler = COMMANDS[args.command][0]
    show_warnings()
    return guarded(lambda: handler(args))
