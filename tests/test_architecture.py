"""The house stands: floors point down, no import cycles, one owner per library, git run from one module.

Floors, bottom to top (a module imports its own floor or lower, never higher):

    1 gitmem/base/     values and wrappers (errors, kinds, clock, config, model, state, text, yamlio, mdio, diffs, gitio)
    2 gitmem/store/    documents, store, index
    3 gitmem/guards/   the guards of every write and their verdicts, pii/
    4 gitmem/writer/   the one writer: plans become commits
    5 gitmem/engines/  engines side by side, harvest/
    6 gitmem/api/      the use cases: one module of functions per use case, MemoryRepo their facade
    7 gitmem/faces/    cli, verbs, githooks, demo, the MCP server, the daemon, the agent hooks
    8 gitmem/__init__.py, gitmem/__main__.py

Every import counts: module level, inside functions (lazy) and under TYPE_CHECKING.

A face goes through the use cases: it imports the api and, of the floors below, only
errors, the clock and the warning sink (notice). The git hook entry points (githooks, hookrun,
hookmessage, hooklayers, hookrefs) are the exception: they run on every ``git commit`` and read the staged files over
the guards directly, without the api or the writer.
"""

from __future__ import annotations

import ast
import re
from pathlib import Path

import pytest

PACKAGE = Path(__file__).resolve().parent.parent / "gitmem"
FLOORS = {"base": 1, "store": 2, "guards": 3, "writer": 4, "engines": 5, "api": 6, "faces": 7, "__init__": 8, "__main__": 8}
OWNERS = {"pygit2": "gitmem.base.gitio", "ruamel": "gitmem.base.yamlio", "markdown_it": "gitmem.base.mdio",
          "unidiff": "gitmem.base.diffs", "Stemmer": "gitmem.base.text.words", "mcp": "gitmem.faces.mcp_server",
          "numpy": "gitmem.base.embed"}
GIT_RUNNER = "gitmem.base.gitio"
FACE_MAY_IMPORT = ("gitmem.api", "gitmem.faces", "gitmem.base.errors", "gitmem.base.clock", "gitmem.base.notice")
GIT_HOOK_ENTRY_POINTS = ("gitmem.faces.githooks", "gitmem.faces.hookrun", "gitmem.faces.hookmessage",
                         "gitmem.faces.hooklayers", "gitmem.faces.hookrefs")
GIT_HOOKS_MAY_NOT_IMPORT = ("gitmem.api", "gitmem.writer")
MAX_LINES = 430   # a module reaches this many lines: split it by concept (no module is exempt)


def owned(name: str, owner: str) -> bool:
    """True when module ``name`` is ``owner`` or inside the package ``owner``."""
    return name == owner or name.startswith(owner + ".")


def module_name(path: Path) -> str:
    parts = path.relative_to(PACKAGE.parent).with_suffix("").parts
    return ".".join(parts[:-1] if parts[-1] == "__init__" and len(parts) > 2 else parts)


def modules() -> dict[str, Path]:
    found = {module_name(p): p for p in sorted(PACKAGE.rglob("*.py"))}
    assert len(found) > 30, "the package walk found too few modules"
    return found


def floor(name: str) -> int:
    parts = name.split(".")
    key = parts[1] if len(parts) > 1 else "__init__"
    if key not in FLOORS:
        pytest.fail(f"{name} is on no floor: put it in one of {sorted(FLOORS)}")
    return FLOORS[key]


def imports(path: Path, name: str) -> list[tuple[str, int]]:
    """(imported module or package, line) for every import in the file, lazy ones included."""
    tree = ast.parse(path.read_text(encoding="utf-8"))
    is_package = path.name == "__init__.py"
    out: list[tuple[str, int]] = []
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            out += [(a.name, node.lineno) for a in node.names]
        elif isinstance(node, ast.ImportFrom):
            if node.level:
                base = name.split(".") if is_package else name.split(".")[:-1]
                base = base[:len(base) - (node.level - 1)]
                module = ".".join(base + ([node.module] if node.module else []))
            else:
                module = node.module or ""
            out.append((module, node.lineno))
            out += [(f"{module}.{a.name}", node.lineno) for a in node.names]
    return out


