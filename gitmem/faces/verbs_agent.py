"""The verbs that wire the memory into an agent: ``install claude-code`` (SessionStart and SessionEnd
hooks in Claude Code's settings, an ``@~/`` import in a project's CLAUDE.md) and ``cron install | remove``.

What the hooks run is in ``agenthooks``; reading, merging and writing the files is the use case
``api.integration``. A file gitmem cannot read is refused, never overwritten.
"""

from __future__ import annotations

import os
import sys
from pathlib import Path

from gitmem.faces.console import command, out, repo_of

TYPE_CHECKING = False
if TYPE_CHECKING:
    from typing import Any

# --- install claude-code ----------------------------------------------------------------------

def _install_args(p: Any) -> None:
    p.add_argument("target", choices=("claude-code", "openclaw", "merge-driver"),
                   help="the agent to wire the memory into, or merge-driver: gitmem's git merge driver in this clone")
    p.add_argument("--config", metavar="FILE",
                   help="openclaw: this openclaw.json (default: $OPENCLAW_STATE_DIR/openclaw.json, ~/.openclaw/openclaw.json)")
    where = p.add_mutually_exclusive_group()
    where.add_argument("--user", action="store_true", help="~/.claude/settings.json, or settings.json in $CLAUDE_CONFIG_DIR (the default)")
    where.add_argument("--project", metavar="DIR", help="DIR/.claude/settings.local.json (personal, not committed)")
    where.add_argument("--settings", metavar="FILE", help="this Claude Code settings file")
    p.add_argument("--claude-md", metavar="FILE",
                   help="also import the memory's CLAUDE.md (@~/...) into this project CLAUDE.md")
    p.add_argument("--encoder", nargs="?", const="clone", choices=("clone", "user"),
                   help="also harvest with Claude Code's print mode (claude -p) as the encoder, set in the git config "
                        "of this clone (the default) or of your user; never in gitmem.yaml")
    p.add_argument("--uninstall", action="store_true", help="remove what install added, nothing else")
    from gitmem.faces.verbs_recall import history_args

    history_args(p, "; then harvests the agent's session history (openclaw: by default the last 100 signals, "
                    "as the seed's install; claude-code: only when --signals or --whole is given)")


@command("install", "wire the memory into an agent: claude-code (SessionStart and SessionEnd hooks) or openclaw "
                    "(the core file in openclaw.json's memorySearch.extraPaths)",
         _install_args)
def cmd_install(args: Any) -> int:
    from gitmem.api import integration

    if args.target == "merge-driver":
        from gitmem.faces.verbs_sync import install_merge_driver

        return install_merge_driver(args)
    repo = repo_of(args)
    if args.target == "openclaw":
        return _openclaw(repo, args)
    path = integration.settings_path(args.settings, args.project)
    cwd = Path(args.project).expanduser() if args.project else Path.cwd()
    done = integration.install_claude_code(repo.root, sys.executable, path, cwd, args.uninstall)
    if done.changed:
        out(f"{'removed from' if done.uninstall else 'hooks written to'} {path}")
    else:
        out(f"{path}: {'no gitmem hooks there' if done.uninstall else 'already installed, unchanged'}")
    if not done.uninstall:
        out(f"SessionStart: {done.start_command}")
        out(f"SessionEnd:   {done.end_command} (timeout {done.end_timeout} s; the harvest runs in the background)")
        out(f"checked: the SessionStart hook ran once and printed {done.printed} characters "
            f"(limit {repo.cfg.budgets.core_chars})")
    if args.claude_md:
        md = integration.import_memory(Path(args.claude_md).expanduser(), repo.root, args.uninstall)
        if md.changed:
            out(f"{md.file}: {'import removed' if md.removed else 'imports the memory'} ({md.line})")
        else:
            out(f"{md.file}: {'no import to remove' if md.removed else 'imports the memory already'} ({md.line})")
    if args.encoder:
        _encoder(repo.root, args.encoder, args.uninstall)
    if not args.uninstall and (args.signals is not None or args.whole):
        config = os.environ.get("CLAUDE_CONFIG_DIR")   # Claude Code's own setting for where its files live
        _history(repo, args, (Path(config).expanduser() if config else Path.home() / ".claude") / "projects")
    return 0


