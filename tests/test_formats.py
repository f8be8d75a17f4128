"""Format versions: a repository made by gitmem 0.1.0 opens and works; a newer format is refused."""

from __future__ import annotations

import subprocess
from pathlib import Path

import pytest

from tests.conftest import run_cli
from gitmem.api import MemoryRepo
from gitmem.base.errors import UsageError
from gitmem.store import formats

BUNDLE = Path(__file__).parent / "fixtures" / "repo-v0.1.0.bundle"
NOW = "2026-11-29T12:00:00Z"


@pytest.fixture
def old_repo(tmp_path: Path) -> Path:
    """A clone of a memory repository that gitmem 0.1.0 made (init, remember x3, harvest, reflect, forget)."""
    path = tmp_path / "old"
    subprocess.run(["git", "clone", "-q", "-b", "main", str(BUNDLE), str(path)], check=True)
    return path


def test_the_v010_repository_has_no_format_key(old_repo: Path) -> None:
    state = (old_repo / formats.STATE_FILE).read_bytes()
    assert b"format" not in state
    assert formats.format_of(state) == 0


def test_a_v010_repository_opens_and_lists_what_it_holds(old_repo: Path) -> None:
    repo = MemoryRepo.open(old_repo)
    assert repo.format == 0
    listing = repo.list(include_archive=True)
    texts = {m.content for m in listing.memories}
    assert {"The staging database listens on port 5433", "Always run the linter before pushing"} <= texts
    assert len(listing.memories) >= 6 and not listing.problems
    assert any(m.tier == "archive" for m in listing.memories)


def test_a_v010_repository_takes_new_writes(old_repo: Path, capsys: pytest.CaptureFixture[str]) -> None:
    repo = MemoryRepo.open(old_repo)
    again = repo.remember("Always run the linter before pushing")
    assert again.action == "reinforced"
    new = repo.remember("Release notes go in CHANGELOG.md under Unreleased")
    assert new.action == "created"
    code, out, _ = run_cli(["--repo", str(old_repo), "--now", NOW, "recall", "linter", "--json"], capsys)
    assert code == 0 and again.id in out
    assert run_cli(["--repo", str(old_repo), "--now", NOW, "decay"], capsys)[0] == 0
    assert run_cli(["--repo", str(old_repo), "--now", NOW, "reflect"], capsys)[0] == 0
    code, out, _ = run_cli(["--repo", str(old_repo), "why", again.id], capsys)
    assert code == 0 and again.id in out
    fsck = subprocess.run(["git", "-C", str(old_repo), "fsck", "--strict"], capture_output=True, text=True)
    assert fsck.returncode == 0, fsck.stderr


def test_a_new_repository_records_the_current_format(repo_dir: Path) -> None:
    assert formats.format_of((repo_dir / formats.STATE_FILE).read_bytes()) == formats.FORMAT
    assert MemoryRepo.open(repo_dir).format == formats.FORMAT


def test_a_newer_format_is_refused_with_a_hint(repo_dir: Path, capsys: pytest.CaptureFixture[str]) -> None:
    state = repo_dir / formats.STATE_FILE
    state.write_text(state.read_text().replace(f"format: {formats.FORMAT}", f"format: {formats.FORMAT + 1}"))
    subprocess.run(["git", "-C", str(repo_dir), "commit", "-qam", "from the future", "--no-verify"], check=True)
    with pytest.raises(UsageError, match="reads formats up to") as info:
        MemoryRepo.open(repo_dir)
    assert info.value.hint and "upgrade" in info.value.hint
    code, _, err = run_cli(["--repo", str(repo_dir), "list"], capsys)
    assert code == 1 and "format" in err and "hint:" in err


@pytest.mark.parametrize("text, expected", [
    (None, 0),
    (b"threshold: 15\n", 0),
    (b"format: 0\n", 0),
    (b"format: 1\nthreshold: 15\n", 1),
    (b"", 0),
    (b"- a list\n", 0),
])
def test_format_of_reads_the_key_or_zero(text: bytes | None, expected: int) -> None:
    assert formats.format_of(text) == expected


@pytest.mark.parametrize("text", [b"format: -1\n", b"format: one\n", b"format: true\n", b"format: 1.5\n",
                                  b"format: [1\n"])
def test_a_bad_format_value_is_a_clear_error(text: bytes) -> None:
    with pytest.raises(UsageError) as info:
        formats.format_of(text)
    assert info.value.hint and "git checkout" in info.value.hint


def test_the_attribute_lines_of_format_2_are_the_templates() -> None:
    from gitmem.api.initrepo import template_dir

    text = (template_dir() / ".gitattributes").read_text(encoding="utf-8")
    rules = tuple(line for line in text.splitlines() if line.strip() and not line.startswith("#"))
    assert rules == formats.ATTRIBUTE_LINES


def test_format_1_to_2_numbers_the_format_and_names_the_missing_attribute_lines() -> None:
    old = {formats.STATE_FILE: b"format: 1\n", ".gitattributes": b"*.md text eol=lf\n*.png binary\n"}
    changes = formats.upgrade_changes(old.get, 1)
    assert set(changes) == {formats.STATE_FILE} and formats.format_of(changes[formats.STATE_FILE]) == 2
    missing = formats.missing_attributes("*.md text eol=lf\n*.png binary\n")
    assert "*.md text eol=lf" not in missing and "memory/**/*.md merge=gitmem-memory" in missing
    assert formats.missing_attributes("\n".join(formats.ATTRIBUTE_LINES)) == []
