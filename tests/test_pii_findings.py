"""A person settles a false alarm of the secret scan: refused sessions listed with finding ids,
``pii show`` masks the value, ``pii allow`` records a salted hash, and the next harvest accepts.

Every transcript here is written by the test itself in Claude Code's format; every
credential is fabricated (random characters, some in real vendor formats).
"""

from __future__ import annotations

import json
import subprocess
from pathlib import Path
from typing import Sequence

import pytest

from gitmem.api import MemoryRepo
from gitmem.api import findings
from gitmem.base import clock, state
from gitmem.base.errors import NotFoundError, SecretError, UsageError
from gitmem.base.model import name_key
from tests.conftest import NOW, run_cli

T = clock.parse_time(NOW)
FIXTURE_PW = "Qv7mT2xL9pR4sWb"          # a test database's password, read from a fixture file
GH_TOKEN = "ghp_" + "T4nB8cQ2zX6mW1eR7yU3iK9pL5sD0fGhJaVo"
REDIS = "We decided to use Redis for the upload queue."


def git(root: Path, *args: str) -> str:
    done = subprocess.run(["git", *args], cwd=root, capture_output=True, text=True)
    assert done.returncode == 0, done.stderr
    return done.stdout.strip()


def claude_session(path: Path, session: str, user: Sequence[str], tool_output: str) -> Path:
    """A Claude Code transcript: the user's turns, then a Read of a file whose text is ``tool_output``."""
    base = {"isSidechain": False, "userType": "external", "cwd": "/srv/app", "sessionId": session,
            "version": "2.1.41", "gitBranch": "main"}
    records: list[dict[str, object]] = []
    for n, text in enumerate(user):
        records.append({**base, "type": "user", "uuid": f"{session}-u{n}", "timestamp": f"2026-10-05T09:0{n}:00Z",
                        "message": {"role": "user", "content": text}})
    records.append({**base, "type": "assistant", "uuid": f"{session}-a", "timestamp": "2026-10-05T09:10:00Z",
                    "message": {"role": "assistant", "content": [
                        {"type": "tool_use", "id": "toolu_1", "name": "Read", "input": {"file_path": "/srv/app/.env.test"}}]}})
    records.append({**base, "type": "user", "uuid": f"{session}-r", "timestamp": "2026-10-05T09:10:05Z",
                    "message": {"role": "user", "content": [
                        {"type": "tool_result", "tool_use_id": "toolu_1", "content": tool_output}]}})
    path.write_text("".join(json.dumps(r) + "\n" for r in records))
    return path


def fixture_session(tmp_path: Path, name: str = "s1", extra: str = "") -> Path:
    output = f"     1\u2192# test database of the fixtures\n     2\u2192DB_PASSWORD={FIXTURE_PW}\n{extra}"
    return claude_session(tmp_path / f"{name}.jsonl", f"sess-{name}", [REDIS, "Read the test env file."], output)


def only_refusal(repo: MemoryRepo) -> findings.Refused:
    [refusal] = repo.refused_sessions()
    return refusal


def test_a_refused_session_lists_its_findings_with_the_commands(repo: MemoryRepo, repo_dir: Path,
                                                                tmp_path: Path) -> None:
    src = fixture_session(tmp_path)
    [r] = repo.harvest([src], now=T)
    assert r.status == "rejected" and "nothing written" in r.reason and FIXTURE_PW not in r.reason
    [f] = r.findings
    assert (f.kind, f.file, f.line, f.allowable, f.with_file) == ("env_secret", str(src), 4, True, True)
    assert f.commands() == (f"gitmem pii show {f.id} --file {src}", f"gitmem pii allow {f.id} --file {src} --reason TEXT")
    assert f"`gitmem pii allow {f.id} --file {src} --reason TEXT`" in r.reason
    refusal = only_refusal(repo)
    assert (refusal.session, refusal.path, refusal.findings) == (name_key("sess-s1", "s"), str(src), (f,))
    stored = (state.shared_dir(repo_dir) / findings.REFUSED_FILE).read_text()
    assert FIXTURE_PW not in stored
    assert repo.status(T).refused == (refusal,)
    # the id is stable: the same session harvested again refuses with the same id
    [again] = repo.harvest([src], now=T)
    assert again.findings == (f,) and len(f.id) == 11


