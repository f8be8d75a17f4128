"""engines/integrate: gitmem's entries merged into Claude Code settings, a CLAUDE.md and a crontab, and taken out again,
touching nothing else."""

from __future__ import annotations

import json

import pytest
from hypothesis import given
from hypothesis import strategies as st

from gitmem.base.errors import UsageError
from gitmem.engines import integrate as ig

PY = "/opt/py 3/bin/python3"
REPO = "/home/me/memory"
HANDLERS = ig.claude_handlers(PY, REPO)


def _ours(data: dict[str, object]) -> dict[str, list[str]]:
    return ig.installed(data)


# --- settings ---------------------------------------------------------------------------------

def test_hooks_added_to_empty_settings_have_the_documented_shape() -> None:
    data = ig.add_hooks({}, HANDLERS)
    start = data["hooks"]["SessionStart"]  # type: ignore[index]
    end = data["hooks"]["SessionEnd"]  # type: ignore[index]
    assert start == [{"matcher": "startup|resume|clear|compact|fork",
                      "hooks": [{"type": "command", "command": ig.hook_command(PY, REPO, "session-start")}]}]
    assert end[0]["hooks"][0]["timeout"] >= 5 and end[0]["hooks"][0]["type"] == "command"
    assert "'/opt/py 3/bin/python3' -m gitmem hook session-end --repo /home/me/memory" == end[0]["hooks"][0]["command"]


OTHER = {
    "": "an empty key",
    "model": "opus",
    "ünïcode key": [1, 2.5, None, True, {"nested": {"deep": []}}],
    "a.b": {"hooks": "not claude's"},
    "permissions": {"allow": ["Bash(git status)"]},
    "hooks": {
        "PreToolUse": [{"matcher": "Bash", "hooks": [{"type": "command", "command": "lint-guard"}]}],
        "SessionStart": [{"hooks": [{"type": "command", "command": "echo started"}]}, "a stray string"],
        "SessionEnd": [{"matcher": "logout", "hooks": [{"type": "command", "command": "backup.sh", "timeout": 3}]}],
    },
    "zz_last": 12345678901234567890,
}


def test_other_keys_and_hooks_stay_where_they_were_and_removal_restores_them() -> None:
    before = json.loads(json.dumps(OTHER))
    added = ig.add_hooks(before, HANDLERS)
    assert before == OTHER                       # the input is not modified
    assert list(added) == list(OTHER)            # key order kept
    assert list(added["hooks"]) == list(OTHER["hooks"])  # type: ignore[call-overload]
    hooks = added["hooks"]
    assert hooks["SessionStart"][:2] == OTHER["hooks"]["SessionStart"]  # type: ignore[index]
    assert hooks["SessionEnd"][0] == OTHER["hooks"]["SessionEnd"][0]  # type: ignore[index]
    assert set(_ours(added)) == {"SessionStart", "SessionEnd"}
    assert ig.remove_hooks(added) == OTHER


def test_installing_twice_is_installing_once() -> None:
    once = ig.add_hooks(OTHER, HANDLERS)
    assert ig.add_hooks(once, HANDLERS) == once
    assert all(len(v) == 1 for v in _ours(once).values())


def test_a_stale_entry_of_ours_is_replaced_where_it_stands_and_duplicates_go() -> None:
    old = "gitmem hook session-start"
    data = {"hooks": {"SessionStart": [
        {"hooks": [{"type": "command", "command": "echo a"}, {"type": "command", "command": old}]},
        {"matcher": "startup", "hooks": [{"type": "command", "command": "/usr/bin/gitmem hook session-start --repo /x"}]},
        {"hooks": [{"type": "command", "command": "echo b"}]}]}}
    added = ig.add_hooks(data, HANDLERS)
    groups = added["hooks"]["SessionStart"]  # type: ignore[index]
    assert [h["command"] for h in groups[0]["hooks"]] == ["echo a", ig.hook_command(PY, REPO, "session-start")]
    assert [h["command"] for g in groups[1:] for h in g["hooks"]] == ["echo b"]   # the emptied group went
    assert _ours(added)["SessionStart"] == [ig.hook_command(PY, REPO, "session-start")]


