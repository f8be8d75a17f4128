"""Memorize: the one reinforce-or-create rule (created, reinforced, duplicates in and out of the batch)."""

from __future__ import annotations

from datetime import datetime, timezone

import pytest
from hypothesis import given
from hypothesis import strategies as st

from gitmem.base.config import Memory as MemoryConfig
from gitmem.base.config import Tiers
from gitmem.base.model import Memory, memory_path
from gitmem.engines import memorize

T = datetime(2026, 11, 29, 12, 0, tzinfo=timezone.utc)
CFG = MemoryConfig()
TEXT = "The deploy script needs the staging credentials file before it runs"
OTHER = "Grandmother's birthday is on the fourth of March every year"


def _new(mid: str, content: str, domain: str = "project", importance: float = 0.5) -> Memory:
    return memorize.new_memory(mid, content, "fact", domain, importance, "2026-11-01T00:00:00Z", T, CFG)


def test_new_memory_is_short_term_at_its_canonical_path() -> None:
    mem = memorize.new_memory("m-1", "x", "preference", "user", 0.123456, "2026-11-01T00:00:00Z", T, CFG,
                              keywords=("a",), tags=("t",), source="cli", source_id="s")
    assert (mem.tier, mem.path, mem.importance) == ("short", memory_path("user", "m-1"), 0.1235)
    assert mem.created == "2026-11-01T00:00:00Z" and mem.last_accessed == "2026-11-29T12:00:00Z"
    assert (mem.keywords, mem.tags, mem.source, mem.source_id) == (("a",), ("t",), "cli", "s")
    assert mem.reinforced == 0


@pytest.mark.parametrize("importance, band", [(0.95, "core"), (0.7, "core"), (0.69, "active"), (0.4, "active"),
                                              (0.3, "background"), (0.2, "background"), (0.1, "fading")])
def test_new_memory_band_follows_its_importance(importance: float, band: str) -> None:
    assert _new("m", "x", importance=importance).band == band


def test_reinforce_raises_importance_relatively_and_counts() -> None:
    mem = _new("m", "x", importance=0.5).with_(last_accessed="2026-01-01T00:00:00Z")
    again = memorize.reinforce(mem, T, CFG)
    assert again.importance == 0.55 and again.reinforced == 1
    assert again.last_accessed == "2026-11-29T12:00:00Z"
    assert (again.id, again.content, again.path, again.created) == (mem.id, mem.content, mem.path, mem.created)


def test_reinforce_moves_the_band_when_it_crosses_a_threshold() -> None:
    assert memorize.reinforce(_new("m", "x", importance=0.65), T, CFG).band == "core"


def test_reinforce_uses_the_configured_boost_and_tiers() -> None:
    cfg = MemoryConfig(reinforce_boost=0.5, tiers=Tiers(core=0.9, active=0.5, background=0.1))
    again = memorize.reinforce(_new("m", "x", importance=0.4), T, cfg)
    assert again.importance == 0.6 and again.band == "active"


@given(st.floats(min_value=0.0, max_value=1.0), st.integers(min_value=1, max_value=30))
def test_reinforcing_never_lowers_nor_passes_one(importance: float, times: int) -> None:
    mem = _new("m", "x", importance=importance)
    for _ in range(times):
        before = mem.importance
        mem = memorize.reinforce(mem, T, CFG)
        assert before <= mem.importance <= 1.0
    assert mem.reinforced == times


def test_batch_creates_distinct_memories() -> None:
    batch = memorize.Batch(None, T, CFG)
    a = batch.add(_new("a", TEXT))
    b = batch.add(_new("b", OTHER))
    assert (a.action, b.action) == ("created", "created")
    assert set(batch.planned) == {"a", "b"}
    assert all(p.stored is None for p in batch.planned.values())


def test_a_duplicate_within_the_batch_reinforces_the_first() -> None:
    batch = memorize.Batch(None, T, CFG)
    batch.add(_new("a", TEXT))
    out = batch.add(_new("b", TEXT))
    assert out.action == "reinforced" and out.memory.id == "a" and out.memory.reinforced == 1
    assert set(batch.planned) == {"a"}
    assert batch.planned["a"].stored is None      # still a new file: nothing stored to rewrite


