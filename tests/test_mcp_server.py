"""The MCP server: every tool on a real memory repository through the SDK's own client, in process and over HTTP.

Skipped only when the MCP SDK is not installed AND ``CI`` is unset: under CI a missing SDK fails.
"""

from __future__ import annotations

import importlib.util
import json
import os
import socket
import subprocess
import sys
import time
import urllib.error
import urllib.request
from collections.abc import Awaitable, Callable, Iterator
from datetime import timedelta
from pathlib import Path
from typing import Any

import pytest

if importlib.util.find_spec("mcp") is None and not os.environ.get("CI"):
    pytest.skip("the MCP SDK is not installed: pip install -e '.[test,mcp]'", allow_module_level=True)

import anyio  # noqa: E402
from mcp import Client, StdioServerParameters  # noqa: E402

from gitmem.api import MemoryRepo  # noqa: E402
from gitmem.faces.mcp_server import build_server  # noqa: E402
from gitmem.faces.verbs_serve import is_loopback  # noqa: E402
from tests.loop_helpers import START, add_sessions, git, write_transcripts  # noqa: E402
from tests.conftest import ROOT, run_cli  # noqa: E402

# name: (parameters in order, required ones, read-only, destructive hint)
TOOLS: dict[str, tuple[tuple[str, ...], tuple[str, ...], bool, bool | None]] = {
    "remember": (("text", "type", "domain", "importance", "source", "tags", "project"), ("text",), False, False),
    "recall": (("query", "k", "type", "domain", "tier", "band", "include_archive", "include_background", "at",
                "expand", "project", "all_projects"), ("query",), True, None),
    "why": (("memory_id",), ("memory_id",), True, None),
    "harvest": (("paths",), (), False, False),
    "weight_update": (("dry_run",), (), False, False),
    "review_list": ((), (), True, None),
    "analyze": (("merge_threshold",), (), True, None),
    "status": ((), (), True, None),
    "layer_validate": (("rev_range",), (), True, None),
    "pii_check": (("text",), ("text",), True, None),
    "decay_config_check": ((), (), True, None),
    "drift_check": ((), (), True, None),
    "sediment_status": ((), (), True, None),
    "sediment_threshold": ((), (), True, None),
    "sediment_reflect": (("topic", "context", "approach", "result", "score", "reusable", "kind", "tags", "skill",
                          "repeat", "loop"), ("topic", "context", "approach", "result", "score", "reusable", "kind"),
                         False, False),
    "sediment_like": (("entry_id",), ("entry_id",), False, False),
}

T = START + timedelta(days=2)


def talk(root: Path, body: Callable[[Client], Awaitable[Any]]) -> Any:
    """Run ``body`` with an in-process client connected to a server for ``root``."""
    async def main() -> Any:
        async with Client(build_server(root)) as client:
            return await body(client)
    return anyio.run(main)


def call(root: Path, tool: str, args: dict[str, Any] | None = None) -> Any:
    """One tool call; returns the SDK's result."""
    async def body(c: Client) -> Any:
        return await c.call_tool(tool, args or {})
    return talk(root, body)


def ok(result: Any) -> dict[str, Any]:
    assert not result.is_error, result.content
    assert isinstance(result.structured_content, dict)
    return result.structured_content


def error_text(result: Any) -> str:
    assert result.is_error and result.structured_content is None
    return str(result.content[0].text)


def refs(root: Path) -> str:
    return git(root, "for-each-ref", "--format=%(refname) %(objectname)")


def with_session_folder(repo_dir: Path, folder: Path) -> None:
    cfg = repo_dir / "gitmem.yaml"
    text = cfg.read_text()
    start = text.index("  session_folders:")
    end = text.index("\n", start)
    cfg.write_text(text[:start] + f"  session_folders: ['{folder}']" + text[end:])


# --- the contract --------------------------------------------------------------------