@pytest.mark.parametrize(("command", "action", "ours"), [
    ("gitmem hook session-start", "session-start", True),
    ("/usr/local/bin/gitmem hook session-end --repo '/a b'", "session-end", True),
    ("'/x y/python' -m gitmem hook session-start --repo /m", "session-start", True),
    ("gitmem hook pii", "session-start", False),
    ("mygitmem hook session-start", "session-start", False),
    ("gitmem hook session-startx", "session-start", False),
    ("gitmem 'unbalanced", "session-start", False),
    ("gitmem hook session-end", "session-start", False),
    (None, "session-start", False),
    (["gitmem", "hook", "session-start"], "session-start", False),
])
def test_our_entry_is_recognised_by_its_command(command: object, action: str, ours: bool) -> None:
    assert ig.is_ours(command, action) is ours


def test_removing_when_nothing_is_ours_changes_nothing() -> None:
    assert ig.remove_hooks(OTHER) == OTHER
    assert ig.remove_hooks({}) == {}
    assert ig.remove_hooks({"hooks": {}}) == {"hooks": {}}


@pytest.mark.parametrize("bad", [{"hooks": []}, {"hooks": "x"}, {"hooks": {"SessionStart": {"hooks": []}}},
                                 {"hooks": {"SessionEnd": "gitmem"}}])
def test_hooks_of_the_wrong_shape_are_refused_not_rewritten(bad: dict[str, object]) -> None:
    with pytest.raises(UsageError) as caught:
        ig.add_hooks(bad, HANDLERS, "settings.json")
    assert caught.value.hint and "settings.json" in caught.value.message


@pytest.mark.parametrize("text", [
    '{"a": 1,}', '{"a": 1} trailing', "// a comment\n{}", "{'a': 1}", '{"a": 1, "a": 2}',
    '{"hooks": {"x": 1, "x": 2}}', "[1, 2]", '"text"', "null", "[" * 100_000, "{\"a\": NaN",
])
def test_a_file_that_is_not_a_json_object_is_refused_with_a_hint(text: str) -> None:
    with pytest.raises(UsageError) as caught:
        ig.parse_settings(text, "s.json")
    assert caught.value.hint and "s.json" in caught.value.message


def test_an_empty_file_is_empty_settings() -> None:
    assert ig.parse_settings("") == {} and ig.parse_settings(" \n") == {}


@pytest.mark.parametrize(("like", "prefix"), [("{\n    \"a\": 1\n}\n", '{\n    "hooks"'), ("{\n\t\"a\": 1\n}", '{\n\t"hooks"'),
                                              ('{"a":1}', '{\n  "hooks"'), ("", '{\n  "hooks"')])
def test_the_file_keeps_its_indentation(like: str, prefix: str) -> None:
    text = ig.dump_settings({"hooks": {}, "é": "ü"}, like)
    assert text.startswith(prefix) and text.endswith("\n") and '"é": "ü"' in text


_json = st.recursive(st.none() | st.booleans() | st.integers() | st.floats(allow_nan=False, allow_infinity=False)
                     | st.text(max_size=8), lambda kids: st.lists(kids, max_size=3)
                     | st.dictionaries(st.text(max_size=6), kids, max_size=3), max_leaves=12)
_handler = st.fixed_dictionaries({"type": st.just("command"),
                                  "command": st.text(max_size=20).filter(lambda c: "gitmem" not in c)})
_hooks = st.dictionaries(st.sampled_from(["SessionStart", "SessionEnd", "PreToolUse", "Stop"]),
                         st.lists(st.fixed_dictionaries({"hooks": st.lists(_handler, min_size=1, max_size=2)}),
                                  min_size=1, max_size=2), min_size=1)


@given(st.dictionaries(st.text(max_size=8).filter(lambda k: k != "hooks"), _json, max_size=5), st.none() | _hooks)
def test_any_settings_survive_install_and_uninstall(other: dict[str, object], hooks: dict[str, object] | None) -> None:
    data = dict(other)
    if hooks is not None:
        data["hooks"] = hooks
    added = ig.add_hooks(data, HANDLERS)
    assert ig.add_hooks(added, HANDLERS) == added
    assert {k: v for k, v in added.items() if k != "hooks"} == other
    assert ig.remove_hooks(added) == data
    assert ig.parse_settings(ig.dump_settings(added)) == added


# --- CLAUDE.md import -------------------------------------------------------------------------

