"""Shared test setup: every test runs with its own HOME and no user git config."""

from __future__ import annotations

import os
import subprocess
import sys
from collections.abc import Callable
from dataclasses import dataclass, replace
from pathlib import Path
from typing import TYPE_CHECKING, TypeVar

import pytest
from hypothesis import settings

# Shared 2-core machines: a slow example is not a failure; the properties are what is tested.
settings.register_profile("gitmem", deadline=None)
settings.load_profile("gitmem")

if TYPE_CHECKING:
    from gitmem.api import MemoryRepo

T = TypeVar("T")
ROOT = Path(__file__).resolve().parent.parent
NOW = "2026-11-29T12:00:00Z"


@pytest.fixture(autouse=True)
def isolated_env(tmp_path_factory: pytest.TempPathFactory, monkeypatch: pytest.MonkeyPatch) -> Path:
    """A private HOME, no global/system git config, a fixed identity and clock."""
    home = tmp_path_factory.mktemp("home")
    monkeypatch.setenv("HOME", str(home))
    monkeypatch.setenv("GIT_CONFIG_GLOBAL", str(home / ".gitconfig"))
    monkeypatch.setenv("GIT_CONFIG_NOSYSTEM", "1")
    for key in ("GIT_AUTHOR_NAME", "GIT_AUTHOR_EMAIL", "GIT_COMMITTER_NAME", "GIT_COMMITTER_EMAIL",
                "GITMEM_DIR", "GITMEM_ALLOWED_DIRS", "HEBBIAN_ALLOWED_DIRS", "GITMEM_NOW", "GITMEM_ALLOW_GROWTH", "CLAUDE_CONFIG_DIR"):
        monkeypatch.delenv(key, raising=False)
    from gitmem.guards.reviewer import AGENT_VARIABLES

    for key, _ in AGENT_VARIABLES:   # the suite run from an agent's shell: a test sets the ones it means
        monkeypatch.delenv(key, raising=False)
    (home / ".gitconfig").write_text("[user]\n\tname = Test Person\n\temail = test@example.com\n"
                                     "[init]\n\tdefaultBranch = main\n")
    monkeypatch.setenv("PRE_COMMIT_HOME", str(tmp_path_factory.getbasetemp() / "pre-commit-cache"))
    return home


@pytest.fixture
def repo_dir(tmp_path: Path) -> Path:
    """A fresh memory repository (hooks not installed) at a fixed clock."""
    from gitmem.api import MemoryRepo
    from gitmem.base.clock import parse_time

    path = tmp_path / "mem"
    MemoryRepo.init(path, parse_time(NOW), install_hooks=False)
    return path


@pytest.fixture
def repo(repo_dir: Path):
    from gitmem.api import MemoryRepo

    return MemoryRepo.open(repo_dir)


def head_of(repo: MemoryRepo) -> str:
    """The repository's head commit, which a test that has written something knows is there."""
    head = repo.head
    assert head is not None, "the repository has no commit"
    return head


def bench_dir(name: str) -> Path | None:
    """shared/bench/<name> beside the project (or GITMEM_BENCH_DIR); None when absent."""
    base = os.environ.get("GITMEM_BENCH_DIR")
    path = Path(base) / name if base else ROOT.parent / "shared" / "bench" / name
    return path if path.is_dir() else None


def run_cli(args: list[str], capsys: pytest.CaptureFixture[str]) -> tuple[int, str, str]:
    """Run the CLI in process; returns (exit code, stdout, stderr)."""
    from gitmem.faces.cli import main

    code = main(args)
    captured = capsys.readouterr()
    return code, captured.out, captured.err


sys.path.insert(0, str(ROOT))


def run_python(code: str, cwd: Path) -> subprocess.CompletedProcess[str]:
    """``python -c CODE`` in a fresh interpreter that imports this checkout's gitmem; its output as text."""
    env = {**os.environ, "PYTHONPATH": os.pathsep.join(filter(None, [str(ROOT), os.environ.get("PYTHONPATH")]))}
    return subprocess.run([sys.executable, "-c", code], cwd=cwd, capture_output=True, text=True, env=env)


