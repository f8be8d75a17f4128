"""install claude-code and cron: gitmem's entries in Claude Code's settings, a CLAUDE.md and a crontab."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

from tests.agent_helpers import configure_folders, gm, make_memory
from tests.conftest import run_cli
from gitmem.api import MemoryRepo
from gitmem.base import state
from gitmem.engines import integrate
from tests.loop_helpers import START, write_transcripts

SAMPLE_START = {"session_id": "s-1", "transcript_path": "/nowhere/s-1.jsonl", "cwd": "/",
                "hook_event_name": "SessionStart", "source": "startup"}


@pytest.fixture
def home() -> Path:
    return Path(os.environ["HOME"])


@pytest.fixture
def mem() -> Path:
    return make_memory()


# --- install claude-code ----------------------------------------------------------------------

SETTINGS = {
    "model": "opus",
    "": "odd but valid",
    "env": {"FOO": "1"},
    "hooks": {
        "SessionStart": [{"matcher": "startup", "hooks": [{"type": "command", "command": "echo hello"}]}],
        "PostToolUse": [{"matcher": "Edit|Write", "hooks": [{"type": "command", "command": "prettier --write"}]}],
    },
    "statusLine": {"type": "command", "command": "~/bin/status"},
}


def test_install_merges_with_other_hooks_twice_is_once_and_uninstall_restores(mem: Path, home: Path,
                                                                             capsys: pytest.CaptureFixture[str]) -> None:
    path = home / ".claude" / "settings.json"
    path.parent.mkdir()
    path.write_text(json.dumps(SETTINGS, indent=4) + "\n")
    code, out, err = run_cli(["--repo", str(mem), "install", "claude-code"], capsys)
    assert code == 0, err
    assert "checked: the SessionStart hook ran once" in out
    data = json.loads(path.read_text())
    assert list(data) == list(SETTINGS) and path.read_text().startswith('{\n    "model"')
    assert data["hooks"]["SessionStart"][0] == SETTINGS["hooks"]["SessionStart"][0]  # type: ignore[index]
    assert data["hooks"]["PostToolUse"] == SETTINGS["hooks"]["PostToolUse"]  # type: ignore[index]
    start = data["hooks"]["SessionStart"][1]["hooks"][0]["command"]
    end = data["hooks"]["SessionEnd"][0]["hooks"][0]
    assert start == integrate.hook_command(sys.executable, str(mem.resolve()), "session-start")
    assert f"--repo {mem.resolve()}" in end["command"] and end["timeout"] >= 5
    written = path.read_bytes()
    code, out, _ = run_cli(["--repo", str(mem), "install", "claude-code", "--user"], capsys)
    assert code == 0 and "already installed, unchanged" in out and path.read_bytes() == written
    code, _, _ = run_cli(["--repo", str(mem), "install", "claude-code", "--uninstall"], capsys)
    assert code == 0 and json.loads(path.read_text()) == SETTINGS
    code, out, _ = run_cli(["--repo", str(mem), "install", "claude-code", "--uninstall"], capsys)
    assert code == 0 and "no gitmem hooks there" in out


def test_the_installed_command_runs_as_claude_code_would_run_it(mem: Path, home: Path, tmp_path: Path) -> None:
    done = gm("--repo", str(mem), "install", "claude-code", cwd=tmp_path)
    assert done.returncode == 0, done.stderr
    data = json.loads((home / ".claude" / "settings.json").read_text())
    command = data["hooks"]["SessionStart"][0]["hooks"][0]["command"]
    sample = dict(SAMPLE_START, cwd=str(tmp_path))
    ran = subprocess.run(["/bin/sh", "-c", command], input=json.dumps(sample).encode(), capture_output=True,
                         cwd=tmp_path, env={"PATH": "/usr/bin:/bin", "HOME": str(home)}, timeout=120)
    assert ran.returncode == 0, ran.stderr
    assert b"the deploy script needs the staging flag" in ran.stdout   # no venv on PATH: the interpreter is named


@pytest.mark.parametrize("text", ['{"hooks": {}, }', "// settings\n{}", '{"a": 1, "a": 2}', "[]",
                                  '{"hooks": ["SessionStart"]}', '{"hooks": {"SessionEnd": {}}}'])
def test_a_settings_file_gitmem_cannot_read_is_refused_and_left_untouched(mem: Path, home: Path, text: str,
                                                                         capsys: pytest.CaptureFixture[str]) -> None:
    path = home / ".claude" / "settings.json"
    path.parent.mkdir()
    path.write_text(text)
    for extra in ([], ["--uninstall"]):
        code, _, err = run_cli(["--repo", str(mem), "install", "claude-code", *extra], capsys)
        assert code == 1 and "settings.json" in err and "hint: fix the file by hand" in err
        assert path.read_text() == text


def test_a_settings_file_that_is_not_utf8_is_refused(mem: Path, home: Path, capsys: pytest.CaptureFixture[str]) -> None:
    path = home / ".claude" / "settings.json"
    path.parent.mkdir()
    path.write_bytes(b'{"model": "\xff"}')
    code, _, err = run_cli(["--repo", str(mem), "install", "claude-code"], capsys)
    assert code == 1 and "not UTF-8" in err and path.read_bytes() == b'{"model": "\xff"}'


def test_project_scope_writes_the_personal_settings_file_only(mem: Path, home: Path, tmp_path: Path,
                                                              capsys: pytest.CaptureFixture[str]) -> None:
    project = tmp_path / "proj"
    (project / ".claude").mkdir(parents=True)
    shared = project / ".claude" / "settings.json"
    shared.write_text('{"hooks": {}}\n')
    code, _, err = run_cli(["--repo", str(mem), "install", "claude-code", "--project", str(project)], capsys)
    assert code == 0, err
    local = json.loads((project / ".claude" / "settings.local.json").read_text())
    assert set(integrate.installed(local)) == {"SessionStart", "SessionEnd"}
    assert shared.read_text() == '{"hooks": {}}\n' and not (home / ".claude").exists()
    code, _, _ = run_cli(["--repo", str(mem), "install", "claude-code", "--project", str(project), "--uninstall"], capsys)
    assert code == 0 and json.loads((project / ".claude" / "settings.local.json").read_text()) == {}


def test_user_scope_follows_claude_config_dir(mem: Path, home: Path, tmp_path: Path,
                                             capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch) -> None:
    moved = tmp_path / "claude-config"
    moved.mkdir()
    monkeypatch.setenv("CLAUDE_CONFIG_DIR", str(moved))
    code, out, err = run_cli(["--repo", str(mem), "install", "claude-code"], capsys)
    assert code == 0, err
    assert set(integrate.installed(json.loads((moved / "settings.json").read_text()))) == {"SessionStart", "SessionEnd"}
    assert str(moved / "settings.json") in out and not (home / ".claude").exists()


def test_project_scope_refuses_a_folder_that_is_not_there(mem: Path, tmp_path: Path,
                                                          capsys: pytest.CaptureFixture[str]) -> None:
    code, _, err = run_cli(["--repo", str(mem), "install", "claude-code", "--project", str(tmp_path / "typo")], capsys)
    assert code == 1 and "no such project folder" in err and not (tmp_path / "typo").exists()


def test_a_symlinked_settings_file_stays_a_link_and_keeps_its_mode(mem: Path, home: Path, tmp_path: Path,
                                                                  capsys: pytest.CaptureFixture[str]) -> None:
    real = tmp_path / "dotfiles" / "claude-settings.json"
    real.parent.mkdir()
    real.write_text('{"theme": "dark"}\n')
    real.chmod(0o600)
    link = home / ".claude" / "settings.json"
    link.parent.mkdir()
    link.symlink_to(real)
    code, _, err = run_cli(["--repo", str(mem), "install", "claude-code", "--settings", str(link)], capsys)
    assert code == 0, err
    assert link.is_symlink() and json.loads(real.read_text())["theme"] == "dark"
    assert (real.stat().st_mode & 0o777) == 0o600 and "SessionEnd" in real.read_text()


def test_claude_md_gets_an_import_from_home_once_and_loses_it_on_uninstall(mem: Path, tmp_path: Path,
                                                                           capsys: pytest.CaptureFixture[str]) -> None:
    md = tmp_path / "proj" / "CLAUDE.md"
    md.parent.mkdir()
    md.write_text("# Project rules\n\nUse tabs.\n")
    args = ["--repo", str(mem), "install", "claude-code", "--settings", str(tmp_path / "s.json"), "--claude-md", str(md)]
    for _ in range(2):
        code, _, err = run_cli(args, capsys)
        assert code == 0, err
        assert md.read_text() == "# Project rules\n\nUse tabs.\n\n@~/memory/CLAUDE.md\n"
    assert str(tmp_path) not in md.read_text() and os.environ["HOME"] not in md.read_text()
    code, _, _ = run_cli([*args, "--uninstall"], capsys)
    assert code == 0 and md.read_text() == "# Project rules\n\nUse tabs.\n"


def test_claude_md_import_is_refused_when_the_memory_is_not_under_home(repo_dir: Path, tmp_path: Path,
                                                                       capsys: pytest.CaptureFixture[str]) -> None:
    md = tmp_path / "CLAUDE.md"
    code, _, err = run_cli(["--repo", str(repo_dir), "install", "claude-code", "--settings", str(tmp_path / "s.json"),
                            "--claude-md", str(md)], capsys)
    assert code == 1 and "not under your home folder" in err and "hint: move it under" in err
    assert not md.exists()



# --- cron -------------------------------------------------------------------------------------

@pytest.mark.slow
def test_cron_install_is_idempotent_keeps_other_lines_and_its_entry_runs(mem: Path, tmp_path: Path) -> None:
    tab = tmp_path / "crontab"
    tab.write_text("MAILTO=\"\"\n0 3 * * * /usr/bin/backup\n")
    done = gm("--repo", str(mem), "cron", "install", "--crontab", str(tab))
    assert done.returncode == 0, done.stderr
    text = tab.read_text()
    assert text.startswith("MAILTO=\"\"\n0 3 * * * /usr/bin/backup\n") and integrate.CRON_MARK in text
    entry = text.splitlines()[-1]
    assert entry.startswith("*/30 * * * * ") and f"--repo {mem}" in entry and entry.count("hook cron") == 1
    assert "already installed" in gm("--repo", str(mem), "cron", "install", "--crontab", str(tab)).stdout
    assert tab.read_text() == text
    hourly = gm("--repo", str(mem), "cron", "install", "--every", "2h", "--crontab", str(tab))
    assert hourly.returncode == 0 and tab.read_text().count("hook cron") == 1 and "0 */2 * * * " in tab.read_text()
    configure_folders(mem, [tmp_path / "sessions"])
    write_transcripts(tmp_path / "sessions", ["cron harvests this session about the flaky uploads"], START)
    command = tab.read_text().splitlines()[-1].split(" ", 5)[5]   # what cron would run, through a shell
    ran = subprocess.run(["/bin/sh", "-c", command], capture_output=True, timeout=120,
                         env={"PATH": "/usr/bin:/bin", "HOME": os.environ["HOME"],
                              "GIT_CONFIG_GLOBAL": os.environ["GIT_CONFIG_GLOBAL"], "GIT_CONFIG_NOSYSTEM": "1"})
    assert ran.returncode == 0, ran.stderr
    assert "cron: " in (state.worktree_dir(mem) / "cron.log").read_text()
    assert MemoryRepo.open(mem).job_runs()["harvest"]["summary"] == "1 harvested"
    removed = gm("--repo", str(mem), "cron", "remove", "--crontab", str(tab))
    assert removed.returncode == 0 and tab.read_text() == "MAILTO=\"\"\n0 3 * * * /usr/bin/backup\n"
    assert "no gitmem entry" in gm("--repo", str(mem), "cron", "remove", "--crontab", str(tab)).stdout


@pytest.mark.parametrize("every", ["0m", "60m", "45", "1d", "2.5h", "30s", "-1h", "25h"])
def test_cron_every_outside_the_accepted_forms_is_a_usage_error(mem: Path, tmp_path: Path, every: str,
                                                               capsys: pytest.CaptureFixture[str]) -> None:
    tab = tmp_path / "crontab"
    code, _, err = run_cli(["--repo", str(mem), "cron", "install", f"--every={every}", "--crontab", str(tab)],
                           capsys)
    assert code == 2 and "--every" in err and "30m" in err and not tab.exists()

