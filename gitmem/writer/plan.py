"""What one commit changes (``Plan``), what a write made of it (``Written``), and its commit message."""

from __future__ import annotations

from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from typing import Any, Generic, TypeVar

from gitmem.base.text import printable_label

T = TypeVar("T")


@dataclass(frozen=True)
class Plan(Generic[T]):
    """What one commit changes and how its message reads.

    ``defer`` lets the amplitude guard commit part of an automated append that
    grows a file past the limit and queue the rest (sedimentation); without it
    such a write is refused.

    ``outside``: top-level files a person's command may write beyond the
    allowed folders (``gitmem upgrade`` writes ``.gitattributes``); an
    automated plan (``auto``) never may.
    """

    changes: Mapping[str, bytes | None]
    subject: str
    event: str
    auto: bool = False
    session: str | None = None
    approved_by: str | None = None
    trailers: tuple[tuple[str, str], ...] = ()
    body: str = ""
    result: T | None = None
    merge_parents: tuple[str, ...] = ()    # a merge commit's other parents (review accept)
    defer: bool = False
    outside: tuple[str, ...] = ()


@dataclass(frozen=True)
class Written(Generic[T]):
    """The outcome: the commit (None when nothing changed), the plan, PII that was stripped,
    and the paths whose growth was partly queued for later writes."""

    commit: str | None
    branch: str
    plan: Plan[T] | None
    stripped: tuple[tuple[str, tuple[str, ...]], ...] = field(default=())
    deferred: tuple[str, ...] = ()

    @property
    def result(self) -> T | None:
        """What the planner put in its plan's ``result`` (None when it planned nothing)."""
        return self.plan.result if self.plan is not None else None

    def to_json(self) -> dict[str, object]:
        """The commit made (None: nothing changed)."""
        return {"commit": self.commit}


Planner = Callable[[str | None], "Plan[T] | None"]
"""A function of the branch tip (None: no commit yet) that returns the plan, or None for nothing to do."""


def message(plan: Plan[Any], count: int, deferred: tuple[str, ...] = ()) -> str:
    """Commit message: subject, optional body, then Gitmem-* trailers."""
    trailers = [("Gitmem-Event", plan.event)]
    if plan.auto:
        trailers.append(("Gitmem-Auto", "true"))
    if plan.session:
        trailers.append(("Gitmem-Session", plan.session))
    if plan.approved_by:
        trailers.append(("Gitmem-Approved-By", plan.approved_by))
    trailers.append(("Gitmem-Files", str(count)))
    trailers.extend(("Gitmem-Deferred", path) for path in deferred)
    trailers.extend(plan.trailers)
    lines = plan.subject.strip().splitlines()
    subject = printable_label(lines[0])[:200] if lines else ""   # no control or bidi character in a subject
    text = (subject or f"gitmem: {plan.event}") + "\n\n"
    if plan.body.strip():
        text += plan.body.strip() + "\n\n"
    return text + "\n".join(f"{k}: {printable_label(str(v))}" for k, v in trailers) + "\n"
