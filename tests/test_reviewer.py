"""Tests for gitmem.guards.reviewer: accept, reject and rollback stay a person's decision."""

from __future__ import annotations

import pytest

from gitmem.base.errors import UsageError
from gitmem.guards.reviewer import AGENT_VARIABLES, OVERRIDE, agent_of, require_person


def test_a_person_at_a_terminal_passes() -> None:
    require_person("review accept", interactive=True, i_am_the_reviewer=False, environ={})


@pytest.mark.parametrize("value", ["1", "true", "yes", "", "0"])
def test_claude_code_is_refused_even_with_a_terminal(value: str) -> None:
    with pytest.raises(UsageError, match="CLAUDECODE") as info:
        require_person("review accept", interactive=True, i_am_the_reviewer=False, environ={"CLAUDECODE": value})
    assert info.value.hint is not None and "does not apply under an agent" in info.value.hint


@pytest.mark.parametrize("variable", [v for v, _ in AGENT_VARIABLES])
def test_every_agent_variable_refuses_even_the_override(variable: str) -> None:
    """Set at all, even empty, under a terminal and with the person's flag: still an agent's shell."""
    for value in ("1", ""):
        with pytest.raises(UsageError, match=variable):
            require_person("review accept", interactive=True, i_am_the_reviewer=True, environ={variable: value})


def test_agent_of_names_the_agent_and_ignores_other_variables() -> None:
    assert agent_of({"PATH": "/bin", "CLAUDE_CODE_ENTRYPOINT": "cli"}) == ("CLAUDE_CODE_ENTRYPOINT", "Claude Code")
    assert agent_of({"OPENCLAW_SHELL": "exec"}) == ("OPENCLAW_SHELL", "OpenClaw")
    assert agent_of({"PATH": "/bin", "CLAUDE_CONFIG_DIR": "x", "OPENCLAW_STATE_DIR": "y"}) is None


def test_no_terminal_is_refused() -> None:
    with pytest.raises(UsageError, match="rollback is a person's decision and no terminal") as info:
        require_person("rollback", interactive=False, i_am_the_reviewer=False, environ={})
    assert info.value.hint is not None and OVERRIDE in info.value.hint


def test_the_override_is_the_persons_word_outside_an_agent() -> None:
    require_person("review reject", interactive=False, i_am_the_reviewer=True, environ={"PATH": "/bin"})


def test_the_readme_lists_every_agent_variable() -> None:
    from pathlib import Path

    readme = (Path(__file__).resolve().parent.parent / "README.md").read_text(encoding="utf-8")
    missing = [v for v, _ in AGENT_VARIABLES if f"`{v}`" not in readme]
    assert not missing, f"README.md does not list {missing}"
