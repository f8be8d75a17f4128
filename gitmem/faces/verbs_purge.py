"""The verb that removes a leak from history: purge."""

from __future__ import annotations

TYPE_CHECKING = False
if TYPE_CHECKING:
    from typing import Any

from gitmem.faces.console import command, emit_json, json_flag, now_of, out, repo_of


def _purge_args(p: Any) -> None:
    what = p.add_mutually_exclusive_group(required=True)
    what.add_argument("--value", metavar="VALUE", help="the leaked text, exactly as it was committed")
    what.add_argument("--finding", metavar="ID", help="a finding id as `gitmem pii scan` prints it")
    what.add_argument("--remote", metavar="REMOTE", help="after a purge: force-update the refs of REMOTE that still "
                                                         "hold the purged history (shows them and asks first)")
    p.add_argument("--confirm", action="store_true", help="rewrite the history (without it: a dry run)")
    p.add_argument("--yes", action="store_true", help="with --remote: force-update without asking (for scripts)")
    json_flag(p)


@command("purge", "rewrite every branch and tag holding a leaked value with its placeholder", _purge_args)
def cmd_purge(args: Any) -> int:
    from gitmem.base.errors import UsageError

    if args.remote is not None:
        return _purge_remote(args)
    result = repo_of(args).purge(args.value, args.finding, args.confirm, now_of(args))
    if args.json:
        emit_json(result.to_json())
    else:
        _summary(result)
    if not result.applied and result.commits:
        flag = "--value VALUE" if args.value is not None else f"--finding {args.finding}"
        raise UsageError("purge needs --confirm; nothing was rewritten", hint=f"gitmem purge {flag} --confirm")
    return 0


def _purge_remote(args: Any) -> int:
    """``purge --remote REMOTE``: list what would be force-updated, ask (or ``--yes``), force-update."""
    import sys

    from gitmem.base.errors import ArgumentError

    repo = repo_of(args)
    found = repo.purge_remote(args.remote, False, now_of(args))
    if not found.fixes:
        if args.json:
            emit_json(found.to_json())
        else:
            out(f"{args.remote} holds none of the history this clone purged: nothing to force-update")
        return 0
    if not args.json:
        out(f"gitmem purge --remote {args.remote} will force-update {len(found.fixes)} ref(s) there, each only "
            "if it still holds the id shown:")
        for fix in found.fixes:
            out(f"  {fix.shown()}")
    if not args.yes:
        if not sys.stdin.isatty():
            raise ArgumentError(f"purge --remote force-updates {args.remote} and asks first; there is no terminal "
                                "to ask on and nothing was pushed",
                                hint=f"run it on a terminal, or add --yes: gitmem purge --remote {args.remote} --yes")
        answer = input(f"force-update these refs on {args.remote}? [y/N] ").strip().lower()
        if answer not in ("y", "yes"):
            out("nothing was pushed")
            return 1
    done = repo.purge_remote(args.remote, True, now_of(args))
    if args.json:
        emit_json(done.to_json())
    else:
        out(f"force-updated {len(done.fixes)} ref(s) on {args.remote}; `gitmem sync` works again. The server may "
            "keep the old objects until it collects garbage, and every other clone must re-clone")
    return 0


def _summary(result: Any) -> None:
    verb = "rewrote" if result.applied else "would rewrite"
    if not result.commits:
        out(f"nothing to purge: no branch, tag or reflog holds that {result.kind} ({result.id})")
        return
    out(f"purge {result.id}: {verb} {len(result.commits)} commits, {len(result.refs)} refs; "
        f"the {result.kind} becomes {result.placeholder}")
    for ref in result.refs:
        out(f"  {ref.name}: {ref.old[:12]} -> {ref.new[:12]}")
    out("commits (old -> new):")
    for old, new in result.commits:
        out(f"  {old} -> {new}")
    if result.remotes:
        then = "then " if not result.applied else ""
        out(f"gitmem pushes nothing by itself; {then}run `gitmem purge --remote REMOTE` (it asks first), "
            "or force-update these remotes yourself:")
        for remote in result.remotes:
            out(f"  {remote.remote}: {', '.join(ref for ref, _ in remote.refs)}")
            out(f"    {remote.command()}")
    else:
        out("no remote is configured: nothing to force-update")
    if result.applied:
        out("every other clone must re-clone: a fetch or pull from an old copy brings the value back")
