"""``gitmem init --pre-commit``: the memory repository's hooks installed through the pre-commit
framework run gitmem's checks on a person's real ``git commit``; ``gitmem check pre-commit`` checks
the committed config and the clone's hooks."""

from __future__ import annotations

import importlib.util
import os
import subprocess
from pathlib import Path

import pytest

from tests.conftest import NOW, run_cli
from gitmem.api import precommit

needs_framework = pytest.mark.skipif(importlib.util.find_spec("pre_commit") is None,
                                     reason="the pre-commit extra is not installed")
FAKE_KEY = "AKIA" + "Q3EGRZ7XJ2LMN4PD"   # an AWS key id's shape, not a key


def git(repo: Path, *args: str, check: bool = True) -> subprocess.CompletedProcess[str]:
    return subprocess.run(["git", "-C", str(repo), *args], capture_output=True, text=True, check=check,
                          env={**os.environ, "PATH": os.environ.get("PATH", "")})


@pytest.fixture
def framework_repo(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> Path:
    path = tmp_path / "mem"
    code, out, err = run_cli(["--now", NOW, "init", str(path), "--pre-commit"], capsys)
    assert code == 0, err
    assert "pre-commit installed its hooks (commit-msg, pre-commit)" in out
    return path


@pytest.mark.slow
@needs_framework
def test_init_installs_the_framework_hooks_and_a_commit_runs_them(framework_repo: Path) -> None:
    hooks = framework_repo / ".git" / "hooks"
    for stage in ("pre-commit", "commit-msg"):
        script = (hooks / stage).read_bytes()
        assert precommit.FRAMEWORK_MARK in script and precommit.LIGHT_MARK not in script
        assert not (hooks / f"{stage}.legacy").exists()
    (framework_repo / "memory" / "user" / "leak.md").write_text(f"aws_access_key_id = {FAKE_KEY}\n")
    git(framework_repo, "add", "-A")
    done = git(framework_repo, "commit", "-qm", "a leak", check=False)
    assert done.returncode != 0 and "aws_access_key" in done.stdout + done.stderr
    (framework_repo / "memory" / "user" / "leak.md").write_text("the build takes four minutes\n")
    git(framework_repo, "add", "-A")
    done = git(framework_repo, "commit", "-qm", f"note\n\nkey {FAKE_KEY}\n", check=False)
    assert done.returncode != 0, "the commit-msg stage ran no check"   # the message hook blocks a secret
    done = git(framework_repo, "commit", "-qm", "a note", check=False)
    assert done.returncode == 0, done.stdout + done.stderr


@needs_framework
def test_check_pre_commit_passes_then_names_what_is_broken(framework_repo: Path,
                                                           capsys: pytest.CaptureFixture[str]) -> None:
    code, out, _ = run_cli(["--repo", str(framework_repo), "check", "pre-commit"], capsys)
    assert code == 0 and "pre-commit: ok" in out
    config = framework_repo / precommit.CONFIG
    config.write_text(config.read_text().replace("id: gitmem-msg", "id: something-else"))
    code, out, _ = run_cli(["--repo", str(framework_repo), "check", "pre-commit"], capsys)
    assert code == 1 and "no hook 'gitmem-msg'" in out
    config.unlink()
    (framework_repo / ".git" / "hooks" / "commit-msg").unlink()
    code, out, _ = run_cli(["--repo", str(framework_repo), "check", "pre-commit", "--json"], capsys)
    assert code == 1 and f"{precommit.CONFIG} is missing" in out and "no commit-msg hook" in out


def test_check_accepts_gitmem_s_own_light_hooks(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    path = tmp_path / "mem"
    assert run_cli(["--now", NOW, "init", str(path)], capsys)[0] == 0
    code, out, _ = run_cli(["--repo", str(path), "check", "pre-commit"], capsys)
    assert code == 0 and "pre-commit: ok" in out


@pytest.mark.parametrize("text, problem", [
    ("repos: []\n", "no hook 'gitmem'"),
    ("::: [\n", "not valid YAML"),
    ("repos:\n- repo: local\n  hooks:\n  - {id: gitmem, entry: gitmem hook all, stages: [pre-commit]}\n"
     "  - {id: gitmem-msg, entry: echo, stages: [commit-msg]}\n", "does not run `gitmem hook msg`"),
    ("repos:\n- repo: local\n  hooks:\n  - {id: gitmem, entry: gitmem hook all}\n"
     "  - {id: gitmem-msg, entry: gitmem hook msg, stages: [commit-msg]}\n", "at the pre-commit stage"),
])
def test_config_problems_name_the_broken_part(text: str, problem: str) -> None:
    assert any(problem in p for p in precommit.config_problems(text))


def test_the_shipped_config_has_no_problem() -> None:
    from gitmem.api.initrepo import template_dir

    assert precommit.config_problems((template_dir() / precommit.CONFIG).read_text()) == []