def internal_edges() -> dict[str, set[str]]:
    """Module -> the modules it imports. ``from package import module`` depends on that module, not on the
    package's ``__init__`` (gitmem.api's only loads ``MemoryRepo`` on first use)."""
    mods = modules()
    edges: dict[str, set[str]] = {m: set() for m in mods}
    for name, path in mods.items():
        found = imports(path, name)
        for target, line in found:
            named = [t for t, n in found if n == line and t.rpartition(".")[0] == target]
            if named and all(t in mods for t in named) and target in mods and mods[target].name == "__init__.py":
                continue   # from package import submodule, ...: the edges go to the submodules
            if target in mods and target != name and target != "gitmem":
                edges[name].add(target)
    return edges


def test_every_module_has_a_floor() -> None:
    for name in modules():
        floor(name)


def test_floors_only_point_down() -> None:
    wrong = [f"{a} (floor {floor(a)}) imports {b} (floor {floor(b)})"
             for a, targets in internal_edges().items() for b in targets if floor(b) > floor(a)]
    assert not wrong, "\n".join(wrong)


def test_no_import_cycles() -> None:
    edges = internal_edges()
    state: dict[str, int] = {}
    cycles: list[str] = []

    def visit(node: str, stack: list[str]) -> None:
        state[node] = 1
        for nxt in sorted(edges[node]):
            if state.get(nxt) == 1:
                cycles.append(" -> ".join(stack[stack.index(nxt):] + [node, nxt]) if nxt in stack else f"{node} -> {nxt}")
            elif nxt not in state:
                visit(nxt, stack + [node])
        state[node] = 2

    for start in sorted(edges):
        if start not in state:
            visit(start, [])
    assert not cycles, "\n".join(cycles)


def test_each_library_is_imported_by_its_one_module() -> None:
    wrong = []
    for name, path in modules().items():
        for target, line in imports(path, name):
            top = target.split(".")[0]
            if top in OWNERS and not owned(name, OWNERS[top]):
                wrong.append(f"{path.relative_to(PACKAGE.parent)}:{line} imports {top} (owner: {OWNERS[top]})")
    assert not wrong, "\n".join(wrong)


def test_git_runs_only_from_gitio() -> None:
    wrong = [f"{path.relative_to(PACKAGE.parent)}:{line} imports {target}"
             for name, path in modules().items() if not owned(name, GIT_RUNNER)
             for target, line in imports(path, name) if target.split(".")[0] == "subprocess"]
    assert not wrong, "\n".join(wrong)


# what changes a file, a folder, a repository or a clone's setup: the use cases (api) and the writer do it
WRITING_CALLS = {"write_text", "write_bytes", "mkdir", "makedirs", "unlink", "rmdir", "rmtree", "remove", "chmod",
                 "touch", "rename", "symlink_to", "create_commit", "set_ref", "delete_ref", "use_index_v4",
                 "install_pre_commit", "sync"}


def writing_mode(node: ast.expr, plain: bool) -> bool:
    """True for a file mode that writes, appends or creates; the mode of the builtin ``open`` (``plain``) that
    is not a string written out counts as writing, an argument of a method ``open`` (``path.open(mode)``,
    ``gzip.open(path, mode)``) only when it is such a mode."""
    if isinstance(node, ast.Constant) and isinstance(node.value, str) and re.fullmatch(r"[rwxabt+]{1,3}", node.value):
        return bool(set(node.value) & set("wax+"))
    return plain and not isinstance(node, ast.Constant)


def writes(path: Path, name: str) -> list[str]:
    """Each call in the file that writes: a name of ``WRITING_CALLS``, ``os.replace``, or an ``open`` whose mode
    writes, appends or creates (a mode that is not a plain string counts as writing)."""
    wrong = []
    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
        if not isinstance(node, ast.Call):
            continue
        f = node.func
        called = f.attr if isinstance(f, ast.Attribute) else f.id if isinstance(f, ast.Name) else ""
        owner = f.value.id if isinstance(f, ast.Attribute) and isinstance(f.value, ast.Name) else ""
        if (called in WRITING_CALLS or (owner, called) == ("os", "replace")
                or called == "open" and any(writing_mode(m, plain=isinstance(f, ast.Name)) for m in
                                            (node.args[1:2] if isinstance(f, ast.Name) else node.args[:2])
                                            + [k.value for k in node.keywords if k.arg == "mode"])):
            wrong.append(f"{name}:{node.lineno} calls {called}")
    return wrong


