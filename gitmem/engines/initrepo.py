"""``gitmem init``: a new memory repository from the shipped templates."""

from __future__ import annotations

import subprocess
import sys
from dataclasses import dataclass
from datetime import datetime
from importlib import resources
from pathlib import Path

from gitmem.base import gitio
from gitmem.base.repodir import is_memory_repo
from gitmem.store.formats import FORMAT
from gitmem.base.errors import UsageError
from gitmem.base.model import DOMAINS

TEMPLATE_FILES = ("CLAUDE.md", "gitmem.yaml", ".gitattributes", ".pre-commit-config.yaml")

BANK_FILES = {
    "bank/reflections.md": "# Reflections\n\nRaw reflections awaiting distill, one per loop.\n",
    "bank/promotions.md": "# Promotions\n\nPromotion log and threshold metadata.\n",
    "bank/TABOOS.md": "# Taboos\n\nErrors not to repeat.\n",
    "bank/MEMORY.md": "# Memory\n\nGeneral lessons.\n",
    ".gitmem/state.yaml": "# Engine state, committed so every clone agrees.\n"
                          f"format: {FORMAT}  # the repository's format version; newer gitmem reads every older one\n"
                          "threshold: 15\nveto_streak: 0\napprove_streak: 0\n",
}
KEEP_FOLDERS = tuple(f"memory/{d}" for d in DOMAINS) + ("archive", "patterns", "episodes", "skills")


@dataclass(frozen=True)
class InitResult:
    path: Path
    created: bool
    commit: str | None
    message: str
    hooks_installed: bool


def template_dir() -> Path:
    """The templates folder: inside the installed package, or beside it in a checkout."""
    shipped = resources.files("gitmem") / "templates"
    if shipped.is_dir():
        return Path(str(shipped))
    checkout = Path(__file__).resolve().parents[2] / "templates"
    if checkout.is_dir():
        return checkout
    raise UsageError("gitmem's templates are missing from this installation", hint="reinstall gitmem: pip install --force-reinstall gitmem-agent")


def initial_files() -> dict[str, bytes]:
    """Every file of a fresh memory repository."""
    tdir = template_dir()
    files = {name: (tdir / name).read_bytes() for name in TEMPLATE_FILES}
    files.update({p: t.encode() for p, t in BANK_FILES.items()})
    files.update({f"{folder}/.gitkeep": b"" for folder in KEEP_FOLDERS})
    return files


def init(path: Path, now: datetime, install_hooks: bool = True) -> InitResult:
    """Create a memory repository at ``path``; a no-op on an existing one."""
    path = path.expanduser()
    if path.exists() and not path.is_dir():
        raise UsageError(f"{path} is a file, not a folder", hint="pick a new folder name")
    if path.is_dir() and is_memory_repo(path):
        return InitResult(path, False, None, f"{path} is already a gitmem repository; nothing to do", False)
    if path.is_dir() and any(path.iterdir()):
        raise UsageError(f"{path} is not empty and is not a gitmem repository",
                         hint=f"choose an empty or new folder, e.g. `gitmem init {path}/memory`")
    path.mkdir(parents=True, exist_ok=True)
    git = gitio.init(path)
    files = initial_files()
    tree = git.build_tree(None, files)
    commit = git.create_commit("main", tree, None,
                               "gitmem: init memory repository\n\nGitmem-Event: repo.init\n", now)
    git.sync_worktree(files)
    gitio.use_index_v4(path)
    hooks = install_git_hooks(path) if install_hooks else False
    return InitResult(path, True, commit, f"created memory repository {path}", hooks)


def install_git_hooks(path: Path) -> bool:
    """Make a person's own `git commit` run gitmem's checks: the pre-commit
    framework for the pre-commit stage, a plain commit-msg script for the
    layer rule. False when pre-commit could not be installed."""
    try:
        done = subprocess.run([sys.executable, "-m", "pre_commit", "install", "--hook-type", "pre-commit"],
                              cwd=path, capture_output=True, text=True, timeout=120)
    except (OSError, subprocess.TimeoutExpired):
        return False
    target = Path(gitio.Git(path).git_dir) / "hooks" / "commit-msg"
    if not target.exists():
        target.parent.mkdir(parents=True, exist_ok=True)
        target.write_bytes((template_dir() / "hooks" / "commit-msg").read_bytes())
        target.chmod(0o755)
    return done.returncode == 0
