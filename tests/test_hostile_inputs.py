"""Hostile inputs: no argument becomes a git option or a crontab line, no path leads outside its folders."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest

from tests.agent_helpers import configure_folders, errors, gm, make_memory
from tests.conftest import ROOT, run_cli
from tests.pii_samples import GHP
from gitmem.api import MemoryRepo
from gitmem.base import files
from gitmem.base.clock import parse_time
from gitmem.base.errors import SecurityError, UsageError, ValidationError
from gitmem.base.gitio import Git, command
from gitmem.engines import integrate
from tests.loop_helpers import add_sessions, git, write_transcripts

T = parse_time("2026-10-30T12:00:00Z")


def proposed(repo: MemoryRepo) -> str:
    repo.pattern_add("Retry flaky calls with backoff", ["backoff"], now=T)
    add_sessions(repo.root, ["backoff helps"] * 3)
    branch = repo.propose_weights(now=T).branch
    assert branch is not None
    return branch


# --- arguments that become commands ------------------------------------------------------------

@pytest.mark.parametrize("option", ["--receive-pack=touch {mark}", "--exec=touch {mark}", "-otouch {mark}"])
def test_review_push_never_runs_a_remote_given_as_an_option(repo: MemoryRepo, tmp_path: Path, option: str,
                                                           capsys: pytest.CaptureFixture[str]) -> None:
    proposed(repo)
    mark = tmp_path / "ran"
    with pytest.raises(UsageError, match="remote"):
        repo.review_push(option.format(mark=mark))
    code, _, err = run_cli(["--repo", str(repo.root), "review", "push", "--", option.format(mark=mark)], capsys)
    assert code in (1, 2) and "not a remote's name" in err
    assert not mark.exists()


def test_push_reads_a_remote_after_end_of_options_as_a_name(repo: MemoryRepo, tmp_path: Path) -> None:
    branch = proposed(repo)
    bare = tmp_path / "remote.git"
    subprocess.run(["git", "init", "-q", "--bare", str(bare)], check=True)
    git(repo.root, "remote", "add", "origin", str(bare))
    assert repo.review_push("origin") == [branch]
    assert git(bare, "rev-parse", branch) == git(repo.root, "rev-parse", branch)


@pytest.mark.parametrize("name", ["-D", "--exec=x", "a..b", "a b", "a\nb", "x.lock", "a/.hidden", "a:b", "@{-1}",
                                  "", "a~1", "end/"])
def test_ref_names_outside_gits_rules_are_refused(repo: MemoryRepo, name: str) -> None:
    with pytest.raises(UsageError):
        command.check_ref_name(name)
    with pytest.raises(UsageError):
        Git(repo.root).tip(name)
    if not name.startswith("-"):   # refs/heads/-D is a name git accepts: only a leading '-' is refused
        with pytest.raises(UsageError):
            Git(repo.root).delete_ref(f"refs/heads/{name}")


@pytest.mark.parametrize("name", ["gitmem/review/weights-2026-10", "main", "refs/heads/a_b-c.d", "v1.0"])
def test_ordinary_ref_names_pass(name: str) -> None:
    assert command.check_ref_name(name) == name


def test_review_accept_of_an_option_shaped_name_is_refused(repo: MemoryRepo,
                                                          capsys: pytest.CaptureFixture[str]) -> None:
    code, _, err = run_cli(["--repo", str(repo.root), "review", "show", "--", "--exec=touch x"], capsys)
    assert code in (1, 2) and "Traceback" not in err


@pytest.mark.parametrize("where", ["mem\n* * * * * touch /tmp/owned", "mem\r0 0 * * * id", "mem\x00x"])
def test_a_repository_path_with_a_line_break_adds_no_crontab_line(where: str) -> None:
    with pytest.raises(UsageError, match="crontab"):
        integrate.cron_command(["python3", "-m", "gitmem", "--repo", f"/home/p/{where}", "hook", "cron"], "/tmp/log")


def test_cron_install_for_a_repository_path_with_a_newline_leaves_the_crontab(tmp_path: Path,
                                                                            capsys: pytest.CaptureFixture[str]) -> None:
    where = tmp_path / "mem\n* * * * * touch owned"
    MemoryRepo.init(where, T, install_hooks=False)
    tab = tmp_path / "crontab"
    tab.write_text("0 3 * * * /usr/bin/backup\n")
    code, _, err = run_cli(["--repo", str(where), "cron", "install", "--crontab", str(tab)], capsys)
    assert code in (1, 2) and "control character" in err, err
    assert tab.read_text() == "0 3 * * * /usr/bin/backup\n"


def test_percent_in_a_cron_word_is_escaped() -> None:
    line = integrate.cron_command(["python3", "-m", "gitmem", "--repo", "/home/p/100%mem", "hook", "cron"], "/l")
    assert "%" not in line.replace("\\%", "")


# --- paths ----------------------------------------------------------------------------------------

def test_the_one_rule_refuses_links_out_dot_dot_and_strangers(tmp_path: Path) -> None:
    inside, outside = tmp_path / "in", tmp_path / "out"
    inside.mkdir()
    outside.mkdir()
    (outside / "secret.jsonl").write_text("x")
    (inside / "a.jsonl").write_text("x")
    (inside / "link.jsonl").symlink_to(outside / "secret.jsonl")
    (inside / "dir").symlink_to(outside)
    (inside / "loop").symlink_to(inside / "loop")
    (inside / "near").symlink_to(inside / "a.jsonl")
    assert files.confined(inside / "a.jsonl", [inside]) and files.confined(inside / "near", [inside])
    assert files.confined(inside, [inside])
    assert not files.confined(inside / "link.jsonl", [inside])
    assert not files.confined(inside / "dir" / "secret.jsonl", [inside])
    assert not files.confined(inside / ".." / "in" / "a.jsonl", [inside])   # no `..`, even one that comes back
    assert not files.confined(tmp_path / "in-other" / "a.jsonl", [inside])  # a sibling sharing the prefix
    assert not files.confined(outside / "secret.jsonl", [inside])
    assert not files.confined(inside / "loop", [tmp_path / "elsewhere"])
    assert not files.confined("a\0b", [inside])


def test_import_of_learnings_refuses_a_file_linked_from_outside(repo: MemoryRepo, tmp_path: Path) -> None:
    learnings = tmp_path / ".learnings"
    learnings.mkdir()
    (learnings / "LEARNINGS.md").write_text("## Cache\n\nClear the cache after a toolchain upgrade.\n")
    private = tmp_path / "private.md"
    private.write_text("## Notes\n\nThe spare key is under the doormat of the blue house.\n")
    (learnings / "ERRORS.md").symlink_to(private)
    head = repo.head
    with pytest.raises(SecurityError, match="symbolic link"):
        repo.import_file(learnings, now=T)
    assert MemoryRepo.open(repo.root).head == head


def test_import_reports_a_second_row_with_the_same_id_as_a_duplicate(repo: MemoryRepo, tmp_path: Path) -> None:
    import json

    mid = "20261001-120000-abcdef12"
    rows = [{"id": mid, "content": "Pin the toolchain version in CI"}, {"id": mid, "content": "Another text"}]
    src = tmp_path / "rows.jsonl"
    src.write_text("".join(json.dumps(r) + "\n" for r in rows))
    done = repo.import_file(src, now=T)
    assert done.created == 1 and done.unchanged == 0
    assert [line for line, _ in done.skipped] == [2] and "duplicate id" in done.skipped[0][1]


def _outside_agent(folder: Path, main: Path, outside: Path) -> None:
    """A sub-agent folder of ``main``'s session that is a link to ``outside``, holding a secret."""
    import json

    outside.mkdir()
    sid = main.stem
    row = {"type": "user", "sessionId": sid, "cwd": "/project", "uuid": "x1", "timestamp": "2026-11-01T09:00:00Z",
           "isSidechain": True, "message": {"role": "user", "content": f"token {GHP} for the outside"}}
    (outside / "agent-a1.jsonl").write_text(json.dumps(row) + "\n")
    (folder / sid).mkdir()
    (folder / sid / "subagents").symlink_to(outside)