def at_once(n: int, work: Callable[[], T]) -> tuple[list[T], list[Exception]]:
    """Run ``work`` in ``n`` threads released together; what they returned, and what they raised."""
    import threading

    start, got, errors = threading.Barrier(n), [], []

    def one() -> None:
        start.wait()
        try:
            got.append(work())
        except Exception as exc:   # noqa: BLE001 - the caller asserts on every kind
            errors.append(exc)

    threads = [threading.Thread(target=one) for _ in range(n)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    return got, errors


@pytest.fixture
def plain_git_repo(tmp_path: Path) -> Path:
    """A plain git repository (not a memory repository) on branch main with one commit."""
    import subprocess

    root = tmp_path / "main"
    root.mkdir()
    for args in (["init", "-q", "-b", "main"], ["add", "a.txt"], ["commit", "-q", "-m", "first"]):
        if args[0] == "add":
            (root / "a.txt").write_text("a\n")
        subprocess.run(["git", *args], cwd=root, check=True, capture_output=True)
    return root


@pytest.fixture
def linked_worktree(plain_git_repo: Path, tmp_path: Path) -> Path:
    """A linked work tree of ``plain_git_repo`` on its own branch (`git worktree add`)."""
    import subprocess

    path = tmp_path / "linked"
    subprocess.run(["git", "worktree", "add", "-q", "-b", "side", str(path)], cwd=plain_git_repo, check=True,
                   capture_output=True)
    return path


@dataclass(frozen=True)
class Corpus:
    """A folder of whole transcripts and what the tests expect of it."""

    folder: Path
    files: int              # transcripts discovery finds
    agents: int             # sub-agent files (``__agent-`` in the name)
    sessions: int           # sessions a harvest finds (a sub-agent file goes with its main one when present)
    empty: int              # files with no conversation by design (a snapshot only, summaries only)
    harvest_empty: int      # at most this many harvest to no episode
    queries: int            # at least this many title/outcome queries its episodes answer
    summaries: str          # a file with four summaries, three naming leaves of earlier sessions
    no_conversation: str    # a file with no conversation at all
    remember: str           # a file with a "remember" signal, files touched and commands run


# Written for these tests by tests/fixtures/corpus/make_corpus.py: always there.
OWN_CORPUS = Corpus(ROOT / "tests" / "fixtures" / "corpus", 11, 1, 10, 2, 2, 14,
                    "claude-code/ada__6b2f1d3e-2c3d-4e4f-9051-123456789abc.jsonl",
                    "claude-code/chen__9e5c4061-5f60-4172-8384-456789abcdef.jsonl",
                    "claude-code/ada__5a1e0c2d-1b2c-4d3e-8f40-0123456789ab.jsonl")
# Real sessions beside the project, read in place when present (never copied into it).
SHARED_CORPUS = Corpus(Path(), 25, 3, 25, 2, 4, 40,
                       "claude-code/Jason-liu-0219__32f3c7dd-c38c-46fb-96d2-3dd5fd527967.jsonl",
                       "claude-code/Eiji1202__611a3d5b-dc2a-4ab5-8dca-5ab0c15c1029.jsonl",
                       "claude-code/Eduardodmb__8791b9e8-2348-4339-91b5-3ecaba59d825.jsonl")


def corpora() -> list[Corpus]:
    """The project's own corpus, and the shared one when it is beside the project."""
    shared = bench_dir("sessions")
    return [OWN_CORPUS] + ([replace(SHARED_CORPUS, folder=shared)] if shared else [])


def corpus_format(path: Path) -> str:
    """The format of a corpus file: the name of the folder it sits in."""
    return {"openclaw": "openclaw", "jsonl": "jsonl"}.get(path.parent.name, "claude-code")


def bench_transcripts() -> list[Path]:
    """Every transcript of every corpus (the shared one read in place, never copied)."""
    from gitmem.engines.harvest.sources import discover

    files = [f for c in corpora() for f in discover([c.folder])]
    assert files, "the corpus holds no transcript"
    return files
