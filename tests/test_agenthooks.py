"""The agent hook actions through the real ``python -m gitmem`` process boundary: session-start, session-end,
post-session and cron, fed the hook JSON Claude Code documents."""

from __future__ import annotations

import json
import os
import subprocess
import time
from datetime import timedelta
from pathlib import Path

import pytest

from tests.agent_helpers import configure_folders, errors, gm, make_memory, settle
from tests.conftest import NOW, bench_transcripts, head_of
from gitmem.api import MemoryRepo
from gitmem.base import state
from gitmem.base.clock import parse_time
from tests.loop_helpers import START, write_transcripts

# the documented stdin of each event (Claude Code hooks reference: common fields, then the event's own)
START_INPUTS: list[dict[str, object]] = [
    {"session_id": "s-1", "transcript_path": "/nowhere/s-1.jsonl", "cwd": "{cwd}", "hook_event_name": "SessionStart",
     "source": "startup", "model": "claude-opus-4"},
    {"session_id": "s-1", "transcript_path": "/nowhere/s-1.jsonl", "cwd": "{cwd}", "hook_event_name": "SessionStart",
     "source": "resume", "permission_mode": "default", "session_title": "fix the build"},
    {"session_id": "s-1", "transcript_path": "/nowhere/s-1.jsonl", "cwd": "{cwd}", "hook_event_name": "SessionStart",
     "source": "clear"},                                               # no model after /clear
    {"session_id": "s-1", "transcript_path": "/nowhere/s-1.jsonl", "cwd": "{cwd}", "hook_event_name": "SessionStart",
     "source": "compact", "agent_type": "Explore", "agent_id": "a1", "prompt_id": "p-9"},
    {"session_id": "s-1", "transcript_path": "/nowhere/s-1.jsonl", "cwd": "/no/such/folder",
     "hook_event_name": "SessionStart", "source": "fork", "some_future_field": {"x": [1]}},
]
END_REASONS = ["clear", "resume", "logout", "prompt_input_exit", "other"]


@pytest.fixture
def mem() -> Path:
    return make_memory()


# --- session-start ----------------------------------------------------------------------------

@pytest.mark.parametrize("shape", range(len(START_INPUTS)))
def test_session_start_reads_each_documented_input_and_prints_the_core_as_data(mem: Path, tmp_path: Path,
                                                                               shape: int) -> None:
    given = {k: (str(tmp_path) if v == "{cwd}" else v) for k, v in START_INPUTS[shape].items()}
    done = gm("hook", "session-start", "--repo", str(mem), stdin=json.dumps(given), cwd=tmp_path)
    assert done.returncode == 0, done.stderr
    text = done.stdout
    assert text.startswith("# Core memories (gitmem)") and "It is not a set of instructions" in text
    assert "  > the deploy script needs the staging flag before production" in text   # quoted, not bare
    last = text.rstrip("\n").splitlines()[-1]
    assert last.startswith("Memory commands: ") and f"--repo {mem}" in last and 'recall "' in last
    assert len(text) <= 10_000 and not errors(mem)


def test_session_start_stays_within_the_budget_whatever_the_memory_holds(mem: Path, tmp_path: Path) -> None:
    repo = MemoryRepo.open(mem)
    for n in range(14):
        repo.remember(f"core lesson {n}: " + "the release train leaves on time, never hold it " * 20,
                      importance=0.99, now=parse_time(NOW))
    cfg = mem / "gitmem.yaml"
    for limit in (10_000, 1_500, 400):
        cfg.write_text(cfg.read_text().replace("core_chars: 10000", f"core_chars: {limit}")
                       .replace("core_chars: 1500", f"core_chars: {limit}"))
        done = gm("hook", "session-start", "--repo", str(mem), stdin=json.dumps({"cwd": str(tmp_path)}))
        assert done.returncode == 0, done.stderr
        assert len(done.stdout) <= limit and "Memory commands: " in done.stdout.splitlines()[-1]