def test_the_unattended_harvest_reads_no_file_or_folder_linked_out(repo: MemoryRepo, tmp_path: Path) -> None:
    folder = tmp_path / "sessions"
    [main] = write_transcripts(folder, ["the upload failed, retry it with backoff please"])
    stranger = tmp_path / "stranger.jsonl"
    write_transcripts(tmp_path / "elsewhere", [f"the key is {GHP}"])[0].rename(stranger)
    (folder / "linked.jsonl").symlink_to(stranger)
    _outside_agent(folder, main, tmp_path / "outside")
    configure_folders(repo.root, [folder])
    run = MemoryRepo.open(repo.root).run_job("harvest", T)
    assert run.ok and run.details["counts"] == {"harvested": 1}, run   # the linked sub-agent's secret not read
    assert run.details["harvested"] == 1 and "1 left out" in run.summary


def test_an_unattended_harvest_of_a_path_outside_the_folders_fails(repo: MemoryRepo, tmp_path: Path) -> None:
    [path] = write_transcripts(tmp_path / "elsewhere", ["deploy with the staging flag"])
    configure_folders(repo.root, [tmp_path / "sessions"])
    run = MemoryRepo.open(repo.root).run_job("harvest", T, paths=[path])
    assert not run.ok and "outside the configured session folders" in run.summary


