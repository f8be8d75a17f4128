"""The layer rule for commits made under an agent's environment, at pre-commit and pre-merge-commit.

Part of the git hooks' entry points (``gitmem.faces.githooks``): light, no
pygit2, no api. A commit made under an agent may not itself change Layers 1
or 4 of a CLAUDE.md; a merge that only brings in such a change made elsewhere
(a person's commit on another clone, ``gitmem sync``) passes.
"""

from __future__ import annotations

import os
import re

TYPE_CHECKING = False
if TYPE_CHECKING:
    from collections.abc import Sequence

    from gitmem.faces.hookrun import Run


def check_agent_layers(run: Run, files: Sequence[str]) -> None:
    """Under an agent's environment, a commit may not itself change Layers 1 or 4 of a CLAUDE.md.

    "Itself": a layer whose staged content equals its content in one of the commit's parents (HEAD,
    or a merge's MERGE_HEAD) came from that parent, so a merge that only brings in a Layer 1 commit
    made elsewhere (``gitmem sync``) passes; a layer that matches no parent was changed here.
    """
    if not files:
        return
    from gitmem.guards.reviewer import agent_of

    found = agent_of(os.environ)
    if found is None:
        return
    from gitmem.base import gitio
    from gitmem.guards import layers

    heads = ["HEAD", *_merge_heads(run.root)]
    blobs = gitio.read_blobs(run.root, [f"{head}:{path}" for path in files for head in heads])
    for i, path in enumerate(files):
        parents = [b.decode("utf-8", "replace") for b in blobs[i * len(heads):(i + 1) * len(heads)] if b is not None]
        if not parents:
            continue   # a new CLAUDE.md has no person's layers yet
        # a deleted CLAUDE.md has no layers left: deleting it changes every layer a parent had
        for number, line in changed_layers(run.read(path) or "", parents):
            run.report.problem("layers-agent", path, line,
                               f"layer {number} ({layers.NAMES[number]}) changed in a commit made under "
                               f"{found[1]} ({found[0]} is set); only a person changes it")


def changed_layers(text: str, parents: Sequence[str]) -> list[tuple[int, int | None]]:
    """(number, first line) of each of Layers 1 and 4 of ``text`` that matches that layer in none of
    ``parents`` (the CLAUDE.md of each parent of the commit): the layers this commit itself changed.
    No parent at all (a new CLAUDE.md) changes none; a deleted one is the empty ``text``. The one rule of pre-commit, pre-merge-commit and
    reference-transaction (``gitmem.faces.hookrefs``)."""
    if not parents:
        return []
    from gitmem.guards import layers

    now, before = layers.sections(text), [layers.sections(p) for p in parents]
    starts = {layer.number: layer.start_line for layer in reversed(layers.parse(text))}
    return [(number, starts.get(number)) for number in (1, 4) if all(b.get(number) != now.get(number) for b in before)]


def _merge_heads(root: str) -> list[str]:
    """The other parents of the merge being committed (``MERGE_HEAD``), none outside a merge. At
    pre-merge-commit git has not written MERGE_HEAD yet: it names each head it merges in a
    ``GITHEAD_<id>`` variable of the hook's environment."""
    from gitmem.base.gitio.heads import read_git_dirs

    dirs = read_git_dirs(root)
    if dirs is None:
        return []
    try:
        with open(os.path.join(dirs[0], "MERGE_HEAD"), encoding="ascii") as fh:
            return [line.strip() for line in fh if re.fullmatch(r"[0-9a-f]{40,64}", line.strip())]
    except (OSError, UnicodeDecodeError):
        pass
    return sorted(name[len("GITHEAD_"):] for name in os.environ
                  if name.startswith("GITHEAD_") and re.fullmatch(r"[0-9a-f]{40,64}", name[len("GITHEAD_"):]))