def test_every_tool_name_parameter_and_annotation_is_pinned(repo_dir: Path) -> None:
    async def body(c: Client) -> Any:
        return (await c.list_tools()).tools
    tools = {t.name: t for t in talk(repo_dir, body)}
    assert sorted(tools) == sorted(TOOLS)
    for name, (params, required, read_only, destructive) in TOOLS.items():
        tool = tools[name]
        assert tuple(tool.input_schema.get("properties", {})) == params, name
        assert tuple(tool.input_schema.get("required", ())) == required, name
        assert tool.annotations is not None and tool.annotations.read_only_hint is read_only, name
        assert tool.annotations.destructive_hint is destructive, name
        assert tool.annotations.open_world_hint is False, name
        assert tool.description, name
        assert tool.output_schema is not None and tool.output_schema["type"] == "object", name


def test_the_remember_tool_says_what_is_worth_keeping_as_session_start_does(repo_dir: Path) -> None:
    from gitmem.faces.agenthooks import WORTH_KEEPING, how_text

    async def body(c: Client) -> Any:
        return (await c.list_tools()).tools
    [tool] = [t for t in talk(repo_dir, body) if t.name == "remember"]
    text = tool.description or ""
    for thing in ("a rule or preference the user states", "a decision", "a fact about the project",
                  "the cause of a failure and the fix"):
        assert thing in text and thing in WORTH_KEEPING and thing in how_text(None, None)
    for param in ('type "preference" with domain "user"', 'domain "project" and project', "never a secret"):
        assert param in text
    assert set(tool.input_schema["properties"]) >= {"type", "domain", "project"}
    from gitmem.faces.mcp_server import INSTRUCTIONS

    assert WORTH_KEEPING in INSTRUCTIONS


def test_no_tool_decides_a_review() -> None:
    for name, (params, _, _, _) in TOOLS.items():
        assert not {"accept", "reject", "apply", "merge"} & set(name.split("_") + list(params)), name


# --- each tool on a real repository ---------------------------------------------------

def test_every_tool_once_on_a_real_memory_repository(repo_dir: Path) -> None:
    made = ok(call(repo_dir, "remember", {"text": "the deploy script needs the --staging flag before a release",
                                          "tags": ["deploy"]}))
    assert made["action"] == "created" and made["commit"]
    mid = made["id"]
    shown = MemoryRepo.open(repo_dir).show(mid)
    assert "deploy" in shown.tags and made["memory"]["content"] == shown.content
    again = ok(call(repo_dir, "remember", {"text": "the deploy script needs the --staging flag before a release"}))
    assert again["action"] == "reinforced" and again["id"] == mid
    found = ok(call(repo_dir, "recall", {"query": "staging flag deploy", "k": 3}))["results"]
    assert found and found[0]["id"] == mid
    history = ok(call(repo_dir, "why", {"memory_id": mid}))
    assert history["id"] == mid and len(history["history"]) == 2
    assert ok(call(repo_dir, "status"))["reviews"] == []
    assert ok(call(repo_dir, "review_list")) == {"reviews": []}
    assert ok(call(repo_dir, "analyze"))["pairs"] == []
    assert ok(call(repo_dir, "layer_validate"))["ok"] is True
    assert ok(call(repo_dir, "decay_config_check"))["ok"] is True
    assert ok(call(repo_dir, "drift_check"))["ok"] is True
    assert ok(call(repo_dir, "weight_update"))["rows"] == []
    assert ok(call(repo_dir, "harvest"))["harvested"] == 0   # no session folder exists yet


def test_pii_check_reports_kinds_and_offsets_never_the_values(repo_dir: Path) -> None:
    key = "wJalrXUtnFEMI/K7MDENG/bPxRfiCYzQ9x8vLp2A"
    text = f"write to ada.lovelace@corp-mail.net, aws_secret_access_key = {key} and nothing else"
    found = ok(call(repo_dir, "pii_check", {"text": text}))
    kinds = {f["kind"]: f for f in found["findings"]}
    assert found["secret"] is True and "email" in kinds
    email = kinds["email"]
    assert text[email["start"]:email["end"]] == "ada.lovelace@corp-mail.net" and email["secret"] is False
    assert "corp-mail" not in json.dumps(found) and key not in json.dumps(found)
    assert ok(call(repo_dir, "pii_check", {"text": "nothing to see"})) == {"secret": False, "findings": []}


