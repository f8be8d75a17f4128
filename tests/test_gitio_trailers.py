"""The one trailer reader: git's parser over a message being committed and over commits."""

from __future__ import annotations

import subprocess
from pathlib import Path

import pytest

from gitmem.base.gitio import Git, Trailers, read_commits, read_message
from gitmem.base.gitio.trailers import parse_lines

SCISSORS = "# ------------------------ >8 ------------------------"


def git(root: Path, *args: str, stdin: str | None = None) -> str:
    done = subprocess.run(["git", *args], cwd=root, input=stdin, capture_output=True, text=True)
    assert done.returncode == 0, done.stderr
    return done.stdout


@pytest.fixture
def repo(tmp_path: Path) -> Path:
    root = tmp_path / "r"
    root.mkdir()
    git(root, "init", "-q", "-b", "main")
    return root


def commit_message(root: Path, message: str) -> str:
    """Commit ``message`` with git's default cleanup for -F (strip) and return the id."""
    git(root, "commit", "-q", "--allow-empty", "--cleanup=strip", "-F", "-", stdin=message)
    return git(root, "rev-parse", "HEAD").strip()


# --- what the commit-msg hook decides -------------------------------------------------

@pytest.mark.parametrize(("message", "automated", "approved"), [
    ("Update patterns\n\nGitmem-Auto: true\n", True, False),
    ("Update\n\nGitmem-Event: x\ngitmem-auto: TRUE\nGitmem-Approved-By: Alice\n", True, True),
    ("Update\n\nGitmem-Approved-By: Alice\n\nGitmem-Auto: true\n", True, False),  # approval not in the trailers
    ("Fix a typo in my rules\n", False, False),
    ("Update\n\nGitmem-Auto: true\n# Gitmem-Approved-By: commented out\n", True, False),
    ("Update\n\nGitmem-Auto: false\n", False, False),
    ("Update\n\nGitmem-Auto: true\nGitmem-Approved-By:\n", True, False),
    ("Update\n\nGitmem-Auto: yes\n", True, False),
    ("Update\n\nGitmem-Auto: 1\n", True, False),
    ("Update\n\nGitmem-Auto: true\n\n" + SCISSORS + "\nGitmem-Approved-By: below the scissors\n", True, False),
    ("Update\n\nGitmem-Auto: true\nGitmem-Approved-By: Alice\n\n" + SCISSORS + "\ndiff --git a/x b/x\n", True, True),
    ("Update\n\n# a comment between\nGitmem-Auto: true\n", True, False),
    ("Update\n\nGitmem-Auto:   true  \n", True, False),
    ("Update\n\nGitmem-Auto: false\nGitmem-Auto: true\n", True, False),  # any value saying yes counts
])
def test_read_message_decides_like_the_hook(repo: Path, message: str, automated: bool, approved: bool) -> None:
    found = read_message(repo, message)
    assert (found.flag("Gitmem-Auto"), found.has("Gitmem-Approved-By")) == (automated, approved)


def test_read_message_keeps_every_value_of_a_repeated_key(repo: Path) -> None:
    found = read_message(repo, "Merge\n\nSigned-off-by: A <a@x>\nsigned-off-by: B <b@x>\nGitmem-Event: x\n")
    assert found.values("Signed-off-by") == ["A <a@x>", "B <b@x>"]
    assert found.values("SIGNED-OFF-BY") == ["A <a@x>", "B <b@x>"]
    assert found.get("signed-off-by") == "B <b@x>"
    assert len(found) == 3


def test_read_message_unfolds_continuation_lines(repo: Path) -> None:
    found = read_message(repo, "Subject\n\nGitmem-Note: a long\n  value on two lines\nGitmem-Event: x\n")
    assert found.get("Gitmem-Note") == "a long value on two lines"


def test_a_dashes_line_is_not_a_divider(repo: Path) -> None:
    # --no-divider: a memory's body may hold a `---` line; trailers after it still count.
    found = read_message(repo, "Subject\n\n---\n\nGitmem-Event: memory.create\n")
    assert found.get("Gitmem-Event") == "memory.create"


def test_prose_last_paragraph_has_no_trailers(repo: Path) -> None:
    found = read_message(repo, "Subject\n\nGitmem-Event: x\n\nThen a closing sentence: with a colon.\n")
    assert len(found) == 0
    assert found.get("Gitmem-Event") is None
    assert not found.flag("Gitmem-Event") and not found.has("Gitmem-Event")


