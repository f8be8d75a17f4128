"""The verbs of the ``gitmem`` command. Each calls the library and prints.

Only the verb that runs imports what it needs: this module is loaded on every
``gitmem`` start, including --help and the pre-commit hooks' fallback.
"""

from __future__ import annotations

TYPE_CHECKING = False
if TYPE_CHECKING:
    from typing import Any

from gitmem.faces.cli import _now, _repo, command, emit_json, err, out, progress_bar

TYPES = ("fact", "preference", "decision", "skill", "error", "emotion", "pattern", "reflection")
DOMAINS = ("user", "self", "relationship", "world", "project")


def _json_flag(p: Any) -> None:
    p.add_argument("--json", action="store_true", help="print JSON for scripts")


def memory_record(m: Any) -> dict[str, Any]:
    from gitmem.engines.importer import export_record

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
    from gitmem.faces.demo import run

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
        from gitmem.engines import working

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
    from gitmem.store import documents

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
    from gitmem.engines import checks
    from gitmem.base.repodir import find_root

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
    from gitmem.faces.githooks import main as hook_main

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
    from gitmem.store.index import Filters

    return Filters(type=args.type, domain=args.domain, tier=args.tier, band=args.band,
                   include_archive=args.everything or args.tier == "archive",
                   include_background=args.everything or args.band in ("background", "fading"))


@command("recall", "find memories by relevance, importance and recency", _recall_args)
def cmd_recall(args: Any) -> int:
    import json
    import sys

    from gitmem.engines import recall
    from gitmem.base.errors import UsageError
    from gitmem.base.repodir import find_root

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
        hidden = "" if args.everything else " (archived and background memories were not searched: add --all)"
        err("no memory matches" + hidden)
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
    from gitmem.store import indexer

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


# --- lifecycle ---------------------------------------------------------------------

def _decay_args(p: Any) -> None:
    p.add_argument("--dry-run", action="store_true", help="show what would change, commit nothing")
    _json_flag(p)


@command("decay", "fold recall hits, recompute bands and tiers, archive what is forgotten (one commit)", _decay_args)
def cmd_decay(args: Any) -> int:
    r = _repo(args).decay(now=_now(args), dry_run=args.dry_run)
    if args.json:
        emit_json({"commit": r.commit, "dry_run": r.dry_run, "examined": r.examined, "accesses_folded": r.accesses_folded,
                   "moves": [{"id": m.id, "change": m.change} for m in r.moves], "archived": list(r.archived)})
        return 0
    for m in r.moves:
        out(f"{m.id}\t{m.change}")
    what = "would change" if r.dry_run else "changed"
    out(f"decay: {r.examined} memories examined, {len(r.moves)} {what}, {len(r.archived)} archived"
        + (f", commit {r.commit[:12]}" if r.commit else " (no commit)"))
    return 0


def _link_args(p: Any) -> None:
    p.add_argument("a", metavar="A")
    p.add_argument("b", metavar="B")
    p.add_argument("--relation", default="related", help="e.g. cause, supports, contradicts, related (default)")
    _json_flag(p)


@command("link", "link memory A to memory B with a typed relation (both ends record it)", _link_args)
def cmd_link(args: Any) -> int:
    w = _repo(args).link(args.a, args.b, args.relation, now=_now(args))
    if args.json:
        emit_json({"commit": w.commit})
    else:
        out(f"linked {args.a} -{args.relation}-> {args.b}" + ("" if w.commit else " (already linked)"))
    return 0


def _graph_args(p: Any) -> None:
    fmt = p.add_mutually_exclusive_group()
    fmt.add_argument("--json", action="store_true")
    fmt.add_argument("--dot", action="store_true", help="Graphviz DOT")
    p.add_argument("--archived", action="store_true", help="include archived memories")


@command("graph", "export the link graph (--json or --dot)", _graph_args)
def cmd_graph(args: Any) -> int:
    g = _repo(args).graph(include_archive=args.archived)
    if args.dot:
        out(g.to_dot().rstrip("\n"))
    elif args.json:
        out(g.to_json())
    else:
        for a, b, r in g.edges:
            out(f"{a} -{r}-> {b}")
        out(f"{len(g.nodes)} linked memories, {len(g.edges)} links")
    return 0


def _why_args(p: Any) -> None:
    p.add_argument("id", metavar="ID")
    _json_flag(p)


@command("why", "where a memory came from, and every commit that touched it", _why_args)
def cmd_why(args: Any) -> int:
    w = _repo(args).why(args.id)
    if args.json:
        emit_json({"id": w.memory.id, "source": w.source, "path": w.memory.path,
                   "history": [s.record() for s in w.steps]})
        return 0
    out(f"{w.memory.id}: {' '.join(w.memory.content.split())[:120]}")
    out(f"source: {w.source or 'unknown'}")
    for s in w.steps:
        out(f"{s.time}  {s.commit[:12]}  {s.event:<24} {s.subject}")
    return 0


