"""The one write path: a set of file changes becomes ONE commit on a branch.

Every writer (CLI, MCP server, daemon, hooks) comes through ``Store.write``.
Before the commit object exists, in this order: sandbox, guard, PII, amplitude,
layers (DESIGN.md section 4). The caller gives a *planner*: a function of the
branch tip that returns the changes. It runs under the write lock against the
current tip and runs again if the tip moved (compare-and-swap failed), so an
update computed from a stale read can never overwrite a newer one.

When the branch is the checked-out one, the work tree and index follow for the
changed paths; a person's uncommitted edits in those paths refuse the write.
The index is staged in git's own ``index.lock`` before the branch moves and
renamed into place after the files: a writer killed in between leaves the lock
(a person's ``git commit`` refuses, never commits a deletion) and a journal
under .git/gitmem/ that ``gitmem recover`` or the next writer finishes.
Another program's ``index.lock`` and a person's running ``git commit`` are
waited for with nothing held.
"""

from __future__ import annotations

import json
import os
import time
from dataclasses import dataclass, field
from datetime import datetime
from pathlib import Path
from typing import TYPE_CHECKING, Any, Callable, Generic, Mapping, Sequence, TypeVar

from gitmem.base import config as config_mod
from gitmem.base import state
from gitmem.guards import amplitude
from gitmem.guards import guard, sandbox
from gitmem.base.config import Config
from gitmem.base.errors import CheckFailed, ConflictError, SecretError
from gitmem.base.files import write_atomic
from gitmem.base.errors import CasFailed, CommitInProgress, IndexLocked
from gitmem.base.gitio.command import blob_id
from gitmem.base.gitio.reflocks import git_commit_in
from gitmem.base.gitio import Git
from gitmem.guards.lock import exclusive
from gitmem.store import snapshots
from gitmem.base.model import iso
from gitmem.base.text import printable_label
from gitmem.store.documents import FRONT_MATTER_MAX_BYTES

if TYPE_CHECKING:
    from gitmem.guards import pii
    from gitmem.guards import redact as redact_mod

MAX_ATTEMPTS = 50
INDEX_WAIT = 60.0   # seconds a write waits for another program's index.lock (a `git commit` in its editor)


T = TypeVar("T")


@dataclass(frozen=True)
class Plan(Generic[T]):
    """What one commit changes and how its message reads."""

    changes: Mapping[str, bytes | None]
    subject: str
    event: str
    auto: bool = False
    session: str | None = None
    approved_by: str | None = None
    trailers: tuple[tuple[str, str], ...] = ()
    body: str = ""
    result: T | None = None
    merge_parents: tuple[str, ...] = ()    # a merge commit's other parents (review accept)


@dataclass(frozen=True)
class Written(Generic[T]):
    """The outcome: the commit (None when nothing changed), the plan, PII that was stripped."""

    commit: str | None
    branch: str
    plan: Plan[T] | None
    stripped: tuple[tuple[str, tuple[str, ...]], ...] = field(default=())

    @property
    def result(self) -> T | None:
        """What the planner put in its plan's ``result`` (None when it planned nothing)."""
        return self.plan.result if self.plan is not None else None

    def to_json(self) -> dict[str, object]:
        """The commit made (None: nothing changed)."""
        return {"commit": self.commit}


Planner = Callable[[str | None], "Plan[T] | None"]


def message(plan: Plan[Any], count: int) -> str:
    """Commit message: subject, optional body, then Gitmem-* trailers."""
    trailers = [("Gitmem-Event", plan.event)]
    if plan.auto:
        trailers.append(("Gitmem-Auto", "true"))
    if plan.session:
        trailers.append(("Gitmem-Session", plan.session))
    if plan.approved_by:
        trailers.append(("Gitmem-Approved-By", plan.approved_by))
    trailers.append(("Gitmem-Files", str(count)))
    trailers.extend(plan.trailers)
    lines = plan.subject.strip().splitlines()
    subject = printable_label(lines[0])[:200] if lines else ""   # no control or bidi character in a subject
    text = (subject or f"gitmem: {plan.event}") + "\n\n"
    if plan.body.strip():
        text += plan.body.strip() + "\n\n"
    return text + "\n".join(f"{k}: {printable_label(str(v))}" for k, v in trailers) + "\n"