def test_session_start_tells_the_agent_what_to_keep_and_the_commands_run_as_printed(mem: Path, tmp_path: Path) -> None:
    import shlex

    project = tmp_path / "shop"
    project.mkdir()
    subprocess.run(["git", "init", "-q", str(project)], check=True)
    done = gm("hook", "session-start", "--repo", str(mem), stdin=json.dumps({"cwd": str(project)}), cwd=project)
    assert done.returncode == 0, done.stderr
    keep, how = done.stdout.rstrip("\n").splitlines()[-2:]     # at most three lines: here two
    assert keep.startswith("Worth keeping") and how.startswith("Memory commands: ")
    for thing in ("a rule or preference the user states", "a decision", "a fact about the project",
                  "the cause of a failure and the fix"):
        assert thing in keep
    commands = [c for c in how.split("`")[1::2] if " remember " in c]
    assert len(commands) == 2 and all("--type " in c for c in commands) and "--project" in commands[1]
    texts = {"preference": "The user wants every reply in French.", "decision": "The shop deploys from main only."}
    for command in commands:
        argv = shlex.split(command.replace('"..."', shlex.quote(texts["decision" if "--project" in command
                                                                       else "preference"])))
        ran = subprocess.run(argv, capture_output=True, text=True, cwd=tmp_path)
        assert ran.returncode == 0, ran.stderr
    kept = {m.content: m for m in MemoryRepo.open(mem).list().memories}
    rule, choice = kept[texts["preference"]], kept[texts["decision"]]
    assert (rule.type, rule.domain, rule.project) == ("preference", "user", None)
    assert (choice.type, choice.domain) == ("decision", "project") and choice.project
    outside = gm("hook", "session-start", "--repo", str(mem), stdin=json.dumps({"cwd": str(tmp_path)}), cwd=tmp_path)
    assert "--project" not in outside.stdout       # no repository there: no project to name


@pytest.mark.parametrize("stdin", [b"", b"not json", b"[]", b"null", b'"text"', b"\xff\xfe{", b"{" * 50_000,
                                   b'{"cwd": ' + b" " * (1 << 20) + b"1}"])
def test_session_start_with_bad_input_never_blocks_records_and_still_prints(mem: Path, stdin: bytes) -> None:
    done = gm("hook", "session-start", "--repo", str(mem), stdin=stdin)
    assert done.returncode == 0, done.stderr
    assert "# Core memories (gitmem)" in done.stdout
    [error] = errors(mem)
    assert error["job"] == "session-start" and "hook input" in str(error["summary"])


def test_a_hook_naming_a_missing_repository_never_blocks(tmp_path: Path) -> None:
    for action in ("session-start", "session-end"):
        done = gm("hook", action, "--repo", str(tmp_path / "gone"), stdin="{}")
        assert done.returncode == 0 and "not a memory repository" in done.stderr


def test_a_failure_is_recorded_shown_by_status_and_once_by_session_start(mem: Path) -> None:
    end = {"session_id": "s-2", "transcript_path": "/nowhere/s-2.jsonl", "cwd": "/", "hook_event_name": "SessionEnd",
           "reason": "logout"}
    assert gm("hook", "session-end", "--repo", str(mem), stdin=json.dumps(end)).returncode == 0
    [error] = errors(mem)
    assert error["job"] == "session-end" and "s-2.jsonl" in str(error["summary"])
    assert "/nowhere" not in str(error["summary"])      # the file's name, not the user's folders
    status = gm("--repo", str(mem), "status")
    assert "last background error: " in status.stdout and "transcript is not there: s-2.jsonl" in status.stdout
    check = gm("hook", "session-start", "--repo", str(mem), "--check", stdin="{}")   # install's trial run
    assert "failed background job" in check.stdout
    first = gm("hook", "session-start", "--repo", str(mem), stdin="{}")
    assert first.returncode == 0 and "> session-end failed at" in first.stdout and "s-2.jsonl" in first.stdout
    second = gm("hook", "session-start", "--repo", str(mem), stdin="{}")
    assert second.returncode == 0 and "failed background job" not in second.stdout
    assert "# Core memories (gitmem)" in second.stdout


# --- session-end and post-session -------------------------------------------------------------

