"""``gitmem init``: a new memory repository from the shipped templates."""

from __future__ import annotations

from collections.abc import Collection
from dataclasses import dataclass
from datetime import datetime
from importlib import resources
from pathlib import Path

from gitmem.base import gitio, people
from gitmem.base.origin import reinstall_hint
from gitmem.base.state import is_memory_repo
from gitmem.store import enginestate
from gitmem.store.enginestate import STATE_FILE
from gitmem.store.formats import FORMAT
from gitmem.base.errors import UsageError
from gitmem.base.model import DOMAINS

TEMPLATE_FILES = ("CLAUDE.md", "gitmem.yaml", ".gitattributes", ".pre-commit-config.yaml")

BANK_FILES = {
    "bank/reflections.md": "# Reflections\n\nRaw reflections awaiting distill, one per loop.\n",
    "bank/promotions.md": "# Promotions\n\nPromotion log and threshold metadata.\n",
    "bank/TABOOS.md": "# Taboos\n\nErrors not to repeat.\n",
    "bank/MEMORY.md": "# Memory\n\nGeneral lessons.\n",
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
    raise UsageError("gitmem's templates are missing from this installation", hint=f"reinstall gitmem: {reinstall_hint()}")


def initial_files() -> dict[str, bytes]:
    """Every file of a fresh memory repository."""
    tdir = template_dir()
    files = {name: (tdir / name).read_bytes() for name in TEMPLATE_FILES}
    files.update({p: t.encode() for p, t in BANK_FILES.items()})
    files[STATE_FILE] = enginestate.initial(FORMAT)
    files[people.SALT_FILE] = people.new_salt()   # names each person's folder in a team repository
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
    git.worktree.sync(files)
    gitio.use_index_v4(path)
    install_merge_driver(path)
    hooks = set(install_git_hooks(path)) == set(HOOKS) if install_hooks else False
    return InitResult(path, True, commit, f"created memory repository {path}", hooks)


def _complete(path: Path, install_hooks: bool) -> InitResult:
    """An existing memory repository (a fresh clone, say): install or upgrade what it lacks, say what was done."""
    if not (path / ".git").exists():
        raise UsageError(f"{path} has gitmem's files but is not a git work tree",
                         hint=f"git init {path} (or clone the memory repository) and run gitmem init again")
    driver = driver_missing(path) and install_merge_driver(path)
    todo = hooks_to_write(path)
    if not install_hooks or not todo:
        note = "hooks already installed" if not todo else "hooks not installed (--no-hooks)"
        if driver:
            return InitResult(path, False, None, f"{path} is already a gitmem repository; {note}; registered the "
                              "merge driver gitmem-memory in this clone's git config", not todo)
        return InitResult(path, False, None, f"{path} is already a gitmem repository; {note}; nothing to do",
                          not todo)
    gitio.use_index_v4(path)
    written = install_git_hooks(path)
    done = [name for name in todo if name in written]
    kept = [name for name in todo if name not in written]
    message = f"{path} is already a gitmem repository; "
    message += "registered the merge driver gitmem-memory; " if driver else ""
    message += f"installed its git hooks ({', '.join(done)})" if done else "installed no git hook"
    if kept:
        message += (f"; left alone: {', '.join(kept)} (not gitmem's: move it aside and run `gitmem init` again "
                    "to have gitmem's checks on every commit)")
    return InitResult(path, False, None, message, set(written) == set(HOOKS))


HOOKS = ("pre-commit", "commit-msg", "post-merge", "pre-merge-commit", "reference-transaction")
OURS = (b"gitmem", b"File generated by pre-commit")   # earlier gitmem hooks, or the framework it installed
PYTHON_KEY = "gitmem.python"   # per-clone git config: the Python gitmem's hooks and shims run


HOOK_ARGS = {"pre-commit": '["hook", "staged"]', "commit-msg": '["hook", "msg", *sys.argv[1:]]',
             "post-merge": '["hook", "post-merge", *sys.argv[1:]]', "pre-merge-commit": '["hook", "merge"]',
             "reference-transaction": '["hook", "reference-transaction", *sys.argv[1:]]'}
HOOK_CODE = """import sys
sys.path[:0] = {paths}
try:
    from gitmem.faces.cli import main
except ImportError as exc:
    sys.exit(f"gitmem {hook} hook: gitmem cannot be imported ({{exc}})\\nhint: run `gitmem init` in this repository again")
sys.exit(main({args}))"""


def hook_scripts(python: str | None = None, paths: list[str] | None = None) -> dict[str, bytes]:
    """gitmem's own git hooks for this machine: each names ``python`` (default: this one) and
    the import path gitmem is found on (default: this process's, found by ``site``).

    Written only into a clone's hooks folder, never committed: both are this
    machine's. The hooks start Python isolated and without ``site`` (``-I -S``):
    no PYTHON* variable, PATH or folder of the memory repository changes what
    runs, and the start-up skips the search ``site`` would repeat.
    """
    import json
    import os
    import shlex
    import sys

    python = python or sys.executable
    if paths is None:
        here = os.path.abspath(os.getcwd())
        found = [p for p in sys.path if p and os.path.isabs(p) and os.path.abspath(p) != here and os.path.exists(p)]
        package = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))   # editable too
        paths = [package] + [p for p in found if p != package]
    out = {}
    for name in HOOKS:
        text = (template_dir() / "hooks" / name).read_text(encoding="utf-8")
        code = HOOK_CODE.format(paths=json.dumps(paths), hook=name, args=HOOK_ARGS[name])
        text = text.replace("@AGENT_TEST@", agent_test())
        out[name] = text.replace("@PYTHON@", shlex.quote(python)).replace("@CODE@", shlex.quote(code)).encode("utf-8")
    return out


