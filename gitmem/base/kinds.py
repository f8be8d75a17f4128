"""The closed sets of the model (types, domains, tiers, bands) and the one check of a choice.

Plain tuples in a module that imports nothing, so the command line can offer
them as choices without loading the model; ``gitmem.base.model`` declares the
matching ``Literal`` types and a test keeps the two equal.
"""

from __future__ import annotations

from gitmem.base.errors import UsageError

TYPES = ("fact", "preference", "decision", "skill", "error", "emotion", "pattern", "reflection")
DOMAINS = ("user", "self", "relationship", "world", "project")
TIERS = ("working", "short", "long", "archive")
BANDS = ("core", "active", "background", "fading")
# Memories about the person, the agent and their relationship hold in every project.
GLOBAL_DOMAINS = ("user", "self", "relationship")
# What recall can return: a memory of one of TYPES, or an episode (its own result type).
RESULT_TYPES = TYPES + ("episode",)


def check_choice(name: str, value: str | None, allowed: tuple[str, ...]) -> None:
    """Refuse a ``value`` outside its closed set (None means "not given")."""
    if value is not None and value not in allowed:
        raise UsageError(f"{name} {value!r} is not one of: {', '.join(allowed)}")
