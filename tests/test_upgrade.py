"""``gitmem upgrade``: a repository of every earlier format (the fixture bundles) migrates to the current
one in a single commit, which ``git revert`` undoes; a current one is left alone."""

from __future__ import annotations

import re
import subprocess
from pathlib import Path

import pytest

from tests.conftest import NOW, run_cli
from gitmem.api import MemoryRepo
from gitmem.api import upgrade as upgrade_api
from gitmem.base.errors import UsageError
from gitmem.store import enginestate, formats

FIXTURES = Path(__file__).parent / "fixtures"
BUNDLES = {0: FIXTURES / "repo-v0.1.0.bundle", 1: FIXTURES / "repo-v1.bundle", 2: FIXTURES / "repo-v2.bundle"}


def git(repo: Path, *args: str) -> str:
    return subprocess.run(["git", "-C", str(repo), *args], check=True, capture_output=True, text=True).stdout


def clone(bundle: Path, path: Path) -> Path:
    subprocess.run(["git", "clone", "-q", "-b", "main", str(bundle), str(path)], check=True)
    return path


def test_every_fixture_bundle_has_the_format_its_name_says() -> None:
    found = {int(m.group(1)) for p in FIXTURES.glob("repo-v*.bundle") if (m := re.fullmatch(r"repo-v(\d+)\.bundle", p.name))}
    assert found == set(BUNDLES) - {0} and max(BUNDLES) == formats.FORMAT   # today's format has its bundle


