"""`gitmem pii` and `gitmem check pii|layers` as a script would use them."""

from __future__ import annotations

import io
import json
import subprocess
from pathlib import Path

import pytest

from tests.conftest import NOW, run_cli

AWS = "AKIA" + "Z3QW8RTY5UIO2PLK"


def test_scan_json_offsets(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    text = f"mail bob.jones@gmail.com, key {AWS}\n"
    src = tmp_path / "t.txt"
    src.write_text(text)
    code, out, _ = run_cli(["pii", "scan", "--json", str(src)], capsys)
    found = [json.loads(l) for l in out.splitlines()]
    assert code == 1          # a secret fails the scan, like a linter
    kinds = {f["kind"]: f for f in found}
    assert text[kinds["email"]["start"]:kinds["email"]["end"]] == "bob.jones@gmail.com"
    assert kinds["aws_access_key"]["secret"] is True and kinds["email"]["secret"] is False


def test_scan_jsonl_and_strip_from_stdin(capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch) -> None:
    lines = [{"id": "a", "text": "call +1 415 555 2671 now"}, {"id": "b", "text": "nothing here"}]
    monkeypatch.setattr("sys.stdin", io.TextIOWrapper(io.BytesIO("\n".join(json.dumps(l) for l in lines).encode())))
    code, out, _ = run_cli(["pii", "scan", "--jsonl", "-"], capsys)
    got = [json.loads(l) for l in out.splitlines()]
    assert code == 0 and [g["id"] for g in got] == ["a", "b"]
    assert got[0]["findings"][0]["kind"] == "phone" and got[1]["findings"] == []
    monkeypatch.setattr("sys.stdin", io.TextIOWrapper(io.BytesIO(b"write to carol.white@proton.me from /home/carol/x")))
    code, out, _ = run_cli(["pii", "strip"], capsys)
    assert "[EMAIL]" in out and "[HOME]/x" in out and "carol" not in out


def test_scan_jsonl_bad_line_is_reported_and_skipped(capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr("sys.stdin", io.TextIOWrapper(io.BytesIO(b'{"id": 1}\n{"id": 2, "text": "x@gmail.com"}\n')))
    code, out, err = run_cli(["pii", "scan", "--jsonl"], capsys)
    assert code == 1 and "line 1" in err
    assert [json.loads(l)["id"] for l in out.splitlines()] == [2]


def test_allowlist_in_repository(repo_dir: Path, capsys: pytest.CaptureFixture[str]) -> None:
    text = (repo_dir / "gitmem.yaml").read_text().replace("values: []", "values: [ops@mycorp.io]", 1)
    (repo_dir / "gitmem.yaml").write_text(text)
    src = repo_dir / "t.txt"
    src.write_text("write to ops@mycorp.io or dana@mycorp.io")
    code, out, _ = run_cli(["--repo", str(repo_dir), "pii", "scan", "--json", str(src)], capsys)
    assert [json.loads(l)["start"] for l in out.splitlines()] == [src.read_text().index("dana")]


def test_check_pii_flags_an_allowlist_hiding_everything(repo_dir: Path, capsys: pytest.CaptureFixture[str]) -> None:
    assert run_cli(["--repo", str(repo_dir), "check", "pii"], capsys)[0] == 0
    text = (repo_dir / "gitmem.yaml").read_text().replace("patterns: []", "patterns: ['.*']", 1)
    (repo_dir / "gitmem.yaml").write_text(text)
    subprocess.run(["git", "commit", "-qam", "allow all"], cwd=repo_dir, check=True)
    code, out, _ = run_cli(["--repo", str(repo_dir), "check", "pii"], capsys)
    assert code == 1 and ".*" in out


def test_check_layers_now_and_in_history(repo_dir: Path, capsys: pytest.CaptureFixture[str]) -> None:
    base = ["--repo", str(repo_dir), "--now", NOW]
    assert run_cli([*base, "check", "layers", "--range", "HEAD~0..HEAD"], capsys)[0] == 0
    claude = repo_dir / "CLAUDE.md"
    claude.write_text(claude.read_text().replace("<!-- gitmem:layer 4 meta -->", ""))
    code, out, _ = run_cli([*base, "check", "layers"], capsys)
    assert code == 1 and "layer 4" in out.lower()


def test_scan_plain_output_gives_line_and_column_never_the_value(tmp_path: Path,
                                                                 capsys: pytest.CaptureFixture[str]) -> None:
    src = tmp_path / "t.txt"
    src.write_text(f"first line\n  key {AWS} and bob.jones@gmail.com\n")
    _, out, _ = run_cli(["pii", "scan", str(src)], capsys)
    assert "aws_access_key at line 2, column 7\tsecret" in out
    assert "email at line 2, column 32\tpii" in out
    assert AWS not in out and "bob.jones" not in out


def test_strip_a_file_keeps_everything_but_the_findings(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    src = tmp_path / "note.md"
    src.write_text("---\nid: m-1\n---\nAsk carol.white@proton.me in /home/carol/x about v1.2.3.4\n")
    code, out, _ = run_cli(["pii", "strip", str(src)], capsys)
    assert code == 0
    assert out == "---\nid: m-1\n---\nAsk [EMAIL] in [HOME]/x about v1.2.3.4\n"


def test_strip_honours_the_repository_allowlist(repo_dir: Path, capsys: pytest.CaptureFixture[str]) -> None:
    text = (repo_dir / "gitmem.yaml").read_text().replace("values: []", "values: [ops@mycorp.io]", 1)
    (repo_dir / "gitmem.yaml").write_text(text)
    src = repo_dir / "t.txt"
    src.write_text("write to ops@mycorp.io or dana@mycorp.io")
    code, out, _ = run_cli(["--repo", str(repo_dir), "pii", "strip", str(src)], capsys)
    assert code == 0 and out == "write to ops@mycorp.io or [EMAIL]"



def test_scan_exits_1_only_when_a_secret_is_found(tmp_path: Path, capsys: pytest.CaptureFixture[str],
                                                  monkeypatch: pytest.MonkeyPatch) -> None:
    src = tmp_path / "t.txt"
    src.write_text("mail bob.jones@gmail.com\n")
    assert run_cli(["pii", "scan", str(src)], capsys)[0] == 0          # PII alone: reported, not a failure
    src.write_text(f"key {AWS}\n")
    code, out, _ = run_cli(["pii", "scan", str(src)], capsys)
    assert code == 1 and AWS not in out
    rows = [{"id": "a", "text": "nothing"}, {"id": "b", "text": f"key {AWS}"}]
    monkeypatch.setattr("sys.stdin", io.TextIOWrapper(io.BytesIO(("\n".join(json.dumps(r) for r in rows) + "\n").encode())))
    code, out, _ = run_cli(["pii", "scan", "--jsonl", "-"], capsys)
    assert code == 1 and len(out.splitlines()) == 2
    monkeypatch.setattr("sys.stdin", io.TextIOWrapper(io.BytesIO((json.dumps(rows[0]) + "\n").encode())))
    assert run_cli(["pii", "scan", "--jsonl", "-"], capsys)[0] == 0