def test_the_same_text_in_another_domain_is_not_a_duplicate() -> None:
    batch = memorize.Batch(None, T, CFG)
    batch.add(_new("a", TEXT, domain="project"))
    assert batch.add(_new("b", TEXT, domain="user")).action == "created"


def test_a_stored_duplicate_found_by_lookup_is_reinforced() -> None:
    stored = _new("s", TEXT).with_(importance=0.5, reinforced=2)
    batch = memorize.Batch(lambda m: stored if m.content == TEXT else None, T, CFG)
    out = batch.add(_new("new", TEXT))
    assert out.action == "reinforced" and out.memory.id == "s" and out.memory.reinforced == 3
    assert batch.planned["s"].stored == stored
    assert "new" not in batch.planned


def test_a_stored_duplicate_hit_twice_is_reinforced_once_per_hit_from_its_planned_value() -> None:
    stored = _new("s", TEXT)
    calls: list[str] = []

    def lookup(m: Memory) -> Memory | None:
        calls.append(m.id)
        return stored

    batch = memorize.Batch(lookup, T, CFG)
    first = batch.add(_new("n1", "the deploy script needs the staging credentials file"))
    second = batch.add(_new("n2", "deploy script needs staging credentials file before running"))
    assert first.action == second.action == "reinforced"
    assert list(batch.planned) == ["s"]
    assert batch.planned["s"].memory.reinforced == 2            # one step per hit, built on the planned value
    assert batch.planned["s"].stored == stored                  # the file to rewrite is still the stored one
    assert calls, "the lookup was asked"


def test_dedupe_false_creates_even_an_exact_duplicate() -> None:
    stored = _new("s", TEXT)
    batch = memorize.Batch(lambda m: stored, T, CFG)
    batch.add(_new("a", TEXT), dedupe=False)
    out = batch.add(_new("b", TEXT), dedupe=False)
    assert out.action == "created"
    assert set(batch.planned) == {"a", "b"}


def test_without_lookup_nothing_stored_is_consulted() -> None:
    batch = memorize.Batch(None, T, CFG)
    assert batch.add(_new("a", TEXT)).action == "created"


def test_negation_is_not_a_duplicate() -> None:
    batch = memorize.Batch(None, T, CFG)
    batch.add(_new("a", "The user likes dark mode in the editor"))
    assert batch.add(_new("b", "The user does not like dark mode in the editor")).action == "created"


def test_planned_and_outcome_are_plain_tuples() -> None:
    batch = memorize.Batch(None, T, CFG)
    action, mem = batch.add(_new("a", TEXT))
    assert action == "created" and mem.id == "a"
    planned_mem, stored = batch.planned["a"]
    assert planned_mem == mem and stored is None


@given(st.lists(st.tuples(st.sampled_from(["a b", "A  b", "a\tb ", "ab", "b a", "x"]), st.sampled_from(["user", "project"]),
                          st.booleans()), max_size=30))
def test_an_exact_batch_reinforces_the_first_planned_memory_with_the_same_words(rows: list[tuple[str, str, bool]]) -> None:
    """The exact rule as a pass over the batch would apply it (issue 13 item 1: it is one look-up now)."""
    stored = _new("stored", "Stored  TEXT", domain="user")
    batch = memorize.Batch(lambda m: stored if memorize.exact_key(m.content) == "stored text" else None, T, CFG, exact=True)
    expected: list[tuple[str, str]] = []
    order: list[tuple[str, str, str]] = []   # (id, domain, key) in planned order
    for i, (text, domain, dedupe) in enumerate(rows + [("stored text", "user", True)]):
        out = batch.add(_new(f"m{i}", text, domain=domain), dedupe=dedupe)
        key = memorize.exact_key(text)
        first = next((mid for mid, d, k in order if d == domain and k == key), None) if dedupe else None
        if first is None and dedupe and domain == "user" and key == "stored text":
            first = "stored"
        if first is None:
            order.append((f"m{i}", domain, key))
            expected.append(("created", f"m{i}"))
        else:
            if first == "stored" and all(mid != "stored" for mid, _, _ in order):
                order.append(("stored", "user", "stored text"))
            expected.append(("reinforced", first))
        assert (out.action, out.memory.id) == expected[-1]