def test_engines_never_write() -> None:
    """Engines take values and return values (a plan, a report): a module that creates a repository, installs
    hooks or writes a file is a use case, and lives in the api."""
    wrong = [w for name, path in modules().items() if owned(name, "gitmem.engines") for w in writes(path, name)]
    assert not wrong, "\n".join(wrong)


@pytest.mark.parametrize("source", [
    "def f(p):\n    p.write_bytes(b'')", "def f(git):\n    git.create_commit('main', t, None, 'm', now)",
    "import os\ndef f(a, b):\n    os.replace(a, b)", "def f(p):\n    open(p, 'a')", "def f(p, m):\n    open(p, mode=m)",
    "def f(p):\n    p.open('wb')",
])
def test_the_writing_rule_fails_an_engine_that_writes(tmp_path: Path, source: str) -> None:
    path = tmp_path / "engine.py"
    path.write_text(source + "\n", encoding="utf-8")
    assert writes(path, "gitmem.engines.engine"), source


def test_the_writing_rule_lets_reading_through(tmp_path: Path) -> None:
    path = tmp_path / "engine.py"
    path.write_text("def f(p, q):\n    open(p, 'rb')\n    q.open('rb')\n    open(p)\n    q.open(encoding='utf-8')\n"
                    "    return p.read_text().replace('a', 'b')\n", encoding="utf-8")
    assert writes(path, "gitmem.engines.engine") == []


def test_engines_never_take_the_repository_object() -> None:
    wrong = []
    for name, path in modules().items():
        if floor(name) > FLOORS["engines"]:
            continue
        text = path.read_text(encoding="utf-8")
        for needle in ("repo.writer", "repo.similar_memory", "MemoryRepo", ".write(plan"):
            if needle in text:
                wrong.append(f"{name} mentions {needle}")
    assert not wrong, "\n".join(wrong)


def reaching_the_writer(found: dict[str, Path]) -> list[str]:
    """Imports of the writer from any module but the writer's own and the use cases'."""
    return [f"{name}:{line} imports {target}"
            for name, path in found.items() if not owned(name, "gitmem.writer") and not owned(name, "gitmem.api")
            for target, line in imports(path, name) if owned(target, "gitmem.writer")]


def test_only_the_use_cases_reach_the_writer() -> None:
    """The writer is its own floor: the api commits through it; faces never import it, and engines
    plan values without it."""
    wrong = reaching_the_writer(modules())
    assert not wrong, "\n".join(wrong)


def test_a_face_that_imports_the_writer_fails_the_check(tmp_path: Path) -> None:
    face, api = tmp_path / "face.py", tmp_path / "use.py"
    face.write_text("def f():\n    from gitmem.writer.commit import Writer\n", encoding="utf-8")
    api.write_text("from gitmem.writer import plan\n", encoding="utf-8")
    assert reaching_the_writer({"gitmem.faces.face": face, "gitmem.api.use": api}) == [
        "gitmem.faces.face:2 imports gitmem.writer.commit", "gitmem.faces.face:2 imports gitmem.writer.commit.Writer"]


def too_large(found: dict[str, Path]) -> dict[str, int]:
    """Modules of ``found`` at ``MAX_LINES`` lines or more."""
    sizes = {name: len(path.read_text(encoding="utf-8").splitlines()) for name, path in found.items()}
    return {name: n for name, n in sizes.items() if n >= MAX_LINES}


def test_no_module_reaches_the_size_limit() -> None:
    big = too_large(modules())
    assert not big, f"split these by concept (one concept a module, a name that says it): {big}"


def test_a_module_of_the_limit_fails_the_check(tmp_path: Path) -> None:
    at, below = tmp_path / "at.py", tmp_path / "below.py"
    at.write_text("x = 1\n" * MAX_LINES, encoding="utf-8")
    below.write_text("x = 1\n" * (MAX_LINES - 1), encoding="utf-8")
    found = {"gitmem.base.at": at, "gitmem.base.below": below}
    assert too_large(found) == {"gitmem.base.at": MAX_LINES}


