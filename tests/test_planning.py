"""Tests for gitmem.engines.harvest.planning and MemoryRepo.harvest: one commit per session; a secret rejects it."""

from __future__ import annotations

import json
import subprocess
from pathlib import Path
from typing import Sequence

import pytest

from gitmem.api import MemoryRepo
from gitmem.base import clock
from gitmem.base.errors import UsageError
from gitmem.base.model import name_key
from gitmem.engines import memorize
from gitmem.engines.harvest import planning
from gitmem.engines.harvest.signals import Signal
from tests.conftest import NOW, bench_transcripts, corpora, run_cli

T = clock.parse_time(NOW)
FIXTURES = Path(__file__).parent / "fixtures" / "sessions"
# Fabricated credentials in real vendor formats (random characters, not live keys).
AWS_KEY = "AKIA" + "Q7XZ4RT2LMWP9KVB"
GH_TOKEN = "ghp_" + "x7Tq2LmZ9vR4kW8nB3cY6fH1jD5sA0eGuPqN"


def commits(root: Path) -> int:
    return int(subprocess.run(["git", "rev-list", "--count", "HEAD"], cwd=root, capture_output=True, text=True,
                              check=True).stdout)


def claude_session(path: Path, sid: str, turns: Sequence[tuple[str, object]]) -> Path:
    lines, parent = [], None
    for n, (kind, content) in enumerate(turns):
        uid = f"{sid}-{n}"
        msg = {"role": "user", "content": content} if kind == "user" else \
            {"id": f"msg_{n}", "type": "message", "role": "assistant", "model": "m", "content": content}
        lines.append(json.dumps({"parentUuid": parent, "isSidechain": False, "userType": "external", "cwd": "/home/alice/app",
                                 "sessionId": sid, "version": "2.1.27", "type": kind, "message": msg, "uuid": uid,
                                 "timestamp": f"2026-11-20T10:{n:02d}:00Z"}))
        parent = uid
    path.write_text("\n".join(lines) + "\n")
    return path


TURNS: list[tuple[str, object]] = [
    ("user", "Please fix the flaky upload test. Remember that the CI runner has only 2 cores."),
    ("assistant", [{"type": "tool_use", "id": "t1", "name": "Bash", "input": {"command": "pytest tests/test_upload.py"}}]),
    ("user", [{"type": "tool_result", "tool_use_id": "t1", "content": "1 failed: test_upload_retry", "is_error": True}]),
    ("user", "No, don't add sleeps; we inject the clock instead."),
    ("assistant", [{"type": "text", "text": "Done, the clock is injected."}]),
]


def test_session_becomes_one_commit_with_episode_and_memories(repo: MemoryRepo, repo_dir: Path, tmp_path: Path) -> None:
    src = claude_session(tmp_path / "s1.jsonl", "sess-0001", TURNS)
    before = commits(repo_dir)
    [r] = repo.harvest([src], now=T)
    # the remember request stands on main; the one-off correction waits in the harvest inbox
    assert r.status == "harvested" and r.created >= 1 and r.created + r.inbox >= 2 and r.episode is not None
    assert commits(repo_dir) == before + 1
    episode = (repo_dir / r.episode).read_text()
    assert r.episode.startswith("episodes/2026/11/") and "pytest tests/test_upload.py" in episode
    assert "/home/alice" not in episode   # home paths stripped by the write path
    sources = {m.source for m in repo.list().memories}
    assert any(s.startswith(f"session:{name_key('sess-0001', 's')}#L") for s in sources)
    msg = subprocess.run(["git", "log", "-1", "--format=%B"], cwd=repo_dir, capture_output=True, text=True).stdout
    assert f"Gitmem-Session: {name_key('sess-0001', 's')}" in msg and "Gitmem-Auto: true" in msg


def test_harvest_is_idempotent_and_incremental(repo: MemoryRepo, repo_dir: Path, tmp_path: Path) -> None:
    src = claude_session(tmp_path / "s2.jsonl", "sess-0002", TURNS)
    repo.harvest([src], now=T)
    before = commits(repo_dir)
    assert repo.harvest([src], now=T)[0].status == "unchanged"
    assert repo.harvest([src], now=T, rescan=True)[0].status == "unchanged"
    assert commits(repo_dir) == before
    claude_session(src, "sess-0002", TURNS + [("user", "We decided to always use Redis for the upload queue.")])
    [r] = repo.harvest([src], now=T)
    assert r.status == "updated" and r.created == 1
    assert commits(repo_dir) == before + 1
    assert any("Redis" in m.content for m in repo.list().memories)


