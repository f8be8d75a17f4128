"""The verbs of the ``gitmem`` command. Each calls the library and prints."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from gitmem.cli import _now, _repo, command, emit_json, err, out, progress_bar

TYPES = ("fact", "preference", "decision", "skill", "error", "emotion", "pattern", "reflection")
DOMAINS = ("user", "self", "relationship", "world", "project")


def _json_flag(p: Any) -> None:
    p.add_argument("--json", action="store_true", help="print JSON for scripts")


def memory_record(m: Any) -> dict[str, Any]:
    from gitmem.importer import export_record

    rec = export_record(m)
    rec["path"] = m.path
    return rec


# --- init / demo -------------------------------------------------------------------

def _init_args(p: Any) -> None:
    p.add_argument("dir", metavar="DIR", help="folder for the new memory repository")
    p.add_argument("--no-hooks", action="store_true", help="do not install the pre-commit hooks")
    _json_flag(p)


@command("init", "create a memory repository in DIR", _init_args)
def cmd_init(args: Any) -> int:
    from gitmem.api import MemoryRepo

    result = MemoryRepo.init(args.dir, _now(args), install_hooks=not args.no_hooks)
    if args.json:
        emit_json({"path": str(result.path), "created": result.created, "commit": result.commit,
                   "hooks_installed": result.hooks_installed, "message": result.message})
        return 0
    out(result.message)
    if result.created and not result.hooks_installed and not args.no_hooks:
        err("warning: the pre-commit hooks were not installed (is pre-commit installed?); "
            "run `pre-commit install --hook-type pre-commit --hook-type commit-msg` in the repository")
    return 0


def _demo_args(p: Any) -> None:
    p.add_argument("dir", nargs="?", metavar="DIR", help="where to build the demo repository (default: a new temporary folder)")


@command("demo", "build a demo memory repository from a built-in sample and show what gitmem does", _demo_args)
def cmd_demo(args: Any) -> int:
    from gitmem.demo import run

    return run(args.dir, out)


# --- memories ----------------------------------------------------------------------

def _remember_args(p: Any) -> None:
    p.add_argument("text", metavar="TEXT", help="what to remember ('-' reads standard input)")
    p.add_argument("--type", choices=TYPES, help="default: inferred from the text")
    p.add_argument("--domain", choices=DOMAINS, help="default: inferred from the text")
    p.add_argument("--importance", type=float, help="0..1 (default: scored from the text)")
    p.add_argument("--source", help="where it comes from (default: user)")
    p.add_argument("--id", dest="memory_id", help="the memory's id (default: generated)")
    p.add_argument("--tag", dest="tags", action="append", default=[], help="a tag (repeatable)")
    p.add_argument("--no-dedupe", action="store_true", help="always create, never reinforce")
    p.add_argument("--working", action="store_true", help="keep it for this session only (working memory, outside git)")
    _json_flag(p)


@command("remember", "remember TEXT (reinforces a similar memory instead of duplicating it)", _remember_args)
def cmd_remember(args: Any) -> int:
    import sys

    text = sys.stdin.read() if args.text == "-" else args.text
    repo = _repo(args)
    if args.working:
        from gitmem import working

        note = working.add(repo, text, importance=args.importance, type=args.type, domain=args.domain, now=_now(args))
        if args.json:
            emit_json({"id": note.id, "action": "working", "importance": note.importance})
        else:
            out(f"{note.id}\tworking (kept for this session; `gitmem session end` keeps what matters)")
        return 0
    r = repo.remember(text, type=args.type, domain=args.domain, importance=args.importance, source=args.source,
                      memory_id=args.memory_id, tags=args.tags, dedupe=not args.no_dedupe, now=_now(args))
    if args.json:
        emit_json({"id": r.id, "action": r.action, "commit": r.commit, "reason": r.reason,
                   "stripped": list(r.stripped), "memory": memory_record(r.memory)})
        return 0
    out(r.id)
    detail = f"{r.action} {r.memory.type}/{r.memory.domain} importance {r.memory.importance:.2f}"
    if r.action == "reinforced":
        detail += f" (reinforced {r.memory.reinforced}x)"
    if r.stripped:
        detail += f"; PII replaced: {', '.join(r.stripped)}"
    err(detail)
    return 0


def _show_args(p: Any) -> None:
    p.add_argument("id", metavar="ID")
    p.add_argument("--at", metavar="REF", help="as it was at a tag or commit")
    _json_flag(p)


@command("show", "show one memory", _show_args)
def cmd_show(args: Any) -> int:
    from gitmem import documents

    m = _repo(args).show(args.id, at=args.at)
    if args.json:
        emit_json(memory_record(m))
    else:
        out(f"# {m.path}")
        out(documents.render_memory(m).rstrip("\n"))
    return 0


def _list_args(p: Any) -> None:
    p.add_argument("--type", choices=TYPES)
    p.add_argument("--domain", choices=DOMAINS)
    p.add_argument("--archived", action="store_true", help="include archived memories")
    p.add_argument("--at", metavar="REF", help="as it was at a tag or commit")
    _json_flag(p)


@command("list", "list memories", _list_args)
def cmd_list(args: Any) -> int:
    listing = _repo(args).list(type=args.type, domain=args.domain, include_archive=args.archived, at=args.at)
    for problem in listing.problems:
        err(f"warning: skipped unreadable file {problem}")
    if args.json:
        emit_json([memory_record(m) for m in listing.memories])
        return 0
    for m in listing.memories:
        text = " ".join(m.content.split())
        out(f"{m.id}\t{m.type}/{m.domain}\t{m.tier}/{m.band}\t{m.importance:.2f}\t{text[:70]}")
    return 0


def _forget_args(p: Any) -> None:
    p.add_argument("id", metavar="ID")
    _json_flag(p)


@command("forget", "archive a memory (git keeps its history)", _forget_args)
def cmd_forget(args: Any) -> int:
    r = _repo(args).forget(args.id, now=_now(args))
    if args.json:
        emit_json({"id": r.id, "commit": r.commit, "path": r.path})
    else:
        out(f"{r.id} archived to {r.path}" if r.commit else f"{r.id} was already archived")
    return 0


def _import_args(p: Any) -> None:
    p.add_argument("file", metavar="FILE", help="a JSONL file, a MEMORY.md, or a .learnings/ folder")
    p.add_argument("--dedupe", action="store_true", help="reinforce similar memories instead of creating rows")
    _json_flag(p)


@command("import", "import memories in ONE commit (bad lines are reported and skipped)", _import_args)
def cmd_import(args: Any) -> int:
    r = _repo(args).import_file(args.file, dedupe=args.dedupe, now=_now(args), progress=progress_bar("import"))
    for line, reason in r.skipped:
        err(f"{args.file}:{line}: skipped: {reason}")
    if args.json:
        emit_json({"created": r.created, "reinforced": r.reinforced, "unchanged": r.unchanged,
                   "skipped": [{"line": l, "reason": why} for l, why in r.skipped], "commit": r.commit})
    else:
        out(f"imported {r.created} created, {r.reinforced} reinforced, {r.unchanged} unchanged, "
            f"{len(r.skipped)} skipped" + (f" in commit {r.commit[:12]}" if r.commit else " (nothing to commit)"))
    return 0


def _export_args(p: Any) -> None:
    p.add_argument("--format", choices=("jsonl",), default="jsonl")
    p.add_argument("--live", action="store_true", help="leave archived memories out")


@command("export", "print every memory as JSONL (re-importable)", _export_args)
def cmd_export(args: Any) -> int:
    import json

    for rec in _repo(args).export(include_archive=not args.live):
        out(json.dumps(rec, ensure_ascii=False))
    return 0


# --- checks ------------------------------------------------------------------------

def _check_args(p: Any) -> None:
    p.add_argument("what", choices=("config", "pii", "layers", "amplitude"))
    p.add_argument("--range", dest="rev_range", metavar="A..B", help="layers: also check the commits in this range")
    _json_flag(p)


@command("check", "validate config, PII settings, CLAUDE.md layers or the staged amplitude", _check_args)
def cmd_check(args: Any) -> int:
    from gitmem import checks
    from gitmem.repodir import find_root

    if args.what == "config":
        report = checks.check_config(find_root(getattr(args, "repo", None)))
    else:
        report = checks.run(_repo(args), args.what, rev_range=args.rev_range)
    if args.json:
        emit_json({"ok": report.ok, "problems": list(report.problems), "warnings": list(report.warnings)})
    else:
        for w in report.warnings:
            err(f"warning: {w}")
        for p in report.problems:
            out(f"{args.what}: {p}")
        if report.ok:
            out(f"{args.what}: ok")
    return 0 if report.ok else 1


def _hook_args(p: Any) -> None:
    p.add_argument("name", choices=("pii", "secrets", "layers", "layers-msg", "amplitude", "config", "all"))
    p.add_argument("files", nargs="*")


@command("hook", "run a pre-commit hook (used by .pre-commit-config.yaml)", _hook_args)
def cmd_hook(args: Any) -> int:
    from gitmem.hooks import main as hook_main

    return hook_main([args.name, *args.files])


# --- recall ------------------------------------------------------------------------

BANDS = ("core", "active", "background", "fading")
TIERS = ("short", "long", "archive")


def _recall_args(p: Any) -> None:
    p.add_argument("query", nargs="?", metavar="QUERY", help="what to look for (omit with --batch)")
    p.add_argument("-k", type=int, default=10, help="how many results (default 10)")
    p.add_argument("--type", choices=TYPES)
    p.add_argument("--domain", choices=DOMAINS)
    p.add_argument("--tier", choices=TIERS, help="'archive' searches archived memories")
    p.add_argument("--band", choices=BANDS, help="background and fading memories only come back when asked for")
    p.add_argument("--all", dest="everything", action="store_true", help="include archived and background memories")
    p.add_argument("--at", metavar="REF", help="recall memory as it was at a tag or commit")
    p.add_argument("--expand", action="store_true", help="also follow links one hop")
    p.add_argument("--batch", action="store_true", help="read queries from stdin, one per line; print one JSON line per query")
    _json_flag(p)


def _filters(args: Any) -> Any:
    from gitmem.index import Filters

    return Filters(type=args.type, domain=args.domain, tier=args.tier, band=args.band,
                   include_archive=args.everything or args.tier == "archive",
                   include_background=args.everything or args.band in ("background", "fading"))


@command("recall", "find memories by relevance, importance and recency", _recall_args)
def cmd_recall(args: Any) -> int:
    import json
    import sys

    from gitmem import recall
    from gitmem.errors import UsageError
    from gitmem.repodir import find_root

    if args.k < 1 or args.k > 1000:
        raise UsageError("-k must be between 1 and 1000")
    root = find_root(getattr(args, "repo", None))
    if args.batch:
        queries = [line.strip() for line in sys.stdin if line.strip()]
        for q, found in recall.recall_many(root, queries, args.k, _filters(args), args.at, args.expand, _now(args)):
            out(json.dumps({"query": q, "results": [r.record() for r in found]}, ensure_ascii=False))
        return 0
    if not args.query:
        raise UsageError("recall needs a QUERY (or --batch with queries on stdin)")
    found = recall.recall(root, args.query, args.k, _filters(args), args.at, args.expand, _now(args))
    if args.json:
        emit_json([r.record() for r in found])
        return 0
    if not found:
        err("no memory matches")
    for r in found:
        text = " ".join(r.content.split())
        via = f"  ({r.via})" if r.via else ""
        out(f"{r.id}\t{r.score:.3f}\t{r.type}/{r.domain}\t{r.importance:.2f}\t{r.tier}/{r.band}\t{r.path}{via}\n    {text[:200]}")
    return 0


def _index_args(p: Any) -> None:
    p.add_argument("action", choices=("rebuild", "status"))
    _json_flag(p)


@command("index", "rebuild or inspect the derived recall index (.git/gitmem/index.sqlite)", _index_args)
def cmd_index(args: Any) -> int:
    from gitmem import indexer

    repo = _repo(args)
    if args.action == "rebuild":
        index = indexer.rebuild_file(repo.git, repo.head)
    else:
        index = indexer.open_synced(repo.git, repo.head)
    info = {"rows": index.count(), "commit": index.get_meta("commit"), "path": str(indexer.index_file(repo.git))}
    index.close()
    if args.json:
        emit_json(info)
    else:
        out(f"{info['rows']} memories indexed at commit {(info['commit'] or '-')[:12]} ({info['path']})")
    return 0
