"""Tests for gitmem.api.sessions: working notes, session end, and harvest through the use-case layer."""

from __future__ import annotations

import dataclasses
import json
import re
import subprocess
from pathlib import Path
from typing import Sequence

import pytest

from gitmem.api import MemoryRepo
from gitmem.base import clock
from gitmem.base.config import Config
from gitmem.base.errors import ConflictError, SecretError, UsageError, ValidationError
from gitmem.base.model import name_key
from gitmem.engines.harvest import planning
from gitmem.engines.working import WORKING_LOG
from tests.conftest import NOW

T = clock.parse_time(NOW)
# Fabricated credentials in real vendor formats (random characters, not live keys).
GH_TOKEN = "ghp_" + "R8nV2cX5zL1qW7eT4yU9iO3pA6sD0fGhJkMb"
AWS_KEY = "AKIA" + "ZP3MX8QW2NVR7TLK"

CI = "Remember that the CI runner has only 2 cores."
REDIS = "We decided to use Redis for the upload queue."


def git(root: Path, *args: str) -> str:
    done = subprocess.run(["git", *args], cwd=root, capture_output=True, text=True)
    assert done.returncode == 0, done.stderr
    return done.stdout.strip()


def commits(root: Path) -> int:
    return int(git(root, "rev-list", "--count", "HEAD"))


def transcript(path: Path, session: str, messages: Sequence[tuple[str, str]]) -> Path:
    """A generic JSONL transcript: one message a line, stamped a minute apart on 2026-10-05."""
    assert messages
    lines = [json.dumps({"session_id": session, "role": role, "content": text,
                         "timestamp": f"2026-10-05T09:{n:02d}:00Z"}) for n, (role, text) in enumerate(messages)]
    path.write_text("\n".join(lines) + "\n")
    return path


def events(repo_dir: Path) -> list[dict[str, object]]:
    path = repo_dir / ".git" / "gitmem" / "events.jsonl"
    return [json.loads(line) for line in path.read_text().splitlines()] if path.exists() else []


# --------------------------------------------------------------------------- note and notes

def test_notes_start_empty_and_keep_their_order(repo: MemoryRepo, repo_dir: Path) -> None:
    assert repo.notes() == []
    first = repo.note("first thought", importance=0.2, now=T)
    second = repo.note("second thought", type="decision", domain="project", now=T)
    assert repo.notes() == [first, second]
    assert (second.type, second.domain, second.at) == ("decision", "project", NOW)
    assert commits(repo_dir) == 1 and git(repo_dir, "status", "--porcelain") == ""


def test_a_note_is_stored_with_its_pii_replaced(repo: MemoryRepo, repo_dir: Path) -> None:
    n = repo.note("Mail dana.lee@gmail.com about the release", importance=0.9, now=T)
    assert "dana.lee@gmail.com" not in n.text and "[EMAIL]" in n.text
    log = (repo_dir / ".git" / "gitmem" / WORKING_LOG).read_text()
    assert "dana.lee@gmail.com" not in log and "[EMAIL]" in log


def test_a_note_holding_a_secret_is_refused_and_kept_nowhere(repo: MemoryRepo, repo_dir: Path) -> None:
    repo.note("an ordinary note", now=T)
    with pytest.raises(SecretError) as info:
        repo.note(f"the deploy token is {GH_TOKEN}", now=T, importance=0.9)
    assert GH_TOKEN not in str(info.value) and all(GH_TOKEN not in w for _, w in info.value.findings)
    assert [n.text for n in repo.notes()] == ["an ordinary note"]
    log = (repo_dir / ".git" / "gitmem" / WORKING_LOG).read_text()
    assert GH_TOKEN not in log
    [alert] = [e for e in events(repo_dir) if e["event"] == "secret.rejected"]
    assert alert["event_kind"] == "memory.working" and GH_TOKEN not in json.dumps(alert)


def test_a_note_is_checked_against_the_configured_size(repo_dir: Path) -> None:
    cfg = Config()
    small = dataclasses.replace(cfg, sediment=dataclasses.replace(cfg.sediment, max_content_bytes=16))
    repo = MemoryRepo(repo_dir, small)
    with pytest.raises(ValidationError, match="over the limit of 16 bytes"):
        repo.note("x" * 17, now=T)
    assert repo.note("x" * 16, now=T).text == "x" * 16


@pytest.mark.parametrize("kwargs", [{"importance": 1.5}, {"type": "rumour"}, {"domain": "mars"}])
def test_a_bad_note_writes_nothing(repo: MemoryRepo, repo_dir: Path, kwargs: dict[str, object]) -> None:
    with pytest.raises(UsageError):
        repo.note("something", now=T, **kwargs)  # type: ignore[arg-type]  # each case passes one keyword
    assert not (repo_dir / ".git" / "gitmem" / WORKING_LOG).exists()


def test_notes_are_shared_by_the_linked_worktrees_of_a_clone(repo: MemoryRepo, repo_dir: Path, tmp_path: Path) -> None:
    linked = tmp_path / "linked"
    git(repo_dir, "worktree", "add", "-q", "-b", "side", str(linked))
    n = MemoryRepo.open(linked).note("noted from the linked checkout", now=T)
    assert repo.notes() == [n]


# --------------------------------------------------------------------------- session_end

def test_session_end_without_notes_commits_nothing(repo: MemoryRepo, repo_dir: Path) -> None:
    end = repo.session_end(T, session="s-0")
    assert (end.kept, end.dropped, end.commit) == ((), 0, None)
    assert commits(repo_dir) == 1