def agent_test() -> str:
    """The shell test that is true when one of the agent variables (``gitmem.guards.reviewer``) is set,
    even empty: the reference-transaction hook exits before starting Python when it is false."""
    from gitmem.guards.reviewer import AGENT_VARIABLES

    # each a shell name (tests/test_reftx.py checks it): nothing else reaches the script
    return '[ -n "' + "".join(f"${{{variable}+1}}" for variable, _ in AGENT_VARIABLES) + '" ]'


def hooks_to_write(path: Path) -> list[str]:
    """Hooks of gitmem's that are missing from the clone at ``path`` or differ from this installation's."""
    hooks = gitio.hooks_dir(path)
    wanted = hook_scripts()
    if hooks is None:
        return list(HOOKS)
    out = []
    for name in HOOKS:
        try:
            current = (Path(hooks) / name).read_bytes()
        except OSError:
            current = None
        if current != wanted[name]:
            out.append(name)
    return out


def install_git_hooks(path: Path, names: Collection[str] | None = None) -> list[str]:
    """Make a person's own `git commit` and `git merge` run gitmem's checks: gitmem's pre-commit,
    commit-msg, post-merge, pre-merge-commit and reference-transaction scripts in the clone's hooks
    folder (replacing earlier ones of gitmem's, or the pre-commit framework's it used to install), and
    the interpreter in `git config gitmem.python`.

    Returns the hooks written (of ``names`` only, when given); a hook that is someone else's is left alone.
    """
    import sys

    hooks = gitio.hooks_dir(path)
    if hooks is None:
        return []
    folder = Path(hooks)
    folder.mkdir(parents=True, exist_ok=True)
    written = []
    for name, script in hook_scripts().items():
        if names is not None and name not in names:
            continue
        target = folder / name
        try:
            current = target.read_bytes()
        except OSError:
            current = None
        if current == script:
            written.append(name)
            continue
        if current is not None and not any(mark in current for mark in OURS):
            continue   # a person's own hook: never overwritten
        tmp = folder / f".{name}.gitmem-new"
        tmp.write_bytes(script)
        tmp.chmod(0o755)
        tmp.replace(target)
        written.append(name)
    gitio.attempt(path, "config", PYTHON_KEY, sys.executable)
    return written


def refresh_git_hooks(path: Path) -> list[str]:
    """``gitmem upgrade``: in a clone that runs gitmem's own hook scripts, write those of this
    installation it lacks or has stale (a hook added since, such as reference-transaction); the
    hooks written. A clone without any (``--no-hooks``) is left as it is, and so is a hook the
    pre-commit framework manages (``gitmem init --pre-commit``): ``gitmem init`` decides those."""
    hooks = gitio.hooks_dir(path)
    if hooks is None or not any(_is_gitmem_script(Path(hooks) / name) for name in HOOKS):
        return []
    todo = [name for name in hooks_to_write(path)
            if not (Path(hooks) / name).exists() or _is_gitmem_script(Path(hooks) / name)]
    return install_git_hooks(path, todo) if todo else []


def _is_gitmem_script(path: Path) -> bool:
    """True for one of gitmem's own hook scripts (``templates/hooks``), of this gitmem or an earlier one."""
    try:
        with open(path, "rb") as fh:
            return fh.read(64).startswith(b"#!/bin/sh\n# gitmem ")
    except OSError:
        return False


DRIVER = "gitmem-memory"   # the merge driver .gitattributes names for memory documents


def driver_command(python: str | None = None) -> str:
    """The command git runs to merge one file: ``%O`` base, ``%A`` ours (the result goes there), ``%B``
    theirs, ``%P`` the path in the repository."""
    import shlex
    import sys

    return f"{shlex.quote(python or sys.executable)} -m gitmem merge-driver %O %A %B %P"


def driver_missing(path: Path) -> bool:
    """True when this clone's git config lacks gitmem's merge driver (or names another command)."""
    found = gitio.attempt(path, "config", "--get", f"merge.{DRIVER}.driver")
    return found is None or found.decode("utf-8", "replace").strip() != driver_command()


def install_merge_driver(path: Path) -> bool:
    """Register gitmem's merge driver in the clone's git config (``.gitattributes`` names it); True when
    it is registered. Per clone: git never takes a merge driver from the repository itself."""
    named = gitio.attempt(path, "config", f"merge.{DRIVER}.name", "gitmem: memory documents merged field by field")
    return named is not None and gitio.attempt(path, "config", f"merge.{DRIVER}.driver", driver_command()) is not None
