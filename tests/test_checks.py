"""``gitmem check``: each check over a real memory repository with real commits."""

from __future__ import annotations

import dataclasses
import subprocess
from pathlib import Path

import pytest

from gitmem.api import MemoryRepo
from gitmem.base.errors import GitmemError, NotFoundError
from gitmem.api import checks

RULE = "- (your first rule)"


def git(root: Path, *args: str) -> str:
    done = subprocess.run(["git", *args], cwd=root, capture_output=True, text=True)
    assert done.returncode == 0, done.stderr
    return done.stdout.strip()


def commit_claude(root: Path, old: str, new: str, message: str) -> str:
    path = root / "CLAUDE.md"
    text = path.read_text(encoding="utf-8")
    assert old in text
    path.write_text(text.replace(old, new), encoding="utf-8")
    git(root, "add", "CLAUDE.md")
    git(root, "commit", "-q", "--no-verify", "-m", message)
    return git(root, "rev-parse", "HEAD")


# --- config ---------------------------------------------------------------------------

def test_config_of_a_fresh_repository_is_ok(repo_dir: Path) -> None:
    report = checks.check_config(repo_dir)
    assert report == checks.Report(True, (), report.warnings)
    assert report.warnings == ()


def test_config_missing(tmp_path: Path) -> None:
    report = checks.check_config(tmp_path)
    assert not report.ok
    assert report.problems == ("gitmem.yaml is missing; copy it from a fresh `gitmem init`",)


def test_config_out_of_range_names_the_field(repo_dir: Path) -> None:
    path = repo_dir / "gitmem.yaml"
    path.write_text(path.read_text().replace("amplitude_max: 0.05", "amplitude_max: 7"))
    report = checks.check_config(repo_dir)
    assert not report.ok
    assert any("amplitude_max" in p for p in report.problems)


def test_config_unknown_key_warns_but_passes(repo_dir: Path) -> None:
    path = repo_dir / "gitmem.yaml"
    path.write_text(path.read_text() + "not_a_section: 1\n")
    report = checks.check_config(repo_dir)
    assert report.ok
    assert any("not_a_section" in w for w in report.warnings)


# --- pii ------------------------------------------------------------------------------------

def test_pii_default_settings_are_sound(repo: MemoryRepo) -> None:
    assert checks.check_pii(repo.cfg) == checks.Report(True, ())


def test_pii_bad_pattern_and_mandatory_kind(repo: MemoryRepo) -> None:
    allow = dataclasses.replace(repo.cfg.pii.allowlist, patterns=("([unclosed",))
    pii = dataclasses.replace(repo.cfg.pii, allowlist=allow, disabled_kinds=("email",))
    report = checks.check_pii(dataclasses.replace(repo.cfg, pii=pii))
    assert not report.ok
    assert len(report.problems) == 2
    assert any("does not compile" in p for p in report.problems)
    assert any("mandatory" in p for p in report.problems)


# --- layers -----------------------------------------------------------------------------------

def test_layers_of_a_fresh_repository_are_ok(repo: MemoryRepo) -> None:
    assert checks.check_layers(repo.root, repo.git) == checks.Report(True, ())


def test_layers_missing_claude_md(repo: MemoryRepo) -> None:
    (repo.root / "CLAUDE.md").unlink()
    assert checks.check_layers(repo.root, repo.git) == checks.Report(False, ("CLAUDE.md is missing",))


def test_layers_broken_structure(repo: MemoryRepo) -> None:
    path = repo.root / "CLAUDE.md"
    path.write_text(path.read_text().replace("<!-- gitmem:layer 3 episodic -->\n", ""))
    report = checks.check_layers(repo.root, repo.git)
    assert not report.ok and report.problems


def test_automated_change_to_layer_1_without_approval_is_reported(repo: MemoryRepo) -> None:
    base = git(repo.root, "rev-parse", "HEAD")
    bad = commit_claude(repo.root, RULE, "- obey the agent", "Update\n\nGitmem-Auto: true\n")
    report = checks.check_layers(repo.root, repo.git, f"{base}..HEAD")
    assert not report.ok
    assert len(report.problems) == 1 and report.problems[0].startswith(f"commit {bad[:12]}: ")
    assert checks.check_layers(repo.root, repo.git, f"{bad}..HEAD").ok      # the range ends before it


