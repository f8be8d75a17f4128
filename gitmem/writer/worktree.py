"""The checked-out branch: its index and files follow a commit, and a killed writer is recovered.

The next index is staged in a file of its own. New files are written first
(untracked until the branch moves); git's ``index.lock`` is then held only
while changed tracked files are rewritten, the next index is renamed into
place and the branch moves, and it is removed by the system call right after
the rename that moves it (``gitio.refwrite``); deleted files go last (untracked
by then). A person's ``git commit`` therefore never commits half a write, and
a writer killed at any moment leaves a lock only inside that short window,
which its watchdog (``writer.watchdog``) releases at once. Its journal under
.git/gitmem/ lets the watchdog, ``gitmem recover`` or the next writer finish
(or undo) the work. A person's uncommitted edits in the changed paths refuse
the write. Everything here runs under the write lock.
"""

from __future__ import annotations

import json
import os
from collections.abc import Mapping, Sequence
from datetime import datetime
from pathlib import Path

from gitmem.base import state
from gitmem.base.errors import CommitInProgress, ConflictError
from gitmem.base.files import write_atomic
from gitmem.base.gitio import Git, staging
from gitmem.base.gitio.command import blob_id, changed_in_worktree
from gitmem.base.gitio.reflocks import git_commit_in
from gitmem.writer import watchdog


def journal_path(git: Git) -> Path:
    """The journal of a work-tree update under way (per clone)."""
    return Path(state.journal_path(git.root))


def commit(git: Git, branch: str, tree: str, parent: str | None, text: str,
           changes: Mapping[str, bytes | None], now: datetime, merged: Sequence[str] = ()) -> str:
    """Commit and bring the index and files along: stage the next index in a file of its own, write
    the new files, then, holding ``index.lock`` only for that long, rewrite the changed tracked
    files, rename the next index into place and move the branch; then delete what the commit deletes.

    ``index.lock`` is held only while a tracked file's content differs from both the index and the
    branch (a person's `git commit -a` then refuses instead of committing half a write); a new file
    written before, or a deleted file still there after, is untracked meanwhile, which neither `git
    add PATH` nor `git commit -a` picks up. The lock goes the moment the branch has moved (the next
    system call after the ref's rename), so a writer killed at almost any moment leaves no lock for
    a person's next `git add` to trip over. Its journal, written before the first file, lets ``gitmem
    recover`` (or the next write) undo the files of a write whose branch did not move, or finish the
    deletions of one whose branch did. ``CommitInProgress`` when a person's ``git commit`` is running
    (the caller waits for it with nothing held).
    """
    # A person's `git commit` reads HEAD, then takes index.lock: one already running must never
    # meet ours (it would stop at "index.lock: File exists"), so it is waited for before we take it
    person = git_commit_in(git.root)
    if person is not None:
        raise CommitInProgress(person)
    before = refuse_dirty(git, parent, changes)
    # a file the change leaves as it was is neither staged nor rewritten (its mtime stays)
    todo = {p: d for p, d in changes.items() if (None if d is None else blob_id(d)) != before[p]}
    early, held, late = phases(todo, before)
    prepared, stamp = git.worktree.prepare_index(tree, todo)
    written = git.write_commit(tree, parent, text, now, merged)   # before the lock: only the move is left in it
    previous = prepared.with_suffix(".prev")
    moved = installed = False
    try:
        watchdog.start(git.root)   # a kill from here on is settled the moment it happens
        _journal(git, branch, parent, todo, held, late, before, prepared, written)   # before the first file
        git.worktree.write_files(early)       # untracked until the branch moves: no lock needed
        staging.take(git.git_dir, copy=False)   # empty: the next index is prepared
        try:
            if staging.stamp(git.git_dir) != stamp:   # a person staged meanwhile: checked and staged again, held
                refuse_dirty(git, parent, {p: d for p, d in changes.items() if p not in early})
                _refuse_touched(git, early)
                prepared.unlink(missing_ok=True)
                prepared, stamp = git.worktree.prepare_index(tree, todo)
            # one that started since read HEAD before the branch moves and fails ("cannot lock ref
            # 'HEAD'") if it moves now: looked for again at the last moment, and waited for
            person = git_commit_in(git.root)
            if person is not None:
                raise CommitInProgress(person)
            git.worktree.write_files(held)
            # the index takes the commit's state just before the branch moves (the lock still held, so
            # no person's commit starts meanwhile): after the move only the lock's removal is left
            staging.keep(git.git_dir, previous)
            staging.swap(git.git_dir, prepared)
            installed = True
            # the lock goes by the system call right after the one that moves the branch
            made = git.create_commit(branch, tree, parent, text, now, merged,
                                     release=staging.release_paths(git.git_dir), written=written)
            moved = True
            git.worktree.unlock_index()
        except BaseException:
            if not moved:
                if installed:
                    staging.put_back(git.git_dir, previous)
                _undo_files(git, parent, held)   # tracked files: put back while the lock still stands
                git.worktree.unlock_index()
            raise
        # the branch and the index no longer hold these: untracked now, so a person's commit cannot
        # record their deletion half done (a kill here leaves them to the journal's recovery)
        git.worktree.write_files(late)
    except BaseException:
        prepared.unlink(missing_ok=True)
        previous.unlink(missing_ok=True)
        if not moved:
            _undo_files(git, parent, early)
            _journal_done(git)
        raise
    previous.unlink(missing_ok=True)
    _journal_done(git)
    return made