def test_a_transcript_path_that_names_its_user_is_kept_as_a_hash(repo: MemoryRepo, repo_dir: Path,
                                                                 isolated_env: Path) -> None:
    folder = isolated_env / ".claude" / "projects" / "-Users-marisol-shop"   # a session folder of the config
    folder.mkdir(parents=True)
    src = fixture_session(folder, "0b0e4a1c-5d7f-4a8e-9c21-7f3e2d1a6b90")
    [r] = repo.harvest([src], now=T)
    [f] = r.findings
    assert f.with_file is False and f.commands()[0] == f"gitmem pii show {f.id}"   # found again by its hash
    stored = (state.shared_dir(repo_dir) / findings.REFUSED_FILE).read_text()
    assert "marisol" not in stored and str(folder) not in stored
    refusal = only_refusal(repo)
    assert refusal.path == "" and refusal.findings[0].file == ""
    assert repo.pii_show(f.id).file == str(src)
    with pytest.raises(UsageError, match="not the transcript"):
        repo.pii_show(f.id, file=fixture_session(folder.parent, "other"))
    repo.pii_allow(f.id, "fixture", now=T)
    assert repo.harvest([src], now=T)[0].status == "harvested"


def test_show_masks_the_value_and_names_file_line_kind(repo: MemoryRepo, tmp_path: Path) -> None:
    src = fixture_session(tmp_path, extra="     3\u2192ADMIN_EMAIL=ops.manager@corp-mail.de\n")
    [r] = repo.harvest([src], now=T)
    shown = repo.pii_show(r.findings[0].id)
    assert (shown.kind, shown.file, shown.line, shown.allowable) == ("env_secret", str(src), 4, True)
    assert FIXTURE_PW not in shown.context and "ops.manager" not in shown.context   # other PII redacted too
    assert "DB_PASSWORD=«[SECRET:env_secret] 15 characters: Aa9aA9aA9aA9aAa»" in shown.context
    assert "[EMAIL]" in shown.context and "\n" not in shown.context
    with pytest.raises(NotFoundError):
        repo.pii_show("f0000000000")


def test_allow_records_a_salted_hash_and_the_next_harvest_accepts(repo: MemoryRepo, repo_dir: Path,
                                                                  tmp_path: Path) -> None:
    src = fixture_session(tmp_path)
    [r] = repo.harvest([src], now=T)
    before = git(repo_dir, "rev-parse", "HEAD")
    done = repo.pii_allow(r.findings[0].id, "the fixtures' throwaway database", now=T)
    assert (done.shared, done.commit, done.session) == (False, None, name_key("sess-s1", "s"))
    assert git(repo_dir, "rev-parse", "HEAD") == before        # per clone: nothing committed
    record = json.loads((state.shared_dir(repo_dir) / findings.ALLOWED_FILE).read_text())
    [row] = record["allowed"]
    assert FIXTURE_PW not in json.dumps(record)
    assert row["hash"] == findings.value_hash(state.salt(repo_dir), "env_secret", FIXTURE_PW)
    assert row["hash"] != findings.value_hash(b"", "env_secret", FIXTURE_PW)   # salted: not the value's plain hash
    [event] = [e for e in state.read(state.events_path(repo_dir)) if e["event"] == "pii.allowed"]
    assert event["id"] == r.findings[0].id and event["shared"] is False and FIXTURE_PW not in json.dumps(event)

    [accepted] = repo.harvest([src], now=T)                     # the next harvest: no --rescan needed
    assert accepted.status == "harvested", accepted.reason
    assert repo.refused_sessions() == []
    grep = subprocess.run(["git", "grep", "-F", FIXTURE_PW, accepted.commit or ""], cwd=repo_dir, capture_output=True)
    assert grep.returncode == 1        # in no file of the commit
    # the decision is harvested: on main, or in the harvest inbox when the scorer is unsure of it
    inbox = [i.text for r in repo.reviews() if r.kind == "harvest" for i in repo.review_show(r.name).items]
    assert REDIS in [m.content for m in repo.list().memories] + inbox


def test_an_allowed_value_is_masked_in_what_the_session_becomes(repo: MemoryRepo, repo_dir: Path,
                                                                 tmp_path: Path) -> None:
    said = f"Remember: the tests always run with DB_PASSWORD={FIXTURE_PW} from the fixtures."
    src = claude_session(tmp_path / "m.jsonl", "sess-m", [said, REDIS], "ok\n")
    [r] = repo.harvest([src], now=T)
    repo.pii_allow(r.findings[0].id, "the fixtures' database", now=T)
    [accepted] = repo.harvest([src], now=T)
    shown = git(repo_dir, "show", accepted.commit or "")
    assert accepted.status == "harvested" and FIXTURE_PW not in shown
    assert "DB_PASSWORD=[SECRET:env_secret]" in shown