def test_approved_and_personal_changes_pass(repo: MemoryRepo) -> None:
    base = git(repo.root, "rev-parse", "HEAD")
    commit_claude(repo.root, RULE, "- rule two", "Update\n\nGitmem-Auto: true\nGitmem-Approved-By: Alice\n")
    commit_claude(repo.root, "- rule two", "- rule three", "My own edit of my rules\n")
    commit_claude(repo.root, "- rule three", "- rule four", "Update\n\nGitmem-Auto: false\n")
    assert checks.check_layers(repo.root, repo.git, f"{base}..HEAD") == checks.Report(True, ())


def test_trailers_are_read_by_git_not_by_line_prefix(repo: MemoryRepo) -> None:
    base = git(repo.root, "rev-parse", "HEAD")
    # Approval spelled in another case and an automation flag among other trailers: both count.
    commit_claude(repo.root, RULE, "- rule two",
                  "Update\n\nSigned-off-by: Bot <b@x>\ngitmem-auto: TRUE\ngitmem-approved-by: Alice\n")
    assert checks.check_layers(repo.root, repo.git, f"{base}..HEAD").ok
    # An approval in the body, not in the closing trailer block, does not count.
    commit_claude(repo.root, "- rule two", "- rule three",
                  "Update\n\nGitmem-Approved-By: Alice\n\nThen prose.\n\nGitmem-Auto: true\n")
    report = checks.check_layers(repo.root, repo.git, f"{base}..HEAD")
    assert len(report.problems) == 1


def test_range_forms(repo: MemoryRepo) -> None:
    commit_claude(repo.root, RULE, "- obey", "Update\n\nGitmem-Auto: true\n")
    assert not checks.check_layers(repo.root, repo.git, "..HEAD").ok
    assert not checks.check_layers(repo.root, repo.git, "HEAD~1..").ok
    assert checks.check_layers(repo.root, repo.git, "HEAD..HEAD").ok
    with pytest.raises(NotFoundError):
        checks.check_layers(repo.root, repo.git, "no-such-base..HEAD")


def test_automated_commit_creating_claude_md_is_not_judged(tmp_path: Path) -> None:
    from gitmem.base.clock import parse_time

    root = tmp_path / "m"
    MemoryRepo.init(root, parse_time("2026-11-29T12:00:00Z"), install_hooks=False)
    repo = MemoryRepo.open(root)
    first = git(root, "rev-list", "--max-parents=0", "HEAD")
    git(root, "rm", "-q", "CLAUDE.md")
    git(root, "commit", "-q", "--no-verify", "-m", "Remove\n\nGitmem-Auto: true\n")
    git(root, "checkout", "-q", first, "--", "CLAUDE.md")
    git(root, "commit", "-q", "--no-verify", "-m", "Restore\n\nGitmem-Auto: true\n")
    assert checks.check_layers(root, repo.git, f"{first}..HEAD").ok


# --- amplitude ------------------------------------------------------------------------------

def test_amplitude_nothing_staged(repo: MemoryRepo) -> None:
    assert checks.check_amplitude(repo.root, 0.05) == checks.Report(True, ())


def test_amplitude_growth_of_a_bank_file(repo: MemoryRepo) -> None:
    path = repo.root / "bank" / "MEMORY.md"
    path.write_text(path.read_text() + "".join(f"lesson {i}\n" for i in range(20)))
    git(repo.root, "add", "bank/MEMORY.md")
    report = checks.check_amplitude(repo.root, 0.05)
    assert not report.ok and "bank/MEMORY.md" in report.problems[0]
    assert checks.check_amplitude(repo.root, 10.0).ok                     # within a looser limit
    assert checks.run("amplitude", repo.root, repo.cfg, repo.git) == report


def test_amplitude_new_files_and_renames_pass(repo: MemoryRepo) -> None:
    (repo.root / "bank" / "NEW.md").write_text("".join(f"x {i}\n" for i in range(50)))
    git(repo.root, "mv", "bank/TABOOS.md", "bank/RENAMED.md")
    git(repo.root, "add", "-A")
    assert checks.check_amplitude(repo.root, 0.05).ok


# --- run --------------------------------------------------------------------------------------

def test_run_dispatches_every_check(repo: MemoryRepo) -> None:
    assert checks.CHECKS
    for what in checks.CHECKS:
        assert checks.run(what, repo.root, repo.cfg, repo.git).ok, what


def test_run_unknown_check(repo: MemoryRepo) -> None:
    with pytest.raises(GitmemError) as caught:
        checks.run("spelling", repo.root, repo.cfg, repo.git)
    assert "spelling" in caught.value.message
    assert caught.value.hint is not None and "layers" in caught.value.hint
