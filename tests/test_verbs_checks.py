"""Tests for gitmem.faces.verbs_checks: check, hook and pii run in process (more pii cases in test_pii_cli)."""

from __future__ import annotations

import io
import json
import subprocess
from pathlib import Path

import pytest

from tests.conftest import NOW, run_cli

AWS = "AKIA" + "Z3QW8RTY5UIO2PLK"
BAD_TRIGGER = "memory.reflect_trigger: 0 is not allowed (allowed: [1, 100000])"


def base(repo_dir: Path) -> list[str]:
    return ["--repo", str(repo_dir), "--now", NOW]


def git(repo_dir: Path, *args: str) -> str:
    return subprocess.run(["git", *args], cwd=repo_dir, capture_output=True, text=True, check=True).stdout


def edit_config(repo_dir: Path, old: str, new: str) -> None:
    path = repo_dir / "gitmem.yaml"
    text = path.read_text()
    assert old in text
    path.write_text(text.replace(old, new, 1))


def one_error(err: str, hint: bool) -> str:
    """The single ``gitmem: error:`` line of ``err``; checks there is a hint line when one is expected."""
    errors = [line for line in err.splitlines() if "error:" in line]
    assert len(errors) == 1, err
    assert any(line.startswith("hint: ") for line in err.splitlines()) == hint, err
    return errors[0]


# --------------------------------------------------------------------------- check

@pytest.mark.parametrize("what", ["config", "pii", "layers", "amplitude"])
def test_check_of_a_fresh_repository_is_ok(what: str, repo_dir: Path, capsys: pytest.CaptureFixture[str]) -> None:
    assert run_cli([*base(repo_dir), "check", what], capsys) == (0, f"{what}: ok\n", "")
    code, out, _ = run_cli([*base(repo_dir), "check", what, "--json"], capsys)
    assert code == 0 and json.loads(out) == {"ok": True, "problems": [], "warnings": []}


def test_check_config_lists_problems_and_warnings(repo_dir: Path, capsys: pytest.CaptureFixture[str]) -> None:
    edit_config(repo_dir, "reflect_trigger: 20", "reflect_trigger: 0")
    with (repo_dir / "gitmem.yaml").open("a") as fh:
        fh.write("colour: blue\n")
    code, out, err = run_cli([*base(repo_dir), "check", "config"], capsys)
    assert (code, out) == (1, f"config: {BAD_TRIGGER}\n")
    assert err == "warning: unknown key colour (ignored)\n"
    code, out, err = run_cli([*base(repo_dir), "check", "config", "--json"], capsys)
    assert code == 1 and err == ""
    assert json.loads(out) == {"ok": False, "problems": [BAD_TRIGGER], "warnings": ["unknown key colour (ignored)"]}


def test_check_config_a_warning_alone_passes(repo_dir: Path, capsys: pytest.CaptureFixture[str]) -> None:
    with (repo_dir / "gitmem.yaml").open("a") as fh:
        fh.write("colour: blue\n")
    assert run_cli([*base(repo_dir), "check", "config"], capsys) == (0, "config: ok\n",
                                                                     "warning: unknown key colour (ignored)\n")


def test_check_config_of_yaml_that_does_not_load(repo_dir: Path, capsys: pytest.CaptureFixture[str]) -> None:
    (repo_dir / "gitmem.yaml").write_text("memory: [unclosed\n")
    code, out, err = run_cli([*base(repo_dir), "check", "config"], capsys)
    assert code == 1 and out == ""
    assert one_error(err, hint=True).startswith("gitmem: error: gitmem.yaml:")
    assert "fix the YAML syntax" in err


def test_check_pii_of_a_bad_allowlist(repo_dir: Path, capsys: pytest.CaptureFixture[str]) -> None:
    """A pattern that does not compile makes gitmem.yaml invalid: every command, ``check pii`` too, says
    which one and how to go on, and changes nothing."""
    edit_config(repo_dir, "patterns: []", "patterns: ['(unclosed']")
    git(repo_dir, "commit", "-qam", "a bad pattern", "--no-verify")
    for extra in ([], ["--json"]):
        code, out, err = run_cli([*base(repo_dir), "check", "pii", *extra], capsys)
        assert code == 1 and out == "" and "pii: ok" not in err
        assert "pii.allowlist.patterns: '(unclosed' is not allowed" in err and "gitmem check config" in err


def test_check_layers_of_a_broken_claude_md(repo_dir: Path, capsys: pytest.CaptureFixture[str]) -> None:
    code, _, err = run_cli([*base(repo_dir), "check", "layers", "--range", "nope..HEAD"], capsys)
    assert code == 1 and one_error(err, hint=True) == "gitmem: error: no commit, branch or tag named 'nope'"
    (repo_dir / "CLAUDE.md").unlink()
    assert run_cli([*base(repo_dir), "check", "layers"], capsys) == (1, "layers: CLAUDE.md is missing\n", "")
    # a missing file is reported before the range is looked at
    assert run_cli([*base(repo_dir), "check", "layers", "--range", "nope..HEAD"], capsys)[0] == 1


def test_check_amplitude_of_a_staged_rewrite(repo_dir: Path, capsys: pytest.CaptureFixture[str]) -> None:
    notes = repo_dir / "bank" / "reflections.md"
    notes.write_text("".join(f"line {i}\n" for i in range(100)))
    git(repo_dir, "commit", "-qam", "grow reflections", "--no-verify")
    notes.write_text("".join(f"line {i}\n" for i in range(300)))
    git(repo_dir, "add", "-A")
    code, out, _ = run_cli([*base(repo_dir), "check", "amplitude"], capsys)
    assert code == 1 and out.startswith("amplitude: ") and "reflections.md" in out
    data = json.loads(run_cli([*base(repo_dir), "check", "amplitude", "--json"], capsys)[1])
    assert data["ok"] is False and data["problems"]