def test_session_end_drops_unimportant_notes_without_a_commit(repo: MemoryRepo, repo_dir: Path) -> None:
    repo.note("looking at the logs", importance=0.1, now=T)
    repo.note("trying another flag", importance=0.59, now=T)
    end = repo.session_end(T)
    assert (end.kept, end.dropped, end.commit) == ((), 2, None)
    assert repo.notes() == [] and commits(repo_dir) == 1
    assert list((repo_dir / ".git" / "gitmem").glob("working*")) == []


def test_session_end_is_one_commit_with_its_trailers(repo: MemoryRepo, repo_dir: Path) -> None:
    repo.note(CI, importance=0.9, now=T)
    repo.note(REDIS, importance=0.8, now=T)
    repo.note("scratch", importance=0.0, now=T)
    end = repo.session_end(T, session="s-77")
    assert len(end.kept) == 2 and end.dropped == 1 and end.commit == git(repo_dir, "rev-parse", "HEAD")
    assert commits(repo_dir) == 2
    message = git(repo_dir, "log", "-1", "--format=%B")
    assert message.startswith("gitmem: session end, 2 working notes kept")
    assert "1 notes dropped" in message
    assert "Gitmem-Event: memory.session_end" in message and "Gitmem-Session: s-77" in message
    assert {repo.show(i).content for i in end.kept} == {CI, REDIS}
    assert all(repo.show(i).source == "working:s-77" for i in end.kept)


def test_session_end_reinforces_a_stored_memory(repo: MemoryRepo) -> None:
    stored = repo.remember(REDIS, now=T)
    repo.note(REDIS, importance=0.9, now=T)
    end = repo.session_end(T)
    assert end.kept == (stored.id,)
    assert repo.show(stored.id).reinforced == 1
    assert len(repo.list().memories) == 1


def test_duplicate_notes_become_one_memory(repo: MemoryRepo) -> None:
    repo.note(REDIS, importance=0.9, now=T)
    repo.note(REDIS, importance=0.7, now=T)
    end = repo.session_end(T)
    assert len(end.kept) == 1 and end.dropped == 0
    [mem] = repo.list().memories
    assert mem.reinforced == 1


def test_notes_set_aside_by_an_interrupted_session_end_are_kept_next_time(repo: MemoryRepo, repo_dir: Path) -> None:
    log = repo_dir / ".git" / "gitmem" / WORKING_LOG
    repo.note(CI, importance=0.9, now=T)
    log.rename(log.with_suffix(".ending"))      # where a killed session end left them
    repo.note(REDIS, importance=0.9, now=T)
    end = repo.session_end(T)
    assert {repo.show(i).content for i in end.kept} == {CI, REDIS}
    assert not log.with_suffix(".ending").exists()


def test_a_failed_session_end_loses_no_note(repo: MemoryRepo, repo_dir: Path) -> None:
    repo.note(CI, importance=0.9, now=T)
    git(repo_dir, "checkout", "-q", "--detach", "HEAD")
    with pytest.raises(ConflictError):
        MemoryRepo.open(repo_dir).session_end(T)
    git(repo_dir, "checkout", "-q", "main")
    end = repo.session_end(T)
    assert [repo.show(i).content for i in end.kept] == [CI]


def test_notes_still_lists_notes_of_a_failed_session_end(repo: MemoryRepo, repo_dir: Path) -> None:
    repo.note(CI, importance=0.9, now=T)
    git(repo_dir, "checkout", "-q", "--detach", "HEAD")
    with pytest.raises(ConflictError):
        repo.session_end(T)
    assert [n.text for n in repo.notes()] == [CI]


# --------------------------------------------------------------------------- harvest

def test_each_session_is_one_commit(repo: MemoryRepo, repo_dir: Path, tmp_path: Path) -> None:
    a = transcript(tmp_path / "a.jsonl", "alpha", [("user", CI), ("assistant", "Noted.")])
    b = transcript(tmp_path / "b.jsonl", "beta", [("user", REDIS), ("assistant", "Done.")])
    results = repo.harvest([b, a], now=T)
    assert [(Path(r.path).name, r.session_id, r.status) for r in results] == [
        ("a.jsonl", "alpha", "harvested"), ("b.jsonl", "beta", "harvested")]
    assert commits(repo_dir) == 3
    log = git(repo_dir, "log", "--format=%(trailers:key=Gitmem-Session,valueonly)%(trailers:key=Gitmem-Event,valueonly)")
    assert [line for line in log.splitlines() if line] == [name_key("beta", "s"), "harvest.session", name_key("alpha", "s"), "harvest.session",
                                                           "repo.init"]
    for r in results:
        assert r.commit is not None and r.episode == f"episodes/2026/10/{name_key(r.session_id, 's')}.md"
        assert git(repo_dir, "show", "--format=", "--name-only", r.commit).count("\n") + 1 == 1 + r.created
    sources = {m.content: m.source for m in repo.list().memories}
    assert sources == {"The CI runner has only 2 cores.": f"session:{name_key('alpha', 's')}#L1",
                       REDIS: f"session:{name_key('beta', 's')}#L1"}


