"""The ``gitmem`` command's grammar: the argument parser of every verb, and finding the verb in argv.

Used by the command (``cli.main``) and by the daemon answering a command for another
process (``daemon_recall``), so both read arguments the same way.
"""

from __future__ import annotations

import sys
from functools import lru_cache

from gitmem.faces.console import COMMANDS

TYPE_CHECKING = False
if TYPE_CHECKING:
    import argparse
    from typing import Any, Callable, Sequence

GLOBAL_OPTIONS = ("--repo", "--now")
# Verbs a process is often started for on its own (a SessionStart hook, a shell loop): only their
# module is imported. Every other verb, and the overview, imports them all (cli.load_verbs).
HOT_VERBS = {"recall": "gitmem.faces.verbs_recall", "load-core": "gitmem.faces.verbs_recall",
             "status": "gitmem.faces.verbs_review"}
FORWARDED = ("recall", "load-core")
"""The hot verbs a running daemon answers (``daemon_recall``; SessionStart asks for ``load-core --session-start``)."""


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
    parser = _parser_class()(prog="gitmem", description=f"An AI agent's memory in a git repository (gitmem {__version__}).",
                                     epilog=epilog, formatter_class=_sized(argparse.RawDescriptionHelpFormatter))
    parser.add_argument("--version", action=_version_action(), nargs=0,
                        help="show gitmem's version and where it was installed from, then exit")
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


@lru_cache(maxsize=1)
def _parser_class() -> type[argparse.ArgumentParser]:
    """argparse's parser printing usage, help and errors where the verb prints (``console.stdout``,
    ``console.stderr``): the caller's buffers when the daemon parses for another process."""
    import argparse

    from gitmem.faces import console

    class Parser(argparse.ArgumentParser):
        def __init__(self, *args: Any, **kwargs: Any) -> None:
            # no abbreviations: `--rep B` must not silently mean `--repo B` (the daemon reads --repo
            # from argv too), and a new option must not change what an old abbreviation meant
            kwargs["allow_abbrev"] = False
            super().__init__(*args, **kwargs)

        def _print_message(self, message: str, file: Any = None) -> None:
            if message:
                (console.stdout() if file is sys.stdout else console.stderr()).write(message)
    return Parser


def _version_action() -> type[argparse.Action]:
    """``--version``: the version and the installation's origin (read only when asked: metadata costs a start)."""
    import argparse

    class Version(argparse.Action):
        def __call__(self, parser: argparse.ArgumentParser, namespace: argparse.Namespace, values: Any,
                     option_string: str | None = None) -> None:
            from gitmem import __version__
            from gitmem.api.installation import describe

            parser._print_message(f"gitmem {__version__}\n{describe()}\n", sys.stdout)
            parser.exit()
    return Version


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


def verb_of(args: Sequence[str]) -> str | None:
    """The verb in ``args`` (skipping global options and their values); None when there is none."""
    word = first_word(args)
    return word if word in COMMANDS else None


def first_word(args: Sequence[str]) -> str | None:
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
