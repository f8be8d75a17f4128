"""Tests for gitmem.guards.pii.names: user names learned from a session's home paths."""

from __future__ import annotations

import pytest

from gitmem.guards import pii
from gitmem.guards.pii.names import Names, find_names, learnable, names_in, normal

SALT = b"0123456789abcdef"


def redacted(text: str, *names: str) -> str:
    from gitmem.guards import redact

    return redact.replace(text, find_names(text, Names(SALT, frozenset()).plus(names)))


@pytest.mark.parametrize(("paths", "names"), [
    (["/Users/alice.smith/proj"], ("alice.smith",)),
    (["/home/bjorn/src", "/home/bjorn/other"], ("bjorn",)),
    (["C:\\Users\\Chidi\\repo"], ("Chidi",)),
    (["/mnt/c/Users/dagny/x"], ("dagny",)),
    (["-Users-esperanza-gitmem"], ("esperanza",)),
    (["/root/app", "/home/user/x", "/home/dev/x", "/Users/admin/x", "/home/ubuntu/x", "/home/al/x"], ()),
    (["/srv/app", None or ""], ()),
])
def test_names_are_learned_from_home_paths_only(paths: list[str], names: tuple[str, ...]) -> None:
    assert names_in(paths) == names


@pytest.mark.parametrize("name", ["root", "admin", "user", "dev", "app", "test", "ubuntu", "al", "42", "Default"])
def test_generic_and_short_names_are_never_learned(name: str) -> None:
    assert not learnable(name)


@pytest.mark.parametrize(("text", "want"), [
    ("the user alice needs admin rights", "the user [HOME] needs admin rights"),
    ("ask Alice or ALICE", "ask [HOME] or [HOME]"),
    ("alicec and malice stay", "alicec and malice stay"),
    ("alice_b: an underscore separates words", "[HOME]_b: an underscore separates words"),
    ("alice.", "[HOME]."),
])
def test_a_learned_name_is_replaced_where_it_stands_alone(text: str, want: str) -> None:
    assert redacted(text, "alice") == want


@pytest.mark.parametrize(("text", "want"), [
    ("mail alice.smith today", "mail [HOME] today"),
    ("folder -Users-alice-smith-proj", "folder -Users-[HOME]-proj"),
    ("Alice_Smith wrote it", "[HOME] wrote it"),
    ("alice and smith", "alice and smith"),
])
def test_a_name_is_found_in_its_encoded_forms(text: str, want: str) -> None:
    assert redacted(text, "alice.smith") == want


def test_only_salted_hashes_are_kept() -> None:
    names = Names(SALT, frozenset()).plus(["Zebulon"])
    assert all("zebulon" not in h.lower() for h in names.hashes)
    assert names.hashes == Names(SALT, frozenset()).plus(["zebulon"]).hashes   # case-folded
    assert names.hashes != Names(b"another-salt", frozenset()).plus(["zebulon"]).hashes
    assert normal("Zebulon.Q") == "zebulon-q"


def test_nothing_is_found_without_names() -> None:
    assert find_names("alice", Names(SALT, frozenset())) == []
    assert pii.find_names is find_names
