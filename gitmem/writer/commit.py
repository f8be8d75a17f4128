"""The writer: lock, plan against the tip, guards, one commit, work tree.

Every writer of memory (CLI, MCP server, daemon, hooks) comes through
:meth:`Writer.write`. The caller gives a *planner*: a function of the branch
tip that returns the changes. It runs under the write lock against the current
tip and runs again if the tip moved (compare-and-swap failed), so an update
computed from a stale read can never overwrite a newer one. The guards' verdict
(``chain.judge``) decides what is committed: all of it, a batch with the rest
queued, or nothing. Another program's ``index.lock`` and a person's running
``git commit`` are waited for with nothing held (``waiting``).
"""

from __future__ import annotations

import functools
import os
import time
from datetime import datetime
from pathlib import Path
from typing import TYPE_CHECKING, Any, TypeVar

from gitmem.base import state
from gitmem.base.config import Config
from gitmem.base.errors import CasFailed, CommitInProgress, ConflictError, IndexLocked, SecretError
from gitmem.base.gitio import Git
from gitmem.base.model import iso
from gitmem.guards import redact
from gitmem.guards.lock import exclusive
from gitmem.guards.verdict import Defer, Refuse
from gitmem.writer import chain, placement, scanned, waiting, worktree
from gitmem.writer.plan import Plan, Planner, Written

if TYPE_CHECKING:
    from gitmem.guards import pii

MAX_ATTEMPTS = 50

T = TypeVar("T")


