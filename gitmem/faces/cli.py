"""The ``gitmem`` command: a thin shell over ``gitmem.api``.

Each verb is a small function (in the ``verbs_*`` modules) that calls the
library, prints, and returns an exit code; ``console.guarded`` maps what it
raises to an exit code, for the hook path too. Nothing heavy is imported at
module level: ``gitmem --help`` and the hooks must start in a few milliseconds.
"""

from __future__ import annotations

import sys

from gitmem.faces import quickargs
from gitmem.faces.console import COMMANDS, guarded, show_warnings
from gitmem.faces.parser import FORWARDED, HOT_VERBS, build_parser, first_word, verb_of

TYPE_CHECKING = False
if TYPE_CHECKING:
    from typing import Any, Callable, Sequence


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
    from gitmem.faces import verbs_upgrade  # noqa: F401
    from gitmem.faces import verbs_sediment  # noqa: F401
    from gitmem.faces import verbs_sync  # noqa: F401

    return COMMANDS


def main(argv: Sequence[str] | None = None) -> int:
    """Run gitmem with ``argv``; returns the exit code."""
    args_list = list(sys.argv[1:] if argv is None else argv)
    if args_list[:1] == ["hook"] and len(args_list) > 1 and not args_list[1].startswith("-"):
        # the pre-commit hot path skips argparse and the API
        from gitmem.faces.githooks import main as hook_main

        return guarded(lambda: hook_main(args_list[1:]))
    word = first_word(args_list) or ""
    hot = HOT_VERBS.get(word)
    if hot is not None:
        if word in FORWARDED:
            from gitmem.faces import daemon_recall

            answered = daemon_recall.ask(args_list)   # a running daemon answers without this process loading recall
            if answered is not None:
                return answered
        module = __import__(hot, fromlist=["_"])   # registers its verbs
        quick = getattr(module, "QUICK", {}).get(word)
        plain = None if quick is None else quickargs.parse(word, quick, args_list)
        if plain is not None:   # plain arguments, read without argparse (argparse reads anything else)
            show_warnings()
            return guarded(lambda: COMMANDS[word][0](plain))
    else:
        load_verbs()
    parser = build_parser(verb_of(args_list), overview=args_list in ([], ["-h"], ["--help"]))
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