def test_remember_goes_through_the_write_path(repo_dir: Path) -> None:
    """A secret is refused by the same guard as the CLI's; PII is replaced."""
    before = refs(repo_dir)
    text = error_text(call(repo_dir, "remember", {"text": "the token is ghp_" + "a1B2c3D4e5F6g7H8i9J0k1L2m3N4o5P6q7R8"}))
    assert "secret" in text.lower() and refs(repo_dir) == before
    kept = ok(call(repo_dir, "remember", {"text": "ada.lovelace@corp-mail.net owns the release checklist"}))
    assert kept["stripped"] and "corp-mail" not in kept["memory"]["content"]


def test_the_core_resource_is_what_load_core_prints(repo_dir: Path) -> None:
    MemoryRepo.open(repo_dir).remember("never force-push the release branch", importance=0.95)

    async def body(c: Client) -> Any:
        return await c.read_resource("gitmem://core")
    read = talk(repo_dir, body)
    assert read.contents[0].text == MemoryRepo.open(repo_dir).load_core(here=Path.cwd()).text
    assert "never force-push" in read.contents[0].text


# --- errors --------------------------------------------------------------------------

@pytest.mark.parametrize(("tool", "args", "says"), [
    ("why", {"memory_id": "no-such-memory"}, "hint: `gitmem list`"),
    ("recall", {"query": "x", "k": 0}, "greater than or equal to 1"),   # the schema's range
    ("recall", {"query": "x", "type": "nonsense"}, "nonsense"),
    ("recall", {"query": "x", "at": "no-such-tag"}, "no-such-tag"),
    ("remember", {"text": "   "}, "Error executing tool remember"),
    ("remember", {"text": "a fact", "domain": "everything"}, "everything"),
    ("remember", {"text": "a fact", "importance": 7}, "importance"),
    ("layer_validate", {"rev_range": "nope..nada"}, "Error executing tool layer_validate"),
    ("pii_check", {}, "text"),
    ("recall", {"query": "x", "k": "many"}, "Error executing tool recall"),
])
def test_a_gitmem_error_is_a_tool_error_and_the_server_goes_on(repo_dir: Path, tool: str, args: dict[str, Any],
                                                                   says: str) -> None:
    async def body(c: Client) -> tuple[Any, Any]:
        return await c.call_tool(tool, args), await c.call_tool("status", {})
    failed, after = talk(repo_dir, body)
    assert says in error_text(failed)
    assert "Traceback" not in error_text(failed)
    ok(after)


def test_a_broken_config_is_reported_by_decay_config_check_and_as_errors(repo_dir: Path) -> None:
    cfg = repo_dir / "gitmem.yaml"
    cfg.write_text(cfg.read_text().replace("decay:", "decay:\n  half_life_days: -4", 1))
    report = ok(call(repo_dir, "decay_config_check"))
    assert report["ok"] is False and report["problems"]
    assert "hint:" in error_text(call(repo_dir, "status"))


# --- harvest stays inside the session folders -------------------------------------------

def test_harvest_reads_only_inside_the_session_folders(repo_dir: Path, tmp_path: Path) -> None:
    folder = tmp_path / "sessions"
    write_transcripts(folder, ["the deploy failed, retry it with backoff please"], START + timedelta(days=3))
    outside = tmp_path / "elsewhere"
    write_transcripts(outside, ["ship the outside session"], START + timedelta(days=3))
    (folder / "link").symlink_to(outside)
    (folder / "linked-file.jsonl").symlink_to(next(outside.rglob("*.jsonl")))
    with_session_folder(repo_dir, folder)
    git(repo_dir, "commit", "-qam", "session folder")
    before = refs(repo_dir)
    for bad in (outside, outside / os.listdir(outside)[0], folder / ".." / "elsewhere", folder / "link",
                folder / "linked-file.jsonl", f"{folder}-evil", "/", "~", str(tmp_path)):
        text = error_text(call(repo_dir, "harvest", {"paths": [str(folder), str(bad)]}))
        assert "outside the configured session folders" in text and "hint:" in text, bad
    assert refs(repo_dir) == before
    done = ok(call(repo_dir, "harvest", {"paths": [str(folder)]}))
    assert done["ok"] is True and done["harvested"] == 1
    assert done["outside"] == [str(folder / "linked-file.jsonl")]    # a link in the folder is not followed out
    assert "outside session" not in git(repo_dir, "log", "-p", "--all")
    assert refs(repo_dir) != before
    assert ok(call(repo_dir, "harvest", {}))["harvested"] == 0      # incremental: read once


