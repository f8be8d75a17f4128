"""Tests for gitmem.faces.verbs_memory: init, demo, remember, show, list, forget, import, export run in process."""

from __future__ import annotations

import io
import json
import subprocess
from pathlib import Path
from typing import Any

import pytest

from tests.conftest import NOW, run_cli

AWS = "AKIA" + "Z3QW8RTY5UIO2PLK"


def base(repo_dir: Path) -> list[str]:
    return ["--repo", str(repo_dir), "--now", NOW]


def git(repo_dir: Path, *args: str) -> str:
    return subprocess.run(["git", *args], cwd=repo_dir, capture_output=True, text=True, check=True).stdout


def one_error(err: str, hint: bool) -> str:
    """The single ``gitmem: error:`` line of ``err``; checks there is a hint line when one is expected."""
    errors = [line for line in err.splitlines() if "error:" in line]
    assert len(errors) == 1, err
    assert any(line.startswith("hint: ") for line in err.splitlines()) == hint, err
    return errors[0]


def remember(repo_dir: Path, capsys: pytest.CaptureFixture[str], text: str, *extra: str) -> dict[str, Any]:
    code, out, _ = run_cli([*base(repo_dir), "remember", text, "--json", *extra], capsys)
    assert code == 0
    parsed: dict[str, Any] = json.loads(out)
    return parsed


def write_jsonl(path: Path, *rows: object) -> Path:
    path.write_text("".join((r if isinstance(r, str) else json.dumps(r)) + "\n" for r in rows), encoding="utf-8")
    return path


# --------------------------------------------------------------------------- init