@pytest.mark.parametrize("version", sorted(BUNDLES))
def test_each_format_opens_reads_and_writes(version: int, tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    repo_dir = clone(BUNDLES[version], tmp_path / "mem")
    assert formats.format_of((repo_dir / formats.STATE_FILE).read_bytes()) == version
    repo = MemoryRepo.open(repo_dir)
    assert repo.format == version
    texts = {m.content for m in repo.list(include_archive=True).memories}
    assert "The staging database listens on port 5433" in texts
    assert repo.remember("Always run the linter before pushing").action == "reinforced"
    code, out, _ = run_cli(["--repo", str(repo_dir), "--now", NOW, "recall", "linter", "--json"], capsys)
    assert code == 0 and "linter" in out


def test_a_format_0_repository_upgrades_in_one_commit_that_revert_undoes(
        tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    repo_dir = clone(BUNDLES[0], tmp_path / "old")
    before_head = git(repo_dir, "rev-parse", "HEAD").strip()
    old_state = (repo_dir / formats.STATE_FILE).read_bytes()
    code, out, _ = run_cli(["--repo", str(repo_dir), "upgrade", "--check"], capsys)
    assert code == 1 and "format 0: upgrade pending" in out and formats.STATE_FILE in out
    assert git(repo_dir, "rev-parse", "HEAD").strip() == before_head      # --check writes nothing

    code, out, _ = run_cli(["--repo", str(repo_dir), "--now", NOW, "upgrade"], capsys)
    assert code == 0 and f"upgraded from format 0 to {formats.FORMAT}" in out
    assert git(repo_dir, "rev-parse", "HEAD~1").strip() == before_head   # one commit
    # the format step, and .gitattributes naming the merge driver (0.1.0 had no such lines)
    assert git(repo_dir, "diff", "--name-only", "HEAD~1", "HEAD").split() == [formats.ATTRIBUTES, formats.STATE_FILE]
    assert f"Gitmem-Upgrade: 0 -> {formats.FORMAT}" in git(repo_dir, "log", "-1", "--format=%B")
    new_state = (repo_dir / formats.STATE_FILE).read_bytes()
    assert formats.format_of(new_state) == formats.FORMAT and new_state.startswith(b"# Engine state")
    from dataclasses import replace
    assert enginestate.read(new_state) == replace(enginestate.read(old_state), format=formats.FORMAT)
    assert MemoryRepo.open(repo_dir).format == formats.FORMAT
    assert git(repo_dir, "status", "--porcelain") == ""

    code, out, _ = run_cli(["--repo", str(repo_dir), "upgrade", "--check"], capsys)
    assert code == 0 and "current" in out
    assert run_cli(["--repo", str(repo_dir), "upgrade"], capsys)[0] == 0
    assert git(repo_dir, "rev-parse", "HEAD~1").strip() == before_head   # a second run commits nothing

    git(repo_dir, "revert", "--no-edit", "HEAD")
    assert (repo_dir / formats.STATE_FILE).read_bytes() == old_state
    assert git(repo_dir, "diff", before_head, "HEAD") == ""              # the tree is the old one again
    assert MemoryRepo.open(repo_dir).format == 0                          # and still read
    again = MemoryRepo.open(repo_dir).upgrade()
    assert (again.before, again.after, again.paths) == (0, formats.FORMAT, (formats.ATTRIBUTES, formats.STATE_FILE))


def test_a_current_repository_is_left_alone(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    repo_dir = clone(BUNDLES[formats.FORMAT], tmp_path / "mem")
    head = git(repo_dir, "rev-parse", "HEAD").strip()
    repo = MemoryRepo.open(repo_dir)
    assert repo.upgrade_pending() == upgrade_api.Upgraded(formats.FORMAT, formats.FORMAT, None, ())
    done = repo.upgrade()
    assert done.commit is None and done.paths == ()
    code, out, _ = run_cli(["--repo", str(repo_dir), "upgrade", "--json"], capsys)
    assert code == 0 and '"commit": null' in out
    assert git(repo_dir, "rev-parse", "HEAD").strip() == head
    state = enginestate.read((repo_dir / formats.STATE_FILE).read_bytes())
    assert state.drift_baseline is not None and state.stamp("drift_baseline") is not None   # what 0.2 pinned


def test_upgrade_completes_gitattributes_in_one_commit_that_revert_undoes(tmp_path: Path) -> None:
    # a repository of today's format whose .gitattributes a person trimmed (or an older tool wrote)
    repo_dir = clone(BUNDLES[formats.FORMAT], tmp_path / "mem")
    path = repo_dir / formats.ATTRIBUTES
    path.write_text("# ours\n*.png binary\n", encoding="utf-8")
    git(repo_dir, "commit", "-qam", "trim the attributes", "--no-verify")
    assert "gitmem-memory" not in git(repo_dir, "config", "--list")   # a plain clone: no driver yet
    head = git(repo_dir, "rev-parse", "HEAD").strip()
    repo = MemoryRepo.open(repo_dir)
    assert repo.upgrade_pending().paths == (formats.ATTRIBUTES,)
    done = repo.upgrade()
    assert done.paths == (formats.ATTRIBUTES,) and git(repo_dir, "rev-parse", "HEAD~1").strip() == head
    text = path.read_text(encoding="utf-8")
    assert text.startswith("# ours\n*.png binary\n") and formats.missing_attributes(text) == []
    assert "merge: gitmem-memory" in git(repo_dir, "check-attr", "merge", "--", "memory/user/ab/m-x.md")
    assert "gitmem" in git(repo_dir, "config", "merge.gitmem-memory.driver")   # the clone runs the driver too
    assert git(repo_dir, "status", "--porcelain") == ""
    assert repo.upgrade().commit is None                                    # once is enough
    git(repo_dir, "revert", "--no-edit", "HEAD")
    assert git(repo_dir, "diff", head, "HEAD") == ""


def test_a_tip_of_a_newer_format_is_not_upgraded(repo_dir: Path) -> None:
    repo = MemoryRepo.open(repo_dir)   # opened at the current format; then a newer gitmem commits
    state = repo_dir / formats.STATE_FILE
    state.write_text(state.read_text().replace(f"format: {formats.FORMAT}", f"format: {formats.FORMAT + 1}"))
    git(repo_dir, "commit", "-qam", "from the future", "--no-verify")
    head = git(repo_dir, "rev-parse", "HEAD")
    with pytest.raises(UsageError, match="reads formats up to"):
        repo.upgrade()
    assert git(repo_dir, "rev-parse", "HEAD") == head


def test_every_step_moves_one_format_up_and_the_chain_reaches_the_current_one() -> None:
    assert sorted(formats.STEPS) == list(range(formats.FORMAT))
    assert set(formats.FORMATS) == set(range(formats.FORMAT + 1))
    empty: dict[str, bytes] = {}
    for version in range(formats.FORMAT + 1):
        changes = formats.upgrade_changes(empty.get, version)
        state = changes.get(formats.STATE_FILE)
        assert formats.format_of(state) == formats.FORMAT if version < formats.FORMAT else changes == {}
