"""The verbs that read and keep memory: recall, index, decay, link, graph, why, consolidate, reflect,
load-core, sync-core, session, harvest."""

from __future__ import annotations

TYPE_CHECKING = False
if TYPE_CHECKING:
    from typing import Any

from gitmem.faces.console import command, cwd, emit_json, err, json_flag, now_of, out, progress_bar, repo_of, root_of, stdin
from gitmem.faces.console import choices
from gitmem.faces import quickargs

# --- recall ------------------------------------------------------------------------



def _recall_args(p: Any) -> None:
    p.add_argument("query", nargs="?", metavar="QUERY", help="what to look for (omit with --batch)")
    p.add_argument("-k", type=int, default=10, help="how many results (default 10)")
    p.add_argument("--type", choices=choices("result_type"),
                   help="'episode' searches harvested sessions (by default up to 3 come after the memories)")
    p.add_argument("--domain", choices=choices("domain"))
    p.add_argument("--tier", choices=_tiers(), help="'archive' searches archived memories")
    p.add_argument("--band", choices=choices("band"), help="background and fading memories only come back when asked for")
    p.add_argument("--all", dest="everything", action="store_true", help="include archived and background memories")
    p.add_argument("--at", metavar="REF", help="recall memory as it was at a tag or commit")
    p.add_argument("--expand", action="store_true", help="also memories sharing rare terms with the best hits, and links one hop")
    p.add_argument("--batch", action="store_true", help="read queries from stdin, one per line; print one JSON line per query")
    _project_args(p)
    json_flag(p)


def _tiers() -> list[str]:
    return [t for t in choices("tier") if t != "working"]


RECALL_QUICK = quickargs.Spec(
    flags={"--all": "everything", "--expand": "expand", "--batch": "batch", "--all-projects": "all_projects",
           "--json": "json"},
    values={"-k": ("k", int, None), "--type": ("type", None, lambda: choices("result_type")),
            "--domain": ("domain", None, lambda: choices("domain")), "--tier": ("tier", None, _tiers),
            "--band": ("band", None, lambda: choices("band")), "--at": ("at", None, None),
            "--project": ("project", None, None)},
    positional="query", exclusive=[("project", "all_projects")],
    defaults={"query": None, "k": 10, "type": None, "domain": None, "tier": None, "band": None, "everything": False,
              "at": None, "expand": False, "batch": False, "project": None, "all_projects": False, "json": False})
"""``recall``'s arguments as ``quickargs`` reads them in a recall process: what ``_recall_args`` declares."""
QUICK = {"recall": RECALL_QUICK}
"""The verbs whose plain arguments ``cli.main`` reads without argparse."""


def _project_args(p: Any) -> None:
    scope = p.add_mutually_exclusive_group()
    scope.add_argument("--project", metavar="NAME|ID|DIR",
                       help="global memories and this project's (default: the project of the working folder, when known)")
    scope.add_argument("--all-projects", action="store_true", help="memories of every project")


def _project(args: Any) -> str | None:
    """``--project`` as given (an id or a name), or the folder it names, from the caller's working folder."""
    import os

    given: str | None = args.project or None
    if given is None or not os.path.isdir(os.path.join(cwd(), given)):
        return given
    return os.path.join(cwd(), given)


def _here(args: Any) -> str | None:
    """The folder whose project scopes a recall or load-core: the working one, unless a flag says otherwise."""
    return None if args.project or args.all_projects else cwd()


def _filters(args: Any) -> Any:
    from gitmem.api.recall import filters

    return filters(args.type, args.domain, args.tier, args.band, include_archive=args.everything,
                   include_background=args.everything, project=_project(args))


