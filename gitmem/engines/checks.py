"""``gitmem check``: config, PII settings, CLAUDE.md layers, staged amplitude.

Each check takes values (the repository root, its config, its ``Git``) and
returns a ``Report``; printing and exit codes belong to the CLI.
"""

from __future__ import annotations

from dataclasses import dataclass

from gitmem.base.errors import GitmemError
from gitmem.base.gitio import Trailers

TYPE_CHECKING = False
if TYPE_CHECKING:
    from pathlib import Path

    from gitmem.base.config import Config
    from gitmem.base.gitio import CommitInfo, Git

CHECKS = ("config", "pii", "layers", "amplitude")


@dataclass(frozen=True)
class Report:
    """The outcome of one check: problems fail it, warnings do not."""

    ok: bool
    problems: tuple[str, ...]
    warnings: tuple[str, ...] = ()

    def to_json(self) -> dict[str, object]:
        """What ``check --json`` prints."""
        return {"ok": self.ok, "problems": list(self.problems), "warnings": list(self.warnings)}


def check_config(root: Path) -> Report:
    """Validate gitmem.yaml without loading it first (it may be the thing that is broken)."""
    from gitmem.base import config

    path = root / config.CONFIG_FILE
    if not path.is_file():
        return Report(False, (f"{path.name} is missing; copy it from a fresh `gitmem init`",))
    try:
        text = path.read_text(encoding="utf-8")
    except UnicodeDecodeError as exc:
        return Report(False, (f"{path.name} is not UTF-8 text (byte {exc.start}); save it as UTF-8",))
    except OSError as exc:
        return Report(False, (f"{path.name} cannot be read: {exc.strerror or exc}",))
    checked = config.check_text(text, path.name)
    problems = tuple(str(p) for p in checked.problems)
    return Report(not problems, problems, checked.warnings)


def check_pii(cfg: Config) -> Report:
    """The PII allowlist and disabled kinds of ``cfg``: patterns that compile, kinds that exist."""
    from gitmem.guards import pii
    from gitmem.guards.redact import allowlist

    problems = tuple(pii.audit(allowlist(cfg), cfg.pii.disabled_kinds))
    return Report(not problems, problems)


def check_layers(root: Path, git: Git, rev_range: str | None = None) -> Report:
    """Structure of CLAUDE.md now, forged structure in the other generated files, and who changed Layers 1
    and 4 in ``rev_range``."""
    from gitmem.guards import layers
    from gitmem.guards.forgery import GENERATED_FILES, generated_problems

    path = root / "CLAUDE.md"
    if not path.exists():
        return Report(False, ("CLAUDE.md is missing",))
    problems = list(layers.validate(path.read_text(encoding="utf-8")))
    for name in GENERATED_FILES:
        if (root / name).is_file() and not (root / name).is_symlink():
            text = (root / name).read_text(encoding="utf-8", errors="replace")
            problems.extend(f"{name}: {problem}" for problem in generated_problems(name, text))
    if rev_range:
        problems.extend(history_problems(git, rev_range))
    return Report(not problems, tuple(problems))


def history_problems(git: Git, rev_range: str) -> list[str]:
    """Automated commits in ``rev_range`` (``BASE..TIP``, ``..TIP`` or ``BASE..``) that changed
    Layers 1 or 4 of CLAUDE.md without a ``Gitmem-Approved-By`` trailer."""
    from gitmem.guards import layers

    base, _, tip = rev_range.partition("..")
    stop = git.commit(base).id if base else None
    commits: list[CommitInfo] = []
    for info in git.log(tip or "HEAD", path="CLAUDE.md"):
        if info.id == stop:
            break
        commits.append(info)
    found = git.trailers([info.id for info in commits])
    problems: list[str] = []
    for info in commits:
        trailers = found.get(info.id, Trailers())
        if not trailers.flag("Gitmem-Auto") or not info.parents:
            continue
        old = git.read("CLAUDE.md", info.parents[0])
        new = git.read("CLAUDE.md", info.id)
        if old is None or new is None:
            continue
        changed = layers.check_change(old.decode("utf-8", "replace"), new.decode("utf-8", "replace"),
                                      automated=True, approved=trailers.has("Gitmem-Approved-By"))
        problems.extend(f"commit {info.id[:12]}: {p}" for p in changed)
    return problems


def check_amplitude(root: Path, amplitude_max: float, floor_lines: int = 10) -> Report:
    """The staged changes of the repository at ``root`` against the amplitude limit."""
    from gitmem.base.gitio import staged_names
    from gitmem.guards import amplitude

    problems = tuple(amplitude.check_staged(root, staged_names(root), amplitude_max, floor_lines))
    return Report(not problems, problems)


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