class Store:
    """A memory repository's git store and the write path into it."""

    def __init__(self, root: Path, cfg: Config) -> None:
        self.git = Git(root)
        self.root = self.git.root
        self.cfg = cfg
        self.state = state.shared_dir(self.git.root)
        self._names: pii.Names | None = None   # user names known to this clone (salted hashes), read once

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
        guard.check_disk(self.root, self.cfg.sediment.min_free_mb)
        deadline = time.monotonic() + INDEX_WAIT
        while True:
            try:
                with exclusive(self.state / state.WRITE_LOCK):
                    return self._write(planner, now, branch, checked_out)
            except IndexLocked as busy:
                # A person's `git commit` holds the index (its hooks may be waiting for
                # our write lock): wait with nothing held, then plan again.
                if not _wait_gone(Path(busy.path), deadline):
                    raise
            except CommitInProgress as busy:
                if not _wait_exit(busy.pid, deadline):
                    raise

    def recover(self) -> bool:
        """Finish or undo a write a killed writer left half done; True when there was one."""
        from gitmem.base.gitio.reflocks import clear_dead_writers

        with exclusive(self.state / state.WRITE_LOCK):
            pending = self._journal_path().exists() or self.git.index_lock_abandoned()
            pending = bool(clear_dead_writers(self.git.common_dir)) or pending
            branch = self.git.head_branch()
            if branch is not None and not self.git.repo.is_bare:
                self._recover_worktree(branch)
            return pending

    def _write(self, planner: Planner[T], now: datetime, branch: str, checked_out: bool) -> Written[T]:
        if checked_out:
            self._recover_worktree(branch)
        for _ in range(MAX_ATTEMPTS):
            parent = self.git.tip(branch)
            plan = planner(parent)
            if plan is None or not plan.changes:
                return Written(None, branch, plan)
            changes, stripped = self._check(plan, parent, checked_out, now)
            tree = self.git.build_tree(parent, changes)
            if parent is not None and tree == self.git.tree_id(parent):
                return Written(None, branch, plan, stripped)
            text = self._message(plan, len(changes), now)
            try:
                if checked_out:
                    commit = self._commit_checked_out(branch, tree, parent, text, changes, now, plan.merge_parents)
                else:
                    commit = self.git.create_commit(branch, tree, parent, text, now, plan.merge_parents)
            except CasFailed:
                continue
            state.log_event(self.git.root, "write", iso(now), commit=commit, branch=branch,
                             kind=plan.event, files=len(changes))
            if checked_out:
                snapshots.catch_up(self.git, commit, now)
            return Written(commit, branch, plan, stripped)
        raise ConflictError(f"branch {branch!r} kept moving; gave up after {MAX_ATTEMPTS} attempts",
                            hint="another program is committing to it in a loop; try again when it stops")

    def _commit_checked_out(self, branch: str, tree: str, parent: str | None, text: str,
                            changes: Mapping[str, bytes | None], now: datetime, merged: Sequence[str] = ()) -> str:
        """Commit with the index held: lock it, stage, move the branch, write the files, publish.

        Until the last step git's ``index.lock`` exists, so a writer killed at any
        moment leaves a lock (a person's `git commit` refuses) and a journal
        (``gitmem recover``, or the next write, finishes the work), never an index
        that lacks what the branch holds.
        """
        # A person's `git commit` reads HEAD, then takes index.lock: one already running must never
        # meet ours (it would stop at "index.lock: File exists"), so it is waited for before we take it
        person = git_commit_in(self.root)
        if person is not None:
            raise CommitInProgress(person)
        self.git.lock_index()
        moved = False
        try:
            before = self._refuse_dirty(parent, changes)   # under the lock: nobody stages meanwhile
            # a file the change leaves as it was is neither staged nor rewritten (its mtime stays)
            todo = {p: d for p, d in changes.items() if (None if d is None else blob_id(d)) != before[p]}
            self._journal(branch, parent, todo)
            self.git.stage_index(tree, todo)
            # one that started since read HEAD before the branch moves and fails ("cannot lock ref
            # 'HEAD'") if it moves now: looked for again at the last moment, and waited for
            person = git_commit_in(self.root)
            if person is not None:
                raise CommitInProgress(person)
            commit = self.git.create_commit(branch, tree, parent, text, now, merged)
            moved = True
            self.git.write_files(todo)
            self.git.publish_index()
        except BaseException:
            if not moved:
                self.git.unlock_index()
                self._journal_done()
            raise
        self._journal_done()
        return commit

    # --- the steps before the commit -------------------------------------------
    def _check(self, plan: Plan[Any], parent: str | None, checked_out: bool, now: datetime) -> tuple[dict[str, bytes | None], tuple[tuple[str, tuple[str, ...]], ...]]:
        allowed = self.cfg.paths.allowed_dirs
        narrowed = config_mod.env_allowed_dirs()
        max_bytes = self.cfg.sediment.max_content_bytes
        seen_dirs: set[str] = set()
        for path, data in plan.changes.items():
            folder = path.rpartition("/")[0]
            fresh = folder not in seen_dirs   # a folder's symlinks are checked once per write
            seen_dirs.add(folder)
            sandbox.check_path(path, allowed, narrowed, self.root if checked_out else None, check_folders=fresh)
            # in the tree only folders matter: a blob written over a symlink entry replaces it
            if fresh and folder and self.git.is_symlink(folder, parent):
                from gitmem.base.errors import SecurityError

                raise SecurityError(f"refusing to write through a symlink in the repository: {path!r}")
            if data is not None:   # a document carries its front matter on top of the text the cap measures
                guard.check_content(path, data, max_bytes + (FRONT_MATTER_MAX_BYTES if path.endswith(".md") else 0))
        changes, stripped = self._pii(plan, now)
        self._amplitude(plan, changes, parent)
        self._layers(plan, changes, parent)
        return changes, stripped

    def _pii(self, plan: Plan[Any], now: datetime) -> tuple[dict[str, bytes | None], tuple[tuple[str, tuple[str, ...]], ...]]:
        from gitmem.guards import redact

        out: dict[str, bytes | None] = {}
        stripped = []
        found_secrets: list[tuple[str, str]] = []
        for path, data in plan.changes.items():
            if data is None or not path.endswith(guard.TEXT_SUFFIXES):
                out[path] = data
                continue
            result = redact.redact_document(path, data.decode("utf-8"), self.cfg)
            found_secrets.extend((path, where) for where in result.secrets)
            if result.kinds:
                stripped.append((path, result.kinds))
            out[path] = result.text.encode("utf-8")
        if found_secrets:
            self._reject(found_secrets, plan.event, plan.session, now)
        return out, tuple(stripped)

    def redact_text(self, text: str, what: str, event: str, now: datetime, session: str | None = None) -> str:
        """``text`` with PII replaced by placeholders, for a value kept outside a commit (working memory).

        The same checks as a write: a secret refuses it, logs ``secret.rejected``
        and raises ``SecretError``; nothing is kept.
        """
        clean: str = self.redact(text, what, event, now, session).text
        return clean

    def redact(self, text: str, what: str, event: str, now: datetime, session: str | None = None,
               names: Sequence[str] = ()) -> redact_mod.Redacted:
        """:meth:`redact_text` with the PII kinds it replaced: the one redaction a text passes
        before anything is derived from it (keywords, titles, summaries, names).

        ``names`` are user names learned from the same source (a session's own
        home paths), replaced where they stand alone.
        """
        from gitmem.guards import pii, redact

        known = self._names or pii.Names(state.salt(self.root), state.known_names(self.root))
        learned = self._names = known.plus(names)
        if learned.hashes != known.hashes:
            state.add_known_names(self.root, learned.hashes - known.hashes)
        result = redact.redact_text(text, self.cfg, names=learned)
        if result.secrets:
            self._reject([(what, where) for where in result.secrets], event, session, now)
        return result

    def _message(self, plan: Plan[Any], count: int, now: datetime) -> str:
        """The commit message of ``plan`` after the same redaction as the files: PII replaced,
        a secret refuses the write. Each part is redacted before the subject is cut to
        length and trailer values are folded onto one line, and the message once more."""
        from dataclasses import replace

        def clean(value: str | None) -> str | None:
            if not value:
                return value
            text: str = self.redact(value, "commit message", plan.event, now).text
            return text

        parts = replace(plan, subject=clean(plan.subject) or "", body=clean(plan.body) or "",
                        session=clean(plan.session), approved_by=clean(plan.approved_by),
                        trailers=tuple((k, clean(str(v)) or "") for k, v in plan.trailers))
        return clean(message(parts, count)) or ""

    def _reject(self, found: list[tuple[str, str]], event: str, session: str | None, now: datetime) -> None:
        kinds = sorted({w.split(" at ")[0] for _, w in found})
        state.log_event(self.git.root, "secret.rejected", iso(now), event_kind=event,
                         session=session, findings=[f"{p}: {w}" for p, w in found])
        listing = "; ".join(f"{p}: {w}" for p, w in found[:10])
        raise SecretError(f"secret found ({', '.join(kinds)}), nothing written: {listing}", list(found),
                          hint="remove the secret from the input (and rotate it if it was real)")

    def _amplitude(self, plan: Plan[Any], changes: Mapping[str, bytes | None], parent: str | None) -> None:
        # Sedimentation targets may grow only slowly under automation. Queuing the
        # excess in .gitmem/pending/ belongs to the sedimentation engine; until
        # it exists an over-limit automated write is refused, never truncated.
        if not plan.auto or parent is None:
            return
        limit = self.cfg.sediment.amplitude_max
        for path, data in changes.items():
            if data is None or not amplitude.in_scope(path):
                continue
            old = self.git.read(path, parent)
            if old is None:
                continue
            problem = amplitude.check_write(path, old.decode("utf-8", "replace"), data.decode("utf-8", "replace"), limit,
                                            self.cfg.sediment.amplitude_floor_lines)
            if problem is not None:
                raise CheckFailed(problem, [path], hint="split the change into smaller batches")

    def _layers(self, plan: Plan[Any], changes: Mapping[str, bytes | None], parent: str | None) -> None:
        data = changes.get("CLAUDE.md")
        if data is None:
            return
        from gitmem.guards import layers

        # Whatever the Plan says about Gitmem-Auto, a write through this path is
        # gitmem's, never a person's own commit: only a person's approval
        # (review accept, rollback: Gitmem-Approved-By) may touch Layers 1 and 4.
        old = self.git.read("CLAUDE.md", parent) if parent else None
        problems = layers.check_change(old.decode("utf-8", "replace") if old is not None else None,
                                       data.decode("utf-8"), automated=True, approved=bool(plan.approved_by))
        if problems:
            raise CheckFailed("CLAUDE.md: " + "; ".join(problems), problems,
                              hint="Layers 1 and 4 change only by a person, or with Gitmem-Approved-By")

    # --- work tree ---------------------------------------------------------
    def _refuse_dirty(self, parent: str | None, changes: Mapping[str, bytes | None]) -> dict[str, str | None]:
        """Refuse when a person edited or staged one of the paths; else each path's blob id at ``parent``."""
        paths = sorted(changes)
        staged = self.git.staged_changes(parent, paths)
        before = self.git.tree_entry_hashes(parent, paths)
        dirty = [p for p in paths if p in staged or self.git.worktree_hash(p) != before[p]]
        if dirty:
            raise ConflictError(
                "uncommitted changes in " + ", ".join(dirty[:5]) + (" …" if len(dirty) > 5 else "") + "; nothing was written",
                hint="commit or stash your edits to those files (git status), then run the command again")
        return before

    def _journal_path(self) -> Path:
        return self.state / state.JOURNAL_FILE

    def _journal(self, branch: str, parent: str | None, changes: Mapping[str, bytes | None]) -> None:
        write_atomic(self._journal_path(), json.dumps({"branch": branch, "parent": parent, "paths": sorted(changes)}))

    def _journal_done(self) -> None:
        try:
            self._journal_path().unlink()
        except FileNotFoundError:
            pass

    def _recover_worktree(self, branch: str) -> None:
        """Finish the work-tree and index update of a writer killed after its commit, or undo
        one killed before it (under the write lock: no write of ours is under way)."""
        try:
            journal = json.loads(self._journal_path().read_text())
        except (FileNotFoundError, ValueError):
            journal = None
        ours = self.git.index_lock_abandoned()
        tip = self.git.tip(branch)
        if not isinstance(journal, dict) or journal.get("branch") != branch or tip is None \
                or tip == journal.get("parent"):
            if ours:
                self.git.unlock_index()   # the branch never moved: the old index is right
            self._journal_done()
            return
        parent = journal.get("parent")
        paths = [p for p in journal.get("paths", []) if isinstance(p, str)]
        if ours:
            self.git.unlock_index()   # its content may be torn: start again from the index, untouched meanwhile
        self.git.lock_index()   # IndexLocked when someone else holds it: the caller waits
        try:
            stale = {p: self.git.tree_entry_hash(parent, p) for p in paths}
            fresh = {p: self.git.tree_entry_hash(tip, p) for p in paths}
            # entries still as before the write (or already done) are ours; a person's staging is kept
            self.git.stage_index(tip, [p for p in paths if self.git.index_hash(p) in (stale[p], fresh[p])])
            todo = {p: self.git.read(p, tip) for p in paths if self.git.worktree_hash(p) == stale[p]}
            self.git.write_files(todo)
        except BaseException:
            self.git.unlock_index()
            raise
        self.git.publish_index()
        self._journal_done()


def _wait_exit(pid: int, deadline: float) -> bool:
    """Wait until process ``pid`` has ended; False when ``deadline`` (time.monotonic) passes first."""
    from gitmem.base.gitio.reflocks import alive, process_start

    start = process_start(pid)
    while time.monotonic() < deadline:
        if not alive(pid, start):
            return True
        time.sleep(0.01)
    return False


def _wait_gone(lock: Path, deadline: float) -> bool:
    """Wait until ``lock`` is gone; False when ``deadline`` (time.monotonic) passes first."""
    delay = 0.005
    while time.monotonic() < deadline:
        if not os.path.lexists(lock):
            return True
        time.sleep(delay)
        delay = min(delay * 2, 0.1)
    return False
