"""``gitmem hook reference-transaction STATE``: git's reference-transaction hook, the agent's layer rule
for the commits no pre-commit hook sees.

``git commit --no-verify`` skips pre-commit and commit-msg; ``git cherry-pick``, ``git rebase``,
``git revert``, ``git am`` and ``git commit-tree`` followed by ``git merge`` or ``git update-ref`` run
neither. Git runs this hook for every ref update it makes, ``--no-verify`` or not, and a non-zero exit
in the ``prepared`` state aborts the update. Under an agent's environment (``gitmem.guards.reviewer``)
it applies pre-commit's rule (``gitmem.faces.hooklayers.changed_layers``) to each commit that a local
branch or a detached HEAD is about to point at and that no ref reaches yet: a commit made here and
now, by the agent. A commit some ref already reaches (a person's commit on another branch, a commit
fetched from a remote, ``gitmem sync``'s incoming tip) was made elsewhere, and a merge that only
brings it in changes no layer itself: both pass, as at pre-merge-commit.

It runs on every ref update (fetch, gc, checkout …), so the script git starts exits in the shell
unless the state is ``prepared`` and an agent variable is set (``gitmem.api.initrepo`` writes the
variables into it); here, a transaction that moves no local branch or HEAD to a new commit costs no
git process. gitmem's own writes move refs without git (``gitmem.base.gitio.refwrite``) and never
reach it.
"""

from __future__ import annotations

import os
import re
import sys

from gitmem.faces.hookrun import _BINARY_SNIFF, Report

_ID = re.compile(r"[0-9a-f]{40}(?:[0-9a-f]{24})?")
HINT = ("Layers 1 and 4 of CLAUDE.md are the person's: nothing was moved. Undo the change under the agent "
        "(`git cherry-pick --abort`, `git rebase --abort`, or restore CLAUDE.md and commit again); a person "
        "who wants it runs the same git command in their own terminal, outside the agent")


def main(argv: list[str], repo: str | None = None) -> int:
    """Exit 0 unless the transaction is ``prepared``, runs under an agent and moves a local branch or
    HEAD to a commit made here that changes Layer 1 or 4 of a CLAUDE.md by itself; then 1 (git aborts)."""
    if argv[:1] != ["prepared"]:
        return 0
    from gitmem.guards.reviewer import agent_of

    found = agent_of(os.environ)
    if found is None:
        return 0
    tips = moved_tips(sys.stdin.read())
    if not tips:
        return 0
    from gitmem.base.errors import GitError

    report = Report()
    try:
        changes = agent_layer_changes(os.path.abspath(repo) if repo else os.getcwd(), list(tips.values()))
    except GitError as exc:   # which commits are new cannot be told: fail closed, nothing moves
        report.problem("layers-agent", None, None, f"{exc.message}; gitmem refused to move {', '.join(tips)} "
                       f"under {found[1]} ({found[0]} is set)")
        return report.finish({"layers-agent": HINT})
    if not changes:
        return 0
    from gitmem.guards.layers import NAMES   # markdown-it and dataclasses: only for a refusal

    for commit, path, number, line in changes:
        refs = [ref for ref, tip in tips.items() if tip == commit] or list(tips)
        report.problem("layers-agent", f"{commit[:12]}:{path}", line,
                       f"layer {number} ({NAMES[number]}) changed in a commit made under {found[1]} ({found[0]} "
                       f"is set); gitmem refused to move {', '.join(refs)} to it")
    return report.finish({"layers-agent": HINT})


def moved_tips(lines: str) -> dict[str, str]:
    """``{ref: new}`` for each ``<old> <new> <ref>`` line that moves a local branch or HEAD to a commit
    (deletions, and other refs such as ORIG_HEAD, refs/remotes/ or refs/stash, left out)."""
    out: dict[str, str] = {}
    for line in lines.splitlines():
        parts = line.split(" ")
        if len(parts) != 3:
            continue
        _, new, ref = parts
        if (ref == "HEAD" or ref.startswith("refs/heads/")) and _ID.fullmatch(new) and new.strip("0"):
            out[ref] = new
    return out


def agent_layer_changes(root: str, tips: list[str]) -> list[tuple[str, str, int, int | None]]:
    """(commit, CLAUDE.md path, layer, line) for each Layer 1 or 4 changed by a commit that ``tips``
    reach and no ref reaches yet; a layer that matches one of the commit's parents came from it.
    A GitError when git cannot list them."""
    from gitmem.base.gitio.command import read_blobs, run, split_nul

    listed = run(root, "rev-list", "--parents", *dict.fromkeys(tips), "--not", "--all")
    parents = {c: ps for c, *ps in (line.split() for line in listed.decode("ascii", "replace").splitlines()) if ps}
    if not parents:
        return []
    names = run(root, "diff-tree", "--stdin", "-r", "-c", "-z", "--no-renames", "--name-only",
                stdin="".join(f"{c}\n" for c in parents).encode())
    changed: list[tuple[str, str]] = []
    commit = ""
    for token in split_nul(names):
        if token in parents:
            commit = token
        elif commit and os.path.basename(token) == "CLAUDE.md":
            changed.append((commit, token))
    if not changed:
        return []
    from gitmem.faces.hooklayers import changed_layers

    revs = [f"{rev}:{path}" for c, path in changed for rev in (c, *parents[c])]
    blobs = iter(read_blobs(root, revs))
    out = []
    for c, path in changed:
        text, *before = (next(blobs) for _ in range(1 + len(parents[c])))
        if text is None:
            text = b""   # deleted: every layer a parent had is gone, as at pre-commit
        elif b"\0" in text[:_BINARY_SNIFF]:
            continue   # not text: as at pre-commit
        olds = [b.decode("utf-8", "replace") for b in before if b is not None]
        out += [(c, path, n, line) for n, line in changed_layers(text.decode("utf-8", "replace"), olds)]
    return out

