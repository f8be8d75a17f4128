"""The verbs that wire the memory into an agent: ``install claude-code`` (SessionStart and SessionEnd
hooks in Claude Code's settings, an ``@~/`` import in a project's CLAUDE.md) and ``cron install | remove``.

What the hooks run is in ``agenthooks``; the merging of gitmem's entries into the files is in
``engines.integrate``. A file gitmem cannot read is refused, never overwritten.
"""

from __future__ import annotations

import sys

from gitmem.base import files
from gitmem.faces.console import command, out, repo_of

TYPE_CHECKING = False
if TYPE_CHECKING:
    from pathlib import Path
    from typing import Any

# --- install claude-code ----------------------------------------------------------------------

def _install_args(p: Any) -> None:
    p.add_argument("target", choices=("claude-code",), help="the agent to wire the memory into")
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


def _settings_path(args: Any) -> Path:
    from pathlib import Path

    if args.settings:
        return Path(args.settings).expanduser()
    if args.project:
        project = Path(args.project).expanduser()
        if not project.is_dir():
            from gitmem.base.errors import UsageError

            raise UsageError(f"no such project folder: {args.project}", hint="give the folder Claude Code runs in")
        return project / ".claude" / "settings.local.json"
    import os

    moved = os.environ.get("CLAUDE_CONFIG_DIR")   # Claude Code's own setting for where its files live
    return (Path(moved).expanduser() if moved else Path.home() / ".claude") / "settings.json"


def _read_text(path: Path) -> str:
    from gitmem.base.errors import UsageError

    if path.is_dir():
        raise UsageError(f"{path} is a folder, not a settings file")
    try:
        return path.read_text("utf-8") if path.exists() else ""
    except UnicodeDecodeError:
        raise UsageError(f"{path} is not UTF-8 text", hint="fix the file by hand; gitmem does not overwrite it") from None


def _verify(command: str, cwd: Path) -> str:
    """Run the SessionStart hook command once, as Claude Code would; what it printed."""
    import json

    from gitmem.base.errors import GitmemError
    from gitmem.base.gitio.tool import run_program

    sample = {"session_id": "gitmem-install-check", "transcript_path": "", "cwd": str(cwd),
              "hook_event_name": "SessionStart", "source": "startup"}
    code, stdout, stderr = run_program(["/bin/sh", "-c", command + " --check"], json.dumps(sample).encode(), 60.0)
    if code != 0 or not stdout.strip():
        tail = (stderr.decode("utf-8", "replace").strip().splitlines() or [""])[-1][:200]
        raise GitmemError(f"the SessionStart hook failed when run once (exit code {code}){': ' + tail if tail else ''}",
                          hint=f"run it by hand to see why: {command}")
    return stdout.decode("utf-8", "replace")


@command("install", "wire the memory into an agent: install claude-code adds SessionStart and SessionEnd hooks",
         _install_args)
def cmd_install(args: Any) -> int:
    from pathlib import Path

    from gitmem.engines import integrate

    repo = repo_of(args)
    root = str(repo.root.resolve())
    path = _settings_path(args)
    before = _read_text(path)
    data = integrate.parse_settings(before, str(path))
    if args.uninstall:
        after = integrate.remove_hooks(data, str(path))
    else:
        handlers = integrate.claude_handlers(sys.executable, root)
        after = integrate.add_hooks(data, handlers, str(path))
        cwd = Path(args.project).expanduser() if args.project else Path.cwd()
        printed = _verify(str(handlers[integrate.SESSION_START]["command"]), cwd if cwd.is_dir() else Path.cwd())
    if after != data or (not path.exists() and not args.uninstall):
        files.write_atomic(path, integrate.dump_settings(after, before), make_folders=True)
        out(f"{'removed from' if args.uninstall else 'hooks written to'} {path}")
    else:
        out(f"{path}: {'no gitmem hooks there' if args.uninstall else 'already installed, unchanged'}")
    if not args.uninstall:
        out(f"SessionStart: {handlers[integrate.SESSION_START]['command']}")
        out(f"SessionEnd:   {handlers[integrate.SESSION_END]['command']} "
            f"(timeout {integrate.END_TIMEOUT} s; the harvest runs in the background)")
        out(f"checked: the SessionStart hook ran once and printed {len(printed)} characters "
            f"(limit {repo.cfg.budgets.core_chars})")
    if args.claude_md:
        _claude_md(Path(args.claude_md).expanduser(), repo.root, args.uninstall)
    if args.encoder:
        _encoder(repo.root, args.encoder, args.uninstall)
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