def test_init_human_and_json(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    code, out, err = run_cli(["--now", NOW, "init", str(tmp_path / "a"), "--no-hooks"], capsys)
    assert code == 0 and out == f"created memory repository {tmp_path / 'a'}\n" and err == ""
    code, out, _ = run_cli(["--now", NOW, "init", str(tmp_path / "b"), "--no-hooks", "--json"], capsys)
    data = json.loads(out)
    assert code == 0
    assert set(data) == {"path", "created", "commit", "hooks_installed", "message"}
    assert data["created"] is True and data["hooks_installed"] is False
    assert data["commit"] == git(tmp_path / "b", "rev-parse", "HEAD").strip()
    again = json.loads(run_cli(["init", str(tmp_path / "b"), "--no-hooks", "--json"], capsys)[1])
    assert again["created"] is False and again["commit"] is None and "already" in again["message"]


def test_init_warns_when_the_hooks_cannot_be_installed(tmp_path: Path, capsys: pytest.CaptureFixture[str],
                                                      isolated_env: Path) -> None:
    # a person's own pre-commit hook in a shared core.hooksPath: gitmem never overwrites it
    shared = tmp_path / "elsewhere"
    shared.mkdir()
    (shared / "pre-commit").write_text("#!/bin/sh\nexit 0\n")
    with (isolated_env / ".gitconfig").open("a") as fh:
        fh.write(f"[core]\n\thooksPath = {shared}\n")
    code, out, err = run_cli(["--now", NOW, "init", str(tmp_path / "m")], capsys)
    assert code == 0 and out.startswith("created memory repository")
    assert err.startswith("warning: gitmem's git hooks were not installed")
    assert (shared / "pre-commit").read_text() == "#!/bin/sh\nexit 0\n"


def test_init_bad_input_is_one_error(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    (tmp_path / "file").write_text("x")
    code, out, err = run_cli(["init", str(tmp_path / "file"), "--no-hooks"], capsys)
    assert code == 1 and out == ""
    assert one_error(err, hint=True) == f"gitmem: error: {tmp_path / 'file'} is a file, not a folder"


def test_init_without_a_folder_uses_the_current_one(tmp_path: Path, capsys: pytest.CaptureFixture[str],
                                                    monkeypatch: pytest.MonkeyPatch) -> None:
    here = tmp_path / "notes"
    here.mkdir()
    monkeypatch.chdir(here)
    code, out, _ = run_cli(["init", "--no-hooks"], capsys)
    assert code == 0 and out.strip() == f"created memory repository {here}"
    assert (here / "gitmem.yaml").is_file() and (here / ".git").is_dir()
    clone = tmp_path / "clone"
    subprocess.run(["git", "clone", "-q", str(here), str(clone)], check=True)
    monkeypatch.chdir(clone)
    code, out, _ = run_cli(["init"], capsys)   # inside a clone, as the README says: the hooks it lacks
    assert code == 0 and "created" not in out.split()[0:1]
    assert (clone / ".git" / "hooks" / "pre-commit").is_file()


# --------------------------------------------------------------------------- remember

def test_remember_prints_the_id_and_the_decision(repo_dir: Path, capsys: pytest.CaptureFixture[str]) -> None:
    code, out, err = run_cli([*base(repo_dir), "remember", "The staging database listens on port 5432.",
                              "--tag", "infra", "--tag", "db"], capsys)
    assert code == 0
    (mem_id,) = out.split()
    assert err.startswith("created fact/project importance ")
    code, out, err = run_cli([*base(repo_dir), "remember", "The staging database listens on port 5432."], capsys)
    assert out.strip() == mem_id and "reinforced" in err and "(reinforced 1x)" in err
    shown = json.loads(run_cli([*base(repo_dir), "show", mem_id, "--json"], capsys)[1])
    assert shown["tags"] == ["infra", "db"] and shown["reinforced"] == 1


def test_remember_json_shape_and_explicit_fields(repo_dir: Path, capsys: pytest.CaptureFixture[str]) -> None:
    r = remember(repo_dir, capsys, "Use tabs in the Makefile.", "--type", "preference", "--domain", "user",
                 "--importance", "0.4", "--source", "chat", "--id", "tabs")
    assert {"id", "action", "commit", "reason", "stripped", "memory"} <= set(r)
    assert r["id"] == "tabs" and r["action"] == "created" and r["stripped"] == []
    m = r["memory"]
    assert (m["type"], m["domain"], m["importance"], m["source"]) == ("preference", "user", 0.4, "chat")
    assert r["commit"] == git(repo_dir, "rev-parse", "HEAD").strip()
    again = remember(repo_dir, capsys, "Use tabs in the Makefile.", "--no-dedupe")
    assert again["action"] == "created" and again["id"] != "tabs"


def test_remember_reads_standard_input(repo_dir: Path, capsys: pytest.CaptureFixture[str],
                                       monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr("sys.stdin", io.StringIO("Deploys happen on Tuesday.\n"))
    r = remember(repo_dir, capsys, "-")
    assert r["memory"]["content"].strip() == "Deploys happen on Tuesday."


def test_remember_replaces_pii_and_says_so(repo_dir: Path, capsys: pytest.CaptureFixture[str]) -> None:
    code, out, err = run_cli([*base(repo_dir), "remember", "Mail dana.white@proton.me about the invoices."], capsys)
    assert code == 0 and "PII replaced: email" in err
    shown = json.loads(run_cli([*base(repo_dir), "show", out.strip(), "--json"], capsys)[1])
    assert "dana.white" not in shown["content"] and "[EMAIL]" in shown["content"]


def test_remember_working_note_stays_out_of_git(repo_dir: Path, capsys: pytest.CaptureFixture[str]) -> None:
    head = git(repo_dir, "rev-parse", "HEAD")
    code, out, _ = run_cli([*base(repo_dir), "remember", "try the flaky test again", "--working"], capsys)
    assert code == 0 and out.split("\t")[0].startswith("w-") and "working" in out
    r = remember(repo_dir, capsys, "another note", "--working", "--importance", "0.9")
    assert set(r) == {"id", "action", "importance"} and r["action"] == "working" and r["importance"] == 0.9
    assert git(repo_dir, "rev-parse", "HEAD") == head


def test_remember_bad_inputs(repo_dir: Path, capsys: pytest.CaptureFixture[str]) -> None:
    code, out, err = run_cli([*base(repo_dir), "remember", "x y z", "--importance", "2"], capsys)
    assert code == 1 and out == "" and "importance" in one_error(err, hint=False)
    code, _, err = run_cli([*base(repo_dir), "remember", "x y z", "--id", "Bad Id"], capsys)
    assert code == 1 and "invalid memory id" in one_error(err, hint=True)
    code, _, err = run_cli([*base(repo_dir), "remember", "x", "--type", "rumour"], capsys)
    assert code == 2 and "invalid choice" in err


def test_remember_refuses_a_secret_and_writes_nothing(repo_dir: Path, capsys: pytest.CaptureFixture[str]) -> None:
    head = git(repo_dir, "rev-parse", "HEAD")
    code, out, err = run_cli([*base(repo_dir), "remember", f"the deploy key is {AWS}"], capsys)
    assert code == 1 and out == ""
    assert one_error(err, hint=True).startswith("gitmem: error: secret found (aws_access_key), nothing written")
    assert "rotate it" in err and AWS not in err
    assert git(repo_dir, "rev-parse", "HEAD") == head


# --------------------------------------------------------------------------- show / list

def test_show_human_json_and_at(repo_dir: Path, capsys: pytest.CaptureFixture[str]) -> None:
    git(repo_dir, "tag", "before")
    remember(repo_dir, capsys, "Alice owns the billing service.", "--id", "alice", "--importance", "0.6")
    code, out, _ = run_cli([*base(repo_dir), "show", "alice"], capsys)
    lines = out.splitlines()
    assert code == 0 and lines[0].startswith("# memory/") and "(importance 0.60, effective now 0.60)" in lines[0]
    assert "id: alice" in out and "Alice owns the billing service." in out
    data = json.loads(run_cli([*base(repo_dir), "show", "alice", "--json"], capsys)[1])
    assert data["id"] == "alice" and data["effective_importance"] == pytest.approx(0.6)
    code, _, err = run_cli([*base(repo_dir), "show", "alice", "--at", "before"], capsys)
    assert code == 1 and "alice" in one_error(err, hint=True)
    assert run_cli([*base(repo_dir), "show", "alice", "--at", "HEAD"], capsys)[0] == 0


def test_show_bad_inputs(repo_dir: Path, capsys: pytest.CaptureFixture[str]) -> None:
    code, out, err = run_cli([*base(repo_dir), "show", "nope"], capsys)
    assert code == 1 and out == "" and one_error(err, hint=True) == "gitmem: error: no memory with id 'nope'"
    code, _, err = run_cli([*base(repo_dir), "show", "nope", "--at", "no-such-ref"], capsys)
    assert code == 1 and "no-such-ref" in one_error(err, hint=True)


def test_list_columns_filters_and_json(repo_dir: Path, capsys: pytest.CaptureFixture[str]) -> None:
    assert run_cli([*base(repo_dir), "list"], capsys)[:2] == (0, "")
    remember(repo_dir, capsys, "Alice owns the billing service.", "--id", "alice", "--type", "fact", "--domain", "project")
    remember(repo_dir, capsys, "I prefer small pull requests. " * 5, "--id", "small-prs", "--type", "preference",
             "--domain", "user")
    code, out, _ = run_cli([*base(repo_dir), "list"], capsys)
    rows = [line.split("\t") for line in out.splitlines()]
    assert code == 0 and sorted(r[0] for r in rows) == ["alice", "small-prs"]
    assert all(len(r) == 5 and "->" in r[3] and len(r[4]) <= 70 for r in rows)
    assert run_cli([*base(repo_dir), "list", "--type", "preference"], capsys)[1].startswith("small-prs\tpreference/user")
    data = json.loads(run_cli([*base(repo_dir), "list", "--domain", "project", "--json"], capsys)[1])
    assert [m["id"] for m in data] == ["alice"] and "effective_importance" in data[0]


def test_list_archived_and_at(repo_dir: Path, capsys: pytest.CaptureFixture[str]) -> None:
    remember(repo_dir, capsys, "Alice owns the billing service.", "--id", "alice")
    git(repo_dir, "tag", "with-alice")
    assert run_cli([*base(repo_dir), "forget", "alice"], capsys)[0] == 0
    assert run_cli([*base(repo_dir), "list"], capsys)[1] == ""
    assert run_cli([*base(repo_dir), "list", "--archived"], capsys)[1].startswith("alice\t")
    assert run_cli([*base(repo_dir), "list", "--at", "with-alice"], capsys)[1].startswith("alice\t")


def test_list_warns_about_an_unreadable_file(repo_dir: Path, capsys: pytest.CaptureFixture[str]) -> None:
    remember(repo_dir, capsys, "Alice owns the billing service.", "--id", "alice")
    broken = repo_dir / "memory" / "user" / "broken.md"
    broken.write_text("---\nid: [unclosed\n---\nbody\n")
    git(repo_dir, "add", "-A")
    git(repo_dir, "commit", "-qm", "a broken file", "--no-verify")
    code, out, err = run_cli([*base(repo_dir), "list"], capsys)
    assert code == 0 and out.startswith("alice\t")
    assert err.startswith("warning: skipped unreadable file") and "broken.md" in err


def test_list_bad_input(repo_dir: Path, capsys: pytest.CaptureFixture[str]) -> None:
    code, out, err = run_cli([*base(repo_dir), "list", "--domain", "mars"], capsys)
    assert code == 2 and out == "" and "invalid choice: 'mars'" in err
    code, _, err = run_cli([*base(repo_dir), "list", "--at", "nowhere"], capsys)
    assert code == 1 and one_error(err, hint=True).startswith("gitmem: error: no commit, branch or tag")


# --------------------------------------------------------------------------- forget

def test_forget_archives_once(repo_dir: Path, capsys: pytest.CaptureFixture[str]) -> None:
    remember(repo_dir, capsys, "Alice owns the billing service.", "--id", "alice")
    code, out, _ = run_cli([*base(repo_dir), "forget", "alice"], capsys)
    assert code == 0 and out.startswith("alice archived to archive/") and out.rstrip().endswith("alice.md")
    assert run_cli([*base(repo_dir), "forget", "alice"], capsys)[1] == "alice was already archived\n"
    data = json.loads(run_cli([*base(repo_dir), "forget", "alice", "--json"], capsys)[1])
    assert data["id"] == "alice" and data["commit"] is None


def test_forget_json_and_bad_id(repo_dir: Path, capsys: pytest.CaptureFixture[str]) -> None:
    remember(repo_dir, capsys, "Deploys happen on Tuesday.", "--id", "deploys")
    data = json.loads(run_cli([*base(repo_dir), "forget", "deploys", "--json"], capsys)[1])
    assert data["id"] == "deploys" and data["commit"] == git(repo_dir, "rev-parse", "HEAD").strip()
    code, out, err = run_cli([*base(repo_dir), "forget", "nope"], capsys)
    assert code == 1 and out == "" and one_error(err, hint=True) == "gitmem: error: no memory with id 'nope'"


# --------------------------------------------------------------------------- import / export

def test_import_reports_bad_lines_and_commits_once(repo_dir: Path, tmp_path: Path,
                                                   capsys: pytest.CaptureFixture[str]) -> None:
    src = write_jsonl(tmp_path / "in.jsonl", {"id": "a-1", "content": "Use tabs in the Makefile."}, "{not json",
                      {"id": "a-2", "content": "Alice owns the billing service."})
    before = int(git(repo_dir, "rev-list", "--count", "HEAD"))
    code, out, err = run_cli([*base(repo_dir), "import", str(src)], capsys)
    assert code == 0
    assert out.startswith("imported 2 created, 0 reinforced, 0 unchanged, 1 skipped in commit ")
    assert err.startswith(f"{src}:2: skipped: ")
    assert int(git(repo_dir, "rev-list", "--count", "HEAD")) == before + 1
    code, out, _ = run_cli([*base(repo_dir), "import", str(src)], capsys)
    assert out.startswith("imported 0 created, 0 reinforced, 2 unchanged, 1 skipped (nothing to commit)")


def test_import_json_and_dedupe(repo_dir: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    remember(repo_dir, capsys, "The staging database listens on port 5432.")
    src = write_jsonl(tmp_path / "in.jsonl", {"content": "The staging database listens on port 5432."})
    code, out, _ = run_cli([*base(repo_dir), "import", str(src), "--dedupe", "--json"], capsys)
    data = json.loads(out)
    assert code == 0 and {"created", "reinforced", "unchanged", "skipped", "commit"} <= set(data)
    assert (data["created"], data["reinforced"]) == (0, 1)


def test_import_bad_input(repo_dir: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    code, out, err = run_cli([*base(repo_dir), "import", str(tmp_path / "missing.jsonl")], capsys)
    assert code == 1 and out == "" and "no such file or folder" in one_error(err, hint=True)


def test_export_round_trips_through_import(repo_dir: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    remember(repo_dir, capsys, "Alice owns the billing service.", "--id", "alice", "--tag", "people")
    remember(repo_dir, capsys, "Deploys happen on Tuesday.", "--id", "deploys")
    run_cli([*base(repo_dir), "forget", "deploys"], capsys)
    code, out, _ = run_cli([*base(repo_dir), "export"], capsys)
    rows = [json.loads(line) for line in out.splitlines()]
    assert code == 0 and sorted(r["id"] for r in rows) == ["alice", "deploys"]
    live = [json.loads(line)["id"] for line in run_cli([*base(repo_dir), "export", "--live"], capsys)[1].splitlines()]
    assert live == ["alice"]
    other = tmp_path / "other"
    assert run_cli(["--now", NOW, "init", str(other), "--no-hooks"], capsys)[0] == 0
    dump = tmp_path / "dump.jsonl"
    dump.write_text(out)
    assert run_cli(["--repo", str(other), "--now", NOW, "import", str(dump)], capsys)[0] == 0
    again = json.loads(run_cli(["--repo", str(other), "--now", NOW, "show", "alice", "--json"], capsys)[1])
    assert again["content"] == "Alice owns the billing service." and again["tags"] == ["people"]


def test_export_bad_input(repo_dir: Path, capsys: pytest.CaptureFixture[str]) -> None:
    code, out, err = run_cli([*base(repo_dir), "export", "--format", "csv"], capsys)
    assert code == 2 and out == "" and "invalid choice: 'csv'" in err


# --------------------------------------------------------------------------- demo (the verb; the narration is tested with demo)

def test_demo_verb_refuses_a_used_folder(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    target = tmp_path / "d"
    assert run_cli(["--now", NOW, "init", str(target), "--no-hooks"], capsys)[0] == 0
    code, out, _ = run_cli(["demo", str(target)], capsys)
    assert code == 1 and "pick an empty folder" in out


def test_export_json_prints_one_array_of_the_same_records(repo_dir: Path, capsys: pytest.CaptureFixture[str]) -> None:
    remember(repo_dir, capsys, "Alice owns the billing service.", "--id", "alice")
    remember(repo_dir, capsys, "Deploys happen on Tuesday.", "--id", "deploys")
    run_cli([*base(repo_dir), "forget", "deploys"], capsys)
    code, out, _ = run_cli([*base(repo_dir), "export", "--json"], capsys)
    assert code == 0 and len(out.splitlines()) == 1
    rows = json.loads(out)
    lines = [json.loads(line) for line in run_cli([*base(repo_dir), "export"], capsys)[1].splitlines()]
    assert rows == lines and sorted(r["id"] for r in rows) == ["alice", "deploys"]
    live = json.loads(run_cli([*base(repo_dir), "export", "--json", "--live"], capsys)[1])
    assert [r["id"] for r in live] == ["alice"]


def test_remember_from_an_endless_pipe_stops_at_the_content_cap(repo_dir: Path) -> None:
    """An endless generator piped into `gitmem remember -` in a real subprocess."""
    import subprocess
    import sys

    endless = "import sys\nwhile True:\n    sys.stdout.write('y' * 65536)\n"
    feeder = subprocess.Popen([sys.executable, "-c", endless], stdout=subprocess.PIPE)
    done = subprocess.run([sys.executable, "-m", "gitmem", "--repo", str(repo_dir), "remember", "-"],
                          stdin=feeder.stdout, capture_output=True, text=True, timeout=120)
    feeder.kill()
    feeder.wait()
    assert done.returncode == 1
    assert done.stderr.splitlines()[0] == ("gitmem: error: memory text on standard input is over the limit of "
                                           "1048576 bytes (sediment.max_content_bytes)")


@pytest.mark.parametrize("size, code", [(1_048_575, 0), (1_048_576, 0), (1_048_577, 1)])
def test_remember_from_standard_input_at_the_cap_one_under_and_one_over(repo_dir: Path, size: int, code: int) -> None:
    import subprocess
    import sys

    text = ("word " * (size // 5 + 1))[:size - 1] + "."
    done = subprocess.run([sys.executable, "-m", "gitmem", "--repo", str(repo_dir), "--now", NOW, "remember", "-"],
                          input=text.encode(), capture_output=True, timeout=300)
    assert done.returncode == code, done.stderr
    if code:
        assert b"over the limit of 1048576 bytes" in done.stderr