def test_a_secret_rejects_the_whole_session_and_writes_nothing(repo: MemoryRepo, repo_dir: Path,
                                                               tmp_path: Path) -> None:
    good = transcript(tmp_path / "good.jsonl", "good", [("user", REDIS)])
    leak = transcript(tmp_path / "leak.jsonl", "leak", [("user", CI), ("assistant", "ok"),
                                                        ("user", f"aws_access_key_id={AWS_KEY}")])
    results = {Path(r.path).name: r for r in repo.harvest([good, leak], now=T)}
    assert results["good.jsonl"].status == "harvested"
    bad = results["leak.jsonl"]
    assert (bad.status, bad.commit, bad.episode, bad.created) == ("rejected", None, None, 0)
    assert "nothing written" in bad.reason and AWS_KEY not in bad.reason
    assert commits(repo_dir) == 2
    assert planning.find_episode(repo.git, repo.head, "leak") is None
    assert all("CI runner" not in m.content for m in repo.list().memories)   # not even the clean lines
    [alert] = [e for e in events(repo_dir) if e["event"] == "secret.rejected"]
    assert alert["session"] == name_key("leak", "s") and AWS_KEY not in json.dumps(alert)


def test_a_rejected_session_is_screened_again_not_skipped(repo: MemoryRepo, repo_dir: Path, tmp_path: Path) -> None:
    leak = transcript(tmp_path / "leak.jsonl", "leak", [("user", f"token {GH_TOKEN}")])
    assert [r.status for r in repo.harvest([leak], now=T)] == ["rejected"]
    assert [r.status for r in repo.harvest([leak], now=T)] == ["rejected"]
    transcript(leak, "leak", [("user", "token [REDACTED]"), ("user", REDIS)])   # the person cleaned the file
    [r] = repo.harvest([leak], now=T)
    assert r.status == "harvested" and commits(repo_dir) == 2


def test_harvest_again_is_idempotent(repo: MemoryRepo, repo_dir: Path, tmp_path: Path) -> None:
    src = transcript(tmp_path / "s.jsonl", "steady", [("user", CI), ("user", REDIS)])
    [first] = repo.harvest([src], now=T)
    tip, listing = git(repo_dir, "rev-parse", "HEAD"), repo.list().memories
    assert first.status == "harvested"
    assert [r.status for r in repo.harvest([src], now=T)] == ["unchanged"]
    assert [r.status for r in repo.harvest([src], now=T, rescan=True)] == ["unchanged"]
    (repo_dir / ".git" / "gitmem" / planning.CURSOR_FILE).unlink()    # as in a fresh clone
    assert [r.status for r in repo.harvest([src], now=T)] == ["unchanged"]
    assert git(repo_dir, "rev-parse", "HEAD") == tip and repo.list().memories == listing


def test_a_grown_session_updates_its_episode(repo: MemoryRepo, repo_dir: Path, tmp_path: Path) -> None:
    src = transcript(tmp_path / "g.jsonl", "grow", [("user", CI)])
    [first] = repo.harvest([src], now=T)
    transcript(src, "grow", [("user", CI), ("user", REDIS)])
    [again] = repo.harvest([src], now=T)
    assert (again.status, again.episode, again.created) == ("updated", first.episode, 1)
    assert commits(repo_dir) == 3
    assert b"lines_harvested: 2" in (repo_dir / str(again.episode)).read_bytes()


@pytest.mark.parametrize("content", [b"hello world\nnot json\n", b"\x00\x01\x02garbage", b"[1, 2]\n[3]\n"])
def test_a_file_that_is_not_a_transcript_fails_alone(repo: MemoryRepo, repo_dir: Path, tmp_path: Path,
                                                     content: bytes) -> None:
    odd = tmp_path / "odd.txt"
    odd.write_bytes(content)
    good = transcript(tmp_path / "z.jsonl", "zed", [("user", REDIS)])
    seen: list[tuple[int, int]] = []
    results = repo.harvest([odd, good], now=T, progress=lambda n, total: seen.append((n, total)))
    by = {Path(r.path).name: r for r in results}
    assert by["odd.txt"].status == "failed" and "not a JSONL transcript" in by["odd.txt"].reason
    assert by["odd.txt"].commit is None and by["z.jsonl"].status == "harvested"
    assert seen == [(1, 2), (2, 2)] and commits(repo_dir) == 2
    assert [r.status for r in repo.harvest([odd], now=T)] == ["failed"]   # retried, never cursored


def test_a_bad_request_raises_before_reading_anything(repo: MemoryRepo, repo_dir: Path, tmp_path: Path) -> None:
    src = transcript(tmp_path / "s.jsonl", "req", [("user", REDIS)])
    with pytest.raises(UsageError, match="unknown transcript format"):
        repo.harvest([src], fmt="yaml", now=T)
    with pytest.raises(UsageError, match="--per-session"):
        repo.harvest([src], signals=-1, now=T)
    with pytest.raises(UsageError, match="no such file or folder"):
        repo.harvest([src, tmp_path / "missing.jsonl"], now=T)
    assert commits(repo_dir) == 1
    assert not (repo_dir / ".git" / "gitmem" / planning.CURSOR_FILE).exists()


def test_a_file_named_twice_is_harvested_once(repo: MemoryRepo, repo_dir: Path, tmp_path: Path) -> None:
    folder = tmp_path / "sessions"
    folder.mkdir()
    src = transcript(folder / "once.jsonl", "once", [("user", REDIS)])
    results = repo.harvest([src, folder, src], now=T)
    assert [(Path(r.path).name, r.status) for r in results] == [("once.jsonl", "harvested")]
    assert commits(repo_dir) == 2