# --- weight updates: a preview, or a proposal on a review branch --------------------------

def _with_sessions(repo_dir: Path) -> None:
    MemoryRepo.open(repo_dir).pattern_add("Retry flaky calls with backoff", ["backoff"], now=T)
    add_sessions(repo_dir, ["retry the upload with backoff", "backoff on the flaky api"], START + timedelta(days=3))


def test_weight_update_dry_run_writes_nothing(repo_dir: Path) -> None:
    _with_sessions(repo_dir)
    before, status = refs(repo_dir), git(repo_dir, "status", "--porcelain")
    preview = ok(call(repo_dir, "weight_update", {"dry_run": True}))
    assert preview["rows"] and preview["branch"] is None and preview["commit"] is None and preview["diff"]
    assert ok(call(repo_dir, "weight_update")) == preview
    assert refs(repo_dir) == before and git(repo_dir, "status", "--porcelain") == status


def test_weight_update_proposes_on_a_review_branch_and_never_touches_main(repo_dir: Path) -> None:
    _with_sessions(repo_dir)
    main = git(repo_dir, "rev-parse", "refs/heads/main")
    proposed = ok(call(repo_dir, "weight_update", {"dry_run": False}))
    assert str(proposed["branch"]).startswith("gitmem/review/weights-") and proposed["commit"]
    assert git(repo_dir, "rev-parse", "refs/heads/main") == main
    assert git(repo_dir, "rev-parse", f"refs/heads/{proposed['branch']}") == proposed["commit"]
    listed = ok(call(repo_dir, "review_list"))["reviews"]
    assert [r["name"] for r in listed] == [proposed["branch"]]


# --- one repository handle per call ----------------------------------------------------

def test_concurrent_calls_each_open_their_own_repository(repo_dir: Path) -> None:
    async def body(c: Client) -> list[Any]:
        results: list[Any] = []

        async def one(tool: str, args: dict[str, Any]) -> None:
            results.append(await c.call_tool(tool, args))
        async with anyio.create_task_group() as tg:
            for n in range(6):
                tg.start_soon(one, "remember", {"text": f"build step {n} needs its own cache folder {n * 7}"})
                tg.start_soon(one, "recall", {"query": "cache folder"})
                tg.start_soon(one, "status", {})
        return results
    results = talk(repo_dir, body)
    assert len(results) == 18 and all(not r.is_error for r in results), [r.content for r in results if r.is_error]
    assert len(MemoryRepo.open(repo_dir).list().memories) == 6


# --- the verb ---------------------------------------------------------------------------

@pytest.mark.parametrize(("host", "loopback"), [
    ("127.0.0.1", True), ("127.0.0.2", True), ("localhost", True), ("::1", True), ("[::1]", True),
    ("0.0.0.0", False), ("::", False), ("127.1", False), ("0x7f.1", False), ("127.0.0.1 ", False), ("10.0.0.1", False), ("192.168.1.2", False), ("example.com", False),
    ("127.0.0.1.nip.io", False), ("localhost.example.com", False), ("", False),
])
def test_which_hosts_are_loopback(host: str, loopback: bool) -> None:
    assert is_loopback(host) is loopback


