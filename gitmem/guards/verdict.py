"""What a guard says about a write: allow it, refuse it with a reason, or allow part and defer the rest.

A guard takes the changes a plan makes and returns one of three values; the
writer (``gitmem.writer``) acts on it. ``Allow`` may carry changes that differ
from the plan's (the PII guard replaces PII by placeholders); ``Defer`` carries
the batch to commit now (the queue files under ``.gitmem/pending/`` included)
and names the paths whose rest was queued; ``Refuse`` carries the error the
writer raises, nothing written.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass

from gitmem.base.errors import GitmemError

Changes = Mapping[str, "bytes | None"]
"""A write's file changes: path to new bytes, None deletes."""


@dataclass(frozen=True)
class Allow:
    """Commit ``changes`` (the plan's own, or as a guard rewrote them)."""

    changes: Changes


@dataclass(frozen=True)
class Refuse:
    """Write nothing; ``error`` says why and what to do next."""

    error: GitmemError

    @property
    def reason(self) -> str:
        """The refusal in words."""
        return self.error.message


@dataclass(frozen=True)
class Defer:
    """Commit ``changes`` now (a batch of each path in ``deferred``, and its queue); the rest waits."""

    changes: Changes
    deferred: tuple[str, ...]
    reason: str


Verdict = Allow | Refuse | Defer


def then(first: Verdict, second: Verdict) -> Verdict:
    """Two guards' verdicts in a row, ``second`` judged on ``first``'s changes: a refusal wins,
    a deferral is kept, else the later changes."""
    if isinstance(first, Refuse):
        return first
    if isinstance(second, Refuse):
        return second
    deferred = (first.deferred if isinstance(first, Defer) else ()) + (second.deferred if isinstance(second, Defer) else ())
    if not deferred:
        return second
    reasons = [v.reason for v in (first, second) if isinstance(v, Defer)]
    return Defer(second.changes, tuple(dict.fromkeys(deferred)), "; ".join(reasons))