def test_a_session_that_cannot_be_written_fails_and_is_retried(repo: MemoryRepo, repo_dir: Path,
                                                               tmp_path: Path) -> None:
    src = transcript(tmp_path / "d.jsonl", "detached", [("user", REDIS)])
    git(repo_dir, "checkout", "-q", "--detach", "HEAD")
    [r] = MemoryRepo.open(repo_dir).harvest([src], now=T)
    assert (r.status, r.commit) == ("failed", None) and "HEAD is detached" in r.reason
    git(repo_dir, "checkout", "-q", "main")
    [again] = repo.harvest([src], now=T)
    assert again.status == "harvested" and commits(repo_dir) == 2


def test_harvest_of_nothing_returns_nothing(repo: MemoryRepo, tmp_path: Path) -> None:
    folder = tmp_path / "none"
    folder.mkdir()
    (folder / "readme.txt").write_text("no transcripts here")
    assert repo.harvest([folder], now=T) == []
    assert repo.harvest([], now=T) == []


def test_zero_signals_commits_the_episode_alone(repo: MemoryRepo, repo_dir: Path, tmp_path: Path) -> None:
    src = transcript(tmp_path / "e.jsonl", "episode-only", [("user", CI), ("user", REDIS)])
    [r] = repo.harvest([src], fmt="jsonl", signals=0, now=T)
    assert (r.status, r.created) == ("harvested", 0)
    assert git(repo_dir, "show", "--format=", "--name-only", str(r.commit)) == r.episode
    assert repo.list().memories == ()


def test_whole_keeps_the_session_as_one_memory(repo: MemoryRepo, tmp_path: Path) -> None:
    src = transcript(tmp_path / "w.jsonl", "whole", [("user", CI), ("user", REDIS)])
    [r] = repo.harvest([src], whole=True, now=T)
    assert r.created == 1
    [mem] = repo.list().memories
    assert mem.tags == ("harvest", "fact") and mem.source.startswith(f"session:{name_key('whole', 's')}#L")


def test_a_harvested_signal_reinforces_a_note_kept_at_session_end(repo: MemoryRepo, tmp_path: Path) -> None:
    repo.note(REDIS, importance=0.9, now=T)
    [kept] = repo.session_end(T).kept
    [r] = repo.harvest([transcript(tmp_path / "n.jsonl", "after-notes", [("user", REDIS)])], now=T)
    assert (r.created, r.reinforced) == (0, 1)
    assert repo.show(kept).reinforced == 1


# --------------------------------------------------------------------------- projects from the session's cwd

def _claude(path: Path, session: str, cwd: str, request: str) -> Path:
    recs = [{"type": "user", "sessionId": session, "cwd": cwd, "uuid": f"{session}-1", "isSidechain": False,
             "timestamp": "2026-10-05T09:00:01Z", "message": {"role": "user", "content": request}},
            {"type": "assistant", "sessionId": session, "cwd": cwd, "uuid": f"{session}-2", "isSidechain": False,
             "timestamp": "2026-10-05T09:00:02Z", "message": {"role": "assistant", "content": [
                 {"type": "text", "text": "Noted."}]}}]
    path.write_text("\n".join(json.dumps(r) for r in recs) + "\n")
    return path


def test_harvest_sets_the_project_from_the_sessions_cwd(repo: MemoryRepo, repo_dir: Path, tmp_path: Path,
                                                         plain_git_repo: Path, linked_worktree: Path) -> None:
    subprocess.run(["git", "remote", "add", "origin", "git@github.com:acme/shop.git"], cwd=plain_git_repo, check=True)
    sub = plain_git_repo / "web"
    sub.mkdir()
    elsewhere = tmp_path / "nowhere"
    elsewhere.mkdir()
    runs = {
        "in-sub": _claude(tmp_path / "a.jsonl", "in-sub", str(sub), "Remember that the shop web build needs node 20."),
        "in-tree": _claude(tmp_path / "b.jsonl", "in-tree", str(linked_worktree),
                           "Remember that the shop deploys every Tuesday at noon."),
        "no-git": _claude(tmp_path / "c.jsonl", "no-git", str(elsewhere), "Remember that the lab printer is on floor 3."),
        "gone": _claude(tmp_path / "d.jsonl", "gone", "/no/such/folder/anywhere", "Remember that the VPN drops at 6."),
    }
    results = {r.session_id: r for r in repo.harvest(list(runs.values()), fmt="claude-code", now=T)}
    assert all(r.status == "harvested" and r.created == 1 for r in results.values())
    from gitmem.base.model import name_key

    keyed = {m.source.split(":")[1].split("#")[0]: m for m in repo.list().memories}
    by_session = {sid: keyed[name_key(sid, "s")] for sid in runs}
    assert by_session["in-sub"].project == by_session["in-tree"].project == "github.com/acme/shop"
    assert by_session["in-sub"].project_name == "main"
    assert by_session["no-git"].project is None and by_session["gone"].project is None
    in_tree, gone = results["in-tree"].episode, results["gone"].episode
    assert in_tree is not None and gone is not None
    episode = (repo_dir / in_tree).read_text()
    assert "project: github.com/acme/shop" in episode and "project_name: main" in episode
    assert "project:" not in (repo_dir / gone).read_text()