def _consolidate_args(p: Any) -> None:
    p.add_argument("--since", default="7d", help="a duration (7d, 12h, 2w) or an ISO date (default 7d)")
    _json_flag(p)


@command("consolidate", "the weekly review: created, reinforced, decayed, archived, promoted, with commits", _consolidate_args)
def cmd_consolidate(args: Any) -> int:
    r = _repo(args).consolidate(args.since, now=_now(args))
    if args.json:
        emit_json({"since": r.since, "counts": r.counts,
                   "commits": [s.record() for s in r.steps]})
        return 0
    out(f"Memory review since {r.since}")
    for kind, n in sorted(r.counts.items()):
        out(f"  {kind}: {n}")
    if r.steps:
        out("Commits (git show ID for details):")
    for s in r.steps:
        out(f"  {s.commit[:12]}  {s.time}  {s.subject}")
    return 0


def _reflect_args(p: Any) -> None:
    p.add_argument("--prompt", action="store_true", help="print a self-reflection prompt for an agent instead")
    p.add_argument("--auto", action="store_true", help="only when reflect_trigger new memories are waiting")
    _json_flag(p)


@command("reflect", "group similar memories into patterns (patterns/, patterns.md)", _reflect_args)
def cmd_reflect(args: Any) -> int:
    repo = _repo(args)
    if args.prompt:
        out(repo.reflection_prompt())
        return 0
    r = repo.reflect(now=_now(args), auto=args.auto)
    if args.json:
        emit_json({"commit": r.commit, "created": list(r.created), "updated": list(r.updated),
                   "consumed": list(r.consumed), "pending": r.pending})
        return 0
    for slug in r.created:
        out(f"new pattern: patterns/{slug}.md")
    for slug in r.updated:
        out(f"verified again: patterns/{slug}.md")
    out(f"reflect: {len(r.consumed)} memories folded into {len(r.created) + len(r.updated)} patterns"
        + (f", commit {r.commit[:12]}" if r.commit else " (no commit)"))
    return 0


def _core_args(p: Any) -> None:
    p.add_argument("--max-chars", type=int, default=None, help="budget (default budgets.core_chars, 10000)")
    _json_flag(p)


@command("load-core", "print the core memories for a session start (whole items within the budget)", _core_args)
def cmd_load_core(args: Any) -> int:
    r = _repo(args).load_core(args.max_chars)
    if args.json:
        emit_json({"text": r.text, "included": list(r.included), "left_out": r.left_out})
    else:
        out(r.text.rstrip("\n"))
    return 0


@command("sync-core", "write HIPPOCAMPUS_CORE.md and regenerate CLAUDE.md Layers 2 and 3 (one commit)", _json_flag)
def cmd_sync_core(args: Any) -> int:
    w = _repo(args).sync_core(now=_now(args))
    if args.json:
        emit_json({"commit": w.commit})
    else:
        out(f"sync-core: commit {w.commit[:12]}" if w.commit else "sync-core: already up to date")
    return 0


def _session_args(p: Any) -> None:
    p.add_argument("action", choices=("start", "end"))
    p.add_argument("--session", help="session id, recorded in the commit trailers")
    _json_flag(p)


@command("session", "session start (report pending work, load core) / session end (keep working notes that matter)", _session_args)
def cmd_session(args: Any) -> int:
    from gitmem.engines import working

    repo = _repo(args)
    if args.action == "end":
        r = working.end(repo, _now(args), args.session)
        if args.json:
            emit_json({"kept": list(r.kept), "dropped": r.dropped, "commit": r.commit})
        else:
            out(f"session end: {len(r.kept)} working notes kept, {r.dropped} dropped"
                + (f", commit {r.commit[:12]}" if r.commit else ""))
        return 0
    pending = repo.pending_reflections()
    leftover = len(working.notes(repo))
    if args.json:
        emit_json({"pending_reflections": pending, "working_notes": leftover,
                   "reflect_due": pending >= repo.cfg.memory.reflect_trigger})
        return 0
    if pending:
        due = " (due: run `gitmem reflect`)" if pending >= repo.cfg.memory.reflect_trigger else ""
        out(f"pending reflections: {pending} new memories no pattern holds yet{due}")
    if leftover:
        out(f"{leftover} working notes from an earlier session are waiting: `gitmem session end` keeps what matters")
    out(repo.load_core().text.rstrip("\n"))
    return 0


