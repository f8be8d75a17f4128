"""The verbs of time: snapshot and rollback (drift is ``gitmem check drift``)."""

from __future__ import annotations

TYPE_CHECKING = False
if TYPE_CHECKING:
    from typing import Any

from gitmem.faces.console import command, emit_json, json_flag, now_of, out, repo_of


@command("snapshot", "tag this month's snapshot (gitmem/snapshot/YYYY-MM) on HEAD", json_flag)
def cmd_snapshot(args: Any) -> int:
    snap = repo_of(args).snapshot(now_of(args))
    if args.json:
        emit_json(snap.to_json())
    elif snap.created:
        counts = ", ".join(f"{n} {name}" for name, n in snap.stats.items())
        out(f"tagged {snap.tag} on {snap.commit[:12]} ({counts})")
    else:
        out(f"{snap.month} already has its snapshot: {snap.tag} on {snap.commit[:12]}")
    return 0


def _rollback_args(p: Any) -> None:
    p.add_argument("tag", metavar="TAG", help="a snapshot tag (gitmem/snapshot/YYYY-MM) or any tag or commit")
    p.add_argument("--yes", action="store_true", help="also revert changes to Layers 1 and 4 of CLAUDE.md")
    p.add_argument("--i-am-the-reviewer", dest="reviewer", action="store_true",
                   help="you are the person deciding (needed without a terminal or under an agent)")
    json_flag(p)


@command("rollback", "a new commit whose tree is TAG's (history is kept)", _rollback_args)
def cmd_rollback(args: Any) -> int:
    import sys

    done = repo_of(args).rollback(args.tag, yes=args.yes, interactive=sys.stdin.isatty(),
                                  i_am_the_reviewer=args.reviewer, now=now_of(args))
    if args.json:
        emit_json(done.to_json())
    elif done.commit is None:
        out(f"the tree is already {args.tag}'s: nothing to roll back")
    else:
        out(f"rolled back to {args.tag} ({done.target[:12]}) in commit {done.commit[:12]}: "
            f"{len(done.paths)} file(s) changed")
        for line in done.protected:
            out(f"  reverted {line}")
    return 0