def test_the_floor_map_in_this_docstring_names_every_floor() -> None:
    doc = __doc__ or ""
    for key in FLOORS:
        if key not in ("__init__", "__main__", "api"):
            assert f"gitmem/{key}/" in doc


def face_problems(name: str, targets: list[tuple[str, int]]) -> list[str]:
    """What the face ``name`` imports that it may not: below the api, only errors and the clock (the git
    hook entry points may read over the guards, never through the api or the writer)."""
    wrong = []
    for target, line in targets:
        if not target.startswith("gitmem.") or target in ("gitmem.base", "gitmem.__version__"):
            continue   # the standard library, a library, `from gitmem import __version__`, `from gitmem.base import clock`
        if name in GIT_HOOK_ENTRY_POINTS:
            if any(owned(target, banned) for banned in GIT_HOOKS_MAY_NOT_IMPORT):
                wrong.append(f"{name}:{line} imports {target} (a git hook stays off the api and the writer)")
        elif not any(owned(target, allowed) for allowed in FACE_MAY_IMPORT):
            wrong.append(f"{name}:{line} imports {target} (a face goes through gitmem.api)")
    return wrong


def test_faces_go_through_the_use_cases() -> None:
    wrong = [problem for name, path in modules().items() if floor(name) == FLOORS["faces"]
             for problem in face_problems(name, imports(path, name))]
    assert not wrong, "\n".join(wrong)


@pytest.mark.parametrize("source, face", [
    ("from gitmem.engines import recall", "gitmem.faces.verbs_recall"),
    ("def f():\n    from gitmem.store.index import Filters", "gitmem.faces.verbs_recall"),
    ("from gitmem.guards import pii", "gitmem.faces.mcp_server"),
    ("from gitmem.writer.plan import Store", "gitmem.faces.daemon"),
    ("from gitmem.base.state import find_root", "gitmem.faces.agenthooks"),
    ("from gitmem.base import files", "gitmem.faces.verbs_agent"),
    ("import gitmem.engines.checks", "gitmem.faces.verbs_checks"),
    ("from gitmem.api import MemoryRepo", "gitmem.faces.githooks"),
    ("from gitmem.writer.plan import Plan", "gitmem.faces.hookrun"),
])
def test_the_face_rule_fails_a_face_that_goes_around(tmp_path: Path, source: str, face: str) -> None:
    """The rule above can fail: each of these imports, put in a face, is reported."""
    path = tmp_path / "face.py"
    path.write_text(source + "\n", encoding="utf-8")
    assert face_problems(face, imports(path, face)), source


@pytest.mark.parametrize("source, face", [
    ("from gitmem.api import recall\nfrom gitmem.api.clone import find_root", "gitmem.faces.verbs_recall"),
    ("from gitmem.base import clock\nfrom gitmem.base.errors import GitmemError", "gitmem.faces.daemon"),
    ("from gitmem import __version__\nfrom gitmem.faces.console import out", "gitmem.faces.cli"),
    ("from gitmem.guards import pii\nfrom gitmem.store import documents", "gitmem.faces.githooks"),
])
def test_the_face_rule_lets_the_use_cases_through(tmp_path: Path, source: str, face: str) -> None:
    path = tmp_path / "face.py"
    path.write_text(source + "\n", encoding="utf-8")
    assert face_problems(face, imports(path, face)) == []


SCRIPTS = "gitmem.base.text.scripts"


def test_the_script_ranges_are_written_once() -> None:
    """Which characters are CJK is the text toolkit's to say (gitmem.base.text.scripts): a module that
    writes a range of ideographs, kana or Hangul itself would make two engines disagree on one text."""
    starts = ("\\u3040", "\\u3400", "\\u4e00", "\\uac00", "\\uf900", "\u3040-", "\u3400-", "\u4e00-", "\uac00-")
    found = modules()
    assert SCRIPTS in found
    writers = sorted(name for name, path in found.items()
                     if name != SCRIPTS and any(s in path.read_text(encoding="utf-8") for s in starts))
    assert writers == [], f"CJK ranges written outside {SCRIPTS}: {writers}"
