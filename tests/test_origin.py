"""Where gitmem was installed from (``gitmem --version``) and the install commands hints print.

The kinds as values first; then real installs with pip (a folder, a git URL) whose
``--version`` and hint are read back, and the printed hint run as printed.
"""

from __future__ import annotations

import os
import shlex
import subprocess
import sys
from pathlib import Path

import pytest

from gitmem.base.origin import DISTRIBUTION, Origin, origin
from tests.conftest import run_cli

ROOT = Path(__file__).resolve().parent.parent


def test_install_command_names_the_same_source_for_every_kind() -> None:
    cmd = {kind: Origin(kind, where, commit).install_command("mcp")   # type: ignore[arg-type]
           for kind, where, commit in [("editable", "/src/gitmem", ""), ("folder", "/src/gitmem", ""),
                                       ("git", "https://example.org/gitmem.git", "0" * 40),
                                       ("archive", "file:///tmp/gitmem-0.2.tar.gz", ""), ("index", "", ""),
                                       ("source", "/src/gitmem", "")]}
    tail = {k: v.split(" install ", 1)[1] for k, v in cmd.items()}
    assert tail == {"editable": "-e '/src/gitmem[mcp]'", "folder": "'/src/gitmem[mcp]'",
                    "git": f"'{DISTRIBUTION}[mcp] @ git+https://example.org/gitmem.git@{'0' * 40}'",
                    "archive": f"'{DISTRIBUTION}[mcp] @ file:///tmp/gitmem-0.2.tar.gz'",
                    "index": f"'{DISTRIBUTION}[mcp]'", "source": "'/src/gitmem[mcp]'"}
    assert Origin("git", "https://example.org/gitmem.git").upgrade_command().endswith(
        f"install --upgrade '{DISTRIBUTION} @ git+https://example.org/gitmem.git'")


def test_version_says_where_this_gitmem_came_from(capsys: pytest.CaptureFixture[str]) -> None:
    code, text, _ = run_cli(["--version"], capsys)
    assert code == 0
    out = text.splitlines()
    assert out[0].startswith("gitmem ")
    here = origin()
    assert out[1] == here.describe()
    # the tests run from this checkout: an editable install of it, or the source tree itself
    assert here.kind in ("editable", "source") and Path(here.where).resolve() == ROOT, out[1]


def install(tmp_path: Path, spec: str, name: str) -> Path:
    target = tmp_path / name
    done = subprocess.run([sys.executable, "-m", "pip", "install", "-q", "--no-deps", "--target", str(target),
                           *shlex.split(spec)], capture_output=True, text=True)
    assert done.returncode == 0, done.stderr
    return target


def from_install(target: Path, code: str) -> str:
    """Run ``code`` with the gitmem installed under ``target`` (its dependencies from this environment)."""
    env = {**os.environ, "PYTHONPATH": str(target)}
    done = subprocess.run([sys.executable, "-c", code], cwd=target, env=env, capture_output=True, text=True)
    assert done.returncode == 0, done.stderr
    return done.stdout


VERSION = "from gitmem.faces.cli import main; main(['--version'])"
HINT = "from gitmem.api.installation import install_hint; print(install_hint('mcp'))"


@pytest.mark.slow
def test_a_folder_install_and_a_git_install_say_so_and_hint_a_working_command(tmp_path: Path) -> None:
    if subprocess.run(["git", "rev-parse", "--verify", "-q", "HEAD"], cwd=ROOT, capture_output=True).returncode:
        pytest.skip("not a git checkout with a commit")
    head = subprocess.run(["git", "rev-parse", "HEAD"], cwd=ROOT, capture_output=True, text=True).stdout.strip()
    clone = tmp_path / "clone"
    subprocess.run(["git", "clone", "-q", str(ROOT), str(clone)], check=True, capture_output=True)

    folder = install(tmp_path, str(clone), "from-folder")
    assert from_install(folder, VERSION).splitlines()[1].startswith(f"installed from the folder {clone} into ")

    url = f"git+file://{clone}"
    by_url = install(tmp_path, url, "from-git")
    said = from_install(by_url, VERSION).splitlines()[1]
    assert said.startswith(f"installed from file://{clone} at {head} into "), said
    hint = from_install(by_url, HINT).strip().splitlines()[-1]
    assert hint.endswith(f"install '{DISTRIBUTION}[mcp] @ git+file://localhost{clone}@{head}'"), hint
    # the hint works as printed (here into a folder of its own, without the dependencies)
    spec = shlex.split(hint)[-1]
    again = install(tmp_path, shlex.quote(spec), "from-hint")
    assert (again / "gitmem" / "__init__.py").is_file()
