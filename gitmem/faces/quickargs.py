"""Reading a hot verb's arguments without argparse, for the plain cases only.

argparse, with gettext and locale, and building one verb's sub-parser cost a recall
process several milliseconds of its start. ``parse`` reads the arguments of a verb
that declares a ``Spec`` when they are of the plain kinds the spec names (each option
at most once, spelt in full, a value that does not start with ``-``, a choice in its
set, an ``int`` that ``int()`` reads) and answers None for anything else: ``-h``, an
abbreviation, ``--opt=value``, ``--``, a mistake. The caller then runs argparse, so
help, usage errors (exit 2) and every corner case stay argparse's own. What ``parse``
returns holds the same attributes, with the same values, as argparse's namespace.
"""

from __future__ import annotations

TYPE_CHECKING = False
if TYPE_CHECKING:
    from collections.abc import Callable, Sequence


class Spec:
    """A verb's arguments as ``parse`` reads them.

    ``flags``: option -> dest of a ``store_true``; ``values``: option -> (dest, type or None,
    a function giving its choices or None); ``positional``: the dest of one optional
    positional (``nargs="?"``), or None; ``exclusive``: groups of dests given at most one at a
    time; ``defaults``: the dests argparse sets with no option given and their values.
    """

    def __init__(self, flags: dict[str, str], values: dict[str, tuple[str, Callable[[str], object] | None,
                                                                        Callable[[], Sequence[str]] | None]],
                 positional: str | None, exclusive: Sequence[Sequence[str]], defaults: dict[str, object]) -> None:
        self.flags, self.values, self.positional = flags, values, positional
        self.exclusive, self.defaults = exclusive, defaults


class Namespace:
    """The parsed arguments: attributes, as on argparse's namespace."""

    def __init__(self, **values: object) -> None:
        self.__dict__.update(values)

    def __repr__(self) -> str:
        return f"Namespace({', '.join(f'{k}={v!r}' for k, v in sorted(vars(self).items()))})"


GLOBAL_VALUES = ("--repo", "--now")


def parse(verb: str, spec: Spec, argv: Sequence[str]) -> Namespace | None:
    """``argv`` (the whole command line) read for ``verb``; None: let argparse read it."""
    given: dict[str, object] = {}
    n, seen_verb = 0, False
    while n < len(argv):
        arg = argv[n]
        if not seen_verb and arg == verb:
            seen_verb = True
        elif arg in GLOBAL_VALUES or (seen_verb and arg in spec.values):
            if n + 1 >= len(argv) or argv[n + 1].startswith("-"):
                return None
            value: object = argv[n + 1]
            dest = arg[2:]
            if arg in spec.values and arg not in GLOBAL_VALUES:
                dest, kind, choices = spec.values[arg]
                if choices is not None and value not in choices():
                    return None
                if kind is not None:
                    try:
                        value = kind(str(value))
                    except ValueError:
                        return None
            if dest in given:
                return None
            given[dest] = value
            n += 1
        elif seen_verb and arg in spec.flags:
            if spec.flags[arg] in given:
                return None
            given[spec.flags[arg]] = True
        elif seen_verb and not arg.startswith("-") and spec.positional is not None and spec.positional not in given:
            given[spec.positional] = arg
        else:
            return None   # an option it does not know, a word too many, a word before the verb
        n += 1
    if not seen_verb or any(sum(dest in given for dest in group) > 1 for group in spec.exclusive):
        return None
    namespace = {"version": None, "repo": None, "now": None, "command": verb, **spec.defaults}
    namespace.update(given)
    return Namespace(**namespace)
