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
    p.add_argument("--confirm", action="store_true", help="rewrite the history (without it: a dry run)")
    json_flag(p)


@command("purge", "rewrite every branch and tag holding a leaked value with its placeholder", _purge_args)
def cmd_purge(args: Any) -> int:
    from gitmem.base.errors import UsageError

    result = repo_of(args).purge(args.value, args.finding, args.confirm, now_of(args))
    if args.json:
        emit_json(result.to_json())
    else:
        _summary(result)
    if not result.applied and result.commits:
        flag = "--value VALUE" if args.value is not None else f"--finding {args.finding}"
        raise UsageError("purge needs --confirm; nothing was rewritten", hint=f"gitmem purge {flag} --confirm")
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
        out(f"gitmem never pushes; {then}force-update these remotes yourself:")
        for remote in result.remotes:
            out(f"  {remote.remote}: {', '.join(ref for ref, _ in remote.refs)}")
            out(f"    {remote.command()}")
    else:
        out("no remote is configured: nothing to force-update")
    if result.applied:
        out("every other clone must re-clone: a fetch or pull from an old copy brings the value back")
