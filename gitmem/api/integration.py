"""Wiring the memory into an agent: Claude Code's SessionStart and SessionEnd hooks in its settings, an
``@~/`` import of the memory's CLAUDE.md in a project's CLAUDE.md, and the crontab entry that harvests
new sessions. The merging of gitmem's entries into those files is ``engines.integrate``; here they are
read, checked and written. A file gitmem cannot read is refused, never overwritten."""

from __future__ import annotations

import os
from dataclasses import dataclass
from pathlib import Path

from gitmem.base import files
from gitmem.base.errors import GitmemError, UsageError

@dataclass(frozen=True)
class Installed:
    """What ``install claude-code`` did to a settings file (or would have: ``changed`` False)."""

    settings: Path
    changed: bool
    uninstall: bool
    start_command: str = ""
    end_command: str = ""
    printed: int = 0            # characters the SessionStart hook printed when run once
    end_timeout: int = 0        # seconds Claude Code gives the SessionEnd hook


@dataclass(frozen=True)
class Imported:
    """What ``install --claude-md`` did to a project's CLAUDE.md."""

    file: Path
    changed: bool
    line: str
    removed: bool


@dataclass(frozen=True)
class CronChanged:
    """What ``cron install | remove`` did: the crontab (or file) changed or not, and the entry."""

    where: str
    changed: bool
    said: str


def settings_path(settings: str | None, project: str | None) -> Path:
    """Claude Code's settings file: ``settings`` as given, a project's personal settings, else the user's
    (in ``CLAUDE_CONFIG_DIR`` when set, as Claude Code does)."""
    if settings:
        return Path(settings).expanduser()
    if project:
        folder = Path(project).expanduser()
        if not folder.is_dir():
            raise UsageError(f"no such project folder: {project}", hint="give the folder Claude Code runs in")
        return folder / ".claude" / "settings.local.json"
    moved = os.environ.get("CLAUDE_CONFIG_DIR")   # Claude Code's own setting for where its files live
    return (Path(moved).expanduser() if moved else Path.home() / ".claude") / "settings.json"


def _read_text(path: Path) -> str:
    import errno

    if path.is_dir():
        raise UsageError(f"{path} is a folder, not a settings file")
    try:
        os.stat(path)
    except FileNotFoundError:
        return ""
    except OSError as exc:   # a symbolic link loop (ELOOP), a name too long
        said = "a symbolic link loop" if exc.errno == errno.ELOOP else (exc.strerror or str(exc))
        raise UsageError(f"cannot read {path}: {said}", hint="fix the file by hand; gitmem does not overwrite it") from None
    except ValueError:
        raise UsageError(f"cannot read {str(path)[:200]}: not a file name") from None
    try:
        return path.read_text("utf-8")
    except UnicodeDecodeError:
        raise UsageError(f"{path} is not UTF-8 text", hint="fix the file by hand; gitmem does not overwrite it") from None
    except OSError as exc:
        raise UsageError(f"cannot read {path}: {exc.strerror or exc}",
                         hint="fix the file by hand; gitmem does not overwrite it") from None


def _verify(command: str, cwd: Path) -> str:
    """Run the SessionStart hook command once, as Claude Code would; what it printed."""
    import json

    from gitmem.base.gitio.tool import run_program

    sample = {"session_id": "gitmem-install-check", "transcript_path": "", "cwd": str(cwd),
              "hook_event_name": "SessionStart", "source": "startup"}
    code, stdout, stderr = run_program(["/bin/sh", "-c", command + " --check"], json.dumps(sample).encode(), 60.0)
    if code != 0 or not stdout.strip():
        tail = (stderr.decode("utf-8", "replace").strip().splitlines() or [""])[-1][:200]
        raise GitmemError(f"the SessionStart hook failed when run once (exit code {code}){': ' + tail if tail else ''}",
                          hint=f"run it by hand to see why: {command}")
    return stdout.decode("utf-8", "replace")


