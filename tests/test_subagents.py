"""Tests for gitmem.engines.harvest.subagents: which files make one session, and what each adds."""

from __future__ import annotations

from pathlib import Path

from gitmem.engines.harvest import reader
from gitmem.engines.harvest.subagents import Unit, companions, group, merge, part_of
from tests.test_sessions import SID, claude_file

OTHER = "0c9d8e7f-6a5b-4c3d-9e2f-1a0b9c8d7e6f"


def test_part_of_reads_the_name_and_the_folder() -> None:
    assert part_of(Path("p/abc.jsonl")) == "main"
    assert part_of(Path(f"p/{SID}/subagents/agent-a5aeeeb76a8225a77.jsonl")) == "agent"
    assert part_of(Path("p/x/subagents/agent-aprompt_suggestion-25249f.jsonl")) == "prompt_suggestion"
    assert part_of(Path("p/x/subagents/agent-acompact-30e1f5.jsonl")) == "compact"
    assert part_of(Path("copies/owner__21d5136b__agent-a5aeeeb76a8225a77.jsonl")) == "agent"
    assert part_of(Path("notes/agenda.jsonl")) == "main"


def test_companions_are_the_session_folder_subagents(tmp_path: Path) -> None:
    main = claude_file(tmp_path / f"{SID}.jsonl", SID, [("user", "hi")])
    assert companions(main) == ()
    a = claude_file(tmp_path / SID / "subagents" / "agent-a1.jsonl", SID, [("user", "x")], "a1")
    b = claude_file(tmp_path / SID / "subagents" / "agent-acompact-2.jsonl", SID, [("user", "x")], "acompact-2")
    (tmp_path / SID / "subagents" / "notes.txt").write_text("not a transcript")
    assert companions(main) == (a, b)


def test_group_by_session_id_whatever_the_folders(tmp_path: Path) -> None:
    main = claude_file(tmp_path / "m.jsonl", SID, [("user", "hi")])
    other = claude_file(tmp_path / "o.jsonl", OTHER, [("user", "hi")])
    mine = claude_file(tmp_path / "copy__agent-a1.jsonl", SID, [("user", "x")], "a1")
    orphan_compact = claude_file(tmp_path / "z__agent-acompact-9.jsonl", "11111111-2222-4333-8444-555555555555",
                                 [("user", "x")], "acompact-9")
    orphan_agent = claude_file(tmp_path / "y__agent-a7.jsonl", "11111111-2222-4333-8444-555555555555",
                               [("user", "x")], "a7")
    units = group([main, mine, other, orphan_compact, orphan_agent], "auto")
    assert units == [Unit(main, (mine,)), Unit(other), Unit(orphan_agent, (orphan_compact,))]


def test_a_plain_list_of_sessions_is_left_as_it_is(tmp_path: Path) -> None:
    files = [claude_file(tmp_path / f"{n}.jsonl", SID if n == "a" else OTHER, [("user", "hi")]) for n in "ab"]
    assert group(files, "auto") == [Unit(files[0]), Unit(files[1])]


def test_merge_adds_conversations_as_sidechain_and_skips_copies_and_guesses(tmp_path: Path) -> None:
    main = reader.read(claude_file(tmp_path / "m.jsonl", SID, [("user", "We use Redis."), ("assistant", "ok")]))
    parts = [
        (p, reader.read(p)) for p in (
            claude_file(tmp_path / SID / "subagents" / "agent-a1.jsonl", SID, [("user", "find it"), ("assistant", "found")], "a1"),
            claude_file(tmp_path / SID / "subagents" / "agent-acompact-2.jsonl", SID, [("user", "We use Redis.")], "acompact-2"),
            claude_file(tmp_path / SID / "subagents" / "agent-aprompt_suggestion-3.jsonl", SID, [("user", "deploy now")],
                        "aprompt_suggestion-3"),
        )
    ]
    t = merge(main, parts)
    assert [(e.text, e.sidechain) for e in t.events] == [
        ("We use Redis.", False), ("ok", False), ("find it", True), ("found", True)]
    assert t.session_id == SID


def test_an_orphan_prompt_suggestion_is_marked_as_nobody_s_words(tmp_path: Path) -> None:
    path = claude_file(tmp_path / "agent-aprompt_suggestion-3.jsonl", SID, [("user", "deploy now")], "aprompt_suggestion-3")
    t = merge(reader.read(path), [])
    assert [(e.sidechain, e.meta) for e in t.events] == [(True, True)]
