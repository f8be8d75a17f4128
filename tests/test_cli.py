"""The command line as a contract: help, README coverage, exit codes, light start-up."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest

from gitmem import __version__
from gitmem.faces import cli  # noqa: F401  (registers the verbs)
from tests.conftest import ROOT, run_cli, run_python


def test_every_command_has_help_and_a_readme_entry(capsys: pytest.CaptureFixture[str]) -> None:
    readme = (ROOT / "README.md").read_text()
    for name, (_, help_text, _) in cli.load_verbs().items():
        assert help_text, name
        assert f"gitmem {name}" in readme, f"README does not mention `gitmem {name}`"
        code, out, _ = run_cli([name, "--help"], capsys)
        assert code == 0 and "usage: gitmem" in out


def test_readme_opens_with_a_two_command_quick_start() -> None:
    readme = (ROOT / "README.md").read_text()
    block = readme.split("## Quick start", 1)[1].split("```", 2)[1]
    commands = [l for l in block.splitlines()[1:] if l.strip()]
    assert len(commands) == 2
    assert commands[0].endswith("gitmem demo") and commands[1].endswith("pytest")
    assert commands[1] in (ROOT / ".ci" / "run").read_text()


def test_version_usage_and_unknown_command(capsys: pytest.CaptureFixture[str]) -> None:
    code, out, _ = run_cli(["--version"], capsys)
    assert code == 0 and __version__ in out
    assert run_cli([], capsys)[0] == 2
    assert run_cli(["no-such-verb"], capsys)[0] == 2
    assert run_cli(["recall", "-k", "x", "q"], capsys)[0] == 2


@pytest.mark.parametrize("argv", [
    ["recall", "q", "-k", "0"],                       # a count out of range: the verb's own check
    ["recall"],                                       # no query
    ["recall", "q", "--rep", "elsewhere"],            # no abbreviation: --rep is not --repo
    ["--rep", "elsewhere", "recall", "q"],
    ["recall", "q", "--exp"],                         # nor --exp --expand
    ["review", "list", "--js"],                       # nor in a verb's action
    ["load-core", "--max-chars", "5"],
    ["log", "--events", "-n", "0"],
    ["serve", "--port", "9000"],                      # options that apply to --http only
    ["serve", "--http", "--port", "0"],
    ["hook", "session-start", "--chek"],              # an agent hook's own parser
    ["merge-driver", "no", "such", "files", "x.md"],  # the files git names are not there
])
def test_a_usage_error_exits_2_in_every_path(argv: list[str], repo_dir: Path, capsys: pytest.CaptureFixture[str],
                                             monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv("GITMEM_MCP_TOKEN", raising=False)
    code, out, err = run_cli(["--repo", str(repo_dir), *argv], capsys)
    assert code == 2 and out == "" and ("error:" in err or "usage:" in err), (argv, err)


def test_not_a_repository_gives_a_hint(tmp_path: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.chdir(tmp_path)
    code, _, err = run_cli(["list"], capsys)
    assert code == 1 and "gitmem: error:" in err and "hint: gitmem init" in err


def test_init_refuses_a_non_empty_folder_and_is_idempotent(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    (tmp_path / "busy").mkdir()
    (tmp_path / "busy" / "notes.txt").write_text("mine")
    code, _, err = run_cli(["init", str(tmp_path / "busy"), "--no-hooks"], capsys)
    assert code == 1 and "not empty" in err
    assert (tmp_path / "busy" / "notes.txt").read_text() == "mine"
    assert run_cli(["init", str(tmp_path / "m"), "--no-hooks"], capsys)[0] == 0
    code, out, _ = run_cli(["init", str(tmp_path / "m"), "--no-hooks"], capsys)
    assert code == 0 and "already a gitmem repository" in out


def test_init_creates_the_layout_in_one_commit(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    run_cli(["init", str(tmp_path / "m")], capsys)
    root = tmp_path / "m"
    for rel in ("CLAUDE.md", "gitmem.yaml", ".gitattributes", ".pre-commit-config.yaml", "memory/user/.gitkeep",
                "patterns/.gitkeep", "episodes/.gitkeep", "bank/reflections.md", ".gitmem/state.yaml"):
        assert (root / rel).exists(), rel
    log = subprocess.run(["git", "log", "--format=%s"], cwd=root, capture_output=True, text=True).stdout.splitlines()
    assert log == ["gitmem: init memory repository"]
    assert (root / ".git" / "hooks" / "pre-commit").exists()
    assert subprocess.run(["git", "status", "--porcelain"], cwd=root, capture_output=True, text=True).stdout == ""


def _imported_after(code: str) -> set[str]:
    probe = f"import sys; {code}; sys.stderr.write(','.join(sorted(m for m in ('pygit2', 'ruamel.yaml', 'markdown_it') if m in sys.modules)))"
    done = subprocess.run([sys.executable, "-c", probe], capture_output=True, text=True, cwd=ROOT)
    return {m for m in done.stderr.strip().split(",") if m}


def test_help_and_hooks_do_not_import_heavy_libraries() -> None:
    assert _imported_after("from gitmem.faces.cli import main\ntry:\n    main(['--help'])\nexcept SystemExit: pass") == set()
    assert _imported_after("import gitmem.faces.githooks, gitmem.guards.pii, gitmem.guards.layers, gitmem.guards.amplitude") == set()


def test_demo_runs(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    code, out, _ = run_cli(["demo", str(tmp_path / "demo")], capsys)
    assert code == 0
    for step in ("import", "reinforced", "recall", "harvest", "rejected", "why", "decay", "git is the audit log"):
        assert step in out


def _recall_process(repo_dir: Path, *args: str) -> tuple[list[str], str, list[str]]:
    """Run ``gitmem --repo R recall ARGS`` in a fresh interpreter; (stdout lines, stderr, libraries loaded)."""
    probe = ("import sys\nfrom gitmem.faces.cli import main\n"
             f"code = main(['--repo', {str(repo_dir)!r}, 'recall', *{list(args)!r}])\n"
             "heavy = ('pygit2', 'ruamel', 'markdown_it', 'unidiff', 'logging', 'shutil', 'gitmem.faces.verbs_memory',\n"
             "         'gitmem.base.gitio.repo')\n"
             "print('LOADED', code, *sorted(m for m in heavy if m in sys.modules))")
    # outside any git work tree: a recall there has no project to scope to (finding one asks git)
    done = run_python(probe, repo_dir.parent)
    out, _, loaded = done.stdout.rpartition("LOADED")
    return out.splitlines(), done.stderr, loaded.split()


def test_recall_on_a_fresh_index_loads_only_the_standard_library_and_the_index(repo_dir: Path) -> None:
    """A recall served by an index that reflects HEAD imports none of the heavy libraries, nor
    logging or shutil; the answer is the one a recall in this process gives."""
    from gitmem.api import MemoryRepo

    MemoryRepo.open(repo_dir).remember("the staging database listens on port 5432")
    first, _, _ = _recall_process(repo_dir, "staging database")    # brings the index up to date
    again, err, loaded = _recall_process(repo_dir, "staging database")
    assert loaded == ["0"], err
    assert again == first and "staging database" in again[1]
    _, err, loaded = _recall_process(repo_dir, "staging database", "--json", "-k", "3", "--all")
    assert loaded == ["0"], err


def test_a_recall_that_rebuilds_its_index_prints_each_skipped_file_once(repo_dir: Path) -> None:
    """Warnings go to one sink in gitmem.base (no logging): a recall that rebuilds its index from a
    repository with an unreadable file says so, once, as a `warning:` line, and the answer still comes."""
    from gitmem.api import MemoryRepo

    repo = MemoryRepo.open(repo_dir)
    repo.remember("the staging database listens on port 5432")
    bad = repo_dir / "memory" / "project" / "m-bad.md"
    bad.write_text("---\nid: [unclosed\n---\nstaging bad file\n")
    subprocess.run(["git", "add", "-A"], cwd=repo_dir, check=True)
    subprocess.run(["git", "-c", "user.name=t", "-c", "user.email=t@e", "commit", "-qm", "bad", "--no-verify"],
                   cwd=repo_dir, check=True)
    for derived in (repo_dir / ".git").rglob("*.sqlite*"):
        derived.unlink()
    out, err, loaded = _recall_process(repo_dir, "staging")
    assert loaded[0] == "0" and "logging" not in loaded, loaded
    assert err.count("warning: skipped unreadable file memory/project/m-bad.md") == 1, err
    assert "staging database" in "\n".join(out)


def test_help_piped_is_formatted_as_shutil_would_size_it() -> None:
    """Without a terminal and without COLUMNS, help is formatted for 80 columns (shutil's answer) without
    importing shutil; with COLUMNS, shutil sizes it as before."""
    env = {k: v for k, v in os.environ.items() if k != "COLUMNS"}

    def helps(columns: str | None) -> str:
        run_env = env if columns is None else {**env, "COLUMNS": columns}
        return subprocess.run([sys.executable, "-m", "gitmem", "recall", "--help"], capture_output=True, text=True,
                              cwd=ROOT, env=run_env, check=True).stdout

    piped = helps(None)
    assert piped == helps("80") != helps("60")
