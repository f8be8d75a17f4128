"""The closed sets of the model a face offers as choices: memory types, domains, tiers, bands, and the
result types recall can return (``episode`` besides the memory types)."""

from __future__ import annotations


def choices(name: str) -> tuple[str, ...]:
    """The closed set ``name`` (type, result_type, domain, tier, band) in the model's order."""
    from gitmem.base import kinds

    sets: dict[str, tuple[str, ...]] = {"type": kinds.TYPES, "result_type": kinds.RESULT_TYPES,
                                        "domain": kinds.DOMAINS, "tier": kinds.TIERS, "band": kinds.BANDS}
    return sets[name]
