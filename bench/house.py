"""The numbers of the house: how the package is cut into modules and how its faces reach the floors below.

Figures, for the work tree or for a commit (read from git, nothing checked out):

- modules: ``.py`` files under ``gitmem/``; the median and the largest, in lines;
- functions: the median length in lines of every function and method (``def`` to its last line);
- test/code: lines under ``tests/`` per line under ``gitmem/``;
- face imports below the api: imports in ``gitmem/faces/`` (lazy ones too) of a module of the floors
  below the use cases (``base``, ``store``, ``guards``, ``engines``), apart from the errors, the
  clock and the warning sink, counted apart for the git hook entry points (``githooks``, ``hookrun``,
  ``hookmessage``), which read over the guards by design.

    python bench/house.py            # the work tree
    python bench/house.py REV        # a commit, e.g. main
"""

from __future__ import annotations

import argparse
import ast
import statistics
import subprocess
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
BELOW = ("gitmem.base", "gitmem.store", "gitmem.guards", "gitmem.engines")
ALLOWED = ("gitmem.base.errors", "gitmem.base.clock", "gitmem.base.notice")
GIT_HOOKS = ("gitmem/faces/githooks.py", "gitmem/faces/hookrun.py", "gitmem/faces/hookmessage.py",
             "gitmem/faces/hooklayers.py", "gitmem/faces/hookrefs.py")


def files(rev: str | None) -> dict[str, str]:
    """Every ``.py`` file under gitmem/ and tests/ (path -> text), at ``rev`` or in the work tree."""
    if rev is None:
        return {p.relative_to(ROOT).as_posix(): p.read_text("utf-8")
                for top in ("gitmem", "tests") for p in sorted((ROOT / top).rglob("*.py"))}
    names = subprocess.run(["git", "ls-tree", "-r", "--name-only", rev, "gitmem", "tests"], cwd=ROOT,
                           capture_output=True, text=True, check=True).stdout.split()
    return {n: subprocess.run(["git", "show", f"{rev}:{n}"], cwd=ROOT, capture_output=True, text=True,
                              check=True).stdout for n in names if n.endswith(".py")}


def imported(tree: ast.AST, modules: set[str]) -> list[str]:
    """The module each import takes: ``from a.b import c`` takes ``a.b.c`` when that is a module (once per
    name), else ``a.b`` (once per statement)."""
    out: list[str] = []
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            out += [a.name for a in node.names]
        elif isinstance(node, ast.ImportFrom) and node.module and not node.level:
            subs = [f"{node.module}.{a.name}" for a in node.names if f"{node.module}.{a.name}" in modules]
            out += subs or [node.module]
    return out


def module_names(paths: list[str]) -> set[str]:
    return {p[:-3].replace("/", ".").removesuffix(".__init__") for p in paths}


def below(name: str) -> bool:
    inside = any(name == b or name.startswith(b + ".") for b in BELOW)
    return inside and not any(name == a or name.startswith(a + ".") for a in ALLOWED)


def measure(rev: str | None) -> dict[str, float]:
    found = files(rev)
    code = {p: t for p, t in found.items() if p.startswith("gitmem/")}
    tests = {p: t for p, t in found.items() if p.startswith("tests/")}
    sizes = [len(t.splitlines()) for t in code.values()]
    functions: list[int] = []
    faces = hooks = 0
    modules = module_names(list(code))
    for path, text in code.items():
        tree = ast.parse(text)
        functions += [n.end_lineno - n.lineno + 1 for n in ast.walk(tree)
                      if isinstance(n, (ast.FunctionDef, ast.AsyncFunctionDef)) and n.end_lineno is not None]
        if path.startswith("gitmem/faces/"):
            count = sum(1 for name in imported(tree, modules) if below(name))
            if path in GIT_HOOKS:
                hooks += count
            else:
                faces += count
    return {"modules": len(code), "median module": statistics.median(sizes), "largest module": max(sizes),
            "median function": statistics.median(functions), "functions": len(functions),
            "code lines": sum(sizes), "test lines": sum(len(t.splitlines()) for t in tests.values()),
            "test/code": sum(len(t.splitlines()) for t in tests.values()) / sum(sizes),
            "face imports below the api": faces, "git hook entry points' imports below": hooks}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0], allow_abbrev=False)
    parser.add_argument("rev", nargs="?", help="a commit to measure (default: the work tree)")
    args = parser.parse_args()
    figures = measure(args.rev)
    print(f"house of {args.rev or 'the work tree'}")
    for key, value in figures.items():
        print(f"  {key:<38} {value:.2f}" if isinstance(value, float) and not value.is_integer()
              else f"  {key:<38} {int(value)}")


if __name__ == "__main__":
    main()