def test_an_empty_message_has_no_trailers(repo: Path) -> None:
    assert read_message(repo, "") == Trailers()
    assert read_message(repo, "# only a comment\n") == Trailers()


def test_read_message_works_outside_a_repository(tmp_path: Path) -> None:
    assert read_message(tmp_path, "S\n\nGitmem-Auto: true\n").flag("gitmem-auto")


# --- commits ----------------------------------------------------------------------------

MESSAGES = [
    "Subject only\n",
    "Subject\n\nBody text.\n\nGitmem-Event: memory.create\nGitmem-Files: 3\n",
    "Subject\n\nGitmem-Event: a\ngitmem-event: b\nGitmem-Event: c\n",
    "Subject\n\n---\n\nGitmem-Auto: true\nGitmem-Approved-By: Alice\n",
    "Subject\n\nGitmem-Note: folded\n  over two lines\n",
    "Subject\n\nGitmem-Event: x\n\nA last paragraph in prose.\n",
]


def test_read_commits_agrees_with_read_message(repo: Path) -> None:
    assert MESSAGES
    ids = [commit_message(repo, message) for message in MESSAGES]
    found = read_commits(repo, ids)
    assert set(found) == set(ids)
    for commit, message in zip(ids, MESSAGES):
        assert found[commit] == read_message(repo, message), message


def test_read_commits_of_nothing_starts_no_git(tmp_path: Path) -> None:
    assert read_commits(tmp_path / "not-even-there", []) == {}


def test_git_trailers_reads_many_commits_in_order_given(repo: Path) -> None:
    ids = [commit_message(repo, f"c{i}\n\nGitmem-Files: {i}\n") for i in range(5)]
    found = Git(repo).trailers(list(reversed(ids)))
    assert [found[c].get("Gitmem-Files") for c in ids] == ["0", "1", "2", "3", "4"]


def test_duplicate_keys_survive_a_commit(repo: Path) -> None:
    commit = commit_message(repo, "S\n\nGitmem-Link: a\nGitmem-Link: b\n")
    assert read_commits(repo, [commit])[commit].values("gitmem-link") == ["a", "b"]


# --- the Trailers value ---------------------------------------------------------------

def test_parse_lines_skips_what_is_not_a_trailer() -> None:
    found = parse_lines("Key: v\nnot a trailer\n: no key\nSpaced Key: x\nOther:v2\n\n")
    assert list(found) == [("Key", "v"), ("Other", "v2")]


def test_last_values_keeps_the_first_spelling_and_the_last_value() -> None:
    found = Trailers([("Gitmem-Event", "a"), ("gitmem-event", "b"), ("Gitmem-Files", "2")])
    assert found.last_values() == {"Gitmem-Event": "b", "Gitmem-Files": "2"}


def test_trailers_compare_by_pairs() -> None:
    a = Trailers([("K", "v")])
    assert a == Trailers((("K", "v"),))
    assert a != Trailers([("K", "w")])
    assert a != [("K", "v")]
    assert hash(a) == hash(Trailers([("K", "v")]))
    assert "K" in repr(a)


@pytest.mark.parametrize(("value", "expected"), [
    ("true", True), ("TRUE", True), ("yes", True), ("1", True), (" true ", True), ("truthy", True),
    ("maybe", True), ("on", True),
    ("false", False), ("FALSE", False), ("0", False), ("", False), ("no", False), ("Off", False),
])
def test_flag_is_false_only_for_what_git_reads_as_false(value: str, expected: bool) -> None:
    assert Trailers([("Gitmem-Auto", value)]).flag("gitmem-auto") is expected


def test_flag_any_true_value_wins() -> None:
    both = Trailers([("Gitmem-Auto", "true"), ("gitmem-auto", "false")])
    assert both.flag("Gitmem-Auto") is True
    assert Trailers([("Gitmem-Auto", "no"), ("GITMEM-AUTO", "off")]).flag("Gitmem-Auto") is False


def test_has_needs_a_non_blank_value() -> None:
    assert not Trailers([("Gitmem-Approved-By", "  ")]).has("Gitmem-Approved-By")
    assert Trailers([("Gitmem-Approved-By", ""), ("Gitmem-Approved-By", "Al")]).has("Gitmem-Approved-By")
