"""Tests for gitmem.guards.reviewer: accept, reject and rollback stay a person's decision."""

from __future__ import annotations

import pytest

from gitmem.base.errors import UsageError
from gitmem.guards.reviewer import OVERRIDE, require_person


def test_a_person_at_a_terminal_passes() -> None:
    require_person("review accept", interactive=True, i_am_the_reviewer=False, environ={})


@pytest.mark.parametrize("value", ["1", "true", "yes"])
def test_claude_code_is_refused_even_with_a_terminal(value: str) -> None:
    with pytest.raises(UsageError, match="CLAUDECODE") as info:
        require_person("review accept", interactive=True, i_am_the_reviewer=False, environ={"CLAUDECODE": value})
    assert info.value.hint is not None and OVERRIDE in info.value.hint


def test_an_empty_claudecode_is_not_claude_code() -> None:
    require_person("rollback", interactive=True, i_am_the_reviewer=False, environ={"CLAUDECODE": ""})


def test_no_terminal_is_refused() -> None:
    with pytest.raises(UsageError, match="rollback is a person's decision and no terminal") as info:
        require_person("rollback", interactive=False, i_am_the_reviewer=False, environ={})
    assert info.value.hint is not None and OVERRIDE in info.value.hint


def test_the_override_is_the_persons_word() -> None:
    require_person("review reject", interactive=False, i_am_the_reviewer=True, environ={"CLAUDECODE": "1"})