@pytest.mark.parametrize("text", ["", "# Project\n", "# Project\n\nrules", "a\r\nb\r\n", "@~/other/CLAUDE.md\n",
                                  "\n\n\n"])
def test_the_import_is_added_once_and_removed(text: str) -> None:
    line = ig.import_line("memory/CLAUDE.md")
    assert line == "@~/memory/CLAUDE.md"
    added = ig.add_import(text, line)
    assert added.splitlines().count(line) == 1 and added.endswith(line + "\n")
    assert ig.add_import(added, line) == added
    removed = ig.remove_import(added, line)
    assert line not in removed
    assert removed.rstrip("\n") == text.rstrip("\n") or not text.strip()


def test_an_import_line_written_by_hand_is_recognised() -> None:
    text = "# P\n@~/memory/CLAUDE.md\nmore\n"
    assert ig.add_import(text, "@~/memory/CLAUDE.md") == text
    assert ig.remove_import(text, "@~/memory/CLAUDE.md") == "# P\nmore\n"


@pytest.mark.parametrize("bad", ["", "/abs/CLAUDE.md", "../up/CLAUDE.md", "a/../../b", "my memory/CLAUDE.md",
                                 "tab\there/CLAUDE.md"])
def test_an_import_needs_a_plain_path_under_home(bad: str) -> None:
    with pytest.raises(UsageError):
        ig.import_line(bad)


# --- crontab ----------------------------------------------------------------------------------

@pytest.mark.parametrize(("every", "when"), [("30m", "*/30 * * * *"), ("1m", "* * * * *"), ("59m", "*/59 * * * *"),
                                             ("5m", "*/5 * * * *"), ("1h", "0 * * * *"), ("6h", "0 */6 * * *"),
                                             ("24h", "0 0 * * *"), (" 15m ", "*/15 * * * *")])
def test_intervals_become_cron_schedules(every: str, when: str) -> None:
    assert ig.schedule(every) == when


@pytest.mark.parametrize("every", ["0m", "60m", "90m", "0h", "25h", "30", "m", "30s", "1d", "-5m", "1.5h", "30M",
                                   "３０m", "30 m", "", "*/5", "1h30m", "0030m"])
def test_other_intervals_are_refused_with_a_hint(every: str) -> None:
    with pytest.raises(UsageError) as caught:
        ig.schedule(every)
    assert caught.value.hint and "30m" in caught.value.hint


CRONTAB = ("MAILTO=me@example.com\n# nightly backup\n0 3 * * * /usr/bin/backup --all\n"
           "*/5 * * * * /usr/bin/gitmem --repo /m reflect\n")


def test_the_cron_entry_is_added_once_replaced_and_removed_alone() -> None:
    cmd = ig.cron_command(["/usr/bin/python3", "-m", "gitmem", "--repo", "/home/me/memory", "hook", "cron"], "/l/cron.log")
    once = ig.add_cron(CRONTAB, "*/30 * * * *", cmd)
    assert once.startswith(CRONTAB) and once.endswith(f"{ig.CRON_MARK}\n*/30 * * * * {cmd}\n")
    assert ig.add_cron(once, "*/30 * * * *", cmd) == once
    hourly = ig.add_cron(once, "0 * * * *", cmd)
    assert hourly.count(ig.CRON_MARK) == 1 and "*/30" not in hourly and hourly.startswith(CRONTAB)
    assert ig.remove_cron(hourly) == CRONTAB
    assert ig.remove_cron(CRONTAB) == CRONTAB
    assert ig.add_cron("", "0 * * * *", cmd) == f"{ig.CRON_MARK}\n0 * * * * {cmd}\n"
    assert ig.add_cron("0 1 * * * x", "0 * * * *", cmd).startswith("0 1 * * * x\n")


def test_the_cron_command_is_quoted_and_percent_escaped() -> None:
    cmd = ig.cron_command(["/opt/my py/python", "-m", "gitmem", "--repo", "/home/me/mem 100%", "hook", "cron"],
                          "/home/me/mem 100%/.git/gitmem/cron.log")
    assert "%" not in cmd.replace("\\%", "")
    assert cmd.startswith("'/opt/my py/python' -m gitmem --repo '/home/me/mem 100\\%' hook cron >> ")
    assert cmd.endswith(" 2>&1")