def test_a_vendor_key_stays_refused_when_another_finding_is_allowed(repo: MemoryRepo, tmp_path: Path) -> None:
    src = fixture_session(tmp_path, extra=f"     3\u2192GITHUB_TOKEN={GH_TOKEN}\n")
    [r] = repo.harvest([src], now=T)
    by_kind = {f.kind: f for f in r.findings}
    assert set(by_kind) == {"env_secret", "github_token"} and GH_TOKEN not in r.reason
    assert by_kind["github_token"].allowable is False
    assert by_kind["github_token"].commands() == (f"gitmem pii show {by_kind['github_token'].id} --file {src}",)
    repo.pii_allow(by_kind["env_secret"].id, "fixture", now=T)
    [again] = repo.harvest([src], now=T)
    assert again.status == "rejected" and [f.kind for f in again.findings] == ["github_token"]
    with pytest.raises(UsageError, match="vendor"):
        repo.pii_allow(by_kind["github_token"].id, "it is only a test", now=T)
    assert [f.kind for f in only_refusal(repo).findings] == ["github_token"]


def test_a_hand_made_allow_record_cannot_let_a_vendor_key_through(repo: MemoryRepo, repo_dir: Path,
                                                                  tmp_path: Path) -> None:
    src = claude_session(tmp_path / "k.jsonl", "sess-k", [REDIS], f"GITHUB_TOKEN={GH_TOKEN}\n")
    salt = state.salt(repo_dir)
    rows = [{"hash": findings.value_hash(salt, kind, GH_TOKEN), "kind": kind} for kind in ("github_token", "env_secret")]
    (state.shared_dir(repo_dir) / findings.ALLOWED_FILE).write_text(json.dumps({"version": 1, "allowed": rows}))
    [r] = repo.harvest([src], now=T)
    assert r.status == "rejected" and [f.kind for f in r.findings] == ["github_token"]


def test_shared_allow_commits_one_record_every_clone_reads(repo: MemoryRepo, repo_dir: Path, tmp_path: Path) -> None:
    src = fixture_session(tmp_path)
    [r] = repo.harvest([src], now=T)
    count = int(git(repo_dir, "rev-list", "--count", "HEAD"))
    done = repo.pii_allow(r.findings[0].id, "fixture database", shared=True, now=T)
    assert done.shared and done.commit == git(repo_dir, "rev-parse", "HEAD")
    assert int(git(repo_dir, "rev-list", "--count", "HEAD")) == count + 1
    assert git(repo_dir, "show", "--format=", "--name-only", done.commit or "") == findings.SHARED_FILE
    committed = json.loads(git(repo_dir, "show", f"HEAD:{findings.SHARED_FILE}"))
    assert FIXTURE_PW not in json.dumps(committed) and committed["salt"]
    assert committed["allowed"][0]["hash"] == findings.value_hash(committed["salt"].encode(), "env_secret", FIXTURE_PW)
    assert "Gitmem-Event: pii.allow" in git(repo_dir, "log", "-1", "--format=%B")
    assert not (state.shared_dir(repo_dir) / findings.ALLOWED_FILE).exists()

    clone = tmp_path / "clone"                                  # another clone: its own salt, the shared record
    git(tmp_path, "clone", "-q", str(repo_dir), str(clone))
    other = MemoryRepo.open(clone)
    [accepted] = other.harvest([src], now=T)
    assert accepted.status == "harvested", accepted.reason


def test_allow_refuses_a_secret_in_its_reason(repo: MemoryRepo, repo_dir: Path, tmp_path: Path) -> None:
    [r] = repo.harvest([fixture_session(tmp_path)], now=T)
    with pytest.raises(SecretError):
        repo.pii_allow(r.findings[0].id, f"same as {GH_TOKEN}", now=T)
    assert not (state.shared_dir(repo_dir) / findings.ALLOWED_FILE).exists()


def test_finding_ids_are_short_stable_and_salted() -> None:
    a = findings.finding_id(b"salt-a", "s-1", "env_secret", FIXTURE_PW)
    assert a == findings.finding_id(b"salt-a", "s-1", "env_secret", FIXTURE_PW) and len(a) == 11
    assert a != findings.finding_id(b"salt-b", "s-1", "env_secret", FIXTURE_PW)
    assert a != findings.finding_id(b"salt-a", "s-2", "env_secret", FIXTURE_PW)
    assert a != findings.finding_id(b"salt-a", "s-1", "generic_api_key", FIXTURE_PW)
    assert FIXTURE_PW not in findings.value_hash(b"salt-a", "env_secret", FIXTURE_PW)


# --------------------------------------------------------------------------- the CLI