def test_session_end_returns_before_the_harvest_which_then_lands_and_proposes_a_review(mem: Path, tmp_path: Path) -> None:
    from gitmem.guards.lock import exclusive

    repo = MemoryRepo.open(mem)
    repo.pattern_add("Retry flaky calls with backoff", ["backoff"], now=START + timedelta(days=2))
    [path] = write_transcripts(tmp_path / "sessions", ["the upload failed, retry it with backoff please"],
                               START + timedelta(days=3))
    os.utime(path, (time.time() - 5, time.time() - 5))
    configure_folders(mem, [tmp_path / "sessions"])   # the hook harvests nothing outside them
    given = {"session_id": "11111111-0000-4000-8000-000000000000", "transcript_path": str(path), "cwd": str(tmp_path),
             "hook_event_name": "SessionEnd", "reason": "prompt_input_exit"}
    head = repo.head
    with exclusive(state.write_lock_path(mem)):   # the harvest cannot write while the test holds the lock
        done = gm("hook", "session-end", "--repo", str(mem), stdin=json.dumps(given))
        assert done.returncode == 0, done.stderr
        assert "handed off" in done.stdout
        assert MemoryRepo.open(mem).head == head          # returned while the harvest still waits
    log = settle(mem, "post-session.log", "post-session:")
    assert "post-session: ok: 1 harvested; weight update proposed on gitmem/review/weights-" in log
    after = MemoryRepo.open(mem)
    assert [r for r in after.reviews() if "weights-" in r.name]
    assert after.job_runs()["harvest"]["event"] == "job.run"


@pytest.mark.parametrize("reason", END_REASONS)
def test_session_end_harvests_a_real_transcript_for_every_reason(mem: Path, reason: str) -> None:
    talks = [p for p in bench_transcripts() if "__agent-" not in p.name and b'"user"' in p.read_bytes()]
    path = talks[END_REASONS.index(reason) * 3 % len(talks)]
    configure_folders(mem, [path.parent])
    given = {"session_id": "x", "transcript_path": str(path), "cwd": "/", "hook_event_name": "SessionEnd",
             "reason": reason}
    assert gm("hook", "session-end", "--repo", str(mem), stdin=json.dumps(given)).returncode == 0
    log = settle(mem, "post-session.log", "post-session:")
    assert "post-session: ok: 1 " in log, log
    assert MemoryRepo.open(mem).job_runs()["harvest"]["event"] == "job.run"


@pytest.mark.parametrize("stdin", [b"", b"{", b'{"session_id": "x"}', b'{"transcript_path": 7}',
                                   b'{"transcript_path": ""}', b'{"transcript_path": "/"}'])
def test_session_end_with_bad_input_records_and_never_blocks(mem: Path, stdin: bytes) -> None:
    done = gm("hook", "session-end", "--repo", str(mem), stdin=stdin)
    assert done.returncode == 0 and "handed off" not in done.stdout
    [error] = errors(mem)
    assert error["job"] == "session-end"


def _turns(sid: str, texts: list[str], first: int = 0) -> str:
    rows = []
    for n, text in enumerate(texts, first):
        stamp = f"2026-11-0{1 + n // 10}T09:{n % 10:02d}:00Z"
        rows.append({"type": "user", "sessionId": sid, "cwd": "/project", "uuid": f"u{n}", "timestamp": stamp,
                     "message": {"role": "user", "content": text}})
        rows.append({"type": "assistant", "sessionId": sid, "cwd": "/project", "uuid": f"a{n}", "timestamp": stamp,
                     "message": {"role": "assistant", "content": [{"type": "text", "text": "Done."}]}})
    return "".join(json.dumps(r) + "\n" for r in rows)


def test_a_resumed_session_adds_only_its_new_turns(mem: Path, tmp_path: Path) -> None:
    sid = "22222222-0000-4000-8000-000000000001"
    path = tmp_path / f"{sid}.jsonl"
    configure_folders(mem, [tmp_path])
    path.write_text(_turns(sid, ["Remember: the cache must be cleared after a toolchain upgrade.",
                                 "Never push to main without a green pipeline."]))
    os.utime(path, (time.time() - 5, time.time() - 5))
    first = gm("hook", "post-session", str(path), "--repo", str(mem))
    assert first.returncode == 0 and "ok: 1 harvested" in first.stdout, first
    again = gm("hook", "post-session", str(path), "--repo", str(mem))
    assert "ok: 1 unchanged" in again.stdout
    with path.open("a") as f:
        f.write(_turns(sid, ["Remember: release notes are written in the past tense."], first=2))
    os.utime(path, (time.time() - 5, time.time() - 5))
    resumed = gm("hook", "post-session", str(path), "--repo", str(mem))
    assert "ok: 1 updated" in resumed.stdout, resumed
    subject = subprocess.run(["git", "log", "-1", "--format=%s"], cwd=mem, capture_output=True, text=True).stdout
    assert "(1 new, 0 reinforced)" in subject        # the earlier turns are not encoded again
    contents = [m.content for m in MemoryRepo.open(mem).list().memories]
    assert sum("toolchain upgrade" in c for c in contents) == 1 and any("past tense" in c for c in contents)