@command("recall", "find memories by relevance, importance and recency", _recall_args)
def cmd_recall(args: Any) -> int:
    from gitmem.api import recall
    from gitmem.base.errors import ArgumentError

    from gitmem.api.clone import root_path

    recall.check_k(args.k)
    root = root_path(getattr(args, "repo", None))   # a string: a recall process loads no pathlib
    if args.batch:
        import json

        queries = [line.strip() for line in stdin() if line.strip()]
        for q, found in recall.recall_many(root, queries, args.k, _filters(args), args.at, args.expand, now_of(args),
                                           _here(args)):
            out(json.dumps({"query": q, "results": [r.to_json() for r in found]}, ensure_ascii=False))
        return 0
    if not args.query:
        raise ArgumentError("recall needs a QUERY (or --batch with queries on stdin)")
    found = recall.recall_at(root, args.query, args.k, _filters(args), args.at, args.expand, now_of(args), _here(args))
    if args.json:
        emit_json([r.to_json() for r in found])
        return 0
    if not found:
        hidden = "" if args.everything else " (archived and background memories were not searched: add --all)"
        err("no memory matches" + hidden)
    for r in found:
        text = " ".join(r.content.split())
        if r.type == "episode":
            out(f"episode\t{r.score:.3f}\t{r.path}\n    {text[:200]}")
            continue
        via = f"  ({r.via})" if r.via else ""
        out(f"{r.id}\t{r.score:.3f}\t{r.type}/{r.domain}\t{r.importance:.2f}\t{r.tier}/{r.band}\t{r.path}{via}\n    {text[:200]}")
    return 0


def _index_args(p: Any) -> None:
    p.add_argument("action", choices=("rebuild", "status"))
    json_flag(p)


@command("index", "rebuild or inspect the derived recall index (.git/gitmem/index.sqlite)", _index_args)
def cmd_index(args: Any) -> int:
    info = repo_of(args).index(rebuild=args.action == "rebuild")
    if args.json:
        emit_json(info.to_json())
    else:
        out(f"{info.rows} memories indexed at commit {(info.commit or '-')[:12]} ({info.path})")
    return 0



# --- lifecycle ---------------------------------------------------------------------

def _decay_args(p: Any) -> None:
    p.add_argument("--dry-run", action="store_true", help="show what would change, commit nothing")
    json_flag(p)


@command("decay", "fold recall hits, recompute bands and tiers, archive what is forgotten (one commit)", _decay_args)
def cmd_decay(args: Any) -> int:
    r = repo_of(args).decay(now=now_of(args), dry_run=args.dry_run)
    if args.json:
        emit_json(r.to_json())
        return 0
    for m in r.moves:
        out(f"{m.id}\t{m.change}")
    what = "would change" if r.dry_run else "changed"
    out(f"decay: {r.examined} memories examined, {len(r.moves)} moves, {r.files_changed} files {what}, "
        f"{len(r.archived)} archived" + (f", commit {r.commit[:12]}" if r.commit else " (no commit)"))
    if r.held:
        where = f"held for review on {r.review}" if r.review else "would be held for review"
        out(f"decay: {len(r.held)} memories would be archived at once, more than {r.limit} "
            f"(memory.max_change_share): {where}")
        if r.review:
            out(f"hint: gitmem review show {r.review}   (accept archives them, reject keeps them)")
    for branch in r.superseded:
        out(f"decay: superseded the older archive review {branch}")
    return 0


def _link_args(p: Any) -> None:
    p.add_argument("a", metavar="A")
    p.add_argument("b", metavar="B")
    p.add_argument("--relation", default="related", help="e.g. cause, supports, contradicts, related (default)")
    json_flag(p)


@command("link", "link memory A to memory B with a typed relation (both ends record it)", _link_args)
def cmd_link(args: Any) -> int:
    w = repo_of(args).link(args.a, args.b, args.relation, now=now_of(args))
    if args.json:
        emit_json(w.to_json())
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
    g = repo_of(args).graph(include_archive=args.archived)
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
    json_flag(p)


@command("why", "where a memory came from, and every commit that touched it", _why_args)
def cmd_why(args: Any) -> int:
    w = repo_of(args).why(args.id)
    if args.json:
        emit_json(w.to_json())
        return 0
    out(f"{w.memory.id}: {' '.join(w.memory.content.split())[:120]}")
    out(f"source: {w.source or 'unknown'}")
    for s in w.steps:
        out(f"{s.time}  {s.commit[:12]}  {s.event:<24} {s.subject}")
    return 0


def _consolidate_args(p: Any) -> None:
    p.add_argument("--since", default="7d", help="a duration (7d, 12h, 2w) or an ISO date (default 7d)")
    json_flag(p)


