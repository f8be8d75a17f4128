"""The public API is pinned: ``gitmem.__all__`` and every public method of ``MemoryRepo`` with its parameters.

A change here is a change for every script and face built on gitmem: make it on
purpose, update this pin, and say so in the release notes.
"""

from __future__ import annotations

import inspect
import subprocess
import sys
import tomllib
from pathlib import Path

import gitmem
from gitmem.api import MemoryRepo

ROOT = Path(__file__).resolve().parent.parent
PUBLIC = ["GitmemError", "Memory", "MemoryRepo", "__version__"]
METHODS = {
    "consolidate": "since, now",
    "dashboard_data": "now",
    "core_items": "project, here, personal",
    "decay": "now, dry_run",
    "effective_importance": "memory, now",
    "export": "include_archive",
    "forget": "memory_id, now",
    "graph": "include_archive",
    "harvest": "paths, fmt, signals, whole, now, progress, rescan, last",
    "head": None,
    "import_file": "path, dedupe, now, progress",
    "init": "path, now, install_hooks",
    "inside_session_folders": "path",
    "job_runs": "",
    "decay_due": "now",
    "run_job": "job, now, paths",
    "session_folders": "",
    "session_files": "paths",
    "check": "what, rev_range",
    "index": "rebuild",
    "setup": None,
    "snapshot": "now",
    "snapshots": "",
    "rollback": "tag, yes, interactive, i_am_the_reviewer, now",
    "drift": "now_text",
    "pin_drift_baseline": "now",
    "analyze": "cluster_threshold, merge_threshold",
    "apply_weights": "now",
    "atrophy": "now",
    "open_weights_review": "",
    "merged_reviews": "now",
    "pattern_add": "text, triggers, weight, now",
    "patterns": "at",
    "propose_weights": "now",
    "review_accept": "name, only, interactive, i_am_the_reviewer, now, recomputed",
    "review_push": "remote",
    "review_reject": "name, reason, interactive, i_am_the_reviewer, now",
    "review_show": "name",
    "review_reopen": "name, now",
    "sediment_reflect": "topic, context, approach, result, score, reusable, kind, tags, skill, role, repeat, "
                        "deviation, loop, source, output, operator, session, now",
    "sediment_like": "entry_id, operator, now",
    "sediment_reflect_sessions": "paths, now",
    "sediment_distill": "entry_id, operator, session, now",
    "sediment_promote": "entry_id, operator, session, now",
    "sediment_set_threshold": "value, operator, now",
    "sediment_clear": "skill, cascade, confirm, operator, now",
    "sediment_status": "now",
    "sediment_expire": "now",
    "reviews": "",
    "weights": "now",
    "status": "now",
    "events": "limit",
    "history": "limit",
    "promote": "now",
    "link": "a, b, relation, now",
    "list": "type, domain, include_archive, at",
    "load_core": "max_chars, project, here, personal",
    "note": "text, importance, type, domain, now",
    "notes": "",
    "open": "repo",
    "pending_reflections": "",
    "pii_allow": "finding, reason, shared, now, file",
    "pii_show": "finding, file",
    "recall": "query, k, type, domain, tier, band, include_archive, include_background, at, expand, now, project, here",
    "project_of": "directory",
    "purge": "value, finding, confirm, now",
    "purge_remote": "remote, confirm, now",
    "recover": "",
    "upgrade": "now",
    "sync": "remote, now",
    "doctor": "online",
    "repair": "paths",
    "install_merge_driver": "",
    "upgrade_pending": "",
    "refused_sessions": "",
    "reflect": "now, auto",
    "reflection_prompt": "limit",
    "remember": "text, type, domain, importance, source, memory_id, tags, dedupe, now, session, auto, project",
    "resolve_project": "value",
    "session_end": "now, session",
    "show": "memory_id, at",
    "similar_memory": "text, domain, rev, keywords, project",
    "prescan": "text, domain, keywords, rev, project",
    "sync_core": "now",
    "why": "memory_id",
}


def test_all_is_pinned_and_every_name_resolves() -> None:
    assert sorted(gitmem.__all__) == PUBLIC
    for name in gitmem.__all__:
        assert getattr(gitmem, name) is not None


def test_public_names_are_the_real_classes() -> None:
    from gitmem.base.errors import GitmemError
    from gitmem.base.model import Memory

    assert gitmem.MemoryRepo is MemoryRepo
    assert gitmem.GitmemError is GitmemError
    assert gitmem.Memory is Memory


def test_an_unknown_name_is_an_attribute_error() -> None:
    try:
        getattr(gitmem, "NoSuchThing")  # the point of the test
    except AttributeError as exc:
        assert "NoSuchThing" in str(exc)
    else:
        raise AssertionError("gitmem.NoSuchThing resolved")


def test_memory_repo_methods_and_parameters_are_pinned() -> None:
    found: dict[str, str | None] = {}
    for name in dir(MemoryRepo):
        member = inspect.getattr_static(MemoryRepo, name)
        if name.startswith("_"):
            continue
        if isinstance(member, property) or member is None:   # a property or a data attribute
            found[name] = None
            continue
        fn = member.__func__ if isinstance(member, (classmethod, staticmethod)) else member
        found[name] = ", ".join(p for p in inspect.signature(fn).parameters if p not in ("self", "cls"))
    assert found == METHODS


