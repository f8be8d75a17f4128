"""Tests for gitmem.engines.harvest.encoder and base.gitio.tool: a person's own encoder command, bounded and checked."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path
from typing import Sequence

import pytest

from gitmem.api import MemoryRepo
from gitmem.base import clock
from gitmem.base.config import Config
from gitmem.base.gitio.tool import run_tool
from gitmem.engines.harvest import encoder
from gitmem.engines.harvest.episodes import extract
from gitmem.engines.harvest.reader import read
from gitmem.engines.harvest.signals import Signal
from tests.conftest import NOW, run_cli

T = clock.parse_time(NOW)
# Fabricated credential in a real vendor format (random characters, not a live key).
GH_TOKEN = "ghp_" + "R8nV2cX5zL1qW7eT4yU9iO3pA6sD0fGhJkMb"

# The encoder: records what it was sent (argv[1]), then prints what argv[2] says.
SCRIPT = r'''
import json, sys, time
sent = sys.stdin.read()
open(sys.argv[1], "a").write(sent + "\n")
mode = sys.argv[2]
if mode == "good":
    got = json.loads(sent)
    print(json.dumps({"text": "Reply in Chinese in every project.", "kind": "preference", "importance": 0.8}))
    print()
    print(json.dumps({"text": "The session was about " + got["session"], "line": 1}))
elif mode == "dupes":
    for text in ("Deploys go through the staging cluster first.", "Deploys go through the staging cluster first."):
        print(json.dumps({"text": text, "kind": "decision"}))
elif mode == "email":
    print(json.dumps({"text": "Send the weekly report to alice.martin@gmail.com.", "kind": "fact"}))
elif mode == "badjson":
    print("{not json")
elif mode == "schema":
    print(json.dumps({"text": "ok", "kind": "wish"}))
elif mode == "slow":
    time.sleep(30)
elif mode == "huge":
    sys.stdout.write("x" * (3 << 20))
elif mode == "fail":
    sys.stderr.write("model not found\n")
    sys.exit(3)
'''


def transcript(path: Path, session: str, messages: Sequence[tuple[str, str]]) -> Path:
    lines = [json.dumps({"session_id": session, "role": role, "content": text,
                         "timestamp": f"2026-10-05T09:{n:02d}:00Z"}) for n, (role, text) in enumerate(messages)]
    path.write_text("\n".join(lines) + "\n")
    return path


def git(root: Path, *args: str) -> str:
    return subprocess.run(["git", *args], cwd=root, capture_output=True, text=True, check=True).stdout.strip()


@pytest.fixture
def hooked(tmp_path: Path) -> Path:
    """A memory repository with its hooks installed: every commit goes through them."""
    root = tmp_path / "mem"
    MemoryRepo.init(root, T)
    return root


def set_encoder(root: Path, tmp_path: Path, mode: str) -> Path:
    script = tmp_path / "enc.py"
    script.write_text(SCRIPT)
    sent = tmp_path / "sent.jsonl"
    git(root, "config", encoder.KEY, f"{sys.executable} {script} {sent} {mode}")
    return sent


SESSION = [("user", "Always run the linter before committing."), ("assistant", "Noted."),
           ("user", "Don't use tts for now.")]


def test_the_commands_candidates_become_the_memories(hooked: Path, tmp_path: Path) -> None:
    sent = set_encoder(hooked, tmp_path, "good")
    src = transcript(tmp_path / "s.jsonl", "sess-enc", SESSION)
    [r] = MemoryRepo.open(hooked).harvest([src], now=T)
    assert r.status == "harvested" and r.created == 2 and r.warnings == ()
    mems = {m.content: m for m in MemoryRepo.open(hooked).list().memories}
    from gitmem.base.model import name_key

    # the encoder sees the session's key, never the id as given
    assert set(mems) == {"Reply in Chinese in every project.", f"The session was about {name_key('sess-enc', 's')}"}
    assert mems["Reply in Chinese in every project."].importance >= 0.8
    payload = json.loads(sent.read_text().splitlines()[0])
    assert payload["session"] == name_key("sess-enc", "s") and payload["version"] == 1
    assert [(s["text"], s["durable"]) for s in payload["signals"]] == [
        ("Always run the linter before committing.", True), ("Don't use tts for now.", False)]


def test_candidates_pass_the_same_dedupe_and_redaction(hooked: Path, tmp_path: Path) -> None:
    set_encoder(hooked, tmp_path, "dupes")
    [r] = MemoryRepo.open(hooked).harvest([transcript(tmp_path / "a.jsonl", "a", SESSION)], now=T)
    assert (r.created, r.reinforced) == (1, 1)
    set_encoder(hooked, tmp_path, "email")
    [r] = MemoryRepo.open(hooked).harvest([transcript(tmp_path / "b.jsonl", "b", SESSION)], now=T)
    assert r.status == "harvested"
    texts = [m.content for m in MemoryRepo.open(hooked).list().memories]
    assert not any("alice.martin@gmail.com" in t for t in texts) and any("Send the weekly report" in t for t in texts)


@pytest.mark.parametrize(("mode", "why"), [("badjson", "not JSON"), ("schema", "kind must be one of"),
                                           ("fail", "exit code 3: model not found")])
def test_a_failing_command_falls_back_to_the_default_encoder_with_a_warning(
        hooked: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str], mode: str, why: str) -> None:
    set_encoder(hooked, tmp_path, mode)
    src = transcript(tmp_path / "s.jsonl", "sess-fb", SESSION)
    code, out, err = run_cli(["--repo", str(hooked), "harvest", str(src)], capsys)
    assert code == 0 and "warning: encoder command" in err and why in err and "default encoder used" in err
    assert [m.content for m in MemoryRepo.open(hooked).list().memories] == ["Always run the linter before committing."]


def test_a_session_with_a_secret_is_never_sent(hooked: Path, tmp_path: Path) -> None:
    sent = set_encoder(hooked, tmp_path, "good")
    src = transcript(tmp_path / "s.jsonl", "sess-leak", [("user", f"Always use the token {GH_TOKEN}"), ("assistant", "ok")])
    [r] = MemoryRepo.open(hooked).harvest([src], now=T)
    assert r.status == "rejected" and not sent.exists()


def test_a_text_holding_a_secret_makes_no_payload(tmp_path: Path) -> None:
    ep = extract(read(transcript(tmp_path / "s.jsonl", "s", SESSION)))
    assert encoder.payload(ep, [Signal(f"token {GH_TOKEN}", "fact", 1)], Config()) is None
    data = encoder.payload(ep, [Signal("write to bob@corp-mail.de", "fact", 1)], Config())
    assert data is not None and b"bob@corp-mail.de" not in data


def test_a_command_named_in_the_committed_config_is_ignored_with_a_warning(hooked: Path, tmp_path: Path) -> None:
    sent = tmp_path / "sent.jsonl"
    script = tmp_path / "enc.py"
    script.write_text(SCRIPT)
    cfg = hooked / "gitmem.yaml"
    cfg.write_text(cfg.read_text() + f"\nharvest:\n  encoder_command: {sys.executable} {script} {sent} good\n")
    [r] = MemoryRepo.open(hooked).harvest([transcript(tmp_path / "s.jsonl", "s", SESSION)], now=T)
    assert not sent.exists() and r.status == "harvested"
    assert any("gitmem.yaml names an encoder command: ignored" in w for w in r.warnings)


@pytest.mark.parametrize(("mode", "why"), [("slow", "timed out after 1 s"), ("huge", "wrote more than")])
def test_timeout_and_output_cap(tmp_path: Path, mode: str, why: str) -> None:
    script = tmp_path / "enc.py"
    script.write_text(SCRIPT)
    ep = extract(read(transcript(tmp_path / "s.jsonl", "s", SESSION)))
    got = encoder.propose(f"{sys.executable} {script} {tmp_path / 'sent'} {mode}", ep, ep.signals, 3, Config(), timeout=1)
    assert got.signals is None and why in got.warning and "default encoder used" in got.warning


@pytest.mark.parametrize(("output", "why"), [
    (b'{"text": ""}', "text must be"), (b'{"text": "a", "importance": 1.5}', "importance"),
    (b'{"text": "a", "importance": true}', "importance"), (b'{"text": "a", "line": -1}', "line must be"),
    (b'{"text": "a", "colour": "red"}', "unknown field"), (b'["text"]', "not a JSON object"),
    (b'\xff\xfe', "not UTF-8"), (b'{"text": "' + b"x" * 2001 + b'"}', "text must be"),
    (b"\n".join(b'{"text": "t%d"}' % n for n in range(300)), "more than"),
])
def test_the_schema_check_refuses_the_whole_output(output: bytes, why: str) -> None:
    with pytest.raises(encoder.SchemaError, match=why):
        encoder.parse(output, 9)


def test_parse_fills_defaults() -> None:
    [a, b] = encoder.parse(b'{"text": "  Use  pnpm, not npm. "}\n\n{"text": "b", "kind": "remember", "line": 4}\n', 9)
    assert (a.text, a.kind, a.line, a.durable) == ("Use pnpm, not npm.", "fact", 9, True)
    assert (b.kind, b.line, b.floor) == ("remember", 4, 0.9)


def test_run_tool_reports_what_went_wrong() -> None:
    assert run_tool(f"{sys.executable} -c \"import sys; sys.stdout.write(sys.stdin.read())\"", b"hi", 10, 100).stdout == b"hi"
    assert "cannot start" in run_tool("/nonexistent/encoder", b"", 5, 100).problem
    assert "cannot parse" in run_tool("'unclosed", b"", 5, 100).problem
    assert run_tool("", b"", 5, 100).problem == "the command is empty"
