"""``gitmem init``: a new memory repository from the shipped templates."""

from __future__ import annotations

from dataclasses import dataclass
from datetime import datetime
from importlib import resources
from pathlib import Path

from gitmem.base import gitio
from gitmem.base.state import is_memory_repo
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

    def to_json(self) -> dict[str, object]:
        """What ``gitmem init --json`` prints."""
        return {"path": str(self.path), "created": self.created, "commit": self.commit,
                "hooks_installed": self.hooks_installed, "message": self.message}


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
    try:
        path.exists()
    except (OSError, ValueError) as exc:   # a name the system refuses (too long, a NUL)
        raise UsageError(f"cannot create a folder named {str(path)[:200]}: {getattr(exc, 'strerror', None) or exc}",
                         hint="pick a shorter folder name") from None
    if path.exists() and not path.is_dir():
        raise UsageError(f"{path} is a file, not a folder", hint="pick a new folder name")
    if path.is_dir() and is_memory_repo(path):
        return _complete(path, install_hooks)
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


def _complete(path: Path, install_hooks: bool) -> InitResult:
    """An existing memory repository (a fresh clone, say): install what a clone lacks, say what was done."""
    if not (path / ".git").exists():
        raise UsageError(f"{path} has gitmem's files but is not a git work tree",
                         hint=f"git init {path} (or clone the memory repository) and run gitmem init again")
    hooks = gitio.hooks_dir(path)
    missing = [name for name in ("pre-commit", "commit-msg") if hooks is None or not (Path(hooks) / name).exists()]
    if not install_hooks or not missing:
        note = "hooks already installed" if not missing else "hooks not installed (--no-hooks)"
        return InitResult(path, False, None, f"{path} is already a gitmem repository; {note}; nothing to do",
                          not missing)
    gitio.use_index_v4(path)
    installed = install_git_hooks(path)
    done = ", ".join(missing)
    message = (f"{path} is already a gitmem repository; installed its git hooks ({done})" if installed else
               f"{path} is already a gitmem repository; could not install the pre-commit hook (is pre-commit installed?)")
    return InitResult(path, False, None, message, installed)


def install_git_hooks(path: Path) -> bool:
    """Make a person's own `git commit` run gitmem's checks: the pre-commit
    framework for the pre-commit stage, a plain commit-msg script for the
    layer rule. False when pre-commit could not be installed."""
    installed = gitio.install_pre_commit(path)
    hooks = gitio.hooks_dir(path)
    if hooks is None:
        return False
    target = Path(hooks) / "commit-msg"
    if not target.exists():
        target.parent.mkdir(parents=True, exist_ok=True)
        target.write_bytes((template_dir() / "hooks" / "commit-msg").read_bytes())
        target.chmod(0o755)
    return installed