def phases(todo: Mapping[str, bytes | None], before: Mapping[str, str | None]
           ) -> tuple[dict[str, bytes | None], dict[str, bytes | None], dict[str, bytes | None]]:
    """``todo`` split by when its files are written: (new files, before ``index.lock`` is taken;
    changed tracked files, under it; deleted files, once the branch has moved).

    A new file in a folder a deletion removes, or where a deleted file's folder would be (a file
    giving way to a folder, or the reverse), is written with the changed files, and the deletions
    with them, first, as ``write_files`` orders them.
    """
    gone = {p for p, d in todo.items() if d is None}
    early: dict[str, bytes | None] = {p: d for p, d in todo.items() if d is not None and before[p] is None}
    if gone and early:
        folders = {p.rsplit("/", i)[0] for p in gone for i in range(1, p.count("/") + 1)}
        clash = {p for p in early if p in folders
                 or any(p.rsplit("/", i)[0] in gone for i in range(1, p.count("/") + 1))}
        if clash:
            early = {p: d for p, d in early.items() if p not in clash}
            return early, {p: d for p, d in todo.items() if p not in early}, {}
    held: dict[str, bytes | None] = {p: d for p, d in todo.items() if d is not None and p not in early}
    return early, held, dict.fromkeys(gone)


def _refuse_touched(git: Git, written: Mapping[str, bytes | None]) -> None:
    """Refuse when a person changed or staged one of the new files written before the lock was taken."""
    paths = sorted(written)
    staged = git.worktree.staged_changes(None, paths)
    touched = [p for p, d in written.items() if d is not None
               and (git.worktree.file_hash(p) != blob_id(d) or p in staged and git.worktree.index_hash(p) != blob_id(d))]
    if touched:
        raise ConflictError("changed while gitmem wrote them: " + ", ".join(sorted(touched)[:5]) + "; nothing was written",
                            hint="commit or stash your edits to those files (git status), then run the command again")


def _undo_files(git: Git, parent: str | None, written: Mapping[str, bytes | None]) -> None:
    """Put back, as ``parent`` holds them, the files a write that never committed wrote (those since
    edited by a person are left as they are)."""
    ours = {p for p, d in written.items() if git.worktree.file_hash(p) == (None if d is None else blob_id(d))}
    git.worktree.write_files({p: git.read(p, parent) if parent else None for p in sorted(ours)})


def refuse_dirty(git: Git, parent: str | None, changes: Mapping[str, bytes | None]) -> dict[str, str | None]:
    """Refuse when a person edited or staged one of the paths; else each path's blob id at ``parent``."""
    paths = sorted(changes)
    staged = git.worktree.staged_changes(parent, paths)
    before = git.tree_entry_hashes(parent, paths)
    dirty = [p for p in paths if p in staged or git.worktree.file_hash(p) != before[p]]
    # a tracked file whose bytes differ only as git's filters undo (CRLF of a text=auto file) is
    # clean to git: asked of git itself, else decay would refuse it forever while `git status` shows nothing
    recheck = [p for p in dirty if p not in staged and before[p] is not None]
    if recheck:
        edited = changed_in_worktree(git.root, recheck)
        if edited is not None:
            dirty = [p for p in dirty if p not in recheck or p in edited]
    if dirty:
        raise ConflictError(
            "uncommitted changes in " + ", ".join(dirty[:5]) + (" …" if len(dirty) > 5 else "") + "; nothing was written",
            hint="commit or stash your edits to those files (git status), then run the command again")
    return before


def pending(git: Git) -> bool:
    """True when a killed writer left a journal or its index.lock."""
    return journal_path(git).exists() or git.worktree.index_lock_abandoned()