def install_claude_code(root: Path, python: str, path: Path, cwd: Path, uninstall: bool = False) -> Installed:
    """Add gitmem's SessionStart and SessionEnd hooks for the repository at ``root`` to the settings file
    ``path`` (the SessionStart one run once first, from ``cwd``), or remove them (``uninstall``)."""
    from gitmem.engines import integrate

    before = _read_text(path)
    data = integrate.parse_settings(before, str(path))
    start = end = ""
    printed = 0
    if uninstall:
        after = integrate.remove_hooks(data, str(path))
    else:
        handlers = integrate.claude_handlers(python, str(root.resolve()))
        after = integrate.add_hooks(data, handlers, str(path))
        start, end = str(handlers[integrate.SESSION_START]["command"]), str(handlers[integrate.SESSION_END]["command"])
        printed = len(_verify(start, cwd if cwd.is_dir() else Path.cwd()))
    changed = after != data or (not path.exists() and not uninstall)
    if changed:
        files.write_atomic(path, integrate.dump_settings(after, before), make_folders=True)
    return Installed(path, changed, uninstall, start, end, printed, integrate.END_TIMEOUT)


def import_memory(file: Path, root: Path, remove: bool = False) -> Imported:
    """Add (or ``remove``) the ``@~/`` line importing the memory's CLAUDE.md to a project's CLAUDE.md."""
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
    if after != before:
        files.write_atomic(file, after, make_folders=True)
    return Imported(file, after != before, line, remove)


def check_schedule(every: str) -> str:
    """``every`` (``30m``, ``2h``) as a crontab schedule; a usage error when cron cannot run that often."""
    from gitmem.engines import integrate

    return integrate.schedule(every)


def _read_crontab(file: str | None) -> str:
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
    from gitmem.base.gitio.tool import run_program

    if file:
        files.write_atomic(Path(file).expanduser(), text, make_folders=True)
        return
    code, _, stderr = run_program(["crontab", "-"], text.encode("utf-8"))
    if code != 0:
        raise GitmemError(f"cannot write your crontab: {stderr.decode('utf-8', 'replace').strip() or code}",
                          hint="check `crontab -l`; nothing was changed")


def cron_install(root: Path, python: str, every: str, crontab: str | None = None) -> CronChanged:
    """Add (or update) the crontab entry that runs ``gitmem hook cron`` for ``root`` every ``every``
    (in the file ``crontab`` instead of the user's crontab when given): one crontab write at most."""
    from gitmem.base import state
    from gitmem.engines import integrate

    before = _read_crontab(crontab)
    where = str(root.resolve())
    log = str(state.worktree_dir(where) / "cron.log")
    line = integrate.cron_command([python, "-m", "gitmem", "--repo", where, "hook", "cron"], log)
    after = integrate.add_cron(before, integrate.schedule(every), line)
    if after != before:
        _write_crontab(crontab, after)
    return CronChanged(crontab or "your crontab", after != before,
                       "already installed, unchanged" if after == before else f"{integrate.schedule(every)} {line}")


def cron_remove(crontab: str | None = None) -> CronChanged:
    """Remove gitmem's crontab entry (from the file ``crontab`` when given)."""
    from gitmem.engines import integrate

    before = _read_crontab(crontab)
    after = integrate.remove_cron(before)
    if after != before:
        _write_crontab(crontab, after)
    return CronChanged(crontab or "your crontab", after != before,
                       "no gitmem entry" if after == before else "gitmem entry removed")


@dataclass(frozen=True)
class OpenClawInstalled:
    """What ``install openclaw`` did to openclaw.json (or would have: ``changed`` False)."""

    config: Path
    changed: bool
    uninstall: bool
    core: str                   # the core file's path as openclaw.json names it


def openclaw_config(config: str | None) -> Path:
    """OpenClaw's config file: ``config`` as given, else openclaw.json in ``OPENCLAW_STATE_DIR`` (~/.openclaw)."""
    if config:
        return Path(config).expanduser()
    state = os.environ.get("OPENCLAW_STATE_DIR")   # OpenClaw's own setting for where its state lives
    return (Path(state).expanduser() if state else Path.home() / ".openclaw") / "openclaw.json"


def install_openclaw(root: Path, path: Path, uninstall: bool = False) -> OpenClawInstalled:
    """Add the memory's HIPPOCAMPUS_CORE.md to ``agents.defaults.memorySearch.extraPaths`` of the OpenClaw
    config ``path`` (its memory_search reads it), or remove it (``uninstall``); idempotent."""
    from gitmem.engines import integrate

    core = str((root / integrate.CORE_FILE).resolve())
    before = _read_text(path)
    data = integrate.parse_settings(before, str(path))
    after = integrate.remove_openclaw(data, core, str(path)) if uninstall else integrate.add_openclaw(data, core, str(path))
    changed = after != data
    if changed:
        files.write_atomic(path, integrate.dump_settings(after, before), make_folders=True)
    return OpenClawInstalled(path, changed, uninstall, core)
