"""Values: ids, paths and shards, memories read from hand-edited front matter, and result JSON."""

from __future__ import annotations

import json
import re
from datetime import datetime, timezone
from typing import Any

import pytest
from hypothesis import given
from hypothesis import strategies as st

from gitmem.base import model
from gitmem.base.errors import ValidationError
from gitmem.base.model import Forgotten, Imported, Link, Memory, Reflected, Remembered

T = datetime(2026, 11, 29, 12, 0, 0, 123456, tzinfo=timezone.utc)


def test_iso_drops_microseconds_and_ends_in_z() -> None:
    assert model.iso(T) == "2026-11-29T12:00:00Z"


@pytest.mark.parametrize("value", ["a", "0", "m-2026-11-29-abc", "x" * 128, "a-b-c", "9lives"])
def test_valid_ids(value: str) -> None:
    assert model.is_valid_id(value)
    assert model.check_id(value) == value


@pytest.mark.parametrize("value", ["", "-a", "A", "a_b", "a.b", "a/b", "x" * 129, "é", "a b", "../a"])
def test_invalid_ids_are_refused_with_a_hint(value: str) -> None:
    assert not model.is_valid_id(value)
    with pytest.raises(ValidationError) as info:
        model.check_id(value)
    assert info.value.message == f"invalid memory id: {value!r}"
    assert info.value.hint is not None and "at most 128 characters" in info.value.hint


def test_check_id_refuses_non_strings() -> None:
    with pytest.raises(ValidationError):
        model.check_id(42)  # type: ignore[arg-type]  # the wrong type is the case under test


def test_new_id_carries_the_date_and_is_random_without_a_seed() -> None:
    a, b = model.new_id(T), model.new_id(T)
    assert re.fullmatch(r"m-2026-11-29-[0-9a-f]{10}", a)
    assert a != b
    assert model.is_valid_id(a)


def test_new_id_with_a_seed_is_stable_so_reimports_are_idempotent() -> None:
    assert model.new_id(T, seed="x") == model.new_id(T, seed="x")
    assert model.new_id(T, seed="x") != model.new_id(T, seed="y")
    assert model.new_id(T, seed="") != model.new_id(T)


@given(st.text(min_size=1, max_size=50))
def test_shard_is_two_hex_digits_and_deterministic(memory_id: str) -> None:
    s = model.shard(memory_id)
    assert re.fullmatch(r"[0-9a-f]{2}", s)
    assert s == model.shard(memory_id)


def test_shards_spread_ids_over_many_folders() -> None:
    shards = {model.shard(f"m-{i}") for i in range(2000)}
    assert len(shards) > 200


def test_memory_path_and_archived_and_legacy_paths() -> None:
    s = model.shard("m-1")
    assert model.memory_path("user", "m-1") == f"memory/user/{s}/m-1.md"
    assert model.memory_path("world", "m-1", archived=True) == f"archive/world/{s}/m-1.md"
    assert model.legacy_path("user", "m-1") == "memory/user/m-1.md"
    assert model.legacy_path("user", "m-1", archived=True) == "archive/user/m-1.md"


def _full() -> Memory:
    return Memory(id="m-1", content="Use tabs", type="preference", domain="user", tier="long", band="core",
                  importance=0.87654321, created="2026-11-01T00:00:00Z", last_accessed="2026-11-02T00:00:00Z",
                  reinforced=2, keywords=("tabs",), tags=("style",), links=(Link("m-2", "supports"),),
                  source="cli", source_id="s-9", project="github.com/acme/api", project_name="api", path="memory/user/aa/m-1.md", extra=(("mood", "calm"),))


def test_front_matter_follows_the_key_order_and_keeps_unknown_keys_last() -> None:
    data = _full().front_matter()
    assert list(data) == [*model.KEY_ORDER, "mood"]
    assert data["importance"] == 0.8765
    assert data["links"] == [{"to": "m-2", "relation": "supports"}]
    assert data["mood"] == "calm"


def test_front_matter_leaves_out_empty_optional_keys() -> None:
    data = Memory(id="m-1", content="x").front_matter()
    assert "tags" not in data and "links" not in data and "source_id" not in data
    assert data["keywords"] == [] and data["source"] == ""


def test_extra_keys_never_override_the_known_ones() -> None:
    mem = Memory(id="m-1", content="x", extra=(("id", "forged"),))
    assert mem.front_matter()["id"] == "m-1"


def test_extra_is_not_part_of_equality() -> None:
    assert Memory(id="m", content="x", extra=(("a", 1),)) == Memory(id="m", content="x")