@pytest.mark.parametrize("where", ["user text", "tool input", "tool output", "structured tool result"])
def test_secret_anywhere_rejects_the_whole_session(repo: MemoryRepo, repo_dir: Path, tmp_path: Path, where: str) -> None:
    turns = list(TURNS)
    if where == "user text":
        turns.append(("user", f"here are my creds: aws_access_key_id={AWS_KEY}"))
    elif where == "tool input":
        turns.append(("assistant", [{"type": "tool_use", "id": "t9", "name": "Bash",
                                     "input": {"command": f"curl -H 'Authorization: token {GH_TOKEN}' https://api.github.com"}}]))
    elif where == "tool output":
        turns.append(("user", [{"type": "tool_result", "tool_use_id": "t1", "content": f"cat .env\nGITHUB_TOKEN={GH_TOKEN}\n"}]))
    else:   # an MCP-style result whose text sits under a "data" key
        turns.append(("user", [{"type": "tool_result", "tool_use_id": "t1",
                                "content": [{"type": "json", "data": {"env": f"GITHUB_TOKEN={GH_TOKEN}"}}]}]))
    src = claude_session(tmp_path / "leak.jsonl", "sess-leak", turns)
    before = commits(repo_dir)
    [r] = repo.harvest([src], now=T)
    assert r.status == "rejected" and "nothing written" in r.reason
    assert AWS_KEY not in r.reason and GH_TOKEN not in r.reason
    assert commits(repo_dir) == before
    events = (repo_dir / ".git/gitmem/events.jsonl").read_text()
    assert "secret.rejected" in events and name_key("sess-leak", "s") in events and "sess-leak" not in events
    assert AWS_KEY not in events and GH_TOKEN not in events