def test_hook_session_end_hands_off_no_transcript_outside_the_session_folders(tmp_path: Path) -> None:
    import json

    mem = make_memory()
    configure_folders(mem, [tmp_path / "sessions"])
    [path] = write_transcripts(tmp_path / "elsewhere", ["deploy with the staging flag"])
    given = {"session_id": "x", "transcript_path": str(path), "cwd": "/", "hook_event_name": "SessionEnd"}
    done = gm("hook", "session-end", "--repo", str(mem), stdin=json.dumps(given))
    assert done.returncode == 0 and "handed off" not in done.stdout
    [error] = errors(mem)
    assert error["job"] == "session-end" and "outside the session folders" in str(error["summary"])


def test_hook_post_session_of_a_file_outside_says_failed_and_exits_1(tmp_path: Path) -> None:
    mem = make_memory()
    passwd = tmp_path / "passwd"
    passwd.write_text("root:x:0:0:root:/root:/bin/bash\n")
    done = gm("hook", "post-session", str(passwd), "--repo", str(mem))
    assert done.returncode == 1 and "post-session: failed" in done.stdout and "ok:" not in done.stdout


# --- MCP ------------------------------------------------------------------------------------------

def _mcp(root: Path, body: Any) -> Any:
    """``body(client)`` with the SDK's client talking to ``gitmem serve`` over stdio, in its own process."""
    import os
    import sys

    import anyio
    from mcp import Client, StdioServerParameters

    params = StdioServerParameters(command=sys.executable, args=["-m", "gitmem", "serve", "--repo", str(root)],
                                   env=dict(os.environ), cwd=str(ROOT))

    async def main() -> Any:
        async with Client(params) as c:
            return await body(c)
    return anyio.run(main)


def test_every_mcp_parameter_has_a_description_a_type_and_a_bound(repo: MemoryRepo) -> None:
    async def body(c: Any) -> Any:
        return (await c.list_tools()).tools
    tools = _mcp(repo.root, body)
    assert tools
    for tool in tools:
        schema = tool.input_schema
        assert schema.get("additionalProperties") is False, tool.name
        for name, prop in schema.get("properties", {}).items():
            assert prop.get("description"), (tool.name, name)
            kinds = [prop] + prop.get("anyOf", [])
            assert any("type" in k or "enum" in k or "const" in k for k in kinds), (tool.name, name)
            bounded = [k for k in kinds if k.get("type") in ("string", "integer", "number", "array")]
            for k in bounded:
                assert k.get("enum") or {"maxLength", "maximum", "maxItems"} & set(k), (tool.name, name, k)


def test_an_unknown_mcp_argument_is_an_error_and_runs_nothing(repo: MemoryRepo, tmp_path: Path) -> None:
    folder = tmp_path / "sessions"
    write_transcripts(folder, ["the upload failed, retry it with backoff please"])
    configure_folders(repo.root, [folder])
    head = repo.head

    async def body(c: Any) -> Any:
        return (await c.call_tool("harvest", {"path": str(folder)}),
                await c.call_tool("recall", {"query": "backoff", "kk": 3}))
    harvest, recall = _mcp(repo.root, body)
    assert harvest.is_error and "path" in harvest.content[0].text
    assert recall.is_error and "kk" in recall.content[0].text
    assert MemoryRepo.open(repo.root).head == head   # the default harvest did not run


@pytest.mark.parametrize("enum_case", [("recall", {"query": "x", "type": "nonsense"}),
                                       ("remember", {"text": "a fact", "importance": 7})])
def test_mcp_values_outside_the_schema_are_refused(repo: MemoryRepo, enum_case: tuple[str, dict[str, Any]]) -> None:
    tool, args = enum_case

    async def body(c: Any) -> Any:
        return await c.call_tool(tool, args)
    assert _mcp(repo.root, body).is_error


def test_serve_refuses_a_token_on_the_command_line(repo: MemoryRepo, capsys: pytest.CaptureFixture[str]) -> None:
    code, out, err = run_cli(["serve", "--repo", str(repo.root), "--http", "--token", "t" * 40], capsys)
    assert code == 2 and out == "" and "GITMEM_MCP_TOKEN" in err and "--token-file" in err


