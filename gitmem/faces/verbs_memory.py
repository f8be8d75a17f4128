"""The verbs that create, show and change memories: init, demo, remember, show, list, forget, import, export."""

from __future__ import annotations

TYPE_CHECKING = False
if TYPE_CHECKING:
    from typing import Any

from gitmem.faces.console import command, emit_json, err, json_flag, now_of, out, progress_bar, repo_of
from gitmem.faces.console import choices

# --- init / demo -------------------------------------------------------------------

def _init_args(p: Any) -> None:
    p.add_argument("dir", metavar="DIR", nargs="?", default=None,
                   help="folder for the new memory repository, or a clone of one to set up (default: the current folder)")
    p.add_argument("--no-hooks", action="store_true", help="do not install the pre-commit hooks")
    p.add_argument("--pre-commit", dest="pre_commit", action="store_true",
                   help="install the hooks through the pre-commit framework (.pre-commit-config.yaml), "
                        "not gitmem's own light scripts (needs the pre-commit extra: gitmem-agent[pre-commit])")
    json_flag(p)


@command("init", "create a memory repository in DIR (default: here), or set up a clone of one", _init_args)
def cmd_init(args: Any) -> int:
    from gitmem.api import MemoryRepo

    framework = args.pre_commit and not args.no_hooks
    import os

    result = MemoryRepo.init(args.dir or os.getcwd(), now_of(args), install_hooks=not args.no_hooks and not framework).setup
    assert result is not None  # init always records what it did
    if framework:
        from dataclasses import replace

        from gitmem.api import precommit

        stages = precommit.install(result.path)
        result = replace(result, hooks_installed=True,
                         message=f"{result.message}; pre-commit installed its hooks ({', '.join(stages)})")
    if args.json:
        emit_json(result.to_json())
        return 0
    out(result.message)
    if result.created and not result.hooks_installed and not args.no_hooks:
        err("warning: gitmem's git hooks were not installed: a pre-commit or commit-msg hook that is not "
            "gitmem's is in the way; move it aside and run `gitmem init` in the repository again")
    return 0


def _demo_args(p: Any) -> None:
    p.add_argument("dir", nargs="?", metavar="DIR", help="where to build the demo repository (default: a new temporary folder)")


@command("demo", "build a demo memory repository from a built-in sample and show what gitmem does", _demo_args)
def cmd_demo(args: Any) -> int:
    from gitmem.faces.demo import run

    return run(args.dir, out)



# --- memories ----------------------------------------------------------------------

def _remember_args(p: Any) -> None:
    p.add_argument("text", metavar="TEXT", nargs="?", help="what to remember ('-' reads standard input)")
    p.add_argument("--content", metavar="TEXT", help="the same as TEXT (the flag the DNA memory scripts use)")
    p.add_argument("--type", choices=choices("type"), help="default: inferred from the text")
    p.add_argument("--domain", choices=choices("domain"), help="default: inferred from the text")
    p.add_argument("--importance", type=float, help="0..1 (default: scored from the text)")
    p.add_argument("--source", help="where it comes from (default: user)")
    p.add_argument("--id", dest="memory_id", help="the memory's id (default: generated)")
    p.add_argument("--tag", dest="tags", action="append", default=[], help="a tag (repeatable)")
    p.add_argument("--no-dedupe", action="store_true", help="always create, never reinforce")
    p.add_argument("--working", action="store_true", help="keep it for this session only (working memory, outside git)")
    p.add_argument("--project", metavar="NAME|ID|DIR",
                   help="the project a project or world memory belongs to (user, self, relationship stay global)")
    json_flag(p)


def _stdin_text(cap: int) -> str:
    """Standard input as text, read no further than the content cap (an endless pipe ends with an error)."""
    import io
    import sys

    from gitmem.api.clone import read_capped
    from gitmem.base.errors import ValidationError

    stream = getattr(sys.stdin, "buffer", None)
    if stream is None:   # a text stream put in place of stdin (an embedding program): a character is >= 1 byte
        stream = io.BytesIO(sys.stdin.read(cap + 1).encode("utf-8", "surrogateescape"))
    data = read_capped(stream, cap, "memory text on standard input", "sediment.max_content_bytes")
    try:
        return data.decode("utf-8")
    except UnicodeDecodeError as exc:
        raise ValidationError(f"memory text on standard input is not UTF-8 (byte {exc.start})",
                              hint="send UTF-8 text") from None


