"""The guards of a write, in order: sandbox, content, anchors, PII, amplitude, layers (DESIGN.md section 4).

Each step judges the changes the step before let through and returns a
verdict (``gitmem.guards.verdict``); :func:`judge` runs them in order and stops
at the first refusal. The commit message passes the same PII guard
(:func:`commit_message`). Nothing here writes: the writer acts on the verdict.
"""

from __future__ import annotations

from dataclasses import dataclass, replace
from pathlib import Path
from typing import TYPE_CHECKING, Any

from gitmem.base import config as config_mod
from gitmem.base.config import Config
from gitmem.base.errors import CheckFailed, GitmemError, SecretError, SecurityError
from gitmem.base.gitio import Git
from gitmem.guards import amplitude, anchor, guard, sandbox
from gitmem.guards.verdict import Allow, Changes, Defer, Refuse, Verdict, then
from gitmem.store.documents import FRONT_MATTER_MAX_BYTES
from gitmem.writer.plan import Plan, message

if TYPE_CHECKING:
    from gitmem.guards import pii
    from gitmem.guards.cleanbodies import CleanBodies

Stripped = tuple[tuple[str, tuple[str, ...]], ...]
"""(path, PII kinds replaced) for each file the PII guard changed."""


@dataclass(frozen=True)
class Judged:
    """The chain's verdict on a plan, and the PII kinds it replaced on the way."""

    verdict: Verdict
    stripped: Stripped = ()


def judge(git: Git, cfg: Config, plan: Plan[Any], parent: str | None, checked_out: bool,
          clean: CleanBodies | None = None) -> Judged:
    """Every guard's verdict on ``plan`` against ``parent``, in order; the first refusal ends it.

    ``clean``: document bodies known to be scanned clean, which the PII guard skips (a large write)."""
    try:
        check_paths(git, cfg, plan.changes, checked_out, () if plan.auto else plan.outside)
    except GitmemError as exc:
        return Judged(Refuse(exc))
    touched = anchor.problems(plan.changes, plan.event, plan.trailers)
    if touched:   # the anchor constraints: the loop, its formula and its guards stay as a person set them
        return Judged(Refuse(SecurityError("a sedimentation write may not change the loop's anchors: "
                                           + ", ".join(touched), hint="a person edits these files by hand")))
    verdict, stripped = pii_guard(cfg, plan, clean)
    for step in (amplitude_guard, layers_guard):
        if isinstance(verdict, Refuse):
            break
        verdict = then(verdict, step(git, cfg, plan, verdict.changes, parent))
    if isinstance(verdict, Defer):   # the queue files a deferral adds pass the sandbox like the rest
        try:
            check_paths(git, cfg, {p: d for p, d in verdict.changes.items() if p not in plan.changes}, checked_out)
        except GitmemError as exc:
            return Judged(Refuse(exc))
    return Judged(verdict, stripped)


def check_paths(git: Git, cfg: Config, changes: Changes, checked_out: bool,
                outside: tuple[str, ...] = ()) -> None:
    """Steps 1 and 2: every path inside the sandbox (or one of the top-level files ``outside`` names),
    no symlink on its way in the work tree, content within the limits. A symlink on its way in the
    commit's tree is refused where the tree is written (``gitio.trees.build``, ``gitio.packing``),
    which walks those folders anyway."""
    allowed = cfg.paths.allowed_dirs + tuple(p for p in outside if "/" not in p)
    narrowed = config_mod.env_allowed_dirs()
    max_bytes = cfg.sediment.max_content_bytes
    root = git.root if checked_out else None
    seen_dirs: set[str] = set()
    for path, data in changes.items():
        folder = path.rpartition("/")[0]
        fresh = folder not in seen_dirs   # a folder's symlinks are checked once per write
        seen_dirs.add(folder)
        sandbox.check_path(path, allowed, narrowed, Path(root) if root is not None else None, check_folders=fresh)
        if data is not None:   # a document carries its front matter on top of the text the cap measures
            guard.check_content(path, data, max_bytes + (FRONT_MATTER_MAX_BYTES if path.endswith(".md") else 0))


def pii_guard(cfg: Config, plan: Plan[Any], clean: CleanBodies | None = None) -> tuple[Verdict, Stripped]:
    """Step 3: PII in text files replaced by placeholders; a secret anywhere refuses the whole write."""
    from gitmem.guards import redact

    out: dict[str, bytes | None] = {}
    stripped = []
    found: list[tuple[str, str]] = []
    for path, data in plan.changes.items():
        if data is None or not path.endswith(guard.TEXT_SUFFIXES):
            out[path] = data
            continue
        result = redact.redact_document(path, data.decode("utf-8"), cfg, clean)
        found.extend((path, where) for where in result.secrets)
        if result.kinds:
            stripped.append((path, result.kinds))
        out[path] = result.text.encode("utf-8")
    if found:
        return Refuse(secret_error(found)), ()
    return Allow(out), tuple(stripped)


