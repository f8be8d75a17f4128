"""Commit trailers, read by git's own trailer parser for every caller.

A message not yet committed (the commit-msg hook) goes through
``git stripspace --strip-comments`` (after cutting at the scissors line) and
``git interpret-trailers --parse --no-divider``; commits already made are read
with ``git log --format=%(trailers:only,unfold)``, the same parser over the
stored message. Both give ``Key: value`` lines, parsed here into ``Trailers``:
every value of every key, keys compared without regard to case.
"""

from __future__ import annotations

from gitmem.base.gitio.command import commit_trailers, parse_trailers, strip_message

TYPE_CHECKING = False
if TYPE_CHECKING:
    from collections.abc import Iterator, Sequence
    from pathlib import Path

FALSE_WORDS = frozenset({"false", "no", "off", "0", ""})   # what git reads as boolean false


class Trailers:
    """The trailers of one message, in order; a key may repeat."""

    __slots__ = ("pairs",)

    def __init__(self, pairs: Sequence[tuple[str, str]] = ()) -> None:
        self.pairs: tuple[tuple[str, str], ...] = tuple(pairs)

    def __iter__(self) -> Iterator[tuple[str, str]]:
        return iter(self.pairs)

    def __len__(self) -> int:
        return len(self.pairs)

    def __eq__(self, other: object) -> bool:
        return isinstance(other, Trailers) and other.pairs == self.pairs

    def __hash__(self) -> int:
        return hash(self.pairs)

    def __repr__(self) -> str:
        return f"Trailers({list(self.pairs)!r})"

    def values(self, key: str) -> list[str]:
        """Every value of ``key`` (any case), in message order."""
        wanted = key.lower()
        return [v for k, v in self.pairs if k.lower() == wanted]

    def get(self, key: str) -> str | None:
        """The last value of ``key`` (the one git's ``--if-exists replace`` would keep), or None."""
        found = self.values(key)
        return found[-1] if found else None

    def has(self, key: str) -> bool:
        """True when ``key`` holds a non-empty value."""
        return any(v.strip() for v in self.values(key))

    def flag(self, key: str) -> bool:
        """True when any value of ``key`` is not one git reads as false (false, no, off, 0, any case).

        The safe reading for a guard: ``Gitmem-Auto: maybe`` or a second
        ``Gitmem-Auto: false`` after a ``true`` still marks the commit automated.
        """
        return any(v.strip().lower() not in FALSE_WORDS for v in self.values(key))

    def last_values(self) -> dict[str, str]:
        """One value per key as first spelled, the last one given (JSON output)."""
        spelled: dict[str, str] = {}
        out: dict[str, str] = {}
        for k, v in self.pairs:
            name = spelled.setdefault(k.lower(), k)
            out[name] = v
        return out


def parse_lines(text: str) -> Trailers:
    """``Key: value`` lines as git prints parsed trailers; other lines are skipped."""
    pairs = []
    for line in text.split("\n"):
        key, sep, value = line.partition(":")
        if sep and key and key == key.strip() and " " not in key:
            pairs.append((key, value.strip()))
    return Trailers(pairs)


def read_message(root: Path | str, message: str) -> Trailers:
    """The trailers of a message as git would store it (comments and the scissors part dropped)."""
    return parse_lines(parse_trailers(root, strip_message(root, message)))


def read_commits(root: Path | str, ids: Sequence[str]) -> dict[str, Trailers]:
    """The trailers of each commit in ``ids`` (one git process for all of them)."""
    return {commit: parse_lines(text) for commit, text in commit_trailers(root, ids).items()}