def test_check_bad_inputs(repo_dir: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str],
                          monkeypatch: pytest.MonkeyPatch) -> None:
    code, out, err = run_cli([*base(repo_dir), "check", "spelling"], capsys)
    assert code == 2 and out == "" and "invalid choice: 'spelling'" in err
    assert run_cli([*base(repo_dir), "check"], capsys)[0] == 2
    monkeypatch.chdir(tmp_path)
    for what in ("config", "pii"):
        code, _, err = run_cli(["check", what], capsys)
        assert code == 1 and one_error(err, hint=True).startswith("gitmem: error: no memory repository")


# --------------------------------------------------------------------------- hook

def test_hook_passes_a_clean_tree_by_both_paths(repo_dir: Path, capsys: pytest.CaptureFixture[str],
                                                monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.chdir(repo_dir)
    for name in ("all", "config", "layers", "pii", "secrets", "amplitude"):
        assert run_cli(["hook", name, "CLAUDE.md", "gitmem.yaml"], capsys) == (0, "", ""), name
    # an option before the name takes the parsed path (cmd_hook) instead of the fast one
    assert run_cli(["--now", NOW, "hook", "all", "CLAUDE.md"], capsys) == (0, "", "")


def test_hook_config_fails_on_a_bad_value_with_a_hint(repo_dir: Path, capsys: pytest.CaptureFixture[str],
                                                      monkeypatch: pytest.MonkeyPatch) -> None:
    edit_config(repo_dir, "reflect_trigger: 20", "reflect_trigger: 0")
    monkeypatch.chdir(repo_dir)
    code, out, _ = run_cli(["hook", "config", "gitmem.yaml"], capsys)
    lines = out.splitlines()
    assert code == 1 and lines[0].startswith("gitmem-config: gitmem.yaml:") and BAD_TRIGGER in lines[0]
    assert lines[-1].startswith("hint: ") and "gitmem check config" in lines[-1]


def test_hook_secrets_names_the_place_never_the_value(repo_dir: Path, capsys: pytest.CaptureFixture[str],
                                                      monkeypatch: pytest.MonkeyPatch) -> None:
    note = repo_dir / "memory" / "user" / "n.md"
    note.write_text(f"key {AWS}\n")
    monkeypatch.chdir(repo_dir)
    code, out, _ = run_cli(["--now", NOW, "hook", "secrets", "memory/user/n.md"], capsys)
    assert code == 1 and out.splitlines()[0] == "gitmem-secrets: memory/user/n.md:1:5: aws_access_key"
    assert AWS not in out and "rotate it" in out


def test_hook_bad_names_are_usage_errors(repo_dir: Path, capsys: pytest.CaptureFixture[str],
                                         monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.chdir(repo_dir)
    code, out, err = run_cli(["hook", "spelling"], capsys)
    assert (code, out) == (2, "") and err.startswith("usage: gitmem hook {")
    code, _, err = run_cli(["--now", NOW, "hook", "spelling"], capsys)
    assert code == 2 and "invalid choice: 'spelling'" in err


def test_hook_honours_repo_outside_the_repository(repo_dir: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str],
                                                  monkeypatch: pytest.MonkeyPatch) -> None:
    edit_config(repo_dir, "reflect_trigger: 20", "reflect_trigger: 0")
    elsewhere = tmp_path / "elsewhere"
    elsewhere.mkdir()
    monkeypatch.chdir(elsewhere)
    assert run_cli(["--repo", str(repo_dir), "hook", "config", "gitmem.yaml"], capsys)[0] == 1


# --------------------------------------------------------------------------- pii

def test_pii_scan_plain_counts_findings(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    src = tmp_path / "t.txt"
    src.write_text("nothing to see\n")
    assert run_cli(["pii", "scan", str(src)], capsys) == (0, "0 findings\n", "")
    src.write_text("mail bob.jones@gmail.com\n")
    from gitmem.guards.redact import finding_id

    fid = finding_id("email", "bob.jones@gmail.com")   # the id `gitmem purge --finding` takes
    assert run_cli(["pii", "scan", str(src)], capsys) == (0, f"email at line 1, column 6\tpii\t{fid}\n1 findings\n", "")
    assert run_cli(["pii", "scan", "--json", str(src)], capsys)[1] == \
        f'{{"kind": "email", "start": 5, "end": 24, "secret": false, "id": "{fid}"}}\n'


def test_pii_reads_bytes_that_are_not_utf8(tmp_path: Path, capsys: pytest.CaptureFixture[str],
                                           monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr("sys.stdin", io.TextIOWrapper(io.BytesIO(b"\xff\xfe bob.jones@gmail.com")))
    code, out, _ = run_cli(["pii", "strip", "-"], capsys)
    assert code == 0 and out == "\ufffd\ufffd [EMAIL]"


def test_pii_bad_inputs(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    code, out, err = run_cli(["pii", "scan", str(tmp_path / "missing.txt")], capsys)
    assert code == 1 and out == ""
    assert one_error(err, hint=False) == f"gitmem: error: cannot read {tmp_path / 'missing.txt'}: No such file or directory"
    code, _, err = run_cli(["pii", "strip", str(tmp_path)], capsys)
    assert code == 1 and one_error(err, hint=False).startswith(f"gitmem: error: cannot read {tmp_path}")
    code, _, err = run_cli(["pii"], capsys)
    assert code == 2 and "required: ACTION" in err
    code, _, err = run_cli(["pii", "scan", "--json", "--jsonl"], capsys)
    assert code == 2 and "not allowed with argument" in err
    assert run_cli(["pii", "redact"], capsys)[0] == 2