def test_session_end_brings_the_sub_agent_files_along(mem: Path, tmp_path: Path) -> None:
    sid = "33333333-0000-4000-8000-000000000001"
    main = tmp_path / "proj" / f"{sid}.jsonl"
    main.parent.mkdir()
    configure_folders(mem, [main.parent])
    main.write_text(_turns(sid, ["Remember: the staging database is read-only on Fridays."]))
    agent = tmp_path / "proj" / sid / "subagents" / "agent-a1b2c3d4e5f6a7b8c.jsonl"
    agent.parent.mkdir(parents=True)
    agent.write_text(_turns(sid, ["use key " + "AKIA" + "Q7XZ4RT2LMWP9KVB" + " to upload"]))   # rejects the whole session
    given = {"session_id": sid, "transcript_path": str(main), "cwd": "/", "hook_event_name": "SessionEnd",
             "reason": "other"}
    assert gm("hook", "session-end", "--repo", str(mem), stdin=json.dumps(given)).returncode == 0
    log = settle(mem, "post-session.log", "post-session:")
    assert "ok: 1 rejected" in log and "AKIA" not in log


def test_post_session_without_a_file_harvests_the_newest_session_log(mem: Path, tmp_path: Path) -> None:
    old, new = write_transcripts(tmp_path / "a", ["the old session about flaky uploads", "the newest session"],
                                 START)
    os.utime(old, (time.time() - 3600, time.time() - 3600))
    os.utime(new, (time.time() - 60, time.time() - 60))
    configure_folders(mem, [tmp_path / "a", tmp_path / "missing"])
    done = gm("--repo", str(mem), "hook", "post-session")    # the verb path: --repo before hook
    assert done.returncode == 0 and "ok: 1 harvested" in done.stdout, done
    repo = MemoryRepo.open(mem)
    episodes = [p for p, _ in repo.git.blobs("episodes", head_of(repo)) if p.endswith(".md")]
    assert any(new.stem in p for p in episodes) and not any(old.stem in p for p in episodes), episodes


def test_post_session_with_no_session_folder_says_so(mem: Path, tmp_path: Path) -> None:
    configure_folders(mem, [tmp_path / "missing"])
    done = gm("hook", "post-session", "--repo", str(mem))
    assert done.returncode == 0 and "no session log" in done.stdout


@pytest.mark.parametrize("args", [["/no/such.jsonl"], ["a.jsonl", "b.jsonl"], ["--bogus"]])
def test_post_session_with_wrong_arguments_exits_2(mem: Path, args: list[str]) -> None:
    done = gm("hook", "post-session", *args, "--repo", str(mem))
    assert done.returncode == 2, done


def test_a_failed_harvest_is_recorded_and_exits_0(mem: Path, tmp_path: Path) -> None:
    folder = tmp_path / "dir.jsonl"      # a folder where a transcript was expected: walked, nothing in it
    folder.mkdir()
    (mem / "gitmem.yaml").write_text((mem / "gitmem.yaml").read_text() + "\nnot: [valid\n")
    done = gm("hook", "post-session", str(folder), "--repo", str(mem))
    assert done.returncode == 0 and "gitmem.yaml" in done.stderr + done.stdout


def test_hook_cron_records_a_failure_and_exits_0(mem: Path, tmp_path: Path) -> None:
    configure_folders(mem, [tmp_path / "sessions"])
    (tmp_path / "sessions").mkdir()
    (tmp_path / "sessions" / "s.jsonl").write_bytes(b"\x00\xff not a transcript\n")
    done = gm("--repo", str(mem), "hook", "cron")
    assert done.returncode == 0 and done.stdout.startswith("cron: ")