@command("consolidate", "the weekly review: created, reinforced, decayed, archived, promoted, with commits", _consolidate_args)
def cmd_consolidate(args: Any) -> int:
    r = repo_of(args).consolidate(args.since, now=now_of(args))
    if args.json:
        emit_json(r.to_json())
        return 0
    out(f"Memory review since {r.since}")
    for kind, n in sorted(r.counts.items()):
        out(f"  {kind}: {n}")
    if not r.counts:
        out("  no memory changed")
    if r.steps:
        by_event = ", ".join(f"{event} {n}" for event, n in sorted(r.commits.items()))
        out(f"{len(r.steps)} commits ({by_event}; git show ID for details):")
    for s in r.steps:
        out(f"  {s.commit[:12]}  {s.time}  {s.subject}")
    return 0


def _reflect_args(p: Any) -> None:
    p.add_argument("--prompt", action="store_true", help="print a self-reflection prompt for an agent instead")
    p.add_argument("--auto", action="store_true", help="only when reflect_trigger new memories are waiting")
    json_flag(p)


@command("reflect", "group similar memories into patterns (patterns/, patterns.md)", _reflect_args)
def cmd_reflect(args: Any) -> int:
    repo = repo_of(args)
    if args.prompt:
        out(repo.reflection_prompt())
        return 0
    r = repo.reflect(now=now_of(args), auto=args.auto)
    if args.json:
        emit_json(r.to_json())
        return 0
    if r.review or (r.commit is None and r.limit and len(r.consumed) > r.limit):
        out(f"reflect: {len(r.consumed)} memories would be folded at once, more than {r.limit} "
            f"(memory.max_change_share): " + (f"held for review on {r.review}" if r.review else "nothing written"))
        if r.review:
            out(f"hint: gitmem review show {r.review}   (accept folds them, reject keeps them apart)")
        for branch in r.superseded:
            out(f"reflect: superseded the older fold review {branch}")
        return 0
    for slug in r.created:
        out(f"new pattern: patterns/{slug}.md")
    for slug in r.updated:
        out(f"verified again: patterns/{slug}.md")
    out(f"reflect: {len(r.consumed)} memories folded into {len(r.created) + len(r.updated)} patterns"
        + (f", commit {r.commit[:12]}" if r.commit else " (no commit)"))
    return 0


def _core_args(p: Any) -> None:
    import argparse

    p.add_argument("--max-chars", type=int, default=None, help="budget (default budgets.core_chars, 10000)")
    _project_args(p)
    json_flag(p)
    p.add_argument("--session-start", action="store_true", help=argparse.SUPPRESS)   # the hook's text, for the daemon
    p.add_argument("--no-mark", action="store_true", help=argparse.SUPPRESS)         # install's trial run


@command("load-core", "print the core memories for a session start (whole items within the budget)", _core_args)
def cmd_load_core(args: Any) -> int:
    if args.session_start:   # what the SessionStart hook prints, asked of a running daemon
        from pathlib import Path

        from gitmem.faces.agenthooks import session_start_text

        out(session_start_text(repo_of(args), Path(cwd()), mark=not args.no_mark).rstrip("\n"))
        return 0
    r = repo_of(args).load_core(args.max_chars, project=_project(args), here=_here(args))
    if args.json:
        emit_json(r.to_json())
    else:
        out(r.text.rstrip("\n"))
    return 0


@command("sync-core", "write HIPPOCAMPUS_CORE.md and regenerate CLAUDE.md Layers 2 and 3 (one commit)", json_flag)
def cmd_sync_core(args: Any) -> int:
    w = repo_of(args).sync_core(now=now_of(args))
    if args.json:
        emit_json(w.to_json())
    else:
        out(f"sync-core: commit {w.commit[:12]}" if w.commit else "sync-core: already up to date")
    return 0


def _session_args(p: Any) -> None:
    p.add_argument("action", choices=("start", "end"))
    p.add_argument("--session", help="session id, recorded in the commit trailers")
    json_flag(p)