def _harvest_args(p: Any) -> None:
    p.add_argument("paths", nargs="+", metavar="PATH", help="transcript files or folders (walked)")
    p.add_argument("--format", dest="fmt", choices=("auto", "claude-code", "openclaw", "jsonl"), default="auto")
    amount = p.add_mutually_exclusive_group()
    amount.add_argument("--signals", type=int, default=20, metavar="N", help="encode at most N signals per session (default 20)")
    amount.add_argument("--whole", action="store_true", help="keep the session summary as one memory instead of signals")
    p.add_argument("--rescan", action="store_true", help="ignore the per-clone cursor and re-read every file")
    _json_flag(p)


@command("harvest", "turn agent transcripts into episodes and memories (one commit per session; secrets reject a session)", _harvest_args)
def cmd_harvest(args: Any) -> int:
    results = _repo(args).harvest(args.paths, args.fmt, args.signals, args.whole, _now(args),
                                  progress_bar("harvest"), args.rescan)
    bad = [r for r in results if r.status in ("rejected", "failed")]
    if args.json:
        emit_json([{"path": r.path, "session": r.session_id, "status": r.status, "commit": r.commit,
                    "episode": r.episode, "created": r.created, "reinforced": r.reinforced, "reason": r.reason}
                   for r in results])
    else:
        for r in results:
            if r.status == "unchanged":
                continue
            detail = f"{r.created} new, {r.reinforced} reinforced -> {r.episode}" if r.status in ("harvested", "updated") else r.reason
            (err if r.status in ("rejected", "failed") else out)(f"{r.status}: {r.path}: {detail}")
        counts: dict[str, int] = {}
        for r in results:
            counts[r.status] = counts.get(r.status, 0) + 1
        out("harvest: " + ", ".join(f"{n} {k}" for k, n in sorted(counts.items())) if counts else "harvest: no transcripts found")
    return 1 if bad else 0


# --- PII ---------------------------------------------------------------------------

def _pii_args(p: Any) -> None:
    # one sub-parser per action: argparse cannot place an optional FILE after
    # options when a required positional comes before it
    actions = p.add_subparsers(dest="action", metavar="ACTION", required=True)
    scan = actions.add_parser("scan", help="print findings (kind, offsets, secret or not)")
    strip = actions.add_parser("strip", help="print the text with PII replaced by typed placeholders")
    for sub in (scan, strip):
        sub.add_argument("file", nargs="?", default="-", metavar="FILE", help="a file, or - for standard input (default)")
    fmt = scan.add_mutually_exclusive_group()
    fmt.add_argument("--json", action="store_true", help="one JSON object per finding")
    fmt.add_argument("--jsonl", action="store_true", help='read {"id","text"} lines, print {"id","findings"} lines')


def _read_input(name: str) -> str:
    import sys

    from gitmem.base.errors import UsageError

    if name == "-":
        return sys.stdin.buffer.read().decode("utf-8", errors="replace")
    from pathlib import Path

    try:
        return Path(name).read_bytes().decode("utf-8", errors="replace")
    except OSError as exc:
        raise UsageError(f"cannot read {name}: {exc.strerror}") from None


def _allowlist(args: Any) -> Any:
    """The repository's allowlist when run inside one; none otherwise."""
    from gitmem.base.errors import NotARepoError

    try:
        repo = _repo(args)
    except NotARepoError:
        return None
    from gitmem.guards.redact import allowlist

    return allowlist(repo.cfg)


@command("pii", "scan text for PII and secrets, or strip PII to typed placeholders", _pii_args)
def cmd_pii(args: Any) -> int:
    import json

    from gitmem.guards import pii

    allow = _allowlist(args)
    text = _read_input(args.file)
    if args.action == "strip":
        import sys

        from gitmem.guards import redact

        sys.stdout.write(redact.strip(text, allow))
        return 0
    if getattr(args, "jsonl", False):
        bad = 0
        for n, line in enumerate(text.splitlines(), 1):
            if not line.strip():
                continue
            try:
                rec = json.loads(line)
                item_id, body = rec["id"], rec["text"]
            except (ValueError, KeyError, TypeError):
                err(f"gitmem: error: line {n}: expected a JSON object with \"id\" and \"text\"; skipped")
                bad += 1
                continue
            found = pii.scan(body if isinstance(body, str) else json.dumps(body), allow)
            out(json.dumps({"id": item_id, "findings": [_finding(f) for f in found]}, ensure_ascii=False))
        return 1 if bad else 0
    found = pii.scan(text, allow)
    if getattr(args, "json", False):
        for f in found:
            out(json.dumps(_finding(f)))
    else:
        for f in found:
            out(f"{pii.describe(text, f)}\t{'secret' if f.secret else 'pii'}")
        out(f"{len(found)} findings")
    return 0


def _finding(f: Any) -> dict[str, Any]:
    return {"kind": f.kind, "start": f.start, "end": f.end, "secret": f.secret}