def test_cli_harvest_exit_code_and_json(repo_dir: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    good = claude_session(tmp_path / "good.jsonl", "sess-good", TURNS)
    bad = claude_session(tmp_path / "bad.jsonl", "sess-bad", TURNS + [("user", f"token {GH_TOKEN}")])
    code, out, _ = run_cli(["--repo", str(repo_dir), "--now", NOW, "harvest", str(good), str(bad), "--json"], capsys)
    assert code == 1
    by = {Path(r["path"]).name: r["status"] for r in json.loads(out)}
    assert by == {"good.jsonl": "harvested", "bad.jsonl": "rejected"}


def test_fixture_formats_and_folder_walk(repo: MemoryRepo) -> None:
    results = repo.harvest([FIXTURES], now=T)
    statuses = {Path(r.path).name: r.status for r in results}
    assert all(s in ("harvested", "rejected", "unchanged", "empty") for s in statuses.values()), statuses
    assert statuses.get("secrets.jsonl") == "rejected" and statuses.get("empty.jsonl") == "empty"
    assert sum(1 for s in statuses.values() if s == "harvested") >= 4


def test_whole_keeps_one_summary_memory(repo: MemoryRepo, tmp_path: Path) -> None:
    src = claude_session(tmp_path / "w.jsonl", "sess-whole", TURNS)
    [r] = repo.harvest([src], whole=True, now=T)
    assert r.created == 1


@pytest.mark.slow
def test_every_bench_transcript(tmp_path: Path) -> None:
    sessions = bench_transcripts()
    repo_path = tmp_path / "bench-mem"
    MemoryRepo.init(repo_path, T, install_hooks=False)
    repo = MemoryRepo.open(repo_path)
    results = repo.harvest(sessions, now=T)
    assert len(results) == sum(c.sessions for c in corpora())
    failed = [r for r in results if r.status == "failed"]
    assert failed == []
    rejected = [(Path(r.path).name, r.reason) for r in results if r.status == "rejected"]
    assert rejected == []   # the bench files were screened for secrets by hand: a rejection is a false positive
    empty = sorted(Path(r.path).name for r in results if r.status == "empty")
    assert len(empty) <= sum(c.harvest_empty for c in corpora()) and all(r.commit is None for r in results if r.status == "empty")
    again = repo.harvest(sessions, now=T, rescan=True)
    assert all(r.status == ("empty" if Path(r.path).name in empty else "unchanged") for r in again)


# --------------------------------------------------------------------------- the planning engine, on values


def session_of(tmp_path: Path, turns: list[tuple[str, object]] = TURNS, sid: str = "sess-plan") -> planning.Session:
    return planning.read_session(claude_session(tmp_path / f"{sid}.jsonl", sid, turns), "auto", None)


def empty_batch(repo: MemoryRepo) -> memorize.Batch:
    return memorize.Batch(None, T, repo.cfg.memory)


def test_transcript_files_checks_the_request(tmp_path: Path) -> None:
    with pytest.raises(UsageError, match="unknown transcript format"):
        planning.list_transcripts([tmp_path], "yaml", 20)
    with pytest.raises(UsageError, match="--per-session"):
        planning.list_transcripts([tmp_path], "auto", -1)
    with pytest.raises(UsageError, match="no such file or folder"):
        planning.list_transcripts([tmp_path / "missing"], "auto", 20)
    src = claude_session(tmp_path / "a.jsonl", "sess-a", TURNS)
    assert planning.list_transcripts([tmp_path, src], "claude-code", 0) == [src]


def test_draft_of_a_new_session_plans_the_episode_and_fills_the_batch(repo: MemoryRepo, tmp_path: Path) -> None:
    session = session_of(tmp_path)
    batch = empty_batch(repo)
    d = planning.draft(session, None, batch, 20, False, T)
    key = name_key("sess-plan", "s")   # an id that is not a UUID is recorded as its hash
    assert d.status == "harvested" and d.episode == f"episodes/2026/11/{key}.md"
    assert list(d.changes) == [d.episode]
    assert b"lines_harvested: 5" in d.changes[d.episode]  # type: ignore[operator]
    assert d.created == len(batch.planned) >= 1 and d.created + len(d.inbox) >= 2 and d.reinforced == 0
    assert d.subject.startswith(f"gitmem: harvest session {key} (")
    assert d.trailers == (("Gitmem-Source", f"claude-code:{name_key('sess-plan.jsonl', 'f')}"),)
    assert all(p.memory.source.startswith(f"session:{key}#L") for p in batch.planned.values())
    assert all(p.memory.tags[0] == "harvest" for p in batch.planned.values())


def test_draft_against_a_covering_episode_is_unchanged(repo: MemoryRepo, tmp_path: Path) -> None:
    session = session_of(tmp_path)
    stored = planning.StoredEpisode("episodes/2026/11/sess-plan.md", session.transcript.end_line)
    batch = empty_batch(repo)
    d = planning.draft(session, stored, batch, 20, False, T)
    assert (d.status, d.episode, d.changes, batch.planned) == ("unchanged", stored.path, {}, {})


def test_draft_of_a_grown_session_takes_only_the_new_signals(repo: MemoryRepo, tmp_path: Path) -> None:
    session = session_of(tmp_path, TURNS + [("user", "We decided to always use Redis for the upload queue.")])
    stored = planning.StoredEpisode("episodes/2026/10/sess-plan.md", 5)
    batch = empty_batch(repo)
    d = planning.draft(session, stored, batch, 20, False, T)
    assert d.status == "updated" and d.episode == stored.path   # the episode keeps its place
    assert [p.memory.content for p in batch.planned.values()] == ["We decided to always use Redis for the upload queue."]
    assert [p.memory.type for p in batch.planned.values()] == ["decision"]


def test_draft_whole_keeps_one_summary_memory_on_first_harvest_only(repo: MemoryRepo, tmp_path: Path) -> None:
    session = session_of(tmp_path)
    batch = empty_batch(repo)
    assert planning.draft(session, None, batch, 20, True, T).created == 1
    [planned] = batch.planned.values()
    assert planned.memory.content == session.episode.summary and planned.memory.tags == ("harvest", "fact")
    again = empty_batch(repo)
    assert planning.draft(session, planning.StoredEpisode("e.md", 1), again, 20, True, T).created == 0


def test_draft_with_zero_signals_writes_the_episode_only(repo: MemoryRepo, tmp_path: Path) -> None:
    batch = empty_batch(repo)
    d = planning.draft(session_of(tmp_path), None, batch, 0, False, T)
    assert d.status == "harvested" and d.created == 0 and batch.planned == {}


def test_duplicate_signals_in_one_session_reinforce_within_the_batch(repo: MemoryRepo, tmp_path: Path) -> None:
    turns: list[tuple[str, object]] = [("user", "Always run the linter before committing code."),
                                       ("user", "Always run the linter before committing any code.")]
    batch = empty_batch(repo)
    d = planning.draft(session_of(tmp_path, turns), None, batch, 20, False, T)
    assert (d.created, d.reinforced) == (1, 1)
    [planned] = batch.planned.values()
    assert planned.memory.reinforced == 1


def test_pick_keeps_the_most_important_in_transcript_order() -> None:
    signals = [Signal("The build is slow on Mondays.", "fact", 1),
               Signal("Remember: the deploy key lives in the vault.", "remember", 2),
               Signal("I prefer tabs.", "preference", 3)]
    assert planning.pick(signals, 0) == []
    two = planning.pick(signals, 2)
    assert len(two) == 2 and [s.line for s in two] == sorted(s.line for s in two)
    assert signals[1] in two
    assert planning.pick(signals, 10) == signals


def test_report_is_unchanged_without_a_commit(tmp_path: Path) -> None:
    session = session_of(tmp_path)
    d = planning.Draft("harvested", "episodes/x.md", {}, 2, 1)
    assert planning.report(session, None, None).status == "unchanged"
    assert planning.report(session, d, None).status == "unchanged"
    done = planning.report(session, d, "abc123")
    assert (done.status, done.commit, done.episode, done.created, done.reinforced) == ("harvested", "abc123", "episodes/x.md", 2, 1)
    assert set(done.to_json()) == {"path", "session", "status", "commit", "episode", "created", "reinforced", "reason",
                                   "warnings", "findings", "inbox", "inbox_branch"}


def test_rejected_session_and_its_alert_never_hold_the_secret(tmp_path: Path) -> None:
    session = session_of(tmp_path, TURNS + [("user", f"token {GH_TOKEN}")], sid="sess-leak2")
    assert session.secrets
    alert, rejected = session.alert(), session.rejected()
    assert GH_TOKEN not in json.dumps(alert) and GH_TOKEN not in rejected.reason
    assert alert["session"] == name_key("sess-leak2", "s") and alert["kinds"]
    assert rejected.status == "rejected" and "nothing written" in rejected.reason


def test_find_episode_at_a_commit(repo: MemoryRepo, tmp_path: Path) -> None:
    assert planning.find_episode(repo.git, None, "sess-0003") is None
    assert planning.find_episode(repo.git, repo.head, "sess-0003") is None
    [r] = repo.harvest([claude_session(tmp_path / "f.jsonl", "sess-0003", TURNS)], now=T)
    found = planning.find_episode(repo.git, repo.head, name_key("sess-0003", "s"))
    assert r.episode is not None and found == planning.StoredEpisode(r.episode, 5)


# --------------------------------------------------------------------------- the cursor

def test_cursors_record_and_recognise_an_unchanged_file(tmp_path: Path) -> None:
    state = tmp_path / "state"
    state.mkdir()
    src = claude_session(tmp_path / "c.jsonl", "sess-c", TURNS)
    cursors = planning.Cursors(state)
    stamp = cursors.stamp(src)
    assert not cursors.unchanged(stamp)
    cursors.record(stamp)
    assert planning.Cursors(state).unchanged(planning.Cursors.stamp(src))   # written at once
    with src.open("a") as fh:
        fh.write("\n")
    assert not planning.Cursors(state).unchanged(planning.Cursors.stamp(src))
    assert not (state / (planning.CURSOR_FILE + ".tmp")).exists()


def test_cursors_keep_hashes_of_paths_never_the_paths(tmp_path: Path) -> None:
    state = tmp_path / "state"
    state.mkdir()
    folder = tmp_path / "Users" / "hieronymus"
    folder.mkdir(parents=True)
    (state / planning.CURSOR_FILE).write_text(json.dumps({"/Users/hieronymus/old.jsonl": [1, 2]}))  # an older version's
    cursors = planning.Cursors(state)
    cursors.record(cursors.stamp(claude_session(folder / "c.jsonl", "sess-c", TURNS)))
    assert "hieronymus" not in (state / planning.CURSOR_FILE).read_text()
    assert cursors.unchanged(planning.Cursors.stamp(folder / "c.jsonl"))


@pytest.mark.parametrize("content", ["{not json", "[1, 2]", ""])
def test_a_damaged_cursor_file_counts_as_empty(tmp_path: Path, content: str) -> None:
    (tmp_path / planning.CURSOR_FILE).write_text(content)
    assert planning.Cursors(tmp_path).marks == {}


# --------------------------------------------------------------------------- the use case, end to end

def test_harvest_reinforces_a_memory_that_exists(repo: MemoryRepo, tmp_path: Path) -> None:
    repo.remember("We decided to always use Redis for the upload queue.", now=T)
    src = claude_session(tmp_path / "r.jsonl", "sess-r", [("user", "We decided to always use Redis for the upload queue.")])
    [r] = repo.harvest([src], now=T)
    assert (r.status, r.created, r.reinforced) == ("harvested", 0, 1)
    [mem] = [m for m in repo.list().memories if "Redis" in m.content]
    assert mem.reinforced == 1


def test_harvest_survives_a_line_nested_too_deep(repo: MemoryRepo, tmp_path: Path) -> None:
    src = claude_session(tmp_path / "d.jsonl", "sess-deep", TURNS)
    with src.open("a") as fh:
        fh.write("[" * 100_000 + "\n")
    [r] = repo.harvest([src], now=T)
    assert r.status == "harvested"


def test_harvest_reports_progress_and_a_failed_file(repo: MemoryRepo, tmp_path: Path) -> None:
    good = claude_session(tmp_path / "good.jsonl", "sess-g", TURNS)
    bad = tmp_path / "bad.jsonl"
    bad.write_text("this is not json\nnor this\n")
    seen: list[tuple[int, int]] = []
    results = repo.harvest([good, bad], now=T, progress=lambda n, total: seen.append((n, total)))
    assert seen == [(1, 2), (2, 2)]
    by = {Path(r.path).name: r for r in results}
    assert by["good.jsonl"].status == "harvested"
    assert by["bad.jsonl"].status == "failed" and "not a JSONL transcript" in by["bad.jsonl"].reason
    again = {Path(r.path).name: r.status for r in repo.harvest([good, bad], now=T)}
    assert again == {"good.jsonl": "unchanged", "bad.jsonl": "failed"}   # a failure is retried, not cursored


TRANSIENT_AND_DURABLE: list[tuple[str, object]] = [
    ("user", "Don't use tts for now. Always show me the full path of every file you mention."),
    ("assistant", [{"type": "text", "text": "Understood."}]),
    ("user", "先不用输出客户的报价，先输出标准的模板。以后都用中文回答。"),
    ("assistant", [{"type": "text", "text": "好的。"}]),
    ("user", "Pour l'instant, ne touche pas au Dockerfile. Désormais, écris les commits en anglais."),
]


def test_transient_instructions_stay_in_the_episode_and_durable_ones_become_memories(
        repo: MemoryRepo, repo_dir: Path, tmp_path: Path) -> None:
    src = claude_session(tmp_path / "s.jsonl", "sess-durable", TRANSIENT_AND_DURABLE)
    [r] = repo.harvest([src], now=T)
    assert r.status == "harvested" and r.episode is not None
    contents = sorted(m.content for m in repo.list().memories)
    assert contents == sorted(["Always show me the full path of every file you mention.", "以后都用中文回答。",
                               "Désormais, écris les commits en anglais."])
    assert all(m.importance >= 0.85 for m in repo.list().memories)
    episode = (repo_dir / r.episode).read_text()
    assert "tts for now" in episode and "先不用输出" in episode   # kept as what happened in the session


def test_a_correction_repeated_in_a_later_session_becomes_a_memory(repo: MemoryRepo, tmp_path: Path) -> None:
    said = "No, that's wrong: the lockfile is pnpm-lock.yaml."
    first = [("user", said), ("assistant", [{"type": "text", "text": "Fixed."}])]
    [r1] = repo.harvest([claude_session(tmp_path / "a.jsonl", "sess-a", first)], now=T)
    assert r1.status == "harvested" and r1.created == 0   # once: a step of that task, kept in its episode
    second = [("user", "No, that's wrong, the lockfile is pnpm-lock.yaml"), ("assistant", [{"type": "text", "text": "Ok."}]),
              ("user", "Don't touch the CI config for now.")]
    [r2] = repo.harvest([claude_session(tmp_path / "b.jsonl", "sess-b", second)], now=T)
    assert r2.status == "harvested" and r2.created == 1
    [mem] = repo.list().memories
    # durable now, but a fact of the project, not a rule for the person: under the core band (placement)
    assert "pnpm-lock.yaml" in mem.content and mem.domain == "project" and 0.6 < mem.importance < 0.7