def test_a_wrong_format_commits_nothing_and_the_right_one_then_harvests(tmp_path: Path,
                                                                        capsys: pytest.CaptureFixture[str]) -> None:
    from tests.conftest import run_cli

    root = tmp_path / "hooked"
    MemoryRepo.init(root, T)   # hooks installed: every commit goes through them
    src = transcript(tmp_path / "a.jsonl", "alpha", [("user", CI), ("assistant", "Noted.")])
    before = commits(root)
    for fmt in ("claude-code", "openclaw"):
        code, out, err = run_cli(["--repo", str(root), "harvest", "--format", fmt, str(src)], capsys)
        assert code == 1 and "not a transcript of format " + fmt in err and "nothing written" in err
        assert commits(root) == before
    [r] = MemoryRepo.open(root).harvest([src], now=T)
    assert r.status == "harvested" and r.commit is not None and commits(root) == before + 1


def test_a_file_that_is_not_a_transcript_commits_nothing_and_is_not_marked(repo: MemoryRepo, repo_dir: Path,
                                                                           tmp_path: Path) -> None:
    data = tmp_path / "prices.jsonl"
    data.write_text('{"sku": "a-1", "price": 3}\n{"sku": "b-2", "price": 4}\n')
    before = commits(repo_dir)
    for _ in range(2):   # refused again: a refusal is not remembered as harvested
        [r] = repo.harvest([data], now=T)
        assert r.status == "failed" and r.reason.startswith("not a transcript") and r.commit is None
    assert commits(repo_dir) == before
    cursor = repo.writer.state / planning.CURSOR_FILE
    assert not cursor.exists() or "prices.jsonl" not in cursor.read_text()


def test_a_session_with_no_conversation_gets_no_commit(repo: MemoryRepo, repo_dir: Path, tmp_path: Path) -> None:
    snapshots = tmp_path / "snap.jsonl"
    snapshots.write_text("".join(json.dumps({"type": "file-history-snapshot", "messageId": f"m{n}", "snapshot": {
        "messageId": f"m{n}", "trackedFileBackups": {}, "timestamp": "2026-10-05T09:00:00Z"}}) + "\n" for n in range(3)))
    summaries = tmp_path / "sum.jsonl"
    summaries.write_text(json.dumps({"type": "summary", "summary": "Earlier work", "leafUuid": "gone"}) + "\n")
    before = commits(repo_dir)
    results = repo.harvest([snapshots, summaries], now=T)
    assert [(r.status, r.commit) for r in results] == [("empty", None), ("empty", None)]
    assert all("no conversation" in r.reason for r in results)
    assert commits(repo_dir) == before


# --------------------------------------------------------------------------- sub-agent transcripts

SID = "5d7c6a1e-0b9f-4c1e-9a57-3f1d2e4b6a80"


def claude_file(path: Path, session: str, messages: Sequence[tuple[str, str]], agent: str | None = None) -> Path:
    """A Claude Code transcript (a sub-agent's when ``agent`` is given), its records stamped a minute apart."""
    path.parent.mkdir(parents=True, exist_ok=True)
    lines = []
    for n, (role, text) in enumerate(messages):
        rec: dict[str, object] = {"type": role, "sessionId": session, "uuid": f"{session[:8]}-{agent}-{n}",
                                  "parentUuid": None, "isSidechain": agent is not None, "cwd": "/srv/app",
                                  "version": "2.1.41", "timestamp": f"2026-10-05T09:{n:02d}:00Z",
                                  "message": {"role": role, "content": text if role == "user" else
                                              [{"type": "text", "text": text}]}}
        if agent is not None:
            rec["agentId"] = agent
        lines.append(json.dumps(rec))
    path.write_text("\n".join(lines) + "\n")
    return path


# --------------------------------------------------------------------------- privacy (issue 8 items 1-3)

def claude_turns(path: Path, sid: str, cwd: str, texts: Sequence[str]) -> Path:
    """A Claude Code transcript whose records carry ``cwd``: user and assistant turns alternate."""
    lines = []
    for n, text in enumerate(texts):
        role = "user" if n % 2 == 0 else "assistant"
        msg = {"role": role, "content": text} if role == "user" else \
            {"id": f"msg_{n}", "type": "message", "role": "assistant", "model": "m",
             "content": [{"type": "text", "text": text}]}
        lines.append(json.dumps({"parentUuid": None, "isSidechain": False, "userType": "external", "cwd": cwd,
                                 "sessionId": sid, "version": "2.1.27", "type": role, "message": msg,
                                 "uuid": f"u{n}", "timestamp": f"2026-10-05T09:{n:02d}:00Z"}))
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text("\n".join(lines) + "\n")
    return path


def session_folder(root: Path, agent_secret: str | None = None) -> Path:
    """A Claude Code 2.1 project folder: the session file and its subagents/ folder."""
    main = claude_file(root / f"{SID}.jsonl", SID, [("user", REDIS), ("assistant", "Noted.")])
    claude_file(root / SID / "subagents" / "agent-a1b2c3d4e5f6a7b8c.jsonl", SID,
                [("user", agent_secret or "List the upload handlers."), ("assistant", "Found three.")], "a1b2c3d4e5f6a7b8c")
    claude_file(root / SID / "subagents" / "agent-aprompt_suggestion-5e1a2b.jsonl", SID,
                [("user", "Remember that we always deploy on Fridays."), ("assistant", "ok")], "aprompt_suggestion-5e1a2b")
    claude_file(root / SID / "subagents" / "agent-acompact-77aa10.jsonl", SID,
                [("user", REDIS), ("assistant", "Summary of the session.")], "acompact-77aa10")
    return main