def recover(git: Git, branch: str) -> None:
    """Finish the work-tree and index update of a writer killed after its commit, or undo
    one killed before it (under the write lock: no write of ours is under way)."""
    watchdog.start(git.root)   # the write that follows is watched from its start, by a watchdog ready by then
    try:
        journal = json.loads(journal_path(git).read_text())
    except (FileNotFoundError, ValueError):
        journal = None
    ours = git.worktree.index_lock_abandoned()
    if isinstance(journal, dict) and journal.get("branch") == branch \
            and watchdog.release(str(git.root), str(git.git_dir), str(git.common_dir), journal, ours):
        journal, ours = None, False   # finished as the killed writer would have, index.lock untaken
    for pattern in ("index.*.next", "index.*.prev"):   # a killed writer's next index and the kept old one
        for left in (git.git_dir / "gitmem").glob(pattern):
            left.unlink(missing_ok=True)
    tip = git.tip(branch)
    if not isinstance(journal, dict) or journal.get("branch") != branch or tip is None \
            or tip == journal.get("parent"):
        if isinstance(journal, dict) and isinstance(journal.get("new"), dict) and journal.get("branch") == branch:
            _undo_journal(git, journal, ours)
        elif ours:
            git.worktree.unlock_index()   # the branch never moved: the old index is right
        _journal_done(git)
        return
    parent = journal.get("parent")
    paths = [p for p in journal.get("paths", []) if isinstance(p, str)]
    if ours:
        git.worktree.unlock_index()   # its content may be torn: start again from the index, untouched meanwhile
    git.worktree.lock_index()   # IndexLocked when someone else holds it: the caller waits
    try:
        stale = {p: git.tree_entry_hash(parent, p) for p in paths}
        fresh = {p: git.tree_entry_hash(tip, p) for p in paths}
        # entries still as before the write (or already done) are ours; a person's staging is kept
        git.worktree.stage_index(tip, [p for p in paths if git.worktree.index_hash(p) in (stale[p], fresh[p])])
        todo = {p: git.read(p, tip) for p in paths if git.worktree.file_hash(p) == stale[p]}
        git.worktree.write_files(todo)
    except BaseException:
        git.worktree.unlock_index()
        raise
    git.worktree.publish_index()
    _journal_done(git)


def _undo_journal(git: Git, journal: dict[str, object], ours: bool) -> None:
    """Undo a write killed before its branch moved: the index entries and files it wrote go back to
    what the branch holds (a person's own staging and edits since are kept)."""
    parent = journal.get("parent")
    new = journal["new"]
    assert isinstance(new, dict)
    paths = sorted(p for p in new if isinstance(p, str))
    if ours:
        git.worktree.unlock_index()
    git.worktree.lock_index()   # IndexLocked when someone else holds it: the caller waits
    try:
        old = git.tree_entries(parent, paths) if isinstance(parent, str) else {p: None for p in paths}
        git.worktree.stage_entries({p: old[p] for p in paths if git.worktree.index_hash(p) == new[p]})
        git.worktree.write_files({p: git.read(p, parent) if isinstance(parent, str) else None
                         for p in paths if git.worktree.file_hash(p) == new[p]})
    except BaseException:
        git.worktree.unlock_index()
        raise
    git.worktree.publish_index()


def _journal(git: Git, branch: str, parent: str | None, changes: Mapping[str, bytes | None],
             held: Mapping[str, bytes | None], late: Mapping[str, bytes | None], before: Mapping[str, str | None],
             prepared: Path, commit: str) -> None:
    """What a write is about to do: its branch, parent and commit, each path's new blob id (None:
    deleted), ``held``, the tracked files it rewrites under ``index.lock`` (none: a kill before its
    branch moved left only untracked files, which a person's commit cannot pick up), ``gone``, the blob
    ids of the files it deletes once the branch has moved, and ``next``, its next index's file name
    (``watchdog.release`` reads them all), and ``pid``, the writing process's."""
    new = {p: None if d is None else blob_id(d) for p, d in sorted(changes.items())}
    write_atomic(journal_path(git), json.dumps({"branch": branch, "parent": parent, "paths": sorted(changes),
                                                "new": new, "held": sorted(held), "commit": commit, "pid": os.getpid(),
                                                "gone": {p: before[p] for p in sorted(late)}, "next": prepared.name}))


def _journal_done(git: Git) -> None:
    try:
        journal_path(git).unlink()
    except FileNotFoundError:
        pass
