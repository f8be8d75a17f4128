"""``gitmem check``: config, PII settings, CLAUDE.md layers, staged amplitude."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from gitmem.base.errors import GitmemError
from gitmem.base.gitio import Trailers


@dataclass(frozen=True)
class Report:
    ok: bool
    problems: tuple[str, ...]
    warnings: tuple[str, ...] = ()


def check_config(root: Any) -> Report:
    """Validate gitmem.yaml without loading it first (it may be the thing that is broken)."""
    from gitmem.base import config

    path = root / config.CONFIG_FILE
    if not path.is_file():
        return Report(False, (f"{path.name} is missing; copy it from a fresh `gitmem init`",))
    checked = config.check_text(path.read_text(encoding="utf-8"), path.name)
    problems = tuple(str(p) for p in checked.problems)
    return Report(not problems, problems, checked.warnings)


def check_pii(repo: Any) -> Report:
    from gitmem.guards import pii
    from gitmem.guards.redact import allowlist

    problems = tuple(pii.audit(allowlist(repo.cfg), repo.cfg.pii.disabled_kinds))
    return Report(not problems, problems)


def check_layers(repo: Any, rev_range: str | None = None) -> Report:
    """Structure of CLAUDE.md now, and who changed Layers 1 and 4 in ``rev_range``."""
    from gitmem.guards import layers

    path = repo.root / "CLAUDE.md"
    if not path.exists():
        return Report(False, ("CLAUDE.md is missing",))
    problems = list(layers.validate(path.read_text(encoding="utf-8")))
    if rev_range:
        problems.extend(_history_problems(repo, rev_range))
    return Report(not problems, tuple(problems))


def _history_problems(repo: Any, rev_range: str) -> list[str]:
    from gitmem.guards import layers

    base, _, tip = rev_range.partition("..")
    git = repo.git
    stop = git.commit(base).id if base else None
    problems: list[str] = []
    commits = []
    for info in git.log(tip or "HEAD", path="CLAUDE.md"):
        if info.id == stop:
            break
        commits.append(info)
    found = git.trailers([info.id for info in commits])
    for info in commits:
        trailers = found.get(info.id, Trailers())
        if not trailers.flag("Gitmem-Auto") or not info.parents:
            continue
        old = git.read("CLAUDE.md", info.parents[0])
        new = git.read("CLAUDE.md", info.id)
        if old is None or new is None:
            continue
        found = layers.check_change(old.decode("utf-8", "replace"), new.decode("utf-8", "replace"),
                                    automated=True, approved=trailers.has("Gitmem-Approved-By"))
        problems.extend(f"commit {info.id[:12]}: {p}" for p in found)
    return problems


def check_amplitude(repo: Any) -> Report:
    """The staged changes of the memory repository against the amplitude limit."""
    from gitmem.base.gitio import staged_names
    from gitmem.guards import amplitude

    names = staged_names(repo.root)
    problems = tuple(amplitude.check_staged(repo.root, names, repo.cfg.sediment.amplitude_max))
    return Report(not problems, problems)


def run(repo: Any, what: str, rev_range: str | None = None) -> Report:
    """Run one named check."""
    if what == "pii":
        return check_pii(repo)
    if what == "layers":
        return check_layers(repo, rev_range)
    if what == "amplitude":
        return check_amplitude(repo)
    raise GitmemError(f"unknown check {what!r}")
