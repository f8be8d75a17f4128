"""Tests for gitmem.engines.transcripts: formats, leniency, resume, discovery."""

from __future__ import annotations

import json
import os
import re
import shutil
from pathlib import Path

import pytest

from tests.conftest import bench_dir

from gitmem.base.errors import UsageError
from gitmem.engines.harvest.reader import read
from gitmem.engines.harvest.sources import Event, Transcript, detect_format, discover

FIXTURES = Path(__file__).parent / "fixtures" / "sessions"


def bench_sessions() -> Path:
    """The shared folder of real transcripts (never copied into the repository)."""
    path = bench_dir("sessions")
    if path is None:
        pytest.skip("bench transcripts are not beside the project (set GITMEM_BENCH_DIR)")
    return path


def bench_files() -> list[Path]:
    return discover([bench_sessions()])


def texts(t: Transcript, role: str | None = None) -> list[str]:
    return [e.text for e in t.events if role is None or e.role == role]


# --------------------------------------------------------------------------- real transcripts

def test_bench_discover_finds_every_session_file_including_deleted_archive() -> None:
    files = bench_files()
    assert len(files) == 25
    assert any(".jsonl.deleted." in f.name for f in files)
    assert files == sorted(files, key=str)
    assert not any(f.name.endswith(".md") for f in files)


def test_bench_every_file_reads_whole_without_bad_lines() -> None:
    for path in bench_files():
        t = read(path)
        expected = "openclaw" if path.parent.name == "openclaw" else "claude-code"
        assert t.format == expected, path.name
        assert detect_format(path) == expected
        assert t.end_offset == path.stat().st_size, path.name
        assert t.end_line == path.read_bytes().count(b"\n"), path.name
        assert t.skipped == 0, path.name
        assert t.session_id, path.name
        assert all(1 <= e.line <= t.end_line for e in t.events)
        assert all(e.tool for e in t.events if e.role == "tool_call")
        assert all(isinstance(e, Event) and isinstance(e.text, str) for e in t.events)


def test_bench_conversation_files_have_events_and_times() -> None:
    empty_by_design = 0
    for path in bench_files():
        t = read(path)
        if not any(e.role in {"user", "assistant"} for e in t.events):
            empty_by_design += 1  # the snapshot-only and summary-only files
            continue
        assert t.started and t.ended and t.started <= t.ended, path.name
        assert t.cwd, path.name
    assert empty_by_design == 2


def test_bench_thinking_text_never_reaches_events() -> None:
    for path in bench_files():
        thoughts: set[str] = set()
        for raw in path.read_bytes().split(b"\n"):
            if not raw.strip():
                continue
            rec = json.loads(raw)
            msg = rec.get("message") if isinstance(rec.get("message"), dict) else {}
            for block in msg.get("content") or []:
                if isinstance(block, dict) and block.get("type") == "thinking" and len(block.get("thinking", "")) > 20:
                    thoughts.add(block["thinking"])
        if thoughts:
            surfaced = set(texts(read(path)))
            assert not thoughts & surfaced, path.name


def test_bench_tool_calls_and_results_pair_up() -> None:
    for path in bench_files():
        t = read(path)
        calls = sum(1 for e in t.events if e.role == "tool_call")
        results = sum(1 for e in t.events if e.role == "tool_result")
        # A session can stop mid-tool, and a compaction agent sees a result without its call.
        assert abs(calls - results) <= 2, path.name


def test_bench_subagent_files_get_their_own_session_id() -> None:
    agents = [p for p in bench_files() if "__agent-" in p.name]
    assert len(agents) == 3
    for path in agents:
        t = read(path)
        assert "-agent-" in t.session_id
        assert all(e.sidechain for e in t.events)


