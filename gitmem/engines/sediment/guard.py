"""The entry guard of every sedimentation operation (the seed's ``sedimentation_guard``) and the sandbox
of its targets (the seed's ``sandbox_path_check``, checked before the writer's amplitude step).

A violation is one ``ValidationError`` that lists every problem, raised before anything is written.
``gitmem check config`` applies the same rules to gitmem.yaml (``config_problems``).
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from gitmem.base.config import skill_problem as skill_problem
from gitmem.base.errors import SecurityError, ValidationError

THRESHOLD_MIN, THRESHOLD_MAX = 10, 30
MAX_CONTENT_BYTES = 1_048_576
TARGET_DIRS = ("bank/", "skills/")


@dataclass(frozen=True)
class Input:
    """What one operation brings to the guard; None: the operation does not set it."""

    threshold: float | None = None
    ttl_hours: float | None = None
    skill: str | None = None
    content_bytes: int = 0
    required: tuple[tuple[str, object], ...] = ()


def problems(given: Input) -> list[str]:
    """Every rule ``given`` breaks, in words (empty: it passes)."""
    found: list[str] = []
    t = given.threshold
    if t is not None and (isinstance(t, bool) or not isinstance(t, (int, float)) or t != t
                          or not THRESHOLD_MIN <= t <= THRESHOLD_MAX):
        found.append(f"threshold={t!r} is outside [{THRESHOLD_MIN}, {THRESHOLD_MAX}]")
    ttl = given.ttl_hours
    if ttl is not None and (isinstance(ttl, bool) or not isinstance(ttl, (int, float)) or ttl != ttl or ttl <= 0):
        found.append(f"ttl_hours={ttl!r} must be > 0")
    if given.skill is not None:
        problem = skill_problem(given.skill)
        if problem:
            found.append(problem)
    if not 0 <= given.content_bytes <= MAX_CONTENT_BYTES:
        found.append(f"content of {given.content_bytes} bytes is over the limit of {MAX_CONTENT_BYTES} (1 MiB)")
    for name, value in given.required:
        if value is None or (isinstance(value, str) and not value.strip()):
            found.append(f"{name} is required and empty")
    return found


def check(given: Input, operation: str) -> None:
    """Refuse ``operation`` with one error listing every problem of ``given``."""
    found = problems(given)
    if found:
        raise ValidationError(f"sediment {operation} refused, nothing written: " + "; ".join(found),
                              hint="fix each value listed and run the command again")


def check_target(path: str) -> str:
    """``path`` when a sedimentation write may go there (under bank/ or skills/, relative, no ``..``);
    else a ``SecurityError``. Symlinks are the writer's sandbox step, which runs on every write."""
    if not isinstance(path, str) or not path or "\x00" in path or "\\" in path:
        raise SecurityError(f"illegal sedimentation target: {path!r}")
    if path.startswith("/") or re.match(r"[A-Za-z]:", path):
        raise SecurityError(f"absolute sedimentation target: {path!r}")
    if ".." in path.split("/") or ".." in path:
        raise SecurityError(f"illegal path sequence in sedimentation target: {path!r}")
    if not path.startswith(TARGET_DIRS) or any(not part for part in path.split("/")):
        raise SecurityError(f"sedimentation target outside bank/ and skills/: {path!r}")
    return path


def in_scope(path: str) -> bool:
    """Whether a sedimentation review may change ``path`` (its kind's scope: a bank/ or skills/ file)."""
    try:
        check_target(path)
    except SecurityError:
        return False
    return path.endswith(".md")
