"""The verbs of many machines: ``sync``, ``doctor``, ``repair`` and git's ``merge-driver`` entry."""

from __future__ import annotations

TYPE_CHECKING = False
if TYPE_CHECKING:
    from typing import Any

from gitmem.faces.console import command, emit_json, err, json_flag, now_of, out, repo_of


def _sync_args(p: Any) -> None:
    p.add_argument("remote", nargs="?", metavar="REMOTE", help="the git remote (default: origin, or the only one)")
    json_flag(p)


@command("sync", "fetch, merge (field by field), regenerate and push: one memory on every machine", _sync_args)
def cmd_sync(args: Any) -> int:
    done = repo_of(args).sync(args.remote, now_of(args))
    if args.json:
        emit_json(done.to_json())
        return 0
    words = {"up-to-date": "already in step", "fast-forward": "fast-forwarded", "merged": "merged",
             "pushed": "nothing to merge"}
    out(f"{done.remote}/{done.branch}: {words.get(done.how, done.how)}; pushed {(done.commit or '')[:12]}")
    for name in done.accepted:
        out(f"  review {name} was merged on {done.remote}: recorded as accepted")
    for name in done.reviews:
        out(f"  pushed review branch {name}")
    for tag in done.snapshots:
        out(f"  tagged and pushed {tag}")
    for line in done.settled:
        out(f"  settled by rule: {line}")
    for line in done.warnings:
        err(f"warning: {line}")
    return 0


def _driver_args(p: Any) -> None:
    p.add_argument("base", metavar="BASE", help="the common ancestor's version (git's %%O)")
    p.add_argument("ours", metavar="OURS", help="our version; the merge is written here (git's %%A)")
    p.add_argument("theirs", metavar="THEIRS", help="their version (git's %%B)")
    p.add_argument("path", metavar="PATH", help="the file's path in the repository (git's %%P)")


@command("merge-driver", "git's merge driver for memory documents (registered by init / install merge-driver)",
         _driver_args)
def cmd_merge_driver(args: Any) -> int:
    from pathlib import Path

    from gitmem.api import syncing
    from gitmem.base.errors import ArgumentError

    files = [Path(args.base), Path(args.ours), Path(args.theirs)]
    if not args.path or not all(f.is_file() for f in files[1:]) or files[0].is_dir():
        raise ArgumentError("merge-driver takes the files git names: BASE OURS THEIRS PATH (%O %A %B %P)",
                            hint="git runs it; register it with `gitmem install merge-driver`")
    done = syncing.merge_driver(Path.cwd(), files[0], files[1], files[2], args.path)
    for line in done.conflicts:
        err(f"gitmem merge: {line}")
    return 1 if done.markers else 0


def _doctor_args(p: Any) -> None:
    p.add_argument("--offline", action="store_true", help="skip the checks that reach the remotes")
    json_flag(p)


@command("doctor", "check this clone: hooks, merge driver, line endings, remote, reviews, merges, index",
         _doctor_args)
def cmd_doctor(args: Any) -> int:
    found = repo_of(args).doctor(online=not args.offline)
    if args.json:
        emit_json(found.to_json())
        return 0 if found.ok else 1
    for f in found.findings:
        out(f"{'ok  ' if f.ok else 'FAIL'} {f.name}: {f.detail}")
        if f.fix:
            out(f"     fix: {f.fix}")
    return 0 if found.ok else 1


def _repair_args(p: Any) -> None:
    p.add_argument("paths", nargs="*", metavar="PATH", help="the documents (default: every one with markers)")
    json_flag(p)


@command("repair", "merge properly the memory documents a text merge left with conflict markers", _repair_args)
def cmd_repair(args: Any) -> int:
    done = repo_of(args).repair(args.paths)
    if args.json:
        emit_json(done.to_json())
        return 1 if done.left else 0
    if not done.paths and not done.left:
        out("no memory document needs repair")
    for path in done.paths:
        out(f"merged {path}")
    for line in done.settled:
        out(f"  settled by rule: {line}")
    for path in done.left:
        err(f"left for a person: {path} (both sides changed the same lines of its text)")
    if done.commit:
        out(f"committed {done.commit[:12]}")
    elif done.paths:
        out("staged: conclude the merge with `git commit`, then `gitmem sync`")
    return 1 if done.left else 0


def install_merge_driver(args: Any) -> int:
    """``gitmem install merge-driver``: register the driver in this clone's git config."""
    repo = repo_of(args)
    command_line = repo.install_merge_driver()
    out(f"registered the merge driver gitmem-memory in {repo.root}'s git config: {command_line}")
    return 0