@pytest.mark.parametrize("token", ["x", "t" * 31])
def test_serve_refuses_a_short_token(repo: MemoryRepo, token: str, tmp_path: Path,
                                     capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("GITMEM_MCP_TOKEN", token)
    code, _, err = run_cli(["serve", "--repo", str(repo.root), "--http", "--host", "0.0.0.0", "--allow-remote"], capsys)
    assert code == 2 and "at least 32" in err
    monkeypatch.delenv("GITMEM_MCP_TOKEN")
    (tmp_path / "token").write_text(token + "\n")
    code, _, err = run_cli(["serve", "--repo", str(repo.root), "--http", "--token-file", str(tmp_path / "token")],
                           capsys)
    assert code == 2 and "at least 32" in err


# --- crashes and messages that mislead --------------------------------------------------------------

def test_a_search_reads_candidates_and_rows_from_one_state(tmp_path: Path) -> None:
    """Another process's write between the two statements of a search took rows away (a KeyError)."""
    from tests.test_index import NOW, row
    from gitmem.store.index import Index

    path = tmp_path / "index.sqlite3"
    Index(path).upsert([row(f"m-{n}", f"the staging database note {n}") for n in range(5)])

    class Racing(Index):
        def _rows_by_rid(self, rids: list[int]) -> Any:
            Index(path).delete([f"m-{n}" for n in range(5)])   # another writer, between the statements
            return super()._rows_by_rid(rids)

    hits = Racing(path).search("staging database", now=NOW)
    assert sorted(h.id for h in hits) == [f"m-{n}" for n in range(5)]
    assert Index(path).search("staging database", now=NOW) == []


def test_concurrent_remember_and_recall_in_threads_never_crash(repo: MemoryRepo) -> None:
    import threading

    repo.remember("seed note about the staging database", now=T)
    failures: list[BaseException] = []

    def work(n: int) -> None:
        try:
            mine = MemoryRepo.open(repo.root)
            for i in range(6):
                mine.remember(f"thread {n} note {i} on the staging database rebuild", dedupe=True, now=T)
                mine.recall("staging database rebuild", 5)
        except BaseException as exc:   # a crash of any kind is the failure
            failures.append(exc)

    threads = [threading.Thread(target=work, args=(n,)) for n in range(4)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert not failures, failures


@pytest.mark.parametrize(("yaml", "says"), [
    ("version: 99\n", "version"),
    ("pii:\n  allowlist:\n    patterns: ['(unclosed']\n", "compiles"),
    ("paths:\n  allowed_dirs: ['..', '/etc', '.git', 'memory']\n", "paths.allowed_dirs"),
    ("daemon:\n  session_folders: ['/']\n", "daemon.session_folders"),
])
def test_check_config_refuses_values_that_cannot_mean_what_they_say(repo: MemoryRepo, yaml: str, says: str,
                                                                   capsys: pytest.CaptureFixture[str]) -> None:
    (repo.root / "gitmem.yaml").write_text(yaml)
    code, out, err = run_cli(["--repo", str(repo.root), "check", "config"], capsys)
    assert code == 1 and says in out + err, out + err


def test_check_config_of_a_file_that_is_not_utf8_is_a_failed_check(repo: MemoryRepo,
                                                                  capsys: pytest.CaptureFixture[str]) -> None:
    (repo.root / "gitmem.yaml").write_bytes(b"version: 1\n# caf\xe9\n")
    code, out, err = run_cli(["--repo", str(repo.root), "check", "config"], capsys)
    assert code == 1 and "not UTF-8" in out + err and "Traceback" not in err


def test_install_claude_code_into_a_symlink_loop_is_refused(repo: MemoryRepo, tmp_path: Path,
                                                           capsys: pytest.CaptureFixture[str]) -> None:
    loop = tmp_path / "settings.json"
    loop.symlink_to(loop)
    code, _, err = run_cli(["--repo", str(repo.root), "install", "claude-code", "--settings", str(loop)], capsys)
    assert code in (1, 2) and "symbolic link loop" in err and "Traceback" not in err
    assert loop.is_symlink()


def test_pii_scan_of_a_device_returns_at_once(tmp_path: Path) -> None:
    done = gm("pii", "scan", "/dev/zero", timeout=60)
    assert done.returncode in (1, 2) and "not a regular file" in done.stderr


def test_dashboard_to_something_other_than_a_file_is_an_error(repo: MemoryRepo, tmp_path: Path,
                                                             capsys: pytest.CaptureFixture[str]) -> None:
    import os
    import stat

    fifo = tmp_path / "pipe"
    os.mkfifo(fifo)
    code, out, err = run_cli(["--repo", str(repo.root), "--now", "2026-11-29T12:00:00Z", "dashboard", "-o", str(fifo)],
                             capsys)
    assert code != 0 and "wrote" not in out and "not a regular file" in err
    assert stat.S_ISFIFO(os.stat(fifo).st_mode)   # the pipe is still a pipe


def _memory_file(repo: MemoryRepo) -> Path:
    found = sorted(p for p in (repo.root / "memory").rglob("*.md"))
    assert found
    return found[0]


def test_a_crlf_memory_file_git_sees_as_clean_does_not_block_decay(repo: MemoryRepo) -> None:
    repo.remember("the deploy script needs the staging flag", now=T)
    path = _memory_file(repo)
    path.write_bytes(path.read_bytes().replace(b"\n", b"\r\n"))
    git(repo.root, "commit", "-qam", "line ends", "--allow-empty")
    assert git(repo.root, "status", "--porcelain", "--untracked-files=no") == ""   # clean to git
    done = MemoryRepo.open(repo.root).decay(now=parse_time("2027-03-01T00:00:00Z"))
    assert done.commit is not None


def test_a_nul_in_a_committed_memory_is_skipped_and_reported_not_fatal(repo: MemoryRepo) -> None:
    repo.remember("another memory about the release train", now=T)
    repo.remember("the deploy script needs the staging flag", now=T)
    path = _memory_file(repo)
    path.write_bytes(path.read_bytes().replace(b"memory", b"mem\0ory").replace(b"script", b"scr\0ipt"))
    git(repo.root, "commit", "-qam", "a NUL, past the hook", "--no-verify")
    with pytest.raises(ValidationError, match="NUL"):
        repo.remember("a note\0 about nul", now=T)
    code = subprocess.run([sys.executable, "-m", "gitmem", "--repo", str(repo.root), "--now", "2027-03-01T00:00:00Z",
                           "decay"], capture_output=True, text=True, timeout=120)
    assert code.returncode == 0 and "skipped unreadable file" in code.stderr and "1 memories examined" in code.stdout


# --- kills ----------------------------------------------------------------------------------------

_WRITER = """
import sys
from gitmem.api import MemoryRepo
from gitmem.base.clock import parse_time
repo = MemoryRepo.open(sys.argv[1])
for i in range(200):
    repo.remember(f"kill {sys.argv[2]} note {i} about the build cache of service {i}", dedupe=False,
                  now=parse_time("2026-11-29T12:00:00Z"))
"""


def _kill_on_move(root: Path, n: int) -> None:
    import os
    import signal
    import time

    ref = root / ".git" / "refs" / "heads" / "main"
    before = ref.read_bytes()
    proc = subprocess.Popen([sys.executable, "-c", _WRITER, str(root), str(n)], cwd=ROOT,
                            stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    deadline = time.monotonic() + 60
    while time.monotonic() < deadline and proc.poll() is None:
        try:
            if ref.read_bytes() != before:
                break
        except OSError:
            continue
    os.kill(proc.pid, signal.SIGKILL)
    proc.wait()


@pytest.mark.slow
def test_a_writer_killed_as_its_branch_moves_loses_nothing_and_recover_frees_the_index(repo: MemoryRepo) -> None:
    repo.remember("the first memory, so the branch exists", now=T)
    for n in range(3):
        _kill_on_move(repo.root, n)
        said = subprocess.run([sys.executable, "-m", "gitmem", "--repo", str(repo.root), "recover"],
                              capture_output=True, text=True).stdout
        assert "recover" in said or "nothing to recover" in said
        assert not (repo.root / ".git" / "index.lock").exists()
        assert not list((repo.root / ".git" / "gitmem").glob("index.*.ne*")) and \
            not list((repo.root / ".git" / "gitmem").glob("index.*.prev"))
        (repo.root / f"person-{n}.txt").write_text("a person's file\n")
        git(repo.root, "add", f"person-{n}.txt")       # a person's next `git add` does not trip
        git(repo.root, "commit", "-qm", f"person {n}")
        tree = git(repo.root, "ls-tree", "-r", "--name-only", "HEAD").splitlines()
        assert sum(p.startswith("memory/") and p.endswith(".md") for p in tree) >= n + 2   # nothing of gitmem's lost
        assert git(repo.root, "status", "--porcelain", "--untracked-files=no") == ""


def test_the_mcp_enums_are_the_models_closed_sets() -> None:
    from typing import get_args

    from gitmem.base import kinds
    from gitmem.faces import mcp_server

    assert get_args(mcp_server.MemoryType) == kinds.TYPES and get_args(mcp_server.Domain) == kinds.DOMAINS
    assert get_args(mcp_server.Band) == kinds.BANDS and set(get_args(mcp_server.RecallTier)) < set(kinds.TIERS)
