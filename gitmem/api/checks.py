"""Checks a person or CI runs: gitmem.yaml, the PII settings, CLAUDE.md's layers (and a range of commits),
the staged amplitude. Drift is ``timeline.drift``. The files are read here; the engine judges them."""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING

from gitmem.api.context import Context
from gitmem.base.errors import GitmemError
from gitmem.engines.checks import CHECKS, Report, check_pii

if TYPE_CHECKING:
    from gitmem.base.config import Config
    from gitmem.base.gitio import Git

__all__ = ["CHECKS", "Report", "check", "check_amplitude", "check_config", "check_layers", "check_pii", "pin_command",
           "run"]


def check(ctx: Context, what: str, rev_range: str | None = None) -> Report:
    """Run the check ``what`` (pii, layers, amplitude; config too) on the repository; ``rev_range`` (A..B)
    also audits those commits' layers."""
    return run(what, ctx.root, ctx.cfg, ctx.git, rev_range=rev_range)


def run(what: str, root: Path, cfg: Config, git: Git, rev_range: str | None = None) -> Report:
    """Run one named check (``config``, ``pii``, ``layers`` or ``amplitude``)."""
    if what == "config":
        return check_config(root)
    if what == "pii":
        return check_pii(cfg)
    if what == "layers":
        return check_layers(root, git, rev_range)
    if what == "amplitude":
        return check_amplitude(root, cfg.sediment.amplitude_max, cfg.sediment.amplitude_floor_lines)
    raise GitmemError(f"unknown check {what!r}", hint=f"one of: {', '.join(CHECKS)}")


def check_config(root: Path) -> Report:
    """Validate gitmem.yaml at ``root`` without loading it first (it may be what is broken)."""
    from gitmem.base import config
    from gitmem.engines.checks import config_report

    from gitmem.engines.checks import Report

    path = root / config.CONFIG_FILE
    if not path.is_file():
        return config_report(None, path.name)
    try:
        text = path.read_text(encoding="utf-8")
    except UnicodeDecodeError as exc:
        return Report(False, (f"{path.name} is not UTF-8 text (byte {exc.start}); save it as UTF-8",))
    except OSError as exc:
        return Report(False, (f"{path.name} cannot be read: {exc.strerror or exc}",))
    return config_report(text, path.name)


def check_layers(root: Path, git: Git, rev_range: str | None = None) -> Report:
    """Structure of CLAUDE.md now, forged structure in the other generated files, and who changed Layers 1
    and 4 in ``rev_range``."""
    from gitmem.engines.checks import history_problems, layers_report
    from gitmem.guards.forgery import GENERATED_FILES

    path = root / "CLAUDE.md"
    if not path.exists():
        return layers_report(None, {}, [])
    text = path.read_text(encoding="utf-8")
    generated = {name: (root / name).read_text(encoding="utf-8", errors="replace") for name in GENERATED_FILES
                 if (root / name).is_file() and not (root / name).is_symlink()}
    return layers_report(text, generated, history_problems(git, rev_range) if rev_range else [])


def check_amplitude(root: Path, amplitude_max: float, floor_lines: int = 10) -> Report:
    """The staged changes of the repository at ``root`` against the amplitude limit."""
    from gitmem.base.gitio import staged_names
    from gitmem.guards import amplitude

    problems = tuple(amplitude.check_staged(root, staged_names(root), amplitude_max, floor_lines))
    return Report(not problems, problems)


def pin_command() -> str:
    """The command that pins HEAD as the new drift baseline (the hint of a failed drift check)."""
    from gitmem.engines.drift import PIN_COMMAND

    return PIN_COMMAND