def test_bench_resume_in_the_middle_gives_the_rest(tmp_path: Path) -> None:
    for path in bench_files():
        data = path.read_bytes()
        cut = data.rfind(b"\n", 0, len(data) // 2) + 1
        part = tmp_path / path.name
        part.write_bytes(data[:cut])
        first = read(part, fmt=detect_format(path))
        part.write_bytes(data)
        rest = read(part, fmt=first.format, start_offset=first.end_offset, start_line=first.end_line)
        whole = read(path)
        assert first.events + rest.events == whole.events or _same_but_settled(first, rest, whole), path.name
        assert rest.session_id == whole.session_id, path.name
        assert rest.end_offset == len(data)


def _same_but_settled(first: Transcript, rest: Transcript, whole: Transcript) -> bool:
    """Equal except for summaries whose leaf lies in the other half (meta flag differs)."""
    joined = first.events + rest.events
    return len(joined) == len(whole.events) and all(
        (a.line, a.role, a.text) == (b.line, b.role, b.text) for a, b in zip(joined, whole.events))


# --------------------------------------------------------------------------- fixtures: Claude Code

def test_claude_code_v1_shapes() -> None:
    t = read(FIXTURES / "claude-code" / "v1_session.jsonl")
    assert (t.format, t.session_id, t.version, t.cwd) == ("claude-code", "0a1b2c3d-1111-4222-8333-444455556666", "1.0.98", "/home/dev/shop")
    real = [e for e in t.events if e.role == "user" and not e.meta and not e.sidechain]
    assert [e.text for e in real] == [
        "The checkout page crashes when the cart is empty. Please fix it. We use pytest for tests.",
        "no, don't touch stats.py, it is generated code",
    ]
    assert any(e.meta and e.text == "/init" for e in t.events)
    assert any(e.meta and e.text.startswith("[Request interrupted") for e in t.events)
    # the top summary names a leaf of another session
    assert [(e.text, e.meta) for e in t.events if e.role == "summary"] == [("Earlier chat about the cart page", True)]
    bash = next(e for e in t.events if e.role == "tool_call" and e.tool == "Bash")
    assert bash.text == "python -m pytest tests/test_checkout.py -q"
    failed = next(e for e in t.events if e.role == "tool_result" and e.is_error)
    assert failed.tool == "Bash" and "ZeroDivisionError" in failed.text
    side = [e for e in t.events if e.sidechain]
    assert {e.role for e in side} == {"user", "tool_call", "tool_result", "assistant"}
    assert "SECRET-REASONING-SHOULD-NOT-APPEAR" not in "".join(texts(t))


def test_claude_code_v2_record_and_block_types() -> None:
    t = read(FIXTURES / "claude-code" / "v2_session.jsonl")
    assert t.skipped == 0 and t.version == "2.1.41"
    assert t.started == "2026-03-02T09:00:00.000Z"
    roles = {(e.role, e.text) for e in t.events}
    assert ("summary", "Set up Hugo blog") in roles  # ai-title
    assert ("summary", "Set up a Hugo blog with the PaperMod theme; the build passes.") in roles  # away_summary
    assert ("summary", "Hugo blog setup with PaperMod") in roles  # leaf in this file: not meta
    assert ("system", "Pull request #42: https://git.example.test/dev/blog/pull/42") in roles
    assert ("tool_result", "[tool: WebFetch]") in roles
    assert ("tool_result", "[image]") in roles
    write = next(e for e in t.events if e.tool == "Write" and e.role == "tool_call")
    assert write.text.splitlines()[0] == "/home/dev/blog/content/_index.md"
    multi = next(e for e in t.events if e.tool == "MultiEdit" and e.role == "tool_call")
    assert "title = 'Dev notes'" in multi.text
    notebook = next(e for e in t.events if e.tool == "NotebookEdit" and e.role == "tool_call")
    assert notebook.text.startswith("/home/dev/blog/analysis.ipynb")
    errors = [e.text for e in t.events if e.is_error]
    assert "lint hook failed: exit 1" in errors and "API error 529 (retry 1/10)" in errors
    assert any("issue with the selected model" in x for x in errors)  # synthetic API-error reply
    user = [e for e in t.events if e.role == "user"]
    typed = [e.text for e in user if not e.meta]
    assert typed == ["Let's go with Hugo for the blog. Remember that the site deploys from the gh-pages branch.",
                     "Non, plutôt le thème PaperMod. Je préfère les thèmes sobres."]
    assert any(e.meta and e.text.startswith("<ide_opened_file>") for e in user)
    assert any(e.meta and e.text == "[document: notes.txt]\ntheme notes: dark mode" for e in user)
    assert any(e.meta and e.text == "/model opus" for e in user)
    compact = [e for e in t.events if e.role == "summary" and e.text.startswith("This session is being continued")]
    assert compact and compact[0].meta
    assert "PRIVATE-THOUGHT-2" not in "".join(texts(t))
    assert not any("Building sites" in x for x in texts(t))  # progress records are not events


def test_claude_code_projects_tree_and_subagent() -> None:
    root = FIXTURES / "claude-code" / "projects"
    files = discover([root])
    assert [f.name for f in files] == ["11111111-aaaa-4bbb-8ccc-000000000001.jsonl", "agent-a1b2c3d4e5.jsonl"]
    main, sub = (read(f) for f in files)
    assert main.session_id == "11111111-aaaa-4bbb-8ccc-000000000001"
    assert sub.session_id == "11111111-aaaa-4bbb-8ccc-000000000001-agent-a1b2c3d4e5"
    assert all(e.sidechain for e in sub.events) and not any(e.sidechain for e in main.events)


def test_toolUseResult_fills_an_empty_tool_result() -> None:
    path = FIXTURES / "claude-code" / "v2_session.jsonl"
    t = read(path)
    notebook_result = next(e for e in t.events if e.role == "tool_result" and e.tool == "NotebookEdit")
    assert notebook_result.text == ""  # no toolUseResult on that record: stays empty, but present
    write_result = next(e for e in t.events if e.role == "tool_result" and e.tool == "Write")
    assert write_result.text.startswith("File created successfully")


# --------------------------------------------------------------------------- fixtures: OpenClaw and generic

def test_openclaw_v3_entries() -> None:
    path = FIXTURES / "openclaw" / "sessions" / "22222222-3333-4444-8555-666677778888.jsonl"
    t = read(path)
    assert (t.format, t.session_id, t.version, t.cwd) == ("openclaw", "22222222-3333-4444-8555-666677778888", "3", "/home/dev/.openclaw/workspace")
    typed = [e.text for e in t.events if e.role == "user" and not e.meta]
    # channel metadata, clock prefix and message id are stripped
    assert typed == ["Call me Lin. Please always reply in English.", "不对，备份时间是凌晨三点。记住：服务器在上海机房。"]
    calls = [(e.tool, e.text) for e in t.events if e.role == "tool_call"]
    assert calls == [("read", "/home/dev/.openclaw/workspace/NOTES.md"), ("exec", "crontab -l"),
                     ("write", "/home/dev/.openclaw/workspace/USER.md\nName: Lin")]
    results = [e for e in t.events if e.role == "tool_result"]
    assert results[0].text.endswith("[image]") and results[1].is_error and results[1].tool == "exec"
    assert any(e.role == "summary" and e.meta and "Backups at 03:00" in e.text for e in t.events)  # compaction
    assert "prompt error: aborted" in [e.text for e in t.events if e.is_error]
    assert "429 quota exceeded" in [e.text for e in t.events if e.is_error]
    assert any(e.meta and e.text.startswith("Continue where you left off") for e in t.events)
    assert any(e.meta and e.role == "assistant" and "gateway restarted" in e.text for e in t.events)
    assert "OPENCLAW-PRIVATE-THOUGHT" not in "".join(texts(t))
    assert t.skipped == 0  # label and unknown entries are skipped, not bad


def test_openclaw_subagent_prompt_is_sidechain_and_deleted_archive_is_read() -> None:
    path = FIXTURES / "openclaw" / "sessions" / "33333333-4444-4555-8666-777788889999.jsonl.deleted.2026-03-14T13-36-43.934Z"
    t = read(path)
    assert t.format == "openclaw" and t.session_id == "33333333-4444-4555-8666-777788889999"
    first_user = next(e for e in t.events if e.role == "user")
    assert first_user.sidechain and first_user.text.startswith("[Subagent Context]")


def test_openclaw_folder_discovery_skips_the_index() -> None:
    files = discover([FIXTURES / "openclaw" / "sessions"])
    names = [f.name for f in files]
    assert "sessions.json" not in names
    assert names == ["22222222-3333-4444-8555-666677778888.jsonl",
                     "33333333-4444-4555-8666-777788889999.jsonl.deleted.2026-03-14T13-36-43.934Z"]


def test_generic_jsonl_messages() -> None:
    t = read(FIXTURES / "jsonl" / "generic.jsonl")
    assert t.format == "jsonl" and t.session_id == "chat-2026-03-02-a"
    assert t.started == "2026-03-02T03:31:40.000Z"  # epoch seconds
    assert t.ended == "2026-03-02T03:31:45.123Z"  # epoch milliseconds
    pairs = [(e.role, e.tool, e.text) for e in t.events]
    assert ("assistant", None, "Noted, tabs it is.") in pairs  # "text" instead of "content"
    assert ("tool_call", "bash", "gofmt -l .") in pairs
    assert ("tool_result", "bash", "main.go") in pairs
    assert ("tool_call", "write_file", "main.go\npackage main") in pairs  # OpenAI tool_calls, JSON-string arguments
    assert ("user", None, "Let's use Go 1.22 for this project.") in pairs  # role "human", blocks
    assert next(e for e in t.events if e.tool == "write_file" and e.role == "tool_result").is_error
    assert t.skipped == 0  # a line without a role is not a message, and not bad


def test_detect_format_of_each_fixture() -> None:
    assert detect_format(FIXTURES / "claude-code" / "v1_session.jsonl") == "claude-code"
    assert detect_format(FIXTURES / "openclaw" / "secrets.jsonl") == "openclaw"
    assert detect_format(FIXTURES / "jsonl" / "signals_fr.jsonl") == "jsonl"
    assert detect_format(FIXTURES / "edge" / "empty.jsonl") == "jsonl"
    assert detect_format(FIXTURES / "edge" / "truncated.jsonl") == "claude-code"


def test_explicit_format_overrides_detection() -> None:
    t = read(FIXTURES / "jsonl" / "signals_en.jsonl", fmt="jsonl")
    assert t.format == "jsonl"
    with pytest.raises(UsageError, match="unknown transcript format"):
        read(FIXTURES / "jsonl" / "signals_en.jsonl", fmt="yaml")  # type: ignore[arg-type]


# --------------------------------------------------------------------------- leniency

def test_truncated_last_line_is_left_for_the_next_read(tmp_path: Path) -> None:
    src = FIXTURES / "edge" / "truncated.jsonl"
    data = src.read_bytes()
    t = read(src)
    assert t.end_offset == data.rfind(b"\n") + 1 < len(data)
    assert t.end_line == 2 and t.skipped == 0
    assert [e.role for e in t.events] == ["user", "assistant"]
    # the writer finishes the half-written line, then appends another
    path = tmp_path / "s.jsonl"
    line3 = json.dumps({"type": "assistant", "sessionId": "44444444-5555-4666-8777-888899990000", "uuid": "u3",
                        "message": {"role": "assistant", "content": [{"type": "text", "text": "Writing health.py."}]}}).encode()
    line4 = json.dumps({"type": "user", "sessionId": "44444444-5555-4666-8777-888899990000", "uuid": "u4",
                        "message": {"role": "user", "content": "Thanks, ship it."}}).encode()
    path.write_bytes(data[: t.end_offset] + line3[:40])
    mid = read(path, start_offset=t.end_offset, start_line=t.end_line)
    assert mid.events == () and mid.end_offset == t.end_offset and mid.end_line == t.end_line
    path.write_bytes(data[: t.end_offset] + line3 + b"\n" + line4 + b"\n")
    more = read(path, start_offset=mid.end_offset, start_line=mid.end_line)
    assert [(e.line, e.text) for e in more.events] == [(3, "Writing health.py."), (4, "Thanks, ship it.")]
    assert more.end_offset == path.stat().st_size


def test_invalid_json_at_eof_without_newline_is_not_consumed(tmp_path: Path) -> None:
    path = tmp_path / "s.jsonl"
    path.write_text('{"role": "user", "content": "hello there"}\n{"role": "assistant", "cont')
    t = read(path)
    assert [e.text for e in t.events] == ["hello there"]
    assert t.end_offset == len('{"role": "user", "content": "hello there"}\n') and t.skipped == 0


def test_complete_last_line_without_newline_is_read_and_resume_skips_its_newline(tmp_path: Path) -> None:
    path = tmp_path / "s.jsonl"
    path.write_text('{"role": "user", "content": "first message"}\n{"role": "user", "content": "second message"}')
    t = read(path)
    assert [e.text for e in t.events] == ["first message", "second message"]
    assert t.end_offset == path.stat().st_size and t.end_line == 2
    with path.open("a") as fh:
        fh.write('\n{"role": "user", "content": "third message"}\n')
    more = read(path, start_offset=t.end_offset, start_line=t.end_line)
    assert [(e.line, e.text) for e in more.events] == [(3, "third message")]
    assert more.skipped == 0


def test_bad_lines_in_the_middle_are_counted_and_skipped() -> None:
    t = read(FIXTURES / "edge" / "bad_middle.jsonl")
    assert t.skipped == 2
    assert [(e.line, e.text) for e in t.events] == [(1, "First prompt here."), (4, "Still reading after the bad lines.")]


def test_unknown_record_and_block_types_are_skipped_not_counted() -> None:
    t = read(FIXTURES / "edge" / "unknown_types.jsonl")
    assert t.skipped == 0
    assert [e.text for e in t.events] == ["Keep going with the migration.", "Migration step 2 done."]


def test_not_jsonl_is_a_usage_error_naming_the_file() -> None:
    path = FIXTURES / "edge" / "not_jsonl.md"
    with pytest.raises(UsageError, match="not_jsonl.md"):
        detect_format(path)
    with pytest.raises(UsageError, match="not a JSONL transcript"):
        read(path, fmt="jsonl")


def test_binary_file_is_a_usage_error(tmp_path: Path) -> None:
    path = tmp_path / "blob.jsonl"
    path.write_bytes(bytes(range(256)) * 4 + b"\n")
    with pytest.raises(UsageError, match="blob.jsonl"):
        read(path)


def test_missing_file_is_a_usage_error(tmp_path: Path) -> None:
    with pytest.raises(UsageError, match="nope.jsonl"):
        read(tmp_path / "nope.jsonl")
    with pytest.raises(UsageError, match="no such transcript"):
        discover([tmp_path / "nope"])


def test_empty_file_reads_as_no_events() -> None:
    t = read(FIXTURES / "edge" / "empty.jsonl")
    assert t.events == () and t.end_offset == 0 and t.session_id == "empty"


def test_undecodable_bytes_do_not_cost_the_record(tmp_path: Path) -> None:
    path = tmp_path / "s.jsonl"
    path.write_bytes(b'{"role": "user", "content": "caf\xe9 ol\xe9 is fine"}\n')
    assert read(path).events[0].text == "caf\ufffd ol\ufffd is fine"


def test_crlf_line_endings(tmp_path: Path) -> None:
    path = tmp_path / "s.jsonl"
    path.write_bytes(b'{"role": "user", "content": "one"}\r\n{"role": "user", "content": "two"}\r\n')
    t = read(path)
    assert [e.text for e in t.events] == ["one", "two"] and t.skipped == 0


# --------------------------------------------------------------------------- resume

def test_resume_returns_only_appended_events(tmp_path: Path) -> None:
    path = tmp_path / "0a1b2c3d-1111-4222-8333-444455556666.jsonl"
    shutil.copy(FIXTURES / "claude-code" / "v1_session.jsonl", path)
    before = read(path)
    new = [
        {"type": "user", "sessionId": "0a1b2c3d-1111-4222-8333-444455556666", "uuid": "n1", "timestamp": "2026-03-02T10:00:00.000Z",
         "message": {"role": "user", "content": "Now add a test for the empty cart."}},
        {"type": "assistant", "sessionId": "0a1b2c3d-1111-4222-8333-444455556666", "uuid": "n2", "timestamp": "2026-03-02T10:00:05.000Z",
         "message": {"role": "assistant", "content": [{"type": "text", "text": "Added test_empty_cart."}]}},
    ]
    with path.open("a", encoding="utf-8") as fh:
        fh.writelines(json.dumps(r) + "\n" for r in new)
    after = read(path, start_offset=before.end_offset, start_line=before.end_line)
    assert [(e.line, e.role, e.text) for e in after.events] == [
        (before.end_line + 1, "user", "Now add a test for the empty cart."),
        (before.end_line + 2, "assistant", "Added test_empty_cart."),
    ]
    assert after.session_id == before.session_id and after.cwd == before.cwd
    assert after.started == "2026-03-02T10:00:00.000Z"
    again = read(path, start_offset=after.end_offset, start_line=after.end_line)
    assert again.events == () and again.end_offset == after.end_offset


def test_resume_keeps_the_openclaw_header_identity(tmp_path: Path) -> None:
    path = tmp_path / "renamed.jsonl"
    shutil.copy(FIXTURES / "openclaw" / "secrets.jsonl", path)
    before = read(path)
    with path.open("a", encoding="utf-8") as fh:
        fh.write(json.dumps({"type": "message", "id": "0000000a", "parentId": None, "timestamp": "2026-03-02T04:00:00.000Z",
                             "message": {"role": "user", "content": [{"type": "text", "text": "thanks"}]}}) + "\n")
    after = read(path, start_offset=before.end_offset, start_line=before.end_line)
    assert after.session_id == "88888888-9999-4aaa-8bbb-ccccddddeeee" and after.version == "3"
    assert [e.text for e in after.events] == ["thanks"]


def test_resume_offset_past_the_end_is_a_usage_error() -> None:
    path = FIXTURES / "jsonl" / "generic.jsonl"
    with pytest.raises(UsageError, match="shorter"):
        read(path, start_offset=path.stat().st_size + 10)


# --------------------------------------------------------------------------- secrets surface in events

AWS_KEY = re.compile(r"AKIA[0-9A-Z]{16}")
GITHUB_TOKEN = re.compile(r"ghp_[0-9A-Za-z]{36}")


@pytest.mark.parametrize("name", ["claude-code/secrets.jsonl", "openclaw/secrets.jsonl", "jsonl/secrets.jsonl"])
def test_every_planted_secret_surfaces_in_some_event(name: str) -> None:
    path = FIXTURES / name
    raw = path.read_text(encoding="utf-8")
    planted = set(AWS_KEY.findall(raw)) | set(GITHUB_TOKEN.findall(raw))
    assert planted
    surfaced = "\n".join(texts(read(path)))
    assert {s for s in planted if s not in surfaced} == set()


def test_secrets_surface_in_user_text_tool_input_and_tool_output() -> None:
    t = read(FIXTURES / "claude-code" / "secrets.jsonl")
    by_role = {role: "\n".join(texts(t, role)) for role in ("user", "tool_call", "tool_result")}
    assert "AKIAB1SKCZTKMBF4JDPY" in by_role["user"]
    assert "AKIA76F1ADP2AP5ZDB16" in by_role["tool_call"]
    assert "AKIAA59SBNCW41OCB6K1" in by_role["tool_result"]
    assert "ghp_XlmPvNRB0tR1lirRVzYkBEyhiXUTdSZZqPy7" in by_role["tool_call"]  # inside Write content
    oc = read(FIXTURES / "openclaw" / "secrets.jsonl")
    assert "AKIAVFZRRRADRVINB92U" in "\n".join(texts(oc, "user"))
    assert "AKIA5L1N3OMTH0QNALWO" in "\n".join(texts(oc, "tool_call"))
    assert "AKIAP6C3U9VLSBX57Z6U" in "\n".join(texts(oc, "tool_result"))
    generic = read(FIXTURES / "jsonl" / "secrets.jsonl")
    assert "N7RGKNLI5MP2rdfqr6R7wIH3qS3205ZxauEKa4Ca" in "\n".join(texts(generic, "user"))


def test_attachment_and_document_text_surface_as_meta_events() -> None:
    t = read(FIXTURES / "claude-code" / "v2_session.jsonl")
    meta_text = "\n".join(e.text for e in t.events if e.meta)
    assert "baseURL = 'https://blog.test/'" in meta_text
    assert "theme notes: dark mode" in meta_text


# --------------------------------------------------------------------------- discovery

def test_discover_walks_folders_keeps_given_files_and_is_deterministic(tmp_path: Path) -> None:
    (tmp_path / "a" / "b").mkdir(parents=True)
    for name in ("a/b/z.jsonl", "a/x.jsonl.reset.2026-01-01T00-00-00.000Z", "a/y.jsonl.deleted.2026-01-01", "a/sessions.json",
                 "a/notes.txt", "history.jsonl"):
        (tmp_path / name).write_text("")
    given = tmp_path / "a" / "notes.txt"
    found = discover([tmp_path, given, tmp_path / "a"])
    rel = [str(p.relative_to(tmp_path)).replace(os.sep, "/") for p in found]
    assert rel == ["a/b/z.jsonl", "a/notes.txt", "a/x.jsonl.reset.2026-01-01T00-00-00.000Z", "a/y.jsonl.deleted.2026-01-01"]
    assert discover([given, tmp_path]) == found


def test_tool_input_strings_beyond_the_command_are_kept(tmp_path: Path) -> None:
    path = tmp_path / "s.jsonl"
    calls = [
        {"role": "tool_call", "name": "exec", "input": {"command": "deploy.sh", "workdir": "/srv", "env": {"TOKEN": "tok-123-secret"}}},
        {"role": "tool_call", "name": "Bash", "input": {"command": "ls", "description": "List files", "timeout": 5}},
        {"role": "tool_call", "name": "Edit", "input": {"file_path": "a.py", "old_string": "x = 1", "new_string": "x = 2", "replace_all": True}},
    ]
    path.write_text("".join(json.dumps(c) + "\n" for c in calls))
    assert [e.text for e in read(path).events] == [
        'deploy.sh\n{"env":{"TOKEN":"tok-123-secret"}}',
        "ls",
        "a.py\nx = 2\nx = 1",  # path, then the new text, then the old
    ]