def _history(repo: Any, args: Any, folder: Path, default: int | None = None) -> None:
    """Harvest the agent's session history in ``folder``: the last --signals N signals, or --whole; say what."""
    from gitmem.faces.console import now_of, progress_bar
    from gitmem.faces.verbs_recall import history_amount

    if not folder.is_dir():
        out(f"history: no sessions in {folder} yet; the harvest takes them as they come")
        return
    if args.signals is None and not args.whole:
        args.signals = default
    per_session, last = history_amount(args, 20)
    results = repo.harvest([folder], "auto", per_session, False, now_of(args), progress_bar("harvest"), last=last)
    kept = sum(r.created + r.reinforced for r in results)
    counts: dict[str, int] = {}
    for r in results:
        counts[r.status] = counts.get(r.status, 0) + 1
    amount = "the whole history" if last is None else f"the last {last} signals"
    out(f"history: {amount} of {folder}: {kept} signals kept; sessions: "
        + (", ".join(f"{n} {k}" for k, n in sorted(counts.items())) or "none"))


def _openclaw(repo: Any, args: Any) -> int:
    """``install openclaw``: the core file in openclaw.json's memorySearch.extraPaths, the core written."""
    from gitmem.api import integration
    from gitmem.faces.console import now_of

    path = integration.openclaw_config(args.config)
    done = integration.install_openclaw(repo.root, path, args.uninstall)
    if done.uninstall:
        out(f"{path}: {'removed ' + done.core + ' from memorySearch.extraPaths' if done.changed else 'no gitmem entry'}")
        return 0
    out(f"{path}: {'memorySearch.extraPaths now names' if done.changed else 'already names'} {done.core}")
    _history(repo, args, path.parent / "agents", default=100)
    written = repo.sync_core(now_of(args))
    out(f"{done.core}: the core memories " + (f"written in commit {written.commit[:12]}" if written.commit
                                               else "are up to date"))
    out(f"next: gitmem --repo {repo.root} cron install   (harvests ~/.openclaw/agents every 30 minutes and decays daily;"
        f" or run hooks/post-session after a session)")
    return 0


def _encoder(root: Path, scope: str, remove: bool) -> None:
    """Set (or unset) Claude Code's print mode as the harvest encoder in the git config of ``scope``; say what was done."""
    from gitmem.api.encoders import set_claude_encoder

    done = set_claude_encoder(root, "user" if scope == "user" else "clone", remove)
    said = "your user" if done.scope == "user" else "this clone"
    if done.executable is None:
        out(f"encoder: {done.key} {'removed from' if done.changed else 'not set in'} the git config of {said}")
        return
    out(f"encoder: harvest asks Claude Code ({done.executable}{', ' + done.version if done.version else ''}) in print "
        f"mode, set in the git config of {said} ({done.key}); sessions holding a secret are never sent")
    if done.missing:
        out(f"note: this claude does not list {', '.join(done.missing)}; harvest falls back to the default encoder "
            "until Claude Code is updated (claude update)")
    if done.wins:
        out(f"note: {done.wins} is set as well and wins; unset it to use Claude Code: git config --unset {done.wins}")


# --- cron -------------------------------------------------------------------------------------

def _every(value: str) -> str:
    import argparse

    from gitmem.api import integration
    from gitmem.base.errors import UsageError

    try:
        integration.check_schedule(value)
    except UsageError as exc:
        raise argparse.ArgumentTypeError(f"{exc.message} ({exc.hint})") from None
    return value


def _cron_args(p: Any) -> None:
    sub = p.add_subparsers(dest="action", metavar="ACTION", required=True)
    add = sub.add_parser("install", help="add (or update) the crontab entry that harvests new sessions")
    add.add_argument("--every", type=_every, default="30m", metavar="Nm|Nh", help="how often (default 30m)")
    add.add_argument("--crontab", metavar="FILE", help="edit this file instead of your crontab")
    rm = sub.add_parser("remove", help="remove gitmem's crontab entry")
    rm.add_argument("--crontab", metavar="FILE", help="edit this file instead of your crontab")


@command("cron", "cron install [--every 30m] | cron remove: a crontab entry that harvests new agent sessions",
         _cron_args)
def cmd_cron(args: Any) -> int:
    from gitmem.api import integration

    if args.action == "remove":
        done = integration.cron_remove(args.crontab)
    else:
        done = integration.cron_install(repo_of(args).root, sys.executable, args.every, args.crontab)
    out(f"{done.where}: {done.said}")
    return 0