def secret_error(found: list[tuple[str, str]]) -> SecretError:
    """The refusal of a write or a text that holds secrets: (where, "kind at line L, column C") pairs."""
    kinds = sorted({w.split(" at ")[0] for _, w in found})
    listing = "; ".join(f"{p}: {w}" for p, w in found[:10])
    return SecretError(f"secret found ({', '.join(kinds)}), nothing written: {listing}", list(found),
                       hint="remove the secret from the input (and rotate it if it was real)")


def amplitude_guard(git: Git, cfg: Config, plan: Plan[Any], changes: Changes, parent: str | None) -> Verdict:
    """Step 4: an automated write grows a bank/, skills/ or person's-layer file only slowly; so does the
    merge of a review branch (what it brings was made by automation, or by anyone).

    Over the limit it is refused, or, when the plan allows deferring and it
    only appends, one batch is committed and the rest queued in
    ``.gitmem/pending/`` (that file's next automated writes take the queue
    first). A write that leaves such a file as it is takes the next batch.
    """
    if not (plan.auto or plan.merge_parents) or parent is None:   # a merge brings automated content in
        return Allow(changes)
    limit, floor = cfg.sediment.amplitude_max, cfg.sediment.amplitude_floor_lines
    out = dict(changes)
    deferred: list[str] = []
    for path, data in changes.items():
        if data is None or not amplitude.in_scope(path):
            continue
        old_bytes = git.read(path, parent)
        if old_bytes is None:
            continue
        old, new = old_bytes.decode("utf-8", "replace"), data.decode("utf-8", "replace")
        queue = amplitude.pending_path(path)
        queued = (git.read(queue, parent) or b"").decode("utf-8", "replace") if plan.defer else ""
        problem = None if queued else amplitude.check_write(path, old, new, limit, floor)
        if problem is None and not queued:
            continue
        parts = amplitude.split(path, old, new, queued, limit, floor) if plan.defer else None
        if parts is None:
            return Refuse(CheckFailed(problem or f"{path}: queued growth waits in {queue}", [path],
                                      hint="split the change into smaller batches"))
        now_text, rest = parts
        out[path] = now_text.encode("utf-8")
        out[queue] = rest.encode("utf-8") if rest else None
        if out[queue] is None and not queued:
            del out[queue]   # nothing queued before, nothing now: no deletion of a file that is not there
        if rest:
            deferred.append(path)
    if deferred:
        return Defer(out, tuple(deferred), "growth past the amplitude limit queued in " + amplitude.PENDING_DIR)
    return Allow(out)


def layers_guard(git: Git, cfg: Config, plan: Plan[Any], changes: Changes, parent: str | None) -> Verdict:
    """Step 5: CLAUDE.md keeps its four layers, and Layers 1 and 4 change only with a person's approval;
    no other generated file (HIPPOCAMPUS_CORE.md, patterns.md) holds a forged heading or marker."""
    from gitmem.guards.forgery import GENERATED_FILES, generated_problems

    forged = [f"{path}: {problem}" for path in GENERATED_FILES if (text := changes.get(path)) is not None
              for problem in generated_problems(path, text.decode("utf-8", "replace"))]
    if forged:
        return Refuse(CheckFailed("forged structure in a generated file: " + "; ".join(forged[:5]), forged,
                                  hint="generated files are written by gitmem from escaped sources only"))
    data = changes.get("CLAUDE.md")
    if data is None:
        return Allow(changes)
    from gitmem.guards import layers

    # Whatever the Plan says about Gitmem-Auto, a write through this path is
    # gitmem's, never a person's own commit: only a person's approval
    # (review accept, rollback: Gitmem-Approved-By) may touch Layers 1 and 4.
    old = git.read("CLAUDE.md", parent) if parent else None
    problems = layers.check_change(old.decode("utf-8", "replace") if old is not None else None,
                                   data.decode("utf-8"), automated=True, approved=bool(plan.approved_by))
    if problems:
        return Refuse(CheckFailed("CLAUDE.md: " + "; ".join(problems), problems,
                                  hint="Layers 1 and 4 change only by a person, or with Gitmem-Approved-By"))
    return Allow(changes)


def commit_message(cfg: Config, names: pii.Names | None, plan: Plan[Any], count: int,
                   deferred: tuple[str, ...] = ()) -> str | Refuse:
    """The commit message of ``plan`` after the same PII guard as the files, or the refusal of a secret.

    Each part is redacted before the subject is cut to length and trailer
    values are folded onto one line, and the message once more.
    """
    from gitmem.guards import redact

    found: list[tuple[str, str]] = []

    def clean(value: str | None) -> str | None:
        if not value:
            return value
        result = redact.redact_text(value, cfg, names=names)
        found.extend(("commit message", where) for where in result.secrets)
        text: str = result.text
        return text

    parts = replace(plan, subject=clean(plan.subject) or "", body=clean(plan.body) or "",
                    session=clean(plan.session), approved_by=clean(plan.approved_by),
                    trailers=tuple((k, clean(str(v)) or "") for k, v in plan.trailers))
    text = clean(message(parts, count, deferred)) or ""
    return Refuse(secret_error(found)) if found else text