def test_memory_is_frozen_and_with_makes_a_copy() -> None:
    mem = _full()
    with pytest.raises(AttributeError):
        mem.importance = 0.1  # type: ignore[misc]  # assigning a frozen field is the case under test
    other = mem.with_(importance=0.1, tier="archive")
    assert other.importance == 0.1 and other.archived and not mem.archived
    assert mem.importance == 0.87654321


def test_to_record_is_json_and_re_importable() -> None:
    rec = _full().to_record()
    assert json.loads(json.dumps(rec)) == rec
    assert rec["source_id"] == "s-9" and "path" not in rec
    assert rec["links"] == [{"to": "m-2", "relation": "supports"}]
    assert {"id", "content", "created", "tags", "type", "domain", "importance", "source"} <= set(rec)
    assert "source_id" not in Memory(id="m", content="x").to_record()


def test_to_json_adds_the_path() -> None:
    assert _full().to_json() == {**_full().to_record(), "path": "memory/user/aa/m-1.md"}


def test_result_values_serialise_to_json() -> None:
    mem = _full()
    rem = Remembered("m-1", "created", "abc", mem, reason="explicit", stripped=("email",)).to_json()
    assert rem == {"id": "m-1", "action": "created", "commit": "abc", "reason": "explicit",
                   "stripped": ["email"], "memory": mem.to_json()}
    imp = Imported(2, 1, 0, ((3, "no 'content' text"),), None, ids=("a", "b")).to_json()
    assert imp == {"created": 2, "reinforced": 1, "unchanged": 0,
                   "skipped": [{"line": 3, "reason": "no 'content' text"}], "commit": None,
                   "over_caps": [], "would_archive": 0, "review_limit": 0}
    assert Forgotten("m-1", None, "archive/user/aa/m-1.md").to_json() == {
        "id": "m-1", "commit": None, "path": "archive/user/aa/m-1.md"}
    ref = Reflected("c", ("p",), (), ("m-1", "m-2"), 3).to_json()
    assert ref == {"commit": "c", "created": ["p"], "updated": [], "consumed": ["m-1", "m-2"], "pending": 3,
                   "limit": 0, "review": None, "review_commit": None, "superseded": []}
    for value in (rem, imp, ref):
        json.dumps(value)


# --- memory_from: tolerant of what a person may write by hand ---------------

def test_memory_from_reads_every_field() -> None:
    mem = _full()
    again = model.memory_from(mem.front_matter(), "Use tabs\n", mem.path)
    assert again == mem.with_(importance=0.8765)   # front matter keeps four decimals
    assert dict(again.extra) == {"mood": "calm"}


def test_memory_from_with_empty_front_matter_uses_the_path() -> None:
    mem = model.memory_from({}, "\nbody\n\n", "memory/world/ab/m-7.md")
    assert (mem.id, mem.domain, mem.type, mem.tier, mem.band) == ("m-7", "world", "fact", "short", "active")
    assert mem.content == "body" and mem.importance == 0.5 and mem.reinforced == 0
    assert mem.keywords == () and mem.links == () and mem.source_id is None


def test_memory_from_an_archive_path_is_archived() -> None:
    assert model.memory_from({}, "x", "archive/user/ab/m-1.md").tier == "archive"
    assert model.memory_from({"tier": "long"}, "x", "archive/user/ab/m-1.md").tier == "long"


def test_memory_from_a_top_level_path_defaults_to_user() -> None:
    assert model.memory_from({}, "x", "m-1.md").domain == "user"


@pytest.mark.parametrize("raw, expected", [
    ("0.3", 0.3), ("high", 0.5), (None, 0.5), (7, 0.5), (-2, 0.5), (-0.5, 0.5), ("1.5", 0.5), ("nan", 0.5),
    ([1], 0.5), (True, 1.0), (0, 0.0), (1, 1.0),
])
def test_memory_from_importance_out_of_range_falls_back_to_the_default(raw: Any, expected: float) -> None:
    """An out-of-range or non-numeric importance reads as the default 0.5, never as 0 (which decay would archive)."""
    assert model.memory_from({"importance": raw}, "x", "memory/user/m.md").importance == expected


@pytest.mark.parametrize("raw, expected", [("3", 3), ("three", 0), (None, 0), ([2], 0), (2.9, 2)])
def test_memory_from_reinforced_falls_back_to_zero(raw: Any, expected: int) -> None:
    assert model.memory_from({"reinforced": raw}, "x", "memory/user/m.md").reinforced == expected


