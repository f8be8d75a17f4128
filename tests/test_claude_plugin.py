"""The Claude Code plugin (plugin/) and the local marketplace that lists it (.claude-plugin/ at the top),
read the way Claude Code reads them: the manifests' documented fields, the component folders at the
plugin's root, the skill's front matter, and each hook command run through /bin/sh with
CLAUDE_PLUGIN_ROOT set and the JSON Claude Code sends on stdin."""

from __future__ import annotations

import json
import os
import re
import subprocess
import sys
import time
from pathlib import Path

import pytest

from gitmem.api import MemoryRepo
from gitmem.base import yamlio
from tests.agent_helpers import configure_folders, make_memory, settle
from tests.loop_helpers import START, write_transcripts

ROOT = Path(__file__).resolve().parent.parent
PLUGIN = ROOT / "plugin"
KEBAB = re.compile(r"[a-z0-9]+(?:-[a-z0-9]+)*")
# plugin.json's documented fields (plugins-reference): only name is required
PLUGIN_FIELDS = {"name", "version", "description", "author", "homepage", "repository", "license", "keywords",
                 "skills", "commands", "agents", "hooks", "mcpServers", "lspServers", "outputStyles"}
EVENTS = {"SessionStart", "SessionEnd", "UserPromptSubmit", "PreToolUse", "PostToolUse", "Stop", "SubagentStop",
          "PreCompact", "PostCompact", "Notification"}


def load(path: Path) -> dict[str, object]:
    data = json.loads(path.read_text())
    assert isinstance(data, dict)
    return data


def test_the_marketplace_lists_the_plugin_by_a_relative_source() -> None:
    market = load(ROOT / ".claude-plugin" / "marketplace.json")
    assert KEBAB.fullmatch(str(market["name"]))
    owner = market["owner"]
    assert isinstance(owner, dict) and owner.get("name")
    plugins = market["plugins"]
    assert isinstance(plugins, list) and len(plugins) == 1
    entry: dict[str, object] = plugins[0]
    assert str(entry["source"]).startswith("./")
    assert (ROOT / str(entry["source"])).resolve() == PLUGIN
    assert entry["name"] == load(PLUGIN / ".claude-plugin" / "plugin.json")["name"]


def test_the_plugin_manifest_has_documented_fields_only_and_components_at_the_root() -> None:
    manifest = load(PLUGIN / ".claude-plugin" / "plugin.json")
    assert KEBAB.fullmatch(str(manifest["name"]))
    assert set(manifest) <= PLUGIN_FIELDS, set(manifest) - PLUGIN_FIELDS
    import gitmem

    assert manifest["version"] == gitmem.__version__
    assert sorted(p.name for p in (PLUGIN / ".claude-plugin").iterdir()) == ["plugin.json"]   # nothing else inside
    for component in ("hooks/hooks.json", ".mcp.json", "skills/gitmem/SKILL.md", "bin/gitmem-plugin"):
        assert (PLUGIN / component).is_file(), component
    assert os.access(PLUGIN / "bin" / "gitmem-plugin", os.X_OK)


def test_the_skill_front_matter_follows_the_agent_skills_spec() -> None:
    for skill in (PLUGIN / "skills").iterdir():
        text = (skill / "SKILL.md").read_text()
        assert text.startswith("---\n")
        meta = yamlio.load_safe(text.split("---\n", 2)[1])
        assert meta["name"] == skill.name and KEBAB.fullmatch(meta["name"]) and len(meta["name"]) <= 64
        assert 1 <= len(meta["description"]) <= 1024
        assert "remember" in meta["description"] and "recall" in meta["description"]


def hook_commands() -> dict[str, list[str]]:
    data = load(PLUGIN / "hooks" / "hooks.json")
    hooks = data["hooks"]
    assert isinstance(hooks, dict) and set(hooks) <= EVENTS
    found: dict[str, list[str]] = {}
    for event, groups in hooks.items():
        for group in groups:
            assert set(group) <= {"matcher", "hooks"}
            for handler in group["hooks"]:
                assert handler["type"] == "command" and isinstance(handler["command"], str)
                found.setdefault(event, []).append(handler["command"])
    return found