@command("remember", "remember TEXT (reinforces a similar memory instead of duplicating it)", _remember_args)
def cmd_remember(args: Any) -> int:
    from gitmem.base.errors import ArgumentError

    if (args.text is None) == (args.content is None):
        raise ArgumentError("give what to remember once: as TEXT or as --content TEXT",
                            hint='gitmem remember "I prefer small pull requests"')
    args.text = args.text if args.text is not None else args.content
    repo = repo_of(args)
    text = _stdin_text(repo.cfg.sediment.max_content_bytes) if args.text == "-" else args.text
    if args.working:
        note = repo.note(text, importance=args.importance, type=args.type, domain=args.domain, now=now_of(args))
        if args.json:
            emit_json(note.to_json())
        else:
            out(f"{note.id}\tworking (kept for this session; `gitmem session end` keeps what matters)")
        return 0
    r = repo.remember(text, type=args.type, domain=args.domain, importance=args.importance, source=args.source,
                      memory_id=args.memory_id, tags=args.tags, dedupe=not args.no_dedupe, now=now_of(args),
                      project=args.project)
    if args.json:
        emit_json(r.to_json())
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
    json_flag(p)


@command("show", "show one memory", _show_args)
def cmd_show(args: Any) -> int:
    from gitmem.api.memories import render

    repo = repo_of(args)
    m = repo.show(args.id, at=args.at)
    effective = repo.effective_importance(m, now_of(args))
    if args.json:
        emit_json({**m.to_json(), "effective_importance": effective})
    else:
        out(f"# {m.path}  (importance {m.importance:.2f}, effective now {effective:.2f})")
        out(render(m).rstrip("\n"))
    return 0


def _list_args(p: Any) -> None:
    p.add_argument("--type", choices=choices("type"))
    p.add_argument("--domain", choices=choices("domain"))
    p.add_argument("--archived", action="store_true", help="include archived memories")
    p.add_argument("--at", metavar="REF", help="as it was at a tag or commit")
    json_flag(p)


@command("list", "list memories", _list_args)
def cmd_list(args: Any) -> int:
    repo = repo_of(args)
    listing = repo.list(type=args.type, domain=args.domain, include_archive=args.archived, at=args.at)
    now = now_of(args)
    if args.json:
        emit_json([{**m.to_json(), "effective_importance": repo.effective_importance(m, now)} for m in listing.memories])
        return 0
    for m in listing.memories:
        text = " ".join(m.content.split())
        effective = repo.effective_importance(m, now)
        out(f"{m.id}\t{m.type}/{m.domain}\t{m.tier}/{m.band}\t{m.importance:.2f} -> {effective:.2f}\t{text[:70]}")
    return 0


def _forget_args(p: Any) -> None:
    p.add_argument("id", metavar="ID")
    json_flag(p)


@command("forget", "archive a memory (git keeps its history)", _forget_args)
def cmd_forget(args: Any) -> int:
    r = repo_of(args).forget(args.id, now=now_of(args))
    if args.json:
        emit_json(r.to_json())
    else:
        out(f"{r.id} archived to {r.path}" if r.commit else f"{r.id} was already archived")
    return 0


def _import_args(p: Any) -> None:
    p.add_argument("file", metavar="FILE", help="a JSONL file, a MEMORY.md, or a .learnings/ folder")
    p.add_argument("--dedupe", action="store_true", help="reinforce similar memories instead of creating rows")
    json_flag(p)


@command("import", "import memories in ONE commit (bad lines are reported and skipped)", _import_args)
def cmd_import(args: Any) -> int:
    r = repo_of(args).import_file(args.file, dedupe=args.dedupe, now=now_of(args), progress=progress_bar("import"))
    for line, reason in r.skipped:
        err(f"{args.file}:{line}: skipped: {reason}")
    if args.json:
        emit_json(r.to_json())
    else:
        out(f"imported {r.created} created, {r.reinforced} reinforced, {r.unchanged} unchanged, "
            f"{len(r.skipped)} skipped" + (f" in commit {r.commit[:12]}" if r.commit else " (nothing to commit)"))
    for tier, count, cap in r.over_caps:
        err(f"warning: {count} {tier}-term memories, over max_{tier}_term ({cap}) in gitmem.yaml")
    if r.over_caps:
        held = (f"; more than {r.review_limit} at once, so decay will open an archive review instead of archiving"
                if r.would_archive > r.review_limit else "")
        err(f"warning: the next decay would archive {r.would_archive} memories{held}")
        err("hint: raise memory.max_short_term / max_long_term in gitmem.yaml to keep them live")
    return 0


def _export_args(p: Any) -> None:
    p.add_argument("--format", choices=("jsonl",), default="jsonl")
    p.add_argument("--live", action="store_true", help="leave archived memories out")
    json_flag(p)


@command("export", "print every memory as JSONL (re-importable), or as one JSON array with --json", _export_args)
def cmd_export(args: Any) -> int:
    import json

    records = repo_of(args).export(include_archive=not args.live)
    if args.json:
        emit_json(list(records))
        return 0
    for rec in records:
        out(json.dumps(rec, ensure_ascii=False))
    return 0


