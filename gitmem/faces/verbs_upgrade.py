"""The verb of formats: ``gitmem upgrade`` migrates a repository made by an earlier gitmem."""

from __future__ import annotations

TYPE_CHECKING = False
if TYPE_CHECKING:
    from typing import Any

from gitmem.faces.console import command, emit_json, json_flag, now_of, out, repo_of


def _upgrade_args(p: Any) -> None:
    p.add_argument("--check", action="store_true",
                   help="only say whether an upgrade is pending (exit 1 when it is), write nothing")
    json_flag(p)


@command("upgrade", "migrate the repository to this gitmem's format in one commit (git revert undoes it)",
         _upgrade_args)
def cmd_upgrade(args: Any) -> int:
    repo = repo_of(args)
    done = repo.upgrade_pending() if args.check else repo.upgrade(now_of(args))
    if args.json:
        emit_json(done.to_json())
    elif args.check:
        out(f"format {done.before}: upgrade pending ({', '.join(done.paths)})" if done.paths
            else f"format {done.before}: current, nothing to upgrade")
    elif done.commit is None:
        out(f"format {done.before}: current, nothing to upgrade")
    else:
        out(f"upgraded from format {done.before} to {done.after} in commit {done.commit[:12]} "
            f"({', '.join(done.paths)}); `git revert {done.commit[:12]}` undoes it")
    if done.hooks and not args.json and not args.check:
        out(f"installed this gitmem's git hooks in this clone: {', '.join(done.hooks)}")
    return 1 if args.check and done.paths else 0