def test_cli_harvest_status_show_allow(repo_dir: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    src = fixture_session(tmp_path)
    base = ["--repo", str(repo_dir), "--now", NOW]
    code, out, err = run_cli([*base, "harvest", str(src)], capsys)
    assert code == 1 and out == "harvest: 1 rejected\n" and FIXTURE_PW not in err
    [fid] = {w for w in err.split() if w.startswith("f") and len(w) == 11 and w[1:].isalnum()}
    assert f"gitmem pii show {fid} --file {src}" in err and f"gitmem pii allow {fid} --file {src} --reason TEXT" in err

    code, out, _ = run_cli([*base, "status"], capsys)
    assert code == 0 and "sessions refused for a secret: 1" in out and f"gitmem pii allow {fid}" in out
    data = json.loads(run_cli([*base, "status", "--json"], capsys)[1])
    [entry] = data["refused_sessions"]
    assert entry["findings"][0]["id"] == fid and entry["findings"][0]["commands"][0] == f"gitmem pii show {fid} --file {src}"

    code, out, _ = run_cli([*base, "pii", "show", fid], capsys)
    assert code == 0 and f"in {src}, line 4" in out and FIXTURE_PW not in out
    shown = json.loads(run_cli([*base, "pii", "show", fid, "--json"], capsys)[1])
    assert shown["id"] == fid and shown["line"] == 4
    code, out, _ = run_cli([*base, "pii", "allow", fid, "--reason", "fixture"], capsys)
    assert code == 0 and out.startswith(f"allowed {fid}")
    code, out, _ = run_cli([*base, "harvest", str(src), "--json"], capsys)
    assert code == 0 and json.loads(out)[0]["status"] == "harvested"
    assert "sessions refused for a secret: 0" in run_cli([*base, "status"], capsys)[1]
    code, _, err = run_cli([*base, "pii", "show", fid], capsys)
    assert code == 1 and "gitmem status" in err


def test_a_false_alarm_in_a_sub_agent_file_is_shown_and_allowed(repo: MemoryRepo, tmp_path: Path) -> None:
    main = fixture_session(tmp_path, "main", extra="")
    sid = "sess-main"
    agent = tmp_path / "main" / "subagents" / "agent-a1b2c3.jsonl"
    agent.parent.mkdir(parents=True)
    record = {"isSidechain": True, "userType": "external", "cwd": "/srv/app", "sessionId": sid, "type": "user",
              "uuid": "sub-1", "timestamp": "2026-10-05T09:20:00Z",
              "message": {"role": "user", "content": "export API_TOKEN=Jm4rT8vQ2xN6pL0w"}}
    agent.write_text(json.dumps(record) + "\n")
    [r] = repo.harvest([main], now=T)
    by_file = {f.file: f for f in r.findings}
    assert r.status == "rejected" and set(by_file) == {str(main), str(agent)}
    assert "of sub-agent file 1" in r.reason
    shown = repo.pii_show(by_file[str(agent)].id)
    assert (shown.file, shown.line) == (str(agent), 1) and "Jm4rT8vQ2xN6pL0w" not in shown.context
    for f in r.findings:
        repo.pii_allow(f.id, "fixtures", now=T)
    assert repo.harvest([main], now=T)[0].status == "harvested"


def test_show_never_prints_part_of_another_secret_cut_by_the_context(repo: MemoryRepo, tmp_path: Path) -> None:
    other = "Wq3zR7tY1uI5oP9aS2dF6gH0jK4lZ8xC"             # an env secret ending 40 characters before the finding
    src = claude_session(tmp_path / "c.jsonl", "sess-c", [REDIS],
                         f"SESSION_TOKEN={other} then {'.' * 20} DB_PASSWORD={FIXTURE_PW}\n")
    [r] = repo.harvest([src], now=T)
    contexts = [repo.pii_show(f.id).context for f in r.findings]
    assert len(contexts) == 2
    for context in contexts:
        assert all(other[i : i + 6] not in context for i in range(len(other) - 5)), context
        assert FIXTURE_PW not in context


def test_a_refusal_tells_outside_transcripts_by_the_harvest_rule(repo: MemoryRepo, repo_dir: Path,
                                                                 tmp_path: Path) -> None:
    """One rule for what lies in the session folders: the refusal record marks a transcript reached through a
    link that points out as outside (it needs ``--file``), as the unattended harvest refuses to read it."""
    from gitmem.api import refusals, sessionfolders
    from gitmem.engines.harvest.screen import Found

    folder, elsewhere = tmp_path / "sessions", tmp_path / "elsewhere"
    folder.mkdir()
    elsewhere.mkdir()
    (folder / "out").symlink_to(elsewhere)
    inner, outer = fixture_session(folder, "in"), fixture_session(elsewhere, "out")
    through_link = folder / "out" / outer.name
    found = [Found(0, 4, "env_secret", FIXTURE_PW)]
    marks = {}
    for path in (inner, through_link):
        refusal = refusals.record_refusal(repo_dir, [folder], path.stem, path, [], found, NOW)
        marks[path] = refusal.findings[0].with_file
        assert marks[path] is not sessionfolders.inside(path, [folder])
    assert marks == {inner: False, through_link: True}
