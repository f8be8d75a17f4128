"""The closed sets and the one check of a choice; the model's Literal types must match them."""

from __future__ import annotations

from typing import get_args

import pytest

from gitmem.base import kinds, model
from gitmem.base.errors import UsageError


@pytest.mark.parametrize("values, literal", [
    (kinds.TYPES, model.MemoryType), (kinds.DOMAINS, model.Domain),
    (kinds.TIERS, model.Tier), (kinds.BANDS, model.Band),
])
def test_closed_sets_match_the_model_literals(values: tuple[str, ...], literal: object) -> None:
    assert values, "a closed set is never empty"
    assert values == get_args(literal)
    assert len(set(values)) == len(values)


def test_bands_run_from_strongest_to_weakest() -> None:
    assert kinds.BANDS == ("core", "active", "background", "fading")
    assert kinds.TIERS[0] == "working" and kinds.TIERS[-1] == "archive"


@pytest.mark.parametrize("value", [None, *kinds.TYPES])
def test_check_choice_accepts_members_and_none(value: str | None) -> None:
    kinds.check_choice("type", value, kinds.TYPES)   # no exception


@pytest.mark.parametrize("value", ["Fact", "facts", "", " fact"])
def test_check_choice_refuses_and_lists_the_allowed_values(value: str) -> None:
    with pytest.raises(UsageError) as info:
        kinds.check_choice("type", value, kinds.TYPES)
    assert info.value.message.startswith(f"type {value!r} is not one of: ")
    assert ", ".join(kinds.TYPES) in info.value.message


def test_model_re_exports_the_same_sets() -> None:
    assert model.TYPES is kinds.TYPES and model.DOMAINS is kinds.DOMAINS
    assert model.TIERS is kinds.TIERS and model.BANDS is kinds.BANDS