def _claude_md(file: Path, root: Path, remove: bool) -> None:
    from pathlib import Path

    from gitmem.base.errors import UsageError
    from gitmem.engines import integrate

    home = Path.home().resolve()
    memory_md = (root / "CLAUDE.md").resolve()
    if not memory_md.is_relative_to(home):
        raise UsageError(f"the memory repository is not under your home folder ({root}), so a committed CLAUDE.md "
                         "cannot import it as @~/...",
                         hint=f"move it under {home}, or put `@{memory_md}` in CLAUDE.local.md, which is not committed")
    line = integrate.import_line(memory_md.relative_to(home).as_posix())
    before = _read_text(file)
    after = integrate.remove_import(before, line) if remove else integrate.add_import(before, line)
    if after == before:
        out(f"{file}: {'no import to remove' if remove else 'imports the memory already'} ({line})")
        return
    files.write_atomic(file, after, make_folders=True)
    out(f"{file}: {'import removed' if remove else 'imports the memory'} ({line})")


# --- cron -------------------------------------------------------------------------------------

def _every(value: str) -> str:
    import argparse

    from gitmem.base.errors import UsageError
    from gitmem.engines import integrate

    try:
        integrate.schedule(value)
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


def _read_crontab(file: str | None) -> str:
    from pathlib import Path

    from gitmem.base.errors import GitmemError
    from gitmem.base.gitio.tool import run_program

    if file:
        return _read_text(Path(file).expanduser())
    code, stdout, stderr = run_program(["crontab", "-l"])
    if code == 0:
        return stdout.decode("utf-8", "replace")
    said = stderr.decode("utf-8", "replace").strip()
    if code == 1 and "no crontab" in said.lower():
        return ""
    raise GitmemError(f"cannot read your crontab: {said or f'exit code {code}'}",
                      hint="install cron (the `crontab` command), or write the entry to a file with --crontab FILE")


def _write_crontab(file: str | None, text: str) -> None:
    from pathlib import Path

    from gitmem.base.errors import GitmemError
    from gitmem.base.gitio.tool import run_program

    if file:
        files.write_atomic(Path(file).expanduser(), text, make_folders=True)
        return
    code, _, stderr = run_program(["crontab", "-"], text.encode("utf-8"))
    if code != 0:
        raise GitmemError(f"cannot write your crontab: {stderr.decode('utf-8', 'replace').strip() or code}",
                          hint="check `crontab -l`; nothing was changed")


@command("cron", "cron install [--every 30m] | cron remove: a crontab entry that harvests new agent sessions",
         _cron_args)
def cmd_cron(args: Any) -> int:
    from gitmem.base import state
    from gitmem.engines import integrate

    before = _read_crontab(args.crontab)
    where = args.crontab or "your crontab"
    if args.action == "remove":
        after = integrate.remove_cron(before)
        said = "no gitmem entry" if after == before else "gitmem entry removed"
    else:
        root = str(repo_of(args).root.resolve())
        log = str(state.worktree_dir(root) / "cron.log")
        line = integrate.cron_command([sys.executable, "-m", "gitmem", "--repo", root, "hook", "cron"], log)
        after = integrate.add_cron(before, integrate.schedule(args.every), line)
        said = "already installed, unchanged" if after == before else f"{integrate.schedule(args.every)} {line}"
    if after != before:
        _write_crontab(args.crontab, after)
    out(f"{where}: {said}")
    return 0