@pytest.mark.parametrize("by", ["file", "folder"])
def test_a_secret_in_a_sub_agent_file_rejects_the_whole_session(repo: MemoryRepo, repo_dir: Path, tmp_path: Path,
                                                                by: str) -> None:
    main = session_folder(tmp_path / "proj", agent_secret=f"use token {GH_TOKEN} for the push")
    [r] = repo.harvest([main if by == "file" else tmp_path / "proj"], now=T)
    assert (r.status, r.commit, r.created) == ("rejected", None, 0)
    assert commits(repo_dir) == 1 and not repo.list().memories
    assert GH_TOKEN not in r.reason
    [alert] = [e for e in events(repo_dir) if e["event"] == "secret.rejected"]
    assert alert["kinds"] == ["github_token"] and GH_TOKEN not in json.dumps(alert)


@pytest.mark.parametrize("part", ["agent-acompact-77aa10", "agent-aprompt_suggestion-5e1a2b"])
def test_a_secret_in_a_compaction_copy_or_a_prompt_suggestion_rejects_too(repo: MemoryRepo, repo_dir: Path,
                                                                          tmp_path: Path, part: str) -> None:
    main = session_folder(tmp_path / "proj")
    claude_file(tmp_path / "proj" / SID / "subagents" / f"{part}.jsonl", SID, [("user", f"key {AWS_KEY}")], part[6:])
    [r] = repo.harvest([main], now=T)
    assert r.status == "rejected" and commits(repo_dir) == 1


@pytest.mark.parametrize("by", ["file", "folder"])
def test_a_session_and_its_sub_agents_are_one_harvest(repo: MemoryRepo, repo_dir: Path, tmp_path: Path,
                                                      by: str) -> None:
    main = session_folder(tmp_path / "proj")
    results = repo.harvest([main if by == "file" else tmp_path / "proj"], now=T)
    assert [(r.session_id, r.status) for r in results] == [(SID, "harvested")]   # one unit, one commit
    assert commits(repo_dir) == 2
    contents = [m.content for m in repo.list().memories]
    assert contents == [REDIS]   # counted once (the compaction copy repeats it), no guessed user message
    assert not any("Fridays" in c for c in contents)


def test_sub_agent_files_are_grouped_by_the_session_id_of_their_records(repo: MemoryRepo, repo_dir: Path,
                                                                        tmp_path: Path) -> None:
    """Files copied out of their folders still belong to the session their records name."""
    claude_file(tmp_path / "flat" / "main.jsonl", SID, [("user", REDIS)])
    claude_file(tmp_path / "flat" / "agent-a9f8e7d6c5b4a3f2e.jsonl", SID, [("user", f"token {GH_TOKEN}")],
                "a9f8e7d6c5b4a3f2e")
    claude_file(tmp_path / "flat" / "other.jsonl", "0c9d8e7f-6a5b-4c3d-9e2f-1a0b9c8d7e6f", [("user", CI)])
    results = {Path(r.path).name: r.status for r in repo.harvest([tmp_path / "flat"], now=T)}
    assert results == {"main.jsonl": "rejected", "other.jsonl": "harvested"}


def test_a_sub_agent_file_without_its_parent_is_still_screened(repo: MemoryRepo, repo_dir: Path,
                                                               tmp_path: Path) -> None:
    orphan = claude_file(tmp_path / "o" / SID / "subagents" / "agent-a1b2c3d4e5f6a7b8c.jsonl", SID,
                         [("user", f"aws_access_key_id={AWS_KEY}")], "a1b2c3d4e5f6a7b8c")
    [r] = repo.harvest([orphan], now=T)
    assert r.status == "rejected" and commits(repo_dir) == 1
    [r] = repo.harvest([tmp_path / "o"], now=T)
    assert r.status == "rejected" and commits(repo_dir) == 1


def test_an_orphan_prompt_suggestion_gives_no_user_statement(repo: MemoryRepo, tmp_path: Path) -> None:
    orphan = claude_file(tmp_path / "agent-aprompt_suggestion-5e1a2b.jsonl", SID,
                         [("user", "Remember that we always deploy on Fridays."), ("assistant", "ok")],
                         "aprompt_suggestion-5e1a2b")
    [r] = repo.harvest([orphan], now=T)
    assert r.status in ("harvested", "unchanged", "empty") and r.created == 0   # a guessed message is no conversation
    assert not repo.list().memories


def test_a_changed_sub_agent_file_is_screened_again(repo: MemoryRepo, repo_dir: Path, tmp_path: Path) -> None:
    main = session_folder(tmp_path / "proj")
    assert [r.status for r in repo.harvest([main], now=T)] == ["harvested"]
    claude_file(tmp_path / "proj" / SID / "subagents" / "agent-a1b2c3d4e5f6a7b8c.jsonl", SID,
                [("user", f"token {GH_TOKEN}")], "a1b2c3d4e5f6a7b8c")
    assert [r.status for r in repo.harvest([main], now=T)] == ["rejected"]


def everything(repo_dir: Path) -> str:
    """Every object of every ref (names, trees, blobs, messages) and the refs, as one text."""
    listing = git(repo_dir, "rev-list", "--all", "--objects")
    ids = "\n".join(line.split(" ")[0] for line in listing.splitlines()) + "\n"
    objects = subprocess.run(["git", "cat-file", "--batch=%(objecttype)"], cwd=repo_dir, input=ids.encode(),
                             capture_output=True, check=True).stdout.decode("utf-8", "replace")
    held = listing + objects + git(repo_dir, "for-each-ref")
    return re.sub(r"(?<![0-9A-Za-z])(?=[0-9a-f]*[a-f])[0-9a-f]{10,64}(?![0-9A-Za-z])", " ", held)  # object ids


