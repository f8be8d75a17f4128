"""``gitmem serve --http --token-file FILE``: the bearer token read from a file, never from the command line.
A file that does not hold one token on one line is refused before anything listens, with what to do."""

from __future__ import annotations

from pathlib import Path

import pytest

from tests.conftest import run_cli

TOKEN = "fixture-token-abcdefghijklmnopqr"   # 32 characters


@pytest.mark.parametrize("content, says, exit_code", [
    (b"", "must hold the token alone, on one line", 1),
    (b"\n\n", "must hold the token alone, on one line", 1),
    (TOKEN.encode() + b"\nsecond line\n", "must hold the token alone, on one line", 1),
    (TOKEN.encode() + b"\n" + b"x" * 4096, "must hold the token alone, on one line", 1),   # over 4 KiB
    (b"\xff" + TOKEN.encode(), "cannot read the token file", 1),                       # not UTF-8
    (b"short\n", "the bearer token has 5 characters: at least 32 are needed", 2),
    (b"  " + TOKEN[:31].encode() + b"  \n", "has 31 characters", 2),                   # blanks do not count
])
def test_a_token_file_that_holds_no_usable_token_is_refused(content: bytes, says: str, exit_code: int,
                                                            repo_dir: Path,
                                                            tmp_path: Path, capsys: pytest.CaptureFixture[str],
                                                            monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("GITMEM_MCP_TOKEN", "e" * 40)                  # the file wins over the environment
    (tmp_path / "token").write_bytes(content)
    code, out, err = run_cli(["serve", "--repo", str(repo_dir), "--http", "--token-file", str(tmp_path / "token")],
                             capsys)
    assert code == exit_code and out == "" and says in err and "Traceback" not in err
    assert "hint: put the token in GITMEM_MCP_TOKEN or in a file given by --token-file" in err
    assert TOKEN not in err and "e" * 40 not in err                   # a refusal never prints a token


@pytest.mark.parametrize("where", ["missing", "folder"])
def test_a_token_file_that_cannot_be_read_is_refused(where: str, repo_dir: Path, tmp_path: Path,
                                                     capsys: pytest.CaptureFixture[str]) -> None:
    path = tmp_path / "token"
    if where == "folder":
        path.mkdir()
    code, out, err = run_cli(["serve", "--repo", str(repo_dir), "--http", "--token-file", str(path)], capsys)
    assert code == 1 and out == "" and f"cannot read the token file {path}" in err and "hint:" in err


def test_a_remote_host_with_a_good_token_file_gets_past_the_token_checks(repo_dir: Path, tmp_path: Path,
                                                                        capsys: pytest.CaptureFixture[str]) -> None:
    (tmp_path / "token").write_text(f"  {TOKEN}  \n")
    code, out, err = run_cli(["serve", "--repo", str(repo_dir), "--http", "--host", "no-such-host.invalid",
                              "--allow-remote", "--token-file", str(tmp_path / "token")], capsys)
    assert code == 1 and out == "" and "cannot listen on no-such-host.invalid" in err   # the next check: the host
    assert TOKEN not in err
