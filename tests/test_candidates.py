"""Harvest candidates: statements of the whole exchange, cut into units, with their context."""

from __future__ import annotations

from gitmem.engines.harvest.candidates import Candidate, extract, units
from gitmem.engines.harvest.sources import Event, Transcript


def transcript(*events: Event) -> Transcript:
    return Transcript("s1", "claude-code", "f.jsonl", None, None, None, None, tuple(events), 0, len(events), 0)


def ev(line: int, role: str, text: str, **kw: object) -> Event:
    return Event(line, role, text, None, **kw)  # type: ignore[arg-type]


def test_units_leave_out_code_tables_and_headings_and_cut_list_items() -> None:
    text = ("## Plan\n\nThe tests fail because the fixture path changed.\n\n```python\nprint('x = 1 and more')\n```\n"
            "| a | b |\n|---|---|\n- First we pin numpy below 2.0 for the old ABI.\n- Then rerun the suite.\n"
            "    indented code line here\nok")
    assert units(text) == ["The tests fail because the fixture path changed.",
                           "First we pin numpy below 2.0 for the old ABI.", "Then rerun the suite."]


def test_a_long_paragraph_is_cut_at_sentence_ends_and_short_units_dropped() -> None:
    sentence = "This sentence explains one part of the build in some detail. "
    pieces = units(sentence * 20)
    assert len(pieces) > 1 and all(len(p) <= 600 for p in pieces)
    assert all(p.endswith(".") for p in pieces)
    assert units("ok thanks") == [] and units("用中文回答我的问题") == ["用中文回答我的问题"]


def test_context_flags_follow_the_exchange() -> None:
    t = transcript(
        ev(1, "user", "Run the tests please."),
        ev(2, "tool_call", "pytest", tool="Bash"),
        ev(3, "tool_result", "1 failed", tool="Bash", is_error=True),
        ev(4, "assistant", "The failure comes from a stale cache in the build folder."),
        ev(5, "tool_call", "pytest", tool="Bash"),
        ev(6, "tool_result", "all passed", tool="Bash"),
        ev(7, "assistant", "All green now after clearing the cache."),
        ev(8, "user", "Great, from now on always clear the cache first."),
        ev(9, "user", "side note", sidechain=True),
        ev(10, "user", "<system-reminder> injected text here </system-reminder>", meta=True),
    )
    found = extract(t)
    assert [(c.line, c.speaker) for c in found] == [(1, "user"), (4, "assistant"), (7, "assistant"), (8, "user")]
    cause, after = found[1], found[2]
    assert cause.after_error and cause.then_passed and cause.tool_before == "Bash" and cause.turn == 1
    assert after.after_error and not after.then_passed  # no tool result follows it
    assert cause.next_user.startswith("Great, from now on")
    assert found[3].turn == 2 and not found[3].after_error and found[3].next_user == ""
    assert 0.0 <= found[0].position < found[3].position <= 1.0


def test_keys_name_line_part_and_text() -> None:
    c = Candidate(12, 1, "user", "Use pnpm in this repository.", 1, 0.5)
    line, part, digest = c.key().split(":")
    assert (line, part, len(digest)) == ("12", "1", 12)
    assert Candidate(12, 1, "user", "Use npm in this repository.", 1, 0.5).key() != c.key()


# --------------------------------------------------------------------------- a failure, a change, the same run passing

def fix_session(*middle: Event, rerun_fails: bool = False) -> Transcript:
    """A failing test run, the assistant's explanation, ``middle`` events, the same run again, a last word."""
    return transcript(
        ev(1, "user", "Run the tests please."),
        ev(2, "tool_call", "cd /repo && pytest -q tests/test_dates.py", tool="Bash"),
        ev(3, "tool_result", "TypeError: can't compare offset-naive and offset-aware datetimes", tool="Bash",
           is_error=True),
        ev(4, "assistant", "Der Test schlug fehl, weil die Fixture ein naives Datum baute."),
        *middle,
        ev(8, "tool_call", "pytest -q", tool="Bash"),
        ev(9, "tool_result", "1 failed" if rerun_fails else "42 passed", tool="Bash", is_error=rerun_fails),
        ev(10, "assistant", "Mit UTC in der Fixture laufen jetzt alle Tests durch."),
        ev(11, "assistant", "Soll ich auch die anderen Fixtures prüfen?"),
        ev(12, "user", "Ja, bitte alle prüfen."),
    )


EDIT = (ev(5, "tool_call", "tests/conftest.py\nold: datetime(2026, 1, 1)", tool="Edit"),
        ev(6, "tool_result", "The file tests/conftest.py has been updated.", tool="Edit"))


def test_a_failure_a_change_and_the_same_run_passing_pair_the_explanation_with_the_fix() -> None:
    found = {c.line: c for c in extract(fix_session(*EDIT))}
    assert found[4].fixed and found[10].fixed   # the cause before the change, the first words after the pass
    assert not found[11].fixed and not found[12].fixed   # later words, and the user's, are not the fix


def test_another_command_run_counts_as_the_change() -> None:
    found = {c.line: c for c in extract(fix_session(ev(5, "tool_call", "pip install tzdata", tool="Bash"),
                                                    ev(6, "tool_result", "Successfully installed tzdata", tool="Bash")))}
    assert found[4].fixed


def test_no_fix_without_a_change_or_when_the_rerun_still_fails() -> None:
    assert not any(c.fixed for c in extract(fix_session()))   # the same run, nothing changed: a flaky test
    assert not any(c.fixed for c in extract(fix_session(*EDIT, rerun_fails=True)))


def test_a_fix_never_spans_a_user_turn() -> None:
    t = fix_session(ev(5, "user", "Warte, lass das erst."), *EDIT)
    assert not any(c.fixed for c in extract(t))


def test_results_of_parallel_calls_are_matched_in_order() -> None:
    t = transcript(
        ev(1, "user", "Check both things please."),
        ev(2, "tool_call", "npm test", tool="Bash"),
        ev(3, "tool_call", "git status", tool="Bash"),
        ev(4, "tool_result", "1 failing", tool="Bash", is_error=True),
        ev(5, "tool_result", "nothing to commit", tool="Bash"),
        ev(6, "assistant", "The suite fails because the snapshot is stale."),
        ev(7, "tool_call", "npm test -- -u", tool="Bash"),
        ev(8, "tool_result", "snapshots updated, 12 passing", tool="Bash"),
    )
    [c] = [c for c in extract(t) if c.line == 6]
    assert not c.fixed   # "npm test -- -u" is the same program and word: the rerun itself, nothing changed
    t2 = transcript(*t.events[:6], ev(7, "tool_call", "src/app.test.js", tool="Write"),
                    ev(8, "tool_result", "written", tool="Write"), ev(9, "tool_call", "npm test -- -u", tool="Bash"),
                    ev(10, "tool_result", "12 passing", tool="Bash"))
    assert [c for c in extract(t2) if c.line == 6][0].fixed