class Writer:
    """A memory repository's one way in: plans become commits."""

    def __init__(self, root: Path, cfg: Config) -> None:
        self.git = Git(root)
        self.root = self.git.root
        self.cfg = cfg
        self.state = state.shared_dir(self.git.root)
        # the files every write touches, named once (the lock's folder is made again on each write)
        self._lock = str(self.state / state.WRITE_LOCK)
        self._events = str(self.state / state.EVENTS_LOG)
        self._names_file = str(self.state / state.NAMES_FILE)
        self._merge_head = str(self.git.git_dir / "MERGE_HEAD")
        self._names: pii.Names | None = None   # user names known to this clone, and their file's stamp
        self._names_stamp: tuple[int, int] | None = None

    def default_branch(self) -> str:
        """The checked-out branch, where memory is written unless a caller names another."""
        branch = self.git.head_branch()
        if branch is None:
            raise ConflictError("HEAD is detached, so there is no branch to write memory to",
                                hint="check out a branch first (git switch main), then run the command again")
        return branch

    def write(self, planner: Planner[T], now: datetime, branch: str | None = None) -> Written[T]:
        """Run ``planner`` against the tip and commit its plan; see the module docstring."""
        branch = branch or self.default_branch()
        checked_out = not self.git.repo.is_bare and self.git.head_branch() == branch
        deadline = time.monotonic() + waiting.INDEX_WAIT
        while True:
            try:
                with exclusive(self._lock):
                    return self._write(planner, now, branch, checked_out)
            except IndexLocked as busy:
                # A person's `git commit` holds the index (its hooks may be waiting for
                # our write lock): wait with nothing held, then plan again.
                if not waiting.wait_gone(Path(busy.path), deadline):
                    raise
            except CommitInProgress as busy:
                if not waiting.wait_exit(busy.pid, deadline):
                    raise

    def recover(self) -> bool:
        """Finish or undo a write a killed writer left half done; True when there was one."""
        from gitmem.base.gitio.reflocks import clear_dead_writers

        with exclusive(self._lock):
            pending = worktree.pending(self.git)
            pending = bool(clear_dead_writers(self.git.common_dir)) or pending
            branch = self.git.head_branch()
            if branch is not None and not self.git.repo.is_bare:
                worktree.recover(self.git, branch)
            return pending

    def _write(self, planner: Planner[T], now: datetime, branch: str, checked_out: bool) -> Written[T]:
        refuse_while_merging(self._merge_head)
        if checked_out:
            worktree.recover(self.git, branch)
        for _ in range(MAX_ATTEMPTS):
            parent = self.git.tip(branch)
            plan = planner(parent)
            if plan is None or not plan.changes:
                return Written(None, branch, plan)
            plan = placement.placed(self.git, self.cfg, plan, parent)   # personal memories of a team repository
            record = scanned.record_path(self.git, self.cfg, parent) if scanned.worth(plan.changes) else None
            clean = scanned.load(record) if record is not None else None
            judged = chain.judge(self.git, self.cfg, plan, parent, checked_out, clean)
            verdict = judged.verdict
            if isinstance(verdict, Refuse):
                self._refuse(verdict, plan, now)
                raise verdict.error   # _refuse raised already; for the type checker
            deferred = verdict.deferred if isinstance(verdict, Defer) else ()
            changes = dict(verdict.changes)
            tree = self.git.build_tree(parent, changes)
            if parent is not None and tree == self.git.tree_id(parent):
                return Written(None, branch, plan, judged.stripped)
            text = chain.commit_message(self.cfg, self._known_names(), plan, len(changes), deferred)
            if isinstance(text, Refuse):
                self._refuse(text, plan, now)
                raise text.error
            try:
                if checked_out:
                    commit = worktree.commit(self.git, branch, tree, parent, text, changes, now, plan.merge_parents)
                else:
                    commit = self.git.create_commit(branch, tree, parent, text, now, plan.merge_parents)
            except CasFailed:
                continue
            if record is not None and clean is not None:
                scanned.save(record, clean)
            state.log_event_to(self._events, "write", iso(now), commit=commit, branch=_branch_for_log(branch),
                               kind=plan.event, files=len(changes), **({"deferred": list(deferred)} if deferred else {}))
            return Written(commit, branch, plan, judged.stripped, deferred)
        raise ConflictError(f"branch {branch!r} kept moving; gave up after {MAX_ATTEMPTS} attempts",
                            hint="another program is committing to it in a loop; try again when it stops")

    def _refuse(self, verdict: Refuse, plan: Plan[Any], now: datetime) -> None:
        """Raise the refusal; a secret is logged first (``secret.rejected``), never its value."""
        error = verdict.error
        if isinstance(error, SecretError):
            log_rejected(self.root, error, plan.event, plan.session, now)
        raise error

    def _known_names(self) -> pii.Names:
        """The user names this clone has learned (salted hashes); read again only when their file
        changed (a harvest in this or another process learned some), which costs one stat."""
        try:
            info = os.stat(self._names_file)
            stamp: tuple[int, int] | None = (info.st_mtime_ns, info.st_size)
        except FileNotFoundError:
            stamp = None
        if self._names is None or stamp != self._names_stamp:
            from gitmem.guards import pii

            self._names = pii.Names(state.salt(self.root), state.known_names(self.root))
            self._names_stamp = stamp
        return self._names


@functools.lru_cache(maxsize=64)
def _branch_for_log(branch: str) -> str:
    """``branch`` as the event log records it: scanned once per name, not on every write (the
    scanner without an allowlist is a function of the text alone)."""
    return redact.for_log(branch)


def refuse_while_merging(merge_head: str) -> None:
    """Nothing is committed while a merge waits for a person (``merge_head``, the clone's MERGE_HEAD, is
    there): the commit would carry half of it."""
    if os.path.exists(merge_head):
        raise ConflictError("a merge is in progress in this clone and not resolved yet; gitmem commits nothing "
                            "until it is", hint="run `gitmem repair` to merge the memory documents, then "
                            "`git commit` (or `git merge --abort`), then `gitmem sync`")


def log_rejected(root: Path, error: SecretError, event: str, session: str | None, now: datetime) -> None:
    """Record in the clone's event log that ``error``'s secrets refused a write or a text."""
    state.log_event(root, "secret.rejected", iso(now), event_kind=event, session=session,
                    findings=[f"{p}: {w}" for p, w in error.findings])