@pytest.mark.parametrize("raw, expected", [
    ("one", ("one",)), (["a", None, 3], ("a", "3")), (None, ()), ((), ()), (5, ("5",)),
])
def test_memory_from_lists_accept_a_single_value(raw: Any, expected: tuple[str, ...]) -> None:
    mem = model.memory_from({"keywords": raw, "tags": raw}, "x", "memory/user/m.md")
    assert mem.keywords == expected and mem.tags == expected


def test_memory_from_links_accept_strings_and_mappings_and_drop_junk() -> None:
    raw = ["m-2", {"to": "m-3"}, {"to": "m-4", "relation": "cause"}, {"relation": "x"}, 7, {"to": ""}]
    mem = model.memory_from({"links": raw}, "x", "memory/user/m.md")
    assert mem.links == (Link("m-2", "related"), Link("m-3", "related"), Link("m-4", "cause"))


def test_memory_from_last_accessed_falls_back_to_created() -> None:
    mem = model.memory_from({"created": "2026-01-01T00:00:00Z"}, "x", "memory/user/m.md")
    assert mem.last_accessed == "2026-01-01T00:00:00Z"


def test_memory_from_stringifies_scalars_a_yaml_reader_may_type() -> None:
    mem = model.memory_from({"id": 123, "source_id": 45, "created": 2026}, "x", "memory/user/m.md")
    assert mem.id == "123" and mem.source_id == "45" and mem.created == "2026"


@given(st.dictionaries(st.sampled_from([k for k in (*model.KEY_ORDER, "other", "more") if k != "links"]),
                       st.one_of(st.none(), st.text(max_size=5), st.integers(), st.floats(allow_nan=False, allow_infinity=False),
                                 st.lists(st.text(max_size=3), max_size=3)), max_size=8))
def test_memory_from_never_raises_and_keeps_importance_in_range(data: dict[str, Any]) -> None:
    mem = model.memory_from(data, "body", "memory/user/ab/m-1.md")
    assert 0.0 <= mem.importance <= 1.0
    assert isinstance(mem.reinforced, int)
    assert all(isinstance(k, str) for k in mem.keywords)


@pytest.mark.parametrize("raw", [1, 2.5, True])
def test_memory_from_a_scalar_links_value_is_tolerated(raw: Any) -> None:
    assert model.memory_from({"links": raw}, "x", "memory/user/m.md").links == ()



@pytest.mark.parametrize("raw", ["m-2", {"to": "m-2"}])
def test_memory_from_a_single_link_not_in_a_list(raw: Any) -> None:
    mem = model.memory_from({"links": raw}, "x", "memory/user/m.md")
    assert mem.links == (Link("m-2", "related"),)


def test_memory_from_an_infinite_reinforced_count_falls_back() -> None:
    assert model.memory_from({"reinforced": float("inf")}, "x", "memory/user/m.md").reinforced == 0


_ids = st.from_regex(r"[a-z0-9][a-z0-9-]{0,20}", fullmatch=True)
_words = st.text(st.characters(min_codepoint=97, max_codepoint=122), min_size=1, max_size=8)
_memories = st.builds(
    Memory, id=_ids, content=_words, type=st.sampled_from(model.TYPES), domain=st.sampled_from(model.DOMAINS),
    tier=st.sampled_from(model.TIERS), band=st.sampled_from(model.BANDS),
    importance=st.floats(0, 1).map(lambda x: round(x, 4)), created=st.just("2026-11-01T00:00:00Z"),
    last_accessed=st.just("2026-11-02T00:00:00Z"), reinforced=st.integers(0, 50),
    keywords=st.lists(_words, max_size=3).map(tuple), tags=st.lists(_words, max_size=3).map(tuple),
    links=st.lists(st.builds(Link, _ids, _words), max_size=3).map(tuple), source=_words,
    source_id=st.one_of(st.none(), _words))


@given(_memories)
def test_front_matter_and_memory_from_round_trip(mem: Memory) -> None:
    path = model.memory_path(mem.domain, mem.id, archived=mem.archived)
    mem = mem.with_(path=path)
    assert model.memory_from(mem.front_matter(), mem.content + "\n", path) == mem


@given(_memories)
def test_an_exported_record_imports_back_to_the_same_fields(mem: Memory) -> None:
    import tempfile
    from pathlib import Path

    from gitmem.engines import importer

    with tempfile.TemporaryDirectory() as folder:
        path = Path(folder) / "export.jsonl"
        path.write_text(json.dumps(mem.to_record()) + "\n")
        (row,), skipped = importer.read_jsonl(path)
    assert skipped == []
    assert (row.id, row.content, row.created, row.tags, row.type, row.domain, row.importance, row.source) == (
        mem.id, mem.content, mem.created, mem.tags, mem.type, mem.domain, mem.importance, mem.source)
