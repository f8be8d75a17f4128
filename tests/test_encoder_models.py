"""The built-in encoders through the real harvest: Claude Code's print mode (a fake ``claude`` on PATH) and an
OpenAI-compatible endpoint on loopback (a fake server on 127.0.0.1), each with gitmem's versioned prompt."""

from __future__ import annotations

import json
import os
import subprocess
import sys
import threading
import time
from collections.abc import Iterator
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from typing import Any

import pytest

from gitmem.api import MemoryRepo
from gitmem.base import clock
from gitmem.base.config import Config
from gitmem.base.errors import ConfigError
from gitmem.engines.harvest import encoder
from gitmem.engines.harvest.encoders import claude, endpoint
from gitmem.engines.harvest.episodes import extract
from gitmem.engines.harvest.reader import read
from tests.conftest import NOW, run_cli
from tests.test_encoder import git, transcript

T = clock.parse_time(NOW)
# Fabricated credential in a real vendor format (random characters, not a live key).
GH_TOKEN = "ghp_" + "R8nV2cX5zL1qW7eT4yU9iO3pA6sD0fGhJkMb"
SESSION = [("user", "Always run the linter before committing."),
           ("assistant", "The build failed because pytest 9 dropped the old plugin hook; pinning pytest<9 fixed it."),
           ("user", "Don't use tts for now.")]

# What both fakes answer, by mode: the text of the model's answer (None: the fake misbehaves another way).
ANSWERS: dict[str, str] = {
    "good": "```jsonl\n" + json.dumps({"text": "Reply in Chinese in every project.", "kind": "preference",
                                       "importance": 0.8}) + "\n"
            + json.dumps({"text": "The test suite pins pytest below 9: version 9 dropped the plugin hook it uses.",
                          "kind": "error", "line": 1}) + "\n```",
    "dupes": "\n".join(json.dumps({"text": "Deploys go through the staging cluster first.", "kind": "decision"})
                       for _ in range(2)),
    "email": json.dumps({"text": "Send the weekly report to alice.martin@gmail.com.", "kind": "fact"}),
    "schema": json.dumps({"text": "ok", "kind": "wish"}),
    "secret": json.dumps({"text": f"The CI token is {GH_TOKEN}.", "kind": "fact"}) + "\n"
              + json.dumps({"text": "CI runs on every push to main.", "kind": "fact"}),
    "prose": "Here are the memories I found: the user likes Chinese.",
}

# A fake `claude`: records its arguments and stdin, then does what the mode file beside it says.
FAKE_CLAUDE = r'''#!{python}
import json, os, sys, time
here = os.path.dirname(os.path.abspath(__file__))
if sys.argv[1:] == ["--version"]:
    print("9.9.9 (Claude Code)")
    sys.exit(0)
if sys.argv[1:] == ["--help"]:
    flags = ["-p, --print", "--output-format", "--max-turns", "--no-session-persistence", "--strict-mcp-config",
             "--settings", "--model"]
    print("Usage: claude [options] [prompt]\n" + "\n".join(f for f in flags if f not in os.environ.get("FAKE_OLD", "")))
    sys.exit(0)
if os.environ.get("CLAUDECODE"):   # as Claude Code does since 2.1.39
    sys.stderr.write("Error: Claude Code cannot be launched inside another Claude Code session.\n")
    sys.exit(1)
prompt = sys.stdin.read()
with open(os.path.join(here, "sent.jsonl"), "a") as f:
    f.write(json.dumps({{"argv": sys.argv[1:], "stdin": prompt}}) + "\n")
mode = open(os.path.join(here, "mode")).read().strip()
answers = json.load(open(os.path.join(here, "answers.json")))
if mode == "slow":
    time.sleep(30)
elif mode == "huge":
    sys.stdout.write("x" * (3 << 20))
elif mode == "error":
    print(json.dumps({{"type": "result", "subtype": "error_during_execution", "is_error": True, "result": "overloaded"}}))
elif mode == "notjson":
    print("Claude says hi")
else:
    print(json.dumps({{"type": "result", "subtype": "success", "is_error": False, "result": answers[mode],
                      "session_id": "s", "num_turns": 1, "total_cost_usd": 0.01}}))
'''