@command("session", "session start (report pending work, load core) / session end (keep working notes that matter)", _session_args)
def cmd_session(args: Any) -> int:
    repo = repo_of(args)
    if args.action == "end":
        r = repo.session_end(now_of(args), args.session)
        if args.json:
            emit_json(r.to_json())
        else:
            out(f"session end: {len(r.kept)} working notes kept, {r.dropped} dropped"
                + (f", commit {r.commit[:12]}" if r.commit else ""))
        return 0
    pending = repo.pending_reflections()
    leftover = len(repo.notes())
    if args.json:
        emit_json({"pending_reflections": pending, "working_notes": leftover,
                   "reflect_due": pending >= repo.cfg.memory.reflect_trigger})
        return 0
    if pending:
        due = " (due: run `gitmem reflect`)" if pending >= repo.cfg.memory.reflect_trigger else ""
        out(f"pending reflections: {pending} new memories no pattern holds yet{due}")
    if leftover:
        out(f"{leftover} working notes from an earlier session are waiting: `gitmem session end` keeps what matters")
    from pathlib import Path

    out(repo.load_core(here=Path(cwd())).text.rstrip("\n"))
    return 0


def _harvest_args(p: Any) -> None:
    p.add_argument("paths", nargs="+", metavar="PATH", help="transcript files or folders (walked)")
    p.add_argument("--format", dest="fmt", choices=("auto", "claude-code", "openclaw", "jsonl"), default="auto")
    history_args(p)
    p.add_argument("--per-session", type=int, default=20, metavar="N",
                   help="keep at most N signals of one session (default 20; what --signals meant before 0.2)")
    p.add_argument("--summary", action="store_true", help="keep each session's summary as one memory instead of its signals")
    p.add_argument("--rescan", action="store_true", help="ignore the per-clone cursor and re-read every file")
    json_flag(p)


def history_args(p: Any, default: str = "") -> None:
    """The seed's --signals N | --whole: how much of the conversation history a harvest takes."""
    amount = p.add_mutually_exclusive_group()
    amount.add_argument("--signals", type=int, default=None, metavar="N",
                        help="take only the last N signals of all the sessions, newest first; older sessions are "
                             f"marked read{default}")
    amount.add_argument("--whole", action="store_true",
                        help="take the whole conversation history: every signal of every session, no per-session cap")


def history_amount(args: Any, per_session: int) -> tuple[int | None, int | None]:
    """(per-session cap or None for none, last N signals or None for all) for --signals N | --whole."""
    from gitmem.base.errors import UsageError

    if args.signals is not None and args.signals < 0:
        raise UsageError("--signals must be 0 or more", hint="give how many of the latest signals to take, e.g. --signals 100")
    return (None, None) if args.whole else (per_session, args.signals)


@command("harvest", "turn agent transcripts into episodes and memories (one commit per session; secrets reject a session)", _harvest_args)
def cmd_harvest(args: Any) -> int:
    from gitmem.base.errors import UsageError

    if args.summary and (args.whole or args.signals is not None):
        raise UsageError("--summary keeps one memory per session; it does not go with --signals or --whole")
    per_session, last = history_amount(args, args.per_session)
    results = repo_of(args).harvest(args.paths, args.fmt, per_session, args.summary, now_of(args),
                                    progress_bar("harvest"), args.rescan, last=last)
    bad = [r for r in results if r.status in ("rejected", "failed")]
    if args.json:
        emit_json([r.to_json() for r in results])
    else:
        for r in results:
            for warning in r.warnings:
                err(f"warning: {warning}")
            if r.status == "unchanged":
                continue
            detail = f"{r.created} new, {r.reinforced} reinforced -> {r.episode}" if r.status in ("harvested", "updated") else r.reason
            if r.inbox:
                detail += f"; {r.inbox} to keep or drop: gitmem review show {r.inbox_branch}"
            (err if r.status in ("rejected", "failed") else out)(f"{r.status}: {r.path}: {detail}")
            for f in r.findings:
                err(f"  {f.id}\t{f.kind} at line {f.line}\t" + "  |  ".join(f.commands()))
        counts: dict[str, int] = {}
        for r in results:
            counts[r.status] = counts.get(r.status, 0) + 1
        out("harvest: " + ", ".join(f"{n} {k}" for k, n in sorted(counts.items())) if counts else "harvest: no transcripts found")
    return 1 if bad else 0


