"""A person's decision from the command line: review accept and reject and rollback refuse to run without a
terminal (unless the person says ``--i-am-the-reviewer``) and under an agent (always). Each refusal is a usage
error: exit 2, the reason and what to do on stderr, nothing on stdout, and nothing changed."""

from __future__ import annotations

import re
import subprocess
from pathlib import Path

import pytest

from gitmem.api import MemoryRepo
from gitmem.base.clock import parse_time
from gitmem.base.errors import ArgumentError
from gitmem.guards.reviewer import AGENT_VARIABLES, OVERRIDE, require_person
from tests.conftest import NOW, run_cli
from tests.loop_helpers import proposed

T = parse_time(NOW)


def refs(root: Path) -> str:
    return subprocess.run(["git", "for-each-ref", "--format=%(refname) %(objectname)"], cwd=root,
                          capture_output=True, text=True, check=True).stdout


def decisions(repo: MemoryRepo) -> dict[str, list[str]]:
    """Each decision's command line, on a repository with an open review and a snapshot before a change."""
    branch = proposed(repo)
    tag = repo.snapshot(T).tag
    repo.remember("The release train leaves on Thursdays", now=T)
    return {"review accept": ["review", "accept", branch], "review reject": ["review", "reject", branch],
            "rollback": ["rollback", tag]}


@pytest.fixture
def decided(repo: MemoryRepo) -> tuple[MemoryRepo, dict[str, list[str]]]:
    return repo, decisions(repo)


@pytest.mark.parametrize("action", ["review accept", "review reject", "rollback"])
def test_without_a_terminal_a_decision_is_a_usage_error(decided: tuple[MemoryRepo, dict[str, list[str]]],
                                                       action: str, capsys: pytest.CaptureFixture[str]) -> None:
    repo, argv = decided
    before = refs(repo.root)
    code, out, err = run_cli(["--repo", str(repo.root), *argv[action]], capsys)   # pytest's stdin is no terminal
    assert (code, out) == (2, "")
    assert f"gitmem: error: {action} is a person's decision and no terminal is attached" in err
    assert f"hint: run it in a terminal, or add {OVERRIDE}" in err
    assert refs(repo.root) == before


@pytest.mark.parametrize("action", ["review accept", "review reject", "rollback"])
@pytest.mark.parametrize("variable", [v for v, _ in AGENT_VARIABLES])
def test_under_an_agent_no_flag_makes_it_a_persons_decision(decided: tuple[MemoryRepo, dict[str, list[str]]],
                                                           action: str, variable: str,
                                                           capsys: pytest.CaptureFixture[str],
                                                           monkeypatch: pytest.MonkeyPatch) -> None:
    repo, argv = decided
    before = refs(repo.root)
    monkeypatch.setenv(variable, "")                                   # set at all counts, even empty
    code, out, err = run_cli(["--repo", str(repo.root), *argv[action], OVERRIDE], capsys)
    assert (code, out) == (2, "") and f"({variable} is set)" in err and "outside the agent" in err
    assert refs(repo.root) == before


def test_the_flag_is_a_persons_word_outside_an_agent(decided: tuple[MemoryRepo, dict[str, list[str]]],
                                                    capsys: pytest.CaptureFixture[str]) -> None:
    repo, argv = decided
    code, out, err = run_cli(["--repo", str(repo.root), *argv["rollback"], OVERRIDE], capsys)
    assert code == 0 and out.startswith("rolled back to gitmem/snapshot/") and err == ""
    code, out, _ = run_cli(["--repo", str(repo.root), *argv["review reject"], "--reason", "not now", OVERRIDE],
                           capsys)
    assert code == 0 and out.startswith("rejected ") and "not now" in out


@pytest.mark.parametrize("environ, interactive, flag, refused", [
    ({}, True, False, None),                                          # a person at a terminal
    ({}, False, True, None),                                          # a person's script, with the flag
    ({}, False, False, "no terminal is attached"),
    ({"CLAUDECODE": "1"}, True, True, "runs under Claude Code (CLAUDECODE is set)"),
    ({"CLAUDE_CODE_ENTRYPOINT": ""}, True, False, "CLAUDE_CODE_ENTRYPOINT is set"),
    ({"PATH": "/bin", "TERM": "xterm"}, False, False, "no terminal is attached"),   # other variables are not agents
])
def test_require_person(environ: dict[str, str], interactive: bool, flag: bool, refused: str | None) -> None:
    if refused is None:
        require_person("rollback", interactive, flag, environ)
        return
    with pytest.raises(ArgumentError, match=re.escape(refused)) as info:
        require_person("rollback", interactive, flag, environ)
    assert info.value.message.startswith("rollback is a person's decision") and info.value.hint
