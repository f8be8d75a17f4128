"""The amplitude limit: memory grows slowly, a few percent of a file per change.

The sedimentation seed's rule: an automated write may grow an existing file by
at most ``sediment.amplitude_max`` (5 %). A larger change is refused, or, when
its plan allows deferring and it only appends, split: the writer commits one
batch (:func:`split`) and queues the rest under ``.gitmem/pending/``
(:func:`pending_path`), which later automated writes of that file take first. The pre-commit hook applies the same limit to every staged
change, and a person who means a bigger edit says so with
``GITMEM_ALLOW_GROWTH=1 git commit …``.

The scope is defined here once, for the write path and the hook alike: files
under bank/ and skills/, and Layers 1 and 4 of CLAUDE.md (a CLAUDE.md without
gitmem's layers counts whole). The generated Layers 2 and 3 and the rendered
files are bounded by their line budget instead.
"""

from __future__ import annotations

from collections.abc import Sequence

# typing and pathlib cost imports on the hooks' hot path; annotations only
TYPE_CHECKING = False
if TYPE_CHECKING:
    from pathlib import Path

OVERRIDE = "GITMEM_ALLOW_GROWTH=1 git commit …"
DEFAULT_FLOOR = 10   # sediment.amplitude_floor_lines
SCOPE_DIRS = ("bank/", "skills/")
CLAUDE_MD = "CLAUDE.md"
PERSON_LAYERS = (1, 4)
PENDING_DIR = ".gitmem/pending/"


def in_scope(path: str) -> bool:
    """True for the paths the limit applies to: bank/, skills/ and any CLAUDE.md."""
    return path.startswith(SCOPE_DIRS) or path == CLAUDE_MD or path.endswith("/" + CLAUDE_MD)


def measured(path: str, text: str) -> str:
    """The part of ``text`` whose growth counts: Layers 1 and 4 of a layered CLAUDE.md, else all of it."""
    if path != CLAUDE_MD and not path.endswith("/" + CLAUDE_MD):
        return text
    from gitmem.guards import layers

    found = [layer for layer in layers.parse(text) if layer.number in PERSON_LAYERS]
    return "".join(layer.content for layer in found) if found else text


def check_write(path: str, old: str, new: str, max_ratio: float, floor_lines: int = DEFAULT_FLOOR) -> str | None:
    """The problem with an automated write of ``path`` from ``old`` to ``new``, or None."""
    from gitmem.base.diffs import count_lines

    before, after = measured(path, old), measured(path, new)
    if not exceeds(count_lines(before), count_lines(after), max_ratio, floor_lines):
        return None
    ratio = growth(before, after)
    return f"{path}: an automated write may grow it by {_limit(max_ratio, floor_lines, '.0%')} at most, this grows it by {ratio:.0%}"


def growth(old_text: str, new_text: str) -> float:
    """Net growth relative to the old size: (lines added - lines removed) / lines in old.

    Negative when the file shrinks; infinite when an empty file gains lines. A
    file that did not exist before has no old text: the caller decides (new
    files pass the limit).
    """
    from gitmem.base.diffs import count_lines   # the hook's scope test must not pay for git helpers

    return _ratio(count_lines(old_text), count_lines(new_text))


def exceeds(old_lines: int, new_lines: int, max_ratio: float, floor_lines: int = DEFAULT_FLOOR) -> bool:
    """True when growing a file from ``old_lines`` to ``new_lines`` goes past the limit.

    The limit is ``max_ratio`` of the old size or ``floor_lines`` lines, whichever
    allows more: a short file may always take a few lines.
    """
    return new_lines - old_lines > max(floor_lines, max_ratio * old_lines)


def pending_path(path: str) -> str:
    """Where the growth of ``path`` that waits for later writes is queued (in the repository)."""
    return PENDING_DIR + path


def split(path: str, old: str, new: str, queued: str, max_ratio: float,
          floor_lines: int = DEFAULT_FLOOR) -> tuple[str, str] | None:
    """(text to commit now, text still queued) for an automated write that appends to ``path``.

    What grows the file is ``queued`` (an earlier write's rest) and then what
    ``new`` appends to ``old``, in that order; the batch takes as many whole
    lines as the limit allows, ending after a blank line when one falls inside
    it, so an entry of several lines is not cut. None when the write cannot be
    split: it changes lines already there, the file is a CLAUDE.md (its layers
    are a person's), or the limit allows no line at all.
    """
    if path == CLAUDE_MD or path.endswith("/" + CLAUDE_MD) or not new.startswith(old):
        return None
    added = queued + new[len(old):]
    if old and not old.endswith("\n") and added:
        return None   # the first added "line" would continue the last one
    from gitmem.base.diffs import count_lines

    budget = int(max(floor_lines, max_ratio * count_lines(old)))
    lines = added.splitlines(keepends=True)
    if budget <= 0 and lines:
        return None
    cut = min(budget, len(lines))
    if cut < len(lines):
        blank = [i + 1 for i in range(cut) if not lines[i].strip()]
        cut = blank[-1] if blank else cut
    return old + "".join(lines[:cut]), "".join(lines[cut:])


def _ratio(old: int, new: int) -> float:
    if old == 0:
        return 0.0 if new == 0 else float("inf")
    return (new - old) / old


def check_staged(repo_root: Path | str, paths: Sequence[str], max_ratio: float,
                 floor_lines: int = DEFAULT_FLOOR) -> list[str]:
    """Problems of the staged change of ``paths``: each existing file grown past ``max_ratio``.

    New files and deletions pass. ``GITMEM_ALLOW_GROWTH=1`` in the environment
    lets everything pass. Each problem names the file, its old line count, the
    lines added and removed, the ratio and the override.
    """
    from gitmem.base import diffs

    paths = [p for p in paths if in_scope(p)]
    # one git process reads every file's two versions; a CLAUDE.md counts its Layers 1 and 4 (``measured``)
    grown = [(c.path, c.old, c.new) for c in diffs.staged_line_counts(repo_root, paths, measured)
             if c.old is not None and c.new is not None and exceeds(c.old, c.new, max_ratio, floor_lines)]
    if not grown:
        return []
    # Only a failing commit pays for gitmem.base.config's import and for unidiff.
    from gitmem.base.config import env_amplitude_override

    if env_amplitude_override():
        return []
    stats = {s.path: s for s in diffs.staged_stats(repo_root, [path for path, _, _ in grown if not path.endswith(CLAUDE_MD)])}
    problems = []
    for path, old, new in grown:
        stat = stats.get(path)
        added, removed = (stat.added, stat.removed) if stat else (max(new - old, 0), 0)
        problems.append(describe(path, old, added, removed, max_ratio, floor_lines))
    return problems


def describe(path: str, old_lines: int, added: int, removed: int, max_ratio: float,
             floor_lines: int = DEFAULT_FLOOR) -> str:
    """One over-limit file, with the way to commit it anyway."""
    ratio = _ratio(old_lines, old_lines + added - removed)
    grown = "grows an empty file" if ratio == float("inf") else f"grows by {ratio:.1%}"
    return (f"{path}: {grown} ({old_lines} lines before, {added} added, {removed} removed; "
            f"limit {_limit(max_ratio, floor_lines, '.1%')}); split the change, or commit it anyway with {OVERRIDE}")


def _limit(max_ratio: float, floor_lines: int, spec: str) -> str:
    """The limit in words: "5.0%", or "5.0% or 10 lines" with a floor."""
    return f"{max_ratio:{spec}}" + (f" or {floor_lines} lines" if floor_lines else "")
