"""``gitmem check``: config, PII settings, CLAUDE.md layers, staged amplitude, judged from values.

Each check takes values (a file's text, the config, a ``Git`` to read commits
from) and returns a ``Report``; reading the work tree and the staged files is
the use case's (``gitmem.api.checks``), printing and exit codes the CLI's.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass

from gitmem.base.gitio import Trailers

TYPE_CHECKING = False
if TYPE_CHECKING:
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


def config_report(text: str | None, name: str) -> Report:
    """The problems and warnings of gitmem.yaml's ``text`` (None: the file is missing), without loading it."""
    from gitmem.base import config

    if text is None:
        return Report(False, (f"{name} is missing; copy it from a fresh `gitmem init`",))
    checked = config.check_text(text, name)
    problems = tuple(str(p) for p in checked.problems)
    if not problems:   # an allowlist that hides every secret is a broken config, not a pii matter only
        problems = check_pii(checked.config).problems
    return Report(not problems, problems, checked.warnings)


def check_pii(cfg: Config) -> Report:
    """The PII allowlist and disabled kinds of ``cfg``: patterns that compile, kinds that exist."""
    from gitmem.guards import pii
    from gitmem.guards.redact import allowlist

    problems = tuple(pii.audit(allowlist(cfg), cfg.pii.disabled_kinds))
    return Report(not problems, problems)


def layers_report(text: str | None, generated: Mapping[str, str], history: list[str]) -> Report:
    """The structure of CLAUDE.md's ``text`` (None: missing), forged structure in the ``generated`` files'
    texts (name -> text), with the problems ``history_problems`` found."""
    from gitmem.guards import layers
    from gitmem.guards.forgery import generated_problems

    if text is None:
        return Report(False, ("CLAUDE.md is missing",))
    problems = list(layers.validate(text))
    for name, found in generated.items():
        problems.extend(f"{name}: {problem}" for problem in generated_problems(name, found))
    problems.extend(history)
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