PERSONAL = ("Remember that zebulon needs admin rights on the build box. "
            "We decided to bill card 4539 1488 0343 6467 and call +1 415 867 5309 about it.")


def test_a_session_is_redacted_before_anything_is_derived(repo: MemoryRepo, repo_dir: Path, tmp_path: Path) -> None:
    src = claude_turns(tmp_path / "projects" / "-Users-zebulon-billing" / "a.jsonl", "4f1c2a9e-0d3b-4a57-9b1e-2c6d8f0a1b23",
                      "/Users/zebulon/billing", [PERSONAL, "Noted, Zebulon.", "No, use /Users/zebulon/bin/deploy.",
                                                 "Done."])
    [r] = repo.harvest([src], now=T)
    assert r.status == "harvested" and r.created >= 1
    held = everything(repo_dir).casefold()
    assert "zebulon" not in held
    for group in ("4539", "1488", "0343", "6467", "867", "5309"):
        assert not re.search(rf"(?<!\d){group}(?!\d)", held), group
    assert "[home] needs admin rights" in held


def test_a_learned_name_is_kept_as_a_salted_hash_only(repo: MemoryRepo, repo_dir: Path, tmp_path: Path) -> None:
    src = claude_turns(tmp_path / "s.jsonl", "4f1c2a9e-0d3b-4a57-9b1e-2c6d8f0a1b24", "/home/philippa/app",
                      ["Remember that philippa owns the release key ring.", "Ok."])
    repo.harvest([src], now=T)
    state_dir = repo_dir / ".git" / "gitmem"
    for path in state_dir.rglob("*"):
        if path.is_file():
            assert b"philippa" not in path.read_bytes().lower(), path
    assert (state_dir / "salt").is_file() and json.loads((state_dir / "names.json").read_text())
    later = repo.remember("Philippa prefers rebase over merge", now=T)   # recognised later by its hash
    assert "philippa" not in later.memory.content.lower() and "philippa" not in " ".join(later.memory.keywords)


def test_names_gitmem_builds_come_from_ids_or_hashes(repo: MemoryRepo, repo_dir: Path, tmp_path: Path) -> None:
    # two ids that redact alike ([EMAIL]) must not share an episode; neither may reach a name or a message
    a = transcript(tmp_path / "jim.beam@acme-mail.com.jsonl", "jim.beam@acme-mail.com", [("user", CI)])
    b = transcript(tmp_path / "tom.tim@acme-mail.com.jsonl", "tom.tim@acme-mail.com", [("user", REDIS)])
    ra, rb = repo.harvest([a, b], now=T)
    assert ra.episode and rb.episode and ra.episode != rb.episode
    assert ra.episode == f"episodes/2026/10/{name_key('jim.beam@acme-mail.com', 's')}.md"
    held = everything(repo_dir)
    assert "jim" not in held and "tom.tim" not in held and "acme-mail" not in held
    msg = git(repo_dir, "log", "-1", "--format=%B")
    assert f"Gitmem-Source: jsonl:{name_key(b.name, 'f')}" in msg
    uid = "4f1c2a9e-0d3b-4a57-9b1e-2c6d8f0a1b25"   # a UUID session id is its own key
    [rc] = repo.harvest([claude_turns(tmp_path / "c.jsonl", uid, "/srv", ["Remember: deploys go out on Tuesdays.", "Ok."])],
                        now=T)
    assert rc.episode == f"episodes/2026/10/{uid}.md" and f"Gitmem-Session: {uid}" in git(repo_dir, "log", "-1")


def test_an_episode_named_by_an_older_version_keeps_growing(repo: MemoryRepo, repo_dir: Path, tmp_path: Path) -> None:
    src = transcript(tmp_path / "old.jsonl", "sess-old", [("user", CI)])
    [first] = repo.harvest([src], now=T)
    assert first.episode is not None
    legacy = f"episodes/2026/10/sess-old.md"   # where versions before hashed names put it
    git(repo_dir, "mv", first.episode, legacy)
    git(repo_dir, "commit", "-qm", "an episode as an older gitmem named it")
    transcript(src, "sess-old", [("user", CI), ("assistant", "Noted."), ("user", REDIS)])
    [again] = repo.harvest([src], now=T)
    assert again.status == "updated" and again.episode == legacy
    assert [p for p in git(repo_dir, "ls-files", "episodes").split() if p.endswith("old.md")] == [legacy]
    assert len(git(repo_dir, "ls-files", "episodes").split()) == 2   # .gitkeep and the one episode


def test_commit_messages_pass_the_same_redaction(repo: MemoryRepo, repo_dir: Path) -> None:
    repo.remember("the deploy runbook is in the wiki", session="run in /home/quirinus/x by jo.kim@corp-mail.com", now=T)
    msg = git(repo_dir, "log", "-1", "--format=%B")
    assert "quirinus" not in msg and "jo.kim" not in msg and "Gitmem-Session: run in [HOME]/x by [EMAIL]" in msg