@pytest.mark.parametrize(("args", "says"), [
    (["--http", "--host", "0.0.0.0"], "add --allow-remote"),
    (["--http", "--host", ""], "add --allow-remote"),    # an empty host binds every interface
    (["--http", "--host", "192.168.1.2", "--token-file", "/nonexistent"], "add --allow-remote"),
    (["--http", "--host", "0.0.0.0", "--allow-remote"], "GITMEM_MCP_TOKEN"),
    (["--http", "--host", "example.com", "--allow-remote"], "GITMEM_MCP_TOKEN"),
    (["--port", "9000"], "apply to --http only"),
    (["--token-file", "x"], "apply to --http only"),
    (["--http", "--port", "0"], "between 1 and 65535"),
])
def test_serve_refuses_at_start(args: list[str], says: str, repo_dir: Path, capsys: pytest.CaptureFixture[str],
                                monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv("GITMEM_MCP_TOKEN", raising=False)
    code, out, err = run_cli(["serve", "--repo", str(repo_dir), *args], capsys)
    assert code == 2 and out == "" and err.startswith("gitmem: error:") and says in err   # usage: exit 2


@pytest.mark.parametrize("host", ["\x00", "no-such-host.invalid", "a" * 300, "256.1.1.1", "-1", "::g", "\u202e1.2.3.4",
                                  "127.0.0.1 ", "host:8012", "..", "xn--zz.invalid"])
def test_serve_refuses_a_host_it_cannot_listen_on(host: str, repo_dir: Path, capsys: pytest.CaptureFixture[str],
                                                  monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("GITMEM_MCP_TOKEN", "t" * 32)
    code, out, err = run_cli(["serve", "--repo", str(repo_dir), "--http", "--host", host, "--allow-remote"], capsys)
    assert code == 1 and out == "" and "Traceback" not in err and "cannot listen on" in err, err


def test_serve_refuses_a_port_in_use(repo_dir: Path, capsys: pytest.CaptureFixture[str]) -> None:
    with socket.socket() as taken:
        taken.bind(("127.0.0.1", 0))
        taken.listen()
        port = taken.getsockname()[1]
        code, out, err = run_cli(["serve", "--repo", str(repo_dir), "--http", "--port", str(port)], capsys)
    assert code == 1 and out == "" and f"cannot listen on 127.0.0.1:{port}" in err and "hint: choose another" in err


def test_serve_survives_hostile_arguments_that_must_be_refused(repo_dir: Path, capsys: pytest.CaptureFixture[str],
                                                                monkeypatch: pytest.MonkeyPatch) -> None:
    """Never a traceback, never stdout; each run here is one the verb must refuse, so none starts serving."""
    from hypothesis import HealthCheck, assume, given, settings
    from hypothesis import strategies as st

    monkeypatch.delenv("GITMEM_MCP_TOKEN", raising=False)
    hostile = st.one_of(st.text(max_size=40), st.sampled_from(["0.0.0.0", "::", "10.1.2.3", "-h", "--http", "%s",
                                                               "1e400", "\u202e", "localhost.", "[::1]:80"]))

    @settings(max_examples=60, deadline=None, suppress_health_check=list(HealthCheck), derandomize=True)
    @given(host=hostile, port=st.one_of(st.none(), st.integers(-5, 70000).map(str), st.text(max_size=8)),
           remote=st.booleans(), token=st.one_of(st.none(), st.text(max_size=20)))
    def run(host: str, port: str | None, remote: bool, token: str | None) -> None:
        assume(not is_loopback(host) and not (remote and token))
        args = ["serve", "--repo", str(repo_dir), "--http", f"--host={host}"]
        args += [f"--port={port}"] if port is not None else []
        args += ["--allow-remote"] if remote else []
        args += [f"--token={token}"] if token is not None else []
        code, out, err = run_cli(args, capsys)
        assert code in (1, 2) and out == "" and "Traceback" not in err, (args, err)

    run()


def test_serve_without_the_sdk_names_the_extra(repo_dir: Path, capsys: pytest.CaptureFixture[str],
                                               monkeypatch: pytest.MonkeyPatch) -> None:
    for name in [n for n in sys.modules if n.split(".")[0] in ("mcp", "mcp_types")] + ["mcp"]:
        monkeypatch.setitem(sys.modules, name, None)   # as if never installed
    import gitmem.faces

    monkeypatch.delitem(sys.modules, "gitmem.faces.mcp_server", raising=False)
    monkeypatch.delattr(gitmem.faces, "mcp_server", raising=False)
    code, out, err = run_cli(["serve", "--repo", str(repo_dir)], capsys)
    assert code == 1 and out == "", err
    from gitmem.api.installation import install_hint

    assert f"hint: {install_hint('mcp')}" in err and "[mcp]" in install_hint("mcp")


def test_serve_outside_a_memory_repository_says_so(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    code, _, err = run_cli(["serve", "--repo", str(tmp_path)], capsys)
    assert code == 1 and "hint: gitmem init" in err


# --- real processes: stdio and HTTP ------------------------------------------------------

def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


def wait_until_listening(proc: subprocess.Popen[bytes], port: int) -> str:
    """The server's URL once ``proc`` accepts connections on ``port``."""
    deadline = time.monotonic() + 60
    while time.monotonic() < deadline:
        assert proc.poll() is None, proc.communicate()
        try:
            socket.create_connection(("127.0.0.1", port), timeout=1).close()
            return f"http://127.0.0.1:{port}/mcp"
        except OSError:
            time.sleep(0.1)
    raise AssertionError("gitmem serve --http did not start")


@pytest.fixture
def serving(repo_dir: Path) -> Iterator[Callable[..., str]]:
    """Start ``gitmem serve --http`` in a subprocess; returns its URL once it answers."""
    procs: list[subprocess.Popen[bytes]] = []

    def start(*extra: str, env: dict[str, str] | None = None) -> str:
        port = free_port()
        proc = subprocess.Popen([sys.executable, "-m", "gitmem", "serve", "--repo", str(repo_dir), "--http",
                                 "--port", str(port), *extra], cwd=ROOT, env={**os.environ, **(env or {})},
                                stdout=subprocess.PIPE, stderr=subprocess.PIPE)
        procs.append(proc)
        return wait_until_listening(proc, port)
    yield start
    for proc in procs:
        proc.terminate()
        out, _ = proc.communicate(timeout=30)
        assert out == b""


@pytest.mark.slow
def test_recall_over_real_http(repo_dir: Path, serving: Callable[..., str]) -> None:
    MemoryRepo.open(repo_dir).remember("the nightly backup runs at 02:00 UTC on the nas")
    url = serving()

    async def main() -> Any:
        async with Client(url) as c:
            return await c.call_tool("recall", {"query": "when does the nightly backup run"})
    found = ok(anyio.run(main))["results"]
    assert found and "02:00" in found[0]["content"]


def _post(url: str, headers: dict[str, str], method: str = "POST") -> int:
    body = json.dumps({"jsonrpc": "2.0", "id": 1, "method": "tools/list", "params": {}}).encode()
    request = urllib.request.Request(url, body if method == "POST" else None, method=method, headers={
        "Content-Type": "application/json", "Accept": "application/json, text/event-stream", **headers})
    try:
        with urllib.request.urlopen(request, timeout=30) as response:
            return int(response.status)
    except urllib.error.HTTPError as exc:
        return int(exc.code)


@pytest.mark.slow
def test_a_remote_bound_server_wants_the_bearer_token_on_every_request(repo_dir: Path,
                                                                        serving: Callable[..., str]) -> None:
    from mcp.client.streamable_http import streamable_http_client
    from mcp.shared._httpx_utils import create_mcp_http_client

    token = "t0k-" + "9" * 40
    MemoryRepo.open(repo_dir).remember("the staging database is rebuilt every sunday")
    url = serving("--host", "0.0.0.0", "--allow-remote", env={"GITMEM_MCP_TOKEN": token})
    assert _post(url, {}) == 401
    assert _post(url, {"Authorization": "Bearer wrong"}) == 401
    assert _post(url, {"Authorization": f"Bearer {token}x"}) == 401
    assert _post(url, {"Authorization": token}) == 401
    assert _post(url + "/../other", {}) == 401
    assert _post(url, {"Authorization": f"Bearer  {token}"}) == 401
    assert _post(url, {"Authorization": f"Basic {token}"}) == 401
    for method in ("GET", "DELETE", "OPTIONS", "PUT"):
        assert _post(url, {}, method) == 401, method
    assert _post(url, {"Authorization": f"bearer {token}"}) != 401      # past the token (the scheme has no case)

    async def main() -> Any:
        async with create_mcp_http_client(headers={"Authorization": f"Bearer {token}"}) as http:
            async with Client(streamable_http_client(url, http_client=http)) as c:
                return await c.call_tool("recall", {"query": "staging database"})
    found = ok(anyio.run(main))["results"]
    assert found and "sunday" in found[0]["content"]


@pytest.mark.slow
def test_stdio_keeps_stdout_for_the_protocol(repo_dir: Path) -> None:
    MemoryRepo.open(repo_dir).remember("the linter runs before every push")
    params = StdioServerParameters(command=sys.executable, args=["-m", "gitmem", "serve", "--repo", str(repo_dir)],
                                   env=dict(os.environ), cwd=str(ROOT))

    async def main() -> Any:
        async with Client(params) as c:
            return await c.call_tool("recall", {"query": "linter push"})
    found = ok(anyio.run(main))["results"]
    assert found and "linter" in found[0]["content"]


# --- the README, tried as written ----------------------------------------------------------

def _readme_part() -> str:
    readme = (ROOT / "README.md").read_text()
    return readme.split("### Any MCP client", 1)[1].split("\n## ", 1)[0]


def _stdio_recall(command: str, args: list[str]) -> Any:
    env = {**os.environ, "PATH": f"{Path(sys.executable).parent}{os.pathsep}{os.environ.get('PATH', '')}"}
    params = StdioServerParameters(command=command, args=args, env=env)

    async def main() -> Any:
        async with Client(params) as c:
            names = {t.name for t in (await c.list_tools()).tools}
            return names, await c.call_tool("recall", {"query": "release train"})
    return anyio.run(main)


@pytest.mark.slow
def test_the_readme_client_config_and_claude_mcp_add_work_as_written(isolated_env: Path) -> None:
    import shlex

    MemoryRepo.init(isolated_env / "memory", install_hooks=False).remember("the release train leaves on thursdays")
    part = _readme_part()
    config = json.loads(part.split("```json\n", 1)[1].split("```", 1)[0])
    server = config["mcpServers"]["gitmem"]
    names, found = _stdio_recall(server["command"], server["args"])
    assert names == set(TOOLS) and "thursdays" in ok(found)["results"][0]["content"]
    add = next(line for line in part.splitlines() if line.startswith("claude mcp add --scope user"))
    command = shlex.split(add.split(" -- ", 1)[1])
    assert command[:2] == ["gitmem", "serve"]
    names, found = _stdio_recall(command[0], command[1:])
    assert "thursdays" in ok(found)["results"][0]["content"]


@pytest.mark.slow
def test_the_readme_http_command_serves_the_url_it_names(isolated_env: Path) -> None:
    import shlex

    MemoryRepo.init(isolated_env / "memory", install_hooks=False).remember("the release train leaves on thursdays")
    line = next(line for line in _readme_part().splitlines() if line.startswith("gitmem serve --repo ~/memory --http"))
    args = shlex.split(line.split("#", 1)[0])
    assert "http://127.0.0.1:8012/mcp" in line
    port = free_port()   # 8012 may be taken on a shared machine: the same command on a free port
    proc = subprocess.Popen([sys.executable, "-m", "gitmem", *args[1:], "--port", str(port)],
                            env={**os.environ, "HOME": str(isolated_env)}, stdout=subprocess.PIPE,
                            stderr=subprocess.PIPE)
    try:
        url = wait_until_listening(proc, port)

        async def main() -> Any:
            async with Client(url) as c:
                return await c.call_tool("recall", {"query": "release train"})
        assert "thursdays" in ok(anyio.run(main))["results"][0]["content"]
    finally:
        proc.terminate()
        proc.communicate(timeout=30)


def test_recall_keeps_to_a_project_when_asked(repo_dir: Path) -> None:
    for project, text in (("alpha", "the alpha deploy runs make release on the build host"),
                          ("beta", "the beta deploy runs a helm upgrade on the build host")):
        ok(call(repo_dir, "remember", {"text": text, "domain": "project", "project": project}))
    ok(call(repo_dir, "remember", {"text": "I prefer a deploy on the build host before noon", "domain": "user"}))

    def contents(args: dict[str, Any]) -> set[str]:
        return {r["content"].split()[1] for r in ok(call(repo_dir, "recall", {"query": "deploy build host", **args}))
                ["results"]}
    assert contents({"project": "alpha"}) == {"alpha", "prefer"}
    assert contents({"project": "beta"}) == {"beta", "prefer"}
    assert contents({"all_projects": True}) == {"alpha", "beta", "prefer"}
