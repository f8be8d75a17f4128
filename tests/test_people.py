"""Person folders of a team repository (gitmem.base.people): the folder a person's memories live in, who
sees which path, and where a new or archived personal memory goes. A wrong answer here shows one person's
memories to another, so the rules are pinned as tables and as properties."""

from __future__ import annotations

import re
import subprocess
from pathlib import Path

import pytest
from hypothesis import given
from hypothesis import strategies as st

from gitmem.base import people

SALT = "0123456789abcdef0123456789abcdef"
ME = people.folder_of(SALT, "ada@example.com")
OTHER = people.folder_of(SALT, "chen@example.com")

emails = st.emails()
salts = st.text(st.sampled_from("0123456789abcdef"), min_size=32, max_size=32)
domains = st.sampled_from(["user", "self", "relationship", "project", "world", "fact"])
names = st.text(st.sampled_from("abcdef0123456789-"), min_size=1, max_size=12).map(lambda s: f"m-{s}.md")
shards = st.text(st.sampled_from("0123456789abcdef"), min_size=2, max_size=2)


def test_a_folder_is_p_and_16_hex_digits_of_the_salted_address() -> None:
    assert re.fullmatch(r"p-[0-9a-f]{16}", ME)
    assert ME != OTHER and ME != people.folder_of(SALT.replace("0", "1"), "ada@example.com")


@given(salts, emails)
def test_the_address_is_read_without_case_or_surrounding_blanks(salt: str, email: str) -> None:
    assert people.folder_of(salt, email) == people.folder_of(f" {salt}\n", f"  {email.upper()} ")
    assert email.lower() not in people.folder_of(salt, email)


def test_the_salt_is_32_hex_digits_and_a_line_end_and_new_each_time() -> None:
    one, two = people.new_salt(), people.new_salt()
    assert re.fullmatch(rb"[0-9a-f]{32}\n", one) and one != two


@pytest.mark.parametrize("path, owner", [
    (f"memory/user/{ME}/ab/m-1.md", ME),
    (f"archive/self/{ME}/ab/m-1.md", ME),
    ("memory/user/ab/m-1.md", None),                                   # a shared memory
    (f"memory/user/{ME}", None),                                       # a folder, not a memory in it
    (f"patterns/{ME}/x/y.md", None),                                   # only memory/ and archive/ hold people
    (f"memory/user/{ME.upper()}/ab/m-1.md", None),                     # not the folder's spelling
    (f"memory/user/{ME}0/ab/m-1.md", None),                            # 17 digits
    ("memory/user/p-/ab/m-1.md", None),                                # NOBODY is no one's folder
])
def test_person_of(path: str, owner: str | None) -> None:
    assert people.person_of(path) == owner


@pytest.mark.parametrize("path, viewer, seen", [
    (f"memory/user/{ME}/ab/m-1.md", ME, True),
    (f"memory/user/{ME}/ab/m-1.md", OTHER, False),                     # another person's folder: never
    (f"memory/user/{ME}/ab/m-1.md", people.NOBODY, False),             # a clone with no salt or email
    ("memory/project/ab/m-1.md", OTHER, True),                         # shared memories: everyone
    ("memory/project/ab/m-1.md", people.NOBODY, True),
    (f"memory/user/{ME}/ab/m-1.md", None, True),                       # not a team repository
])
def test_visible(path: str, viewer: str | None, seen: bool) -> None:
    assert people.visible(path, viewer) is seen


@given(domains, shards, names)
def test_a_new_personal_memory_goes_into_the_persons_folder_and_only_its_owner_sees_it(
        domain: str, shard: str, name: str) -> None:
    canonical = f"memory/{domain}/{shard}/{name}"
    placed = people.placed(canonical, ME)
    if domain in people.PERSONAL_DOMAINS:
        assert placed == f"memory/{domain}/{ME}/{shard}/{name}"
        assert people.person_of(placed) == ME
        assert people.visible(placed, ME) and not people.visible(placed, OTHER)
    else:
        assert placed == canonical and people.person_of(placed) is None and people.visible(placed, OTHER)


@given(domains, shards, names)
def test_an_archived_memory_stays_in_its_persons_folder(domain: str, shard: str, name: str) -> None:
    canonical_archive = f"archive/{domain}/{shard}/{name}"
    live = people.placed(f"memory/{domain}/{shard}/{name}", ME)
    archived = people.archived(live, canonical_archive)
    assert people.person_of(archived) == people.person_of(live)
    assert archived.removeprefix("archive/") == live.removeprefix("memory/") or people.person_of(live) is None


@pytest.mark.parametrize("path", ["episodes/2026/x.md", "memory/user/m-1.md", "memory/user/ab/m-1.txt",
                                  f"memory/user/{ME}/ab/m-1.md"])
def test_paths_other_than_a_canonical_memory_are_not_moved(path: str) -> None:
    assert people.placed(path, OTHER) == path


@pytest.mark.parametrize("content, salt", [(None, None), (b"", None), (b"  \n", None), (b"\xff\xfe", None),
                                           (f"  {SALT}\n".encode(), SALT)])
def test_salt_of_the_work_tree(tmp_path: Path, content: bytes | None, salt: str | None) -> None:
    if content is not None:
        (tmp_path / people.SALT_FILE).parent.mkdir(parents=True)
        (tmp_path / people.SALT_FILE).write_bytes(content)
    assert people.salt_of(tmp_path) == salt


def test_whoami(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    subprocess.run(["git", "init", "-q", str(tmp_path)], check=True)
    assert people.whoami(tmp_path, "personal") is None                 # not shared: nobody is placed
    assert people.whoami(tmp_path, people.TEAM) == people.NOBODY       # no salt yet
    (tmp_path / ".gitmem").mkdir()
    (tmp_path / people.SALT_FILE).write_text(SALT + "\n")
    assert people.whoami(tmp_path, people.TEAM) == people.folder_of(SALT, "test@example.com")
    subprocess.run(["git", "config", "user.email", "Ada@Example.com"], cwd=tmp_path, check=True)
    assert people.email_of(tmp_path) == "Ada@Example.com"
    assert people.whoami(tmp_path, people.TEAM) == ME
