"""Hostile inputs: no argument becomes a git option or a crontab line, no path leads outside its folders."""

from __future__ import annotations

import subprocess
from pathlib import Path

import pytest

from tests.conftest import run_cli
from gitmem.api import MemoryRepo
from gitmem.base.clock import parse_time
from gitmem.base.errors import UsageError
from gitmem.base.gitio import Git, command
from gitmem.engines import integrate
from tests.loop_helpers import add_sessions, git

T = parse_time("2026-10-30T12:00:00Z")


def proposed(repo: MemoryRepo) -> str:
    repo.pattern_add("Retry flaky calls with backoff", ["backoff"], now=T)
    add_sessions(repo.root, ["backoff helps"] * 3)
    branch = repo.propose_weights(now=T).branch
    assert branch is not None
    return branch


# --- arguments that become commands ------------------------------------------------------------

@pytest.mark.parametrize("option", ["--receive-pack=touch {mark}", "--exec=touch {mark}", "-otouch {mark}"])
def test_review_push_never_runs_a_remote_given_as_an_option(repo: MemoryRepo, tmp_path: Path, option: str,
                                                           capsys: pytest.CaptureFixture[str]) -> None:
    proposed(repo)
    mark = tmp_path / "ran"
    with pytest.raises(UsageError, match="remote"):
        repo.review_push(option.format(mark=mark))
    code, _, err = run_cli(["--repo", str(repo.root), "review", "push", "--", option.format(mark=mark)], capsys)
    assert code in (1, 2) and "not a remote's name" in err
    assert not mark.exists()


def test_push_reads_a_remote_after_end_of_options_as_a_name(repo: MemoryRepo, tmp_path: Path) -> None:
    branch = proposed(repo)
    bare = tmp_path / "remote.git"
    subprocess.run(["git", "init", "-q", "--bare", str(bare)], check=True)
    git(repo.root, "remote", "add", "origin", str(bare))
    assert repo.review_push("origin") == [branch]
    assert git(bare, "rev-parse", branch) == git(repo.root, "rev-parse", branch)


@pytest.mark.parametrize("name", ["-D", "--exec=x", "a..b", "a b", "a\nb", "x.lock", "a/.hidden", "a:b", "@{-1}",
                                  "", "a~1", "end/"])
def test_ref_names_outside_gits_rules_are_refused(repo: MemoryRepo, name: str) -> None:
    with pytest.raises(UsageError):
        command.check_ref_name(name)
    with pytest.raises(UsageError):
        Git(repo.root).tip(name)
    if not name.startswith("-"):   # refs/heads/-D is a name git accepts: only a leading '-' is refused
        with pytest.raises(UsageError):
            Git(repo.root).delete_ref(f"refs/heads/{name}")


@pytest.mark.parametrize("name", ["gitmem/review/weights-2026-10", "main", "refs/heads/a_b-c.d", "v1.0"])
def test_ordinary_ref_names_pass(name: str) -> None:
    assert command.check_ref_name(name) == name


def test_review_accept_of_an_option_shaped_name_is_refused(repo: MemoryRepo,
                                                          capsys: pytest.CaptureFixture[str]) -> None:
    code, _, err = run_cli(["--repo", str(repo.root), "review", "show", "--", "--exec=touch x"], capsys)
    assert code in (1, 2) and "Traceback" not in err


@pytest.mark.parametrize("where", ["mem\n* * * * * touch /tmp/owned", "mem\r0 0 * * * id", "mem\x00x"])
def test_a_repository_path_with_a_line_break_adds_no_crontab_line(where: str) -> None:
    with pytest.raises(UsageError, match="crontab"):
        integrate.cron_command(["python3", "-m", "gitmem", "--repo", f"/home/p/{where}", "hook", "cron"], "/tmp/log")


def test_cron_install_for_a_repository_path_with_a_newline_leaves_the_crontab(tmp_path: Path,
                                                                            capsys: pytest.CaptureFixture[str]) -> None:
    where = tmp_path / "mem\n* * * * * touch owned"
    MemoryRepo.init(where, T, install_hooks=False)
    tab = tmp_path / "crontab"
    tab.write_text("0 3 * * * /usr/bin/backup\n")
    code, _, err = run_cli(["--repo", str(where), "cron", "install", "--crontab", str(tab)], capsys)
    assert code in (1, 2) and "control character" in err, err
    assert tab.read_text() == "0 3 * * * /usr/bin/backup\n"


def test_percent_in_a_cron_word_is_escaped() -> None:
    line = integrate.cron_command(["python3", "-m", "gitmem", "--repo", "/home/p/100%mem", "hook", "cron"], "/l")
    assert "%" not in line.replace("\\%", "")