def test_every_public_method_has_a_docstring_and_annotations() -> None:
    for name in METHODS:
        member = inspect.getattr_static(MemoryRepo, name)
        if member is None:   # a data attribute: declared with its type
            assert name in MemoryRepo.__annotations__, name
            continue
        fn = member.fget if isinstance(member, property) else getattr(member, "__func__", member)
        assert fn.__doc__, name
        assert "return" in fn.__annotations__, name


def test_the_version_matches_the_package_metadata() -> None:
    meta = tomllib.loads((ROOT / "pyproject.toml").read_text())
    assert meta["project"]["version"] == gitmem.__version__


def test_importing_gitmem_loads_nothing_heavy() -> None:
    code = ("import sys, gitmem; heavy = {'pygit2', 'ruamel', 'markdown_it', 'unidiff', 'Stemmer', 'gitmem.api'};"
            "print(sorted(m for m in sys.modules if m.split('.')[0] in heavy or m in heavy))")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True).stdout
    assert out.strip() == "[]"



def test_every_install_hint_names_our_distribution() -> None:
    """The name gitmem on the package index belongs to another project: a hint must never install it."""
    import re

    meta = tomllib.loads((ROOT / "pyproject.toml").read_text())
    assert meta["project"]["name"] == "gitmem-agent"
    wrong_hint = re.compile(r"(?:pip|pipx|uv pip|uv tool) install (?:--\S+ )*['\"]?gitmem(?![-\w])")
    checked = 0
    for path in [ROOT / "README.md", ROOT / ".pre-commit-hooks.yaml", *ROOT.glob("hooks/*"),
                 *ROOT.glob("templates/**/*"), *ROOT.glob("gitmem/**/*.py")]:
        if path.is_file():
            checked += 1
            text = path.read_text(encoding="utf-8", errors="replace")
            assert not wrong_hint.search(text), f"{path.relative_to(ROOT)}: {wrong_hint.search(text)}"
    assert checked > 40


def test_memory_repo_is_a_facade_that_delegates_one_to_one() -> None:
    """Each method is a use case's function with the context passed first (``UseCase``), or one written out
    whose body is its docstring and one call of that function passing the context first; MemoryRepo inherits
    from nothing of its own (the use cases are modules, not mixins)."""
    import ast

    from gitmem.api.facade import UseCase

    assert MemoryRepo.__bases__ == (object,)
    names = {"list": "list_memories", "review_reopen": "reopen",   # sedimentation's verbs carry its prefix
             **{f"sediment_{v}": v for v in ("reflect", "reflect_sessions", "like", "distill", "promote",
                                             "set_threshold", "clear", "status", "expire")}}
    own = {"__init__", "open", "init", "head", "recover"}   # opening, and the context's own answers
    declared = 0
    for name in METHODS:
        member = inspect.getattr_static(MemoryRepo, name)
        if isinstance(member, UseCase):
            assert member.function.__module__.startswith("gitmem.api."), name
            assert member.function.__name__ == names.get(name, name), name
            assert next(iter(inspect.signature(member.function).parameters)) == "ctx", name
            declared += 1
    tree = ast.parse((ROOT / "gitmem" / "api" / "repo.py").read_text())
    facade = next(n for n in tree.body if isinstance(n, ast.ClassDef) and n.name == "MemoryRepo")
    written = 0
    for node in facade.body:
        if not isinstance(node, ast.FunctionDef) or node.name in own:
            continue
        body = node.body[1:] if isinstance(node.body[0], ast.Expr) else node.body
        assert len(body) == 1 and isinstance(body[0], ast.Return), node.name
        call = body[0].value
        assert isinstance(call, ast.Call) and isinstance(call.func, ast.Attribute), node.name
        first = call.args[0]
        assert isinstance(first, ast.Attribute) and first.attr == "_ctx", node.name
        assert call.func.attr == names.get(node.name, node.name), node.name
        written += 1
    assert declared + written >= len(METHODS) - len(own) - 2
    assert written <= 1   # harvest: written out to keep ``confine`` (the MCP tool's) off the public surface


def test_a_declared_method_reads_like_a_written_one(tmp_path: Path) -> None:
    """``help()`` and ``inspect`` see a ``UseCase`` method with the function's docstring and parameters,
    the context already passed; called on the class with a repository, it does the same."""
    from datetime import datetime, timezone

    from gitmem.api import recall

    repo = MemoryRepo.init(tmp_path / "mem", datetime(2026, 3, 1, tzinfo=timezone.utc), install_hooks=False)
    bound = repo.recall
    assert bound.__doc__ == recall.recall.__doc__ and bound.__name__ == "recall"
    assert list(inspect.signature(bound).parameters) == list(inspect.signature(recall.recall).parameters)[1:]
    assert list(inspect.signature(MemoryRepo.recall).parameters)[0] == "self"
    assert repo.snapshots() == MemoryRepo.snapshots(repo) == []