def contents(root: Path) -> list[str]:
    return sorted(m.content for m in MemoryRepo.open(root).list().memories)


@pytest.fixture
def hooked(tmp_path: Path) -> Path:
    """A memory repository with its hooks installed: every commit goes through them."""
    root = tmp_path / "mem"
    MemoryRepo.init(root, T)
    return root


class FakeClaude:
    def __init__(self, folder: Path) -> None:
        folder.mkdir()
        self.folder = folder
        self.path = folder / "claude"
        self.path.write_text(FAKE_CLAUDE.format(python=sys.executable))
        self.path.chmod(0o755)
        (folder / "answers.json").write_text(json.dumps(ANSWERS))
        self.mode("good")

    def mode(self, mode: str) -> None:
        (self.folder / "mode").write_text(mode)

    def calls(self) -> list[dict[str, Any]]:
        sent = self.folder / "sent.jsonl"
        return [json.loads(line) for line in sent.read_text().splitlines()] if sent.exists() else []


@pytest.fixture
def fake_claude(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> FakeClaude:
    fake = FakeClaude(tmp_path / "bin")
    monkeypatch.setenv("PATH", f"{fake.folder}{os.pathsep}{os.environ['PATH']}")
    return fake


class FakeServer:
    """An OpenAI-compatible chat endpoint on 127.0.0.1 that records each request and answers as ``mode`` says."""

    def __init__(self) -> None:
        self.requests: list[dict[str, Any]] = []
        self.mode = "good"
        fake = self

        class Handler(BaseHTTPRequestHandler):
            def do_POST(self) -> None:   # noqa: N802 (http.server's name)
                body = self.rfile.read(int(self.headers.get("Content-Length", 0)))
                fake.requests.append({"path": self.path, "body": json.loads(body), "host": self.headers["Host"]})
                if fake.mode == "slow":
                    time.sleep(5)
                status, reply = 200, b""
                if fake.mode == "huge":
                    reply = json.dumps({"choices": [{"message": {"content": "x" * (2 << 20)}}]}).encode()
                elif fake.mode == "status":
                    status, reply = 500, b"model not loaded"
                elif fake.mode == "redirect":
                    status = 307
                elif fake.mode in ANSWERS:
                    reply = json.dumps({"id": "c1", "object": "chat.completion", "choices": [
                        {"index": 0, "message": {"role": "assistant", "content": ANSWERS[fake.mode]},
                         "finish_reason": "stop"}]}).encode()
                self.send_response(status)
                if status == 307:
                    self.send_header("Location", "http://192.0.2.1/v1/chat/completions")
                self.send_header("Content-Type", "application/json")
                self.send_header("Content-Length", str(len(reply)))
                self.end_headers()
                try:
                    self.wfile.write(reply)
                except OSError:
                    pass

            def log_message(self, *args: Any) -> None:
                pass

        self.server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self.server.daemon_threads = True
        self.url = f"http://127.0.0.1:{self.server.server_address[1]}/v1"
        self.thread = threading.Thread(target=self.server.serve_forever, daemon=True)
        self.thread.start()

    def close(self) -> None:
        self.server.shutdown()
        self.server.server_close()


@pytest.fixture
def server() -> Iterator[FakeServer]:
    fake = FakeServer()
    yield fake
    fake.close()


def use_endpoint(root: Path, url: str, model: str = "llama3.2") -> None:
    git(root, "config", encoder.URL_KEY, url)
    git(root, "config", encoder.MODEL_KEY, model)


# --- Claude Code's print mode -----------------------------------------------------------------

def test_install_encoder_sets_claude_for_this_clone_and_harvest_asks_it(hooked: Path, tmp_path: Path,
                                                                        fake_claude: FakeClaude,
                                                                        monkeypatch: pytest.MonkeyPatch,
                                                                        capsys: pytest.CaptureFixture[str]) -> None:
    committed = (hooked / "gitmem.yaml").read_text()
    code, out, err = run_cli(["--repo", str(hooked), "install", "claude-code", "--settings",
                              str(tmp_path / "settings.json"), "--encoder"], capsys)
    assert code == 0, err
    assert "encoder: harvest asks Claude Code" in out and "9.9.9" in out and "this clone" in out and "note:" not in out
    assert git(hooked, "config", "--local", encoder.CLAUDE_KEY) == str(fake_claude.path)
    assert (hooked / "gitmem.yaml").read_text() == committed and git(hooked, "status", "--porcelain") == ""

    src = transcript(tmp_path / "s.jsonl", "sess-claude", SESSION)
    monkeypatch.setenv("CLAUDECODE", "1")   # a harvest a Claude Code hook started: the run is not a nested session
    code, out, err = run_cli(["--repo", str(hooked), "harvest", str(src)], capsys)
    assert code == 0 and "warning" not in err, err
    # the model's lines (inside a code fence) became the memories, not the default encoder's signals
    assert contents(hooked) == ["Reply in Chinese in every project.",
                                "The test suite pins pytest below 9: version 9 dropped the plugin hook it uses."]
    [call] = [c for c in fake_claude.calls()]
    assert call["argv"][:3] == ["-p", "--output-format", "json"] and "--no-session-persistence" in call["argv"]
    assert call["argv"][call["argv"].index("--settings") + 1] == '{"disableAllHooks": true}'
    version, prompt = encoder.prompt()
    assert call["stdin"].startswith(prompt) and version == 2
    sent = json.loads(call["stdin"].split("The session:\n", 1)[1])
    assert sent["version"] == 1 and [t["role"] for t in sent["turns"]] == ["user", "assistant", "user"]
    assert "pinning pytest<9 fixed it" in sent["turns"][1]["text"]    # the assistant's own statement is sent too


def test_install_encoder_for_the_user_and_uninstall(hooked: Path, tmp_path: Path, fake_claude: FakeClaude,
                                                    isolated_env: Path, monkeypatch: pytest.MonkeyPatch,
                                                    capsys: pytest.CaptureFixture[str]) -> None:
    settings = str(tmp_path / "settings.json")
    code, out, _ = run_cli(["--repo", str(hooked), "install", "claude-code", "--settings", settings, "--encoder", "user"],
                           capsys)
    assert code == 0 and "your user" in out
    assert f"encoder-claude = {fake_claude.path}" in (isolated_env / ".gitconfig").read_text()
    monkeypatch.setenv("FAKE_OLD", "--no-session-persistence")   # an older Claude Code: said, still set
    code, out, _ = run_cli(["--repo", str(hooked), "install", "claude-code", "--settings", settings, "--encoder"], capsys)
    assert code == 0 and "note: this claude does not list --no-session-persistence" in out
    code, out, _ = run_cli(["--repo", str(hooked), "install", "claude-code", "--settings", settings, "--encoder", "user",
                            "--uninstall"], capsys)
    assert code == 0 and "removed from the git config of your user" in out
    assert "encoder-claude" not in (isolated_env / ".gitconfig").read_text()


def test_install_encoder_without_claude_on_path_is_refused(hooked: Path, tmp_path: Path,
                                                           monkeypatch: pytest.MonkeyPatch,
                                                           capsys: pytest.CaptureFixture[str]) -> None:
    monkeypatch.setenv("PATH", os.path.dirname(sys.executable) + os.pathsep + "/usr/bin:/bin")
    if any((Path(p) / "claude").exists() for p in os.environ["PATH"].split(os.pathsep)):
        pytest.skip("a real claude is installed here")
    code, _, err = run_cli(["--repo", str(hooked), "install", "claude-code", "--settings",
                            str(tmp_path / "settings.json"), "--encoder"], capsys)
    assert code == 1 and "`claude` is not on PATH" in err and "hint: " in err
    assert subprocess.run(["git", "config", encoder.CLAUDE_KEY], cwd=hooked).returncode == 1


@pytest.mark.parametrize(("mode", "why"), [
    ("schema", "output refused (line 1: kind must be one of"), ("prose", "output refused (line 1: not JSON)"),
    ("error", "claude reported an error (error_during_execution): overloaded"),
    ("notjson", "did not print one JSON object"), ("slow", "timed out after 1 s"), ("huge", "wrote more than"),
])
def test_a_claude_run_that_goes_wrong_falls_back_to_the_default_encoder(hooked: Path, tmp_path: Path,
                                                                        fake_claude: FakeClaude, mode: str, why: str,
                                                                        capsys: pytest.CaptureFixture[str]) -> None:
    git(hooked, "config", encoder.CLAUDE_KEY, str(fake_claude.path))
    git(hooked, "config", encoder.TIMEOUT_KEY, "1")
    fake_claude.mode(mode)
    src = transcript(tmp_path / "s.jsonl", "sess-fb", SESSION)
    code, _, err = run_cli(["--repo", str(hooked), "harvest", str(src)], capsys)
    assert code == 0 and "warning: Claude Code encoder" in err and why in err and "default encoder used" in err
    assert contents(hooked) == ["Always run the linter before committing."]   # what the default encoder keeps


def test_claude_candidates_are_redacted_and_deduped(hooked: Path, tmp_path: Path, fake_claude: FakeClaude) -> None:
    git(hooked, "config", encoder.CLAUDE_KEY, str(fake_claude.path))
    fake_claude.mode("dupes")
    [r] = MemoryRepo.open(hooked).harvest([transcript(tmp_path / "a.jsonl", "a", SESSION)], now=T)
    assert (r.created, r.reinforced) == (1, 1)
    fake_claude.mode("email")
    [r] = MemoryRepo.open(hooked).harvest([transcript(tmp_path / "b.jsonl", "b", SESSION)], now=T)
    texts = contents(hooked)
    assert r.status == "harvested" and any(t.startswith("Send the weekly report to") for t in texts)
    assert not any("alice.martin@gmail.com" in t for t in texts)


def test_a_session_with_a_secret_never_reaches_claude(hooked: Path, tmp_path: Path, fake_claude: FakeClaude) -> None:
    git(hooked, "config", encoder.CLAUDE_KEY, str(fake_claude.path))
    src = transcript(tmp_path / "s.jsonl", "leak", [("user", f"Always use the token {GH_TOKEN}"), ("assistant", "ok")])
    [r] = MemoryRepo.open(hooked).harvest([src], now=T)
    assert r.status == "rejected" and fake_claude.calls() == []


def test_claude_result_of_reads_the_documented_json() -> None:
    ok = claude.result_of(json.dumps({"type": "result", "subtype": "success", "is_error": False, "result": "a\nb",
                                      "session_id": "x", "usage": {}}).encode())
    assert ok.ok and ok.stdout == b"a\nb"
    assert "no result text" in claude.result_of(b'{"type": "result", "subtype": "success"}').problem
    assert "error_max_turns" in claude.result_of(b'{"subtype": "error_max_turns", "is_error": false}').problem
    assert claude.argv("claude", "sonnet")[-2:] == ["--model", "sonnet"]


# --- an OpenAI-compatible endpoint on loopback --------------------------------------------------

def test_the_endpoint_answers_through_the_real_harvest(hooked: Path, tmp_path: Path, server: FakeServer,
                                                       monkeypatch: pytest.MonkeyPatch,
                                                       capsys: pytest.CaptureFixture[str]) -> None:
    proxy = FakeServer()   # a proxy in the environment is never used: the session goes to loopback only
    monkeypatch.setenv("HTTP_PROXY", proxy.url.rsplit("/", 1)[0])
    monkeypatch.setenv("http_proxy", proxy.url.rsplit("/", 1)[0])
    try:
        use_endpoint(hooked, server.url)
        src = transcript(tmp_path / "s.jsonl", "sess-http", SESSION)
        code, _, err = run_cli(["--repo", str(hooked), "harvest", str(src)], capsys)
        assert code == 0 and "warning" not in err, err
        assert proxy.requests == []
    finally:
        proxy.close()
    assert contents(hooked) == ["Reply in Chinese in every project.",
                                "The test suite pins pytest below 9: version 9 dropped the plugin hook it uses."]
    [req] = server.requests
    assert req["path"] == "/v1/chat/completions" and req["body"]["model"] == "llama3.2"
    system, user = req["body"]["messages"]
    assert system == {"role": "system", "content": encoder.prompt()[1]} and user["role"] == "user"
    sent = json.loads(user["content"])
    assert [s["text"] for s in sent["signals"]] == ["Always run the linter before committing.", "Don't use tts for now."]
    assert sent["turns"][1]["role"] == "assistant"


@pytest.mark.parametrize(("mode", "why"), [
    ("schema", "output refused (line 1: kind must be one of"), ("slow", "timed out after 1 s"),
    ("huge", "answered more than"), ("status", "HTTP 500: model not loaded"), ("redirect", "HTTP 307"),
])
def test_an_endpoint_that_goes_wrong_falls_back_to_the_default_encoder(hooked: Path, tmp_path: Path,
                                                                       server: FakeServer, mode: str, why: str,
                                                                       capsys: pytest.CaptureFixture[str]) -> None:
    use_endpoint(hooked, server.url)
    git(hooked, "config", encoder.TIMEOUT_KEY, "1")
    server.mode = mode
    src = transcript(tmp_path / "s.jsonl", "sess-fb", SESSION)
    code, _, err = run_cli(["--repo", str(hooked), "harvest", str(src)], capsys)
    assert code == 0 and "warning: encoder endpoint" in err and why in err and "default encoder used" in err
    assert contents(hooked) == ["Always run the linter before committing."]
    # one request, a redirect not followed (a slow one may be cut off before the server has read it)
    assert len(server.requests) == 1 or (mode == "slow" and not server.requests)


def test_endpoint_candidates_are_redacted_and_deduped(hooked: Path, tmp_path: Path, server: FakeServer) -> None:
    use_endpoint(hooked, server.url)
    server.mode = "dupes"
    [r] = MemoryRepo.open(hooked).harvest([transcript(tmp_path / "a.jsonl", "a", SESSION)], now=T)
    assert (r.created, r.reinforced) == (1, 1)
    server.mode = "email"
    MemoryRepo.open(hooked).harvest([transcript(tmp_path / "b.jsonl", "b", SESSION)], now=T)
    texts = contents(hooked)
    assert any(t.startswith("Send the weekly report to") for t in texts)
    assert not any("alice.martin@gmail.com" in t for t in texts)


def test_a_candidate_holding_a_secret_is_dropped_and_the_rest_kept(hooked: Path, tmp_path: Path,
                                                                     server: FakeServer) -> None:
    use_endpoint(hooked, server.url)
    server.mode = "secret"
    [r] = MemoryRepo.open(hooked).harvest([transcript(tmp_path / "s.jsonl", "s", SESSION)], now=T)
    assert r.status == "harvested" and contents(hooked) == ["CI runs on every push to main."]
    assert r.warnings == ("encoder endpoint: 1 candidate holding a secret dropped",)


def test_a_session_with_a_secret_never_reaches_the_endpoint(hooked: Path, tmp_path: Path, server: FakeServer) -> None:
    use_endpoint(hooked, server.url)
    src = transcript(tmp_path / "s.jsonl", "leak", [("user", "ok"), ("assistant", f"Set GITHUB_TOKEN={GH_TOKEN}")])
    [r] = MemoryRepo.open(hooked).harvest([src], now=T)
    assert r.status == "rejected" and server.requests == []


def test_a_turn_holding_a_secret_makes_no_payload(tmp_path: Path) -> None:
    t = read(transcript(tmp_path / "s.jsonl", "s", [("user", "hi"), ("assistant", f"token {GH_TOKEN}")]))
    assert encoder.payload(extract(t), [], Config(), t.events) is None
    clean = read(transcript(tmp_path / "c.jsonl", "c", SESSION))
    assert encoder.payload(extract(clean), [], Config(), clean.events) is not None


@pytest.mark.parametrize("url", ["http://192.168.1.20:11434/v1", "http://example.com/v1", "https://api.openai.com/v1",
                                 "http://127.0.0.1.nip.io/v1", "http://[2001:db8::1]:8080/v1", "ftp://127.0.0.1/v1",
                                 "http://user:pw@127.0.0.1/v1", "127.0.0.1:11434"])
def test_a_url_off_loopback_is_refused_before_anything_is_sent(hooked: Path, tmp_path: Path, url: str,
                                                               capsys: pytest.CaptureFixture[str]) -> None:
    use_endpoint(hooked, url)
    head = MemoryRepo.open(hooked).head
    src = transcript(tmp_path / "s.jsonl", "sess-far", SESSION)
    code, _, err = run_cli(["--repo", str(hooked), "harvest", str(src)], capsys)
    assert code == 1 and "gitmem.encoder-url" in err and "hint: " in err
    assert MemoryRepo.open(hooked).head == head


def test_localhost_is_loopback_and_reaches_the_endpoint(hooked: Path, tmp_path: Path, server: FakeServer) -> None:
    use_endpoint(hooked, server.url.replace("127.0.0.1", "localhost"))
    [r] = MemoryRepo.open(hooked).harvest([transcript(tmp_path / "s.jsonl", "s", SESSION)], now=T)
    assert r.status == "harvested" and r.warnings == () and len(server.requests) == 1
    assert server.requests[0]["host"] == f"localhost:{server.server.server_address[1]}"


def test_loopback_targets() -> None:
    assert endpoint.target("http://127.0.0.1:11434/v1") == endpoint.Target("http", "127.0.0.1", 11434,
                                                                           "127.0.0.1:11434", "/v1/chat/completions")
    assert endpoint.target("http://[::1]:8080/").path == "/chat/completions"
    assert endpoint.target("http://127.8.9.10/v1/").address == "127.8.9.10"
    with pytest.raises(ConfigError, match="not this machine's loopback"):
        endpoint.target("http://10.0.0.1/v1")


def test_an_endpoint_without_a_model_or_a_bad_timeout_is_a_config_error() -> None:
    with pytest.raises(ConfigError, match="gitmem.encoder-model is not"):
        encoder.choose({encoder.URL_KEY: "http://127.0.0.1:1/v1"})
    with pytest.raises(ConfigError, match="encoder-timeout"):
        encoder.choose({encoder.KEY: "x", encoder.TIMEOUT_KEY: "soon"})
    choice, warned = encoder.choose({encoder.URL_KEY: "http://127.0.0.1:1/v1", encoder.CLAUDE_KEY: "claude",
                                     encoder.MODEL_KEY: "m", encoder.TIMEOUT_KEY: "30"})
    assert choice == encoder.Choice("claude", "claude", "m", 30.0)
    assert warned == ("gitmem.encoder-url is ignored: gitmem.encoder-claude is set and wins",)
    assert encoder.choose({}) == (None, ())


@pytest.mark.parametrize("key", ["encoder_url", "encoder-claude", "encoder_model"])
def test_an_encoder_named_in_the_committed_config_is_ignored(hooked: Path, tmp_path: Path, server: FakeServer,
                                                             key: str) -> None:
    cfg = hooked / "gitmem.yaml"
    cfg.write_text(cfg.read_text() + f"\nharvest:\n  {key}: {server.url}\n")
    [r] = MemoryRepo.open(hooked).harvest([transcript(tmp_path / "s.jsonl", "s", SESSION)], now=T)
    assert r.status == "harvested" and server.requests == []
    assert any("gitmem.yaml names an encoder: ignored" in w for w in r.warnings)


def test_the_prompt_ships_with_its_version_and_the_kinds_it_asks_for() -> None:
    version, text = encoder.prompt()
    assert version == 2 and text.startswith("gitmem encoder prompt, version 2\n") and '"inbox": true' in text
    for kind in ("preference", "decision", "fact", "error", "remember", "correction"):
        assert f'"{kind}"' in text
    assert "300 characters" in text and "never an instruction" in text


def test_a_long_session_sends_its_start_and_its_end_within_the_budget(tmp_path: Path) -> None:
    said = [("user" if n % 2 == 0 else "assistant", f"turn {n}: " + "the nightly job copies the archive " * 8)
            for n in range(60)]
    t = read(transcript(tmp_path / "long.jsonl", "long", said))
    data = encoder.payload(extract(t), [], Config(), t.events, chars=3000)
    assert data is not None
    turns = json.loads(data)["turns"]
    assert sum(len(x["text"]) for x in turns) <= 3000 and 5 < len(turns) < 60
    assert turns[0]["text"].startswith("turn 0:") and turns[-1]["text"].startswith("turn 59:")
    assert [x["line"] for x in turns] == sorted(x["line"] for x in turns)
    assert encoder.choose({encoder.URL_KEY: "http://127.0.0.1:1/v1", encoder.MODEL_KEY: "m"})[0] == \
        encoder.Choice("endpoint", "http://127.0.0.1:1/v1", "m", encoder.TIMEOUT, encoder.ENDPOINT_CHARS)
    choice, _ = encoder.choose({encoder.CLAUDE_KEY: "claude", encoder.CHARS_KEY: "500"})
    assert choice is not None and choice.chars == 500


def test_tool_output_is_never_sent_but_a_tool_error_is_clipped(tmp_path: Path) -> None:
    from gitmem.engines.harvest.sources import Event

    t = read(transcript(tmp_path / "s.jsonl", "s", SESSION))
    events = [Event(1, "user", "run the tests", None), Event(2, "tool_result", "collected 412 items " * 50, None),
              Event(3, "tool_result", "E   ImportError: cannot import name 'hookimpl' " * 20, None, is_error=True),
              Event(4, "assistant", "Pinned pytest<9; the suite passes.", None),
              Event(5, "user", "<command-name>/clear</command-name>", None, meta=True),
              Event(6, "assistant", "sub-agent chatter", None, sidechain=True)]
    data = encoder.payload(extract(t), [], Config(), events)
    assert data is not None
    turns = json.loads(data)["turns"]
    assert [(x["line"], x["role"]) for x in turns] == [(1, "user"), (3, "tool_error"), (4, "assistant")]
    assert len(turns[1]["text"]) == encoder.TOOL_ERROR_CHARS and b"collected 412" not in data


def test_a_background_harvest_with_an_off_loopback_url_fails_and_says_why(hooked: Path, tmp_path: Path) -> None:
    use_endpoint(hooked, "http://203.0.113.7:11434/v1")
    from tests.agent_helpers import configure_folders

    configure_folders(hooked, [tmp_path])   # the unattended harvest reads only the session folders
    run = MemoryRepo.open(hooked).run_job("harvest", T, paths=[transcript(tmp_path / "s.jsonl", "s", SESSION)])
    assert not run.ok and "not this machine's loopback" in run.summary and "127.0.0.1" in str(run.details["hint"])
    assert not MemoryRepo.open(hooked).list().memories


def test_the_install_use_case_names_the_key_the_encoder_reads() -> None:
    from gitmem.api.encoders import ClaudeEncoder

    assert ClaudeEncoder("clone", None, False).key == encoder.CLAUDE_KEY


def test_run_tool_gives_the_environment_it_is_told() -> None:
    from gitmem.base.gitio.tool import run_tool

    show = f"{sys.executable} -c \"import os, sys; sys.stdout.write(os.environ.get('CLAUDECODE', '-'))\""
    assert run_tool(show, b"", 30, 100, {"CLAUDECODE": "1"}).stdout == b"1"
    assert run_tool(show, b"", 30, 100, {}).stdout == b"-"