def test_names_are_learned_from_every_cwd_of_a_session(repo: MemoryRepo, repo_dir: Path, tmp_path: Path) -> None:
    src = claude_turns(tmp_path / "m.jsonl", "4f1c2a9e-0d3b-4a57-9b1e-2c6d8f0a1b26", "/srv/app",
                      ["Remember that the deploy key ring is rotated monthly.", "Ok."])
    lines = src.read_text().splitlines()
    later = json.loads(lines[-1])
    later.update(cwd="/home/leopoldine/other", uuid="u9", message={"role": "user", "content":
                 "Remember: ask leopoldine before any release."}, type="user")
    src.write_text("\n".join([*lines, json.dumps(later)]) + "\n")
    repo.harvest([src], now=T)
    assert "leopoldine" not in everything(repo_dir).casefold()


def test_the_project_comes_from_the_folder_as_recorded_not_its_redacted_form(repo: MemoryRepo, repo_dir: Path,
                                                                             tmp_path: Path) -> None:
    shop = tmp_path / "home" / "zebulon" / "shop"
    shop.mkdir(parents=True)
    for args in (["init", "-q", "-b", "main"], ["remote", "add", "origin", "https://github.com/acme/shop.git"]):
        subprocess.run(["git", *args], cwd=shop, check=True)
    src = _claude(tmp_path / "z.jsonl", "4f1c2a9e-0d3b-4a57-9b1e-2c6d8f0a1b99", str(shop),
                  "Remember that the shop web build needs node 20.")
    [r] = repo.harvest([src], fmt="claude-code", now=T)
    assert r.status == "harvested"
    [m] = repo.list().memories
    assert m.project == "github.com/acme/shop"       # found from the folder as recorded


# --------------------------------------------------------------------------- each file stands alone (issue 9 item 6)

def _claude_line(session: str, content: object, timestamp: object = "2026-10-05T09:00:00Z") -> str:
    return json.dumps({"type": "user", "sessionId": session, "uuid": f"{session}-1", "timestamp": timestamp,
                       "message": {"role": "user", "content": content}})


def _nested_text(session: str, depth: int) -> str:
    """A Claude Code user record whose content is text blocks nested ``depth`` deep (written by hand:
    json.dumps itself recurses)."""
    nested = '[{"type": "text", "text": ' * depth + '"remember that nesting is deep"' + "}]" * depth
    return ('{"type": "user", "sessionId": "%s", "uuid": "u1", "timestamp": "2026-10-05T09:00:00Z", '
            '"message": {"role": "user", "content": %s}}' % (session, nested))


def _hostile_transcripts(folder: Path) -> list[Path]:
    folder.mkdir()
    raw = {
        "a-deep-text-blocks": _nested_text("a1", 480),
        "a-deeper-text-blocks": _nested_text("a0", 5000),
        "a-deep-list": '{"type": "user", "sessionId": "a2", "message": {"role": "user", "content": '
                       + "[" * 980 + '"x"' + "]" * 980 + "}}",
        "a-too-deep-to-parse": '{"role": "user", "content": ' + "[" * 100_000 + "]" * 100_000 + "}",
        "a-year-one": _claude_line("a3", "remember year one", "0001-01-01T00:00:00+01:00"),
        "a-year-9999": _claude_line("a4", "remember the end", "9999-12-31T23:59:59Z"),
        "a-numbers": '{"type": "user", "sessionId": "a5", "timestamp": 1e400, "message": {"role": "user", '
                     '"content": NaN}}\n{"role": "user", "content": "x", "timestamp": ' + "9" * 5000 + "}",
        "a-wrong-types": json.dumps({"type": ["user"], "sessionId": {"a": 1}, "message": [1, 2],
                                     "timestamp": [1]}) + "\n" + json.dumps({"role": 5, "content": {"x": None}}),
        "a-control-chars": _claude_line("a6", "remember \u202e\u0007 evil \udc80"),
    }
    paths = []
    for name, text in raw.items():
        path = folder / f"{name}.jsonl"
        path.write_text(text + "\n", encoding="utf-8", errors="surrogateescape")
        paths.append(path)
    good = transcript(folder / "z-good.jsonl", "good", [("user", "Remember: the release train leaves on Fridays"),
                                                        ("assistant", "Noted, releases on Fridays.")])
    return [*paths, good]


def test_a_hostile_transcript_never_stops_the_files_after_it(repo: MemoryRepo, repo_dir: Path, tmp_path: Path,
                                                             capsys: pytest.CaptureFixture[str]) -> None:
    from tests.conftest import run_cli

    paths = _hostile_transcripts(tmp_path / "sessions")
    code, out, err = run_cli(["--repo", str(repo_dir), "--now", NOW, "harvest", str(tmp_path / "sessions")], capsys)
    assert code in (0, 1), err
    assert "Traceback" not in err and "internal error" not in err
    assert f"harvested: {paths[-1]}" in out
    for path in paths[:-1]:   # each one is reported on its own line, whatever happened to it
        assert str(path) in out + err


@pytest.mark.slow
def test_a_transcript_line_over_the_line_cap_fails_that_file_only(repo: MemoryRepo, tmp_path: Path) -> None:
    from gitmem.engines.harvest.sources import LINE_CAP

    folder = tmp_path / "sessions"
    folder.mkdir()
    huge = folder / "a-huge.jsonl"
    with huge.open("wb") as fh:
        fh.write(b'{"role": "user", "content": "')
        fh.write(b"a" * (LINE_CAP + 1))
    transcript(folder / "b-good.jsonl", "good", [("user", "Remember: the deploy window is at noon")])
    results = repo.harvest([folder], now=T)
    assert [r.status for r in results] == ["failed", "harvested"]
    assert f"line 1 is over the line cap of {LINE_CAP} bytes" in results[0].reason
