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