def run_hook(command: str, payload: dict[str, object], mem: Path, path: str | None = None) -> subprocess.CompletedProcess[str]:
    env = {**os.environ, "CLAUDE_PLUGIN_ROOT": str(PLUGIN), "GITMEM_DIR": str(mem)}
    if path is not None:
        env["PATH"] = path
    return subprocess.run(["/bin/sh", "-c", command], input=json.dumps(payload), capture_output=True, text=True,
                          env=env, timeout=120)


@pytest.fixture
def mem() -> Path:
    path = make_memory()
    subprocess.run(["git", "-C", str(path), "config", "gitmem.python", sys.executable], check=True)
    return path


def test_session_start_prints_the_core_memories(mem: Path, tmp_path: Path) -> None:
    (command,) = hook_commands()["SessionStart"]
    done = run_hook(command, {"session_id": "s-1", "transcript_path": str(tmp_path / "s-1.jsonl"), "cwd": str(tmp_path),
                              "hook_event_name": "SessionStart", "source": "startup"}, mem)
    assert done.returncode == 0, done.stderr
    assert "the deploy script needs the staging flag before production" in done.stdout


def test_session_end_hands_the_session_to_a_background_harvest(mem: Path, tmp_path: Path) -> None:
    (command,) = hook_commands()["SessionEnd"]
    [transcript] = write_transcripts(tmp_path / "sessions", ["remember that the invoices go out on the first"], START)
    configure_folders(mem, [transcript.parent])   # SessionEnd harvests inside the session folders only
    os.utime(transcript, (time.time() - 5, time.time() - 5))
    done = run_hook(command, {"session_id": "11111111-0000-4000-8000-000000000000", "transcript_path": str(transcript),
                              "cwd": str(tmp_path), "hook_event_name": "SessionEnd", "reason": "prompt_input_exit"}, mem)
    assert done.returncode == 0 and "handed off" in done.stdout, done
    assert "post-session: ok: 1 harvested" in settle(mem, "post-session.log", "post-session:")
    repo = MemoryRepo.open(mem)
    assert any(transcript.stem in p for p, _ in repo.git.blobs("episodes", repo.head or ""))


def test_without_gitmem_a_hook_never_blocks_and_the_server_fails(tmp_path: Path) -> None:
    nowhere = tmp_path / "no-memory"
    for event, commands in hook_commands().items():
        done = run_hook(commands[0], {"hook_event_name": event}, nowhere, path="/usr/bin:/bin")
        assert done.returncode == 0 and "gitmem is not installed" in done.stderr, (event, done)
    server = load(PLUGIN / ".mcp.json")["mcpServers"]["gitmem"]   # type: ignore[index]
    args = [a.replace("${CLAUDE_PLUGIN_ROOT}", str(PLUGIN)) for a in server["args"]]
    done = subprocess.run([server["command"], *args], capture_output=True, text=True, timeout=60,
                          env={"PATH": "/usr/bin:/bin", "HOME": str(tmp_path), "GITMEM_DIR": str(nowhere)})
    assert done.returncode == 1 and "gitmem is not installed" in done.stderr


def test_the_mcp_server_entry_starts_gitmem_serve(mem: Path) -> None:
    server = load(PLUGIN / ".mcp.json")["mcpServers"]["gitmem"]   # type: ignore[index]
    assert server["command"] == "sh" and server["args"][-1] == "serve"
    args = [a.replace("${CLAUDE_PLUGIN_ROOT}", str(PLUGIN)) for a in server["args"]]
    done = subprocess.run([server["command"], *args, "--help"], capture_output=True, text=True, timeout=60,
                          env={**os.environ, "GITMEM_DIR": str(mem)})
    assert done.returncode == 0 and "usage: gitmem serve" in done.stdout, done
