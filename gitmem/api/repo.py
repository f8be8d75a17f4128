"""``MemoryRepo``: every use case of gitmem as one object whose methods return typed values.

A thin facade: it opens a ``Context`` (root, config, git, the writer) and each
method is the function of a use case's module with that context passed first,
declared in one line (``recall = UseCase(gitmem.api.recall.recall)``,
``gitmem.api.facade``): its parameters, docstring and return type are the
function's. A new use case is a function in its module first, then one line here.
Only opening a repository, and the context's own answers, are written out.
"""

from __future__ import annotations

import builtins
from collections.abc import Sequence
from datetime import datetime
from pathlib import Path
from typing import TYPE_CHECKING

import gitmem.api.bank
import gitmem.api.checks
import gitmem.api.doctor
import gitmem.api.duplicates
import gitmem.api.findings
import gitmem.api.harvest
import gitmem.api.indexing
import gitmem.api.insight
import gitmem.api.jobs
import gitmem.api.lifecycle
import gitmem.api.memories
import gitmem.api.patterns
import gitmem.api.projects
import gitmem.api.promotions
import gitmem.api.pulled
import gitmem.api.purge_remote
import gitmem.api.purging
import gitmem.api.recall
import gitmem.api.review_decisions
import gitmem.api.review_merges
import gitmem.api.reviews
import gitmem.api.sediment
import gitmem.api.sediment_harvest
import gitmem.api.sessions
import gitmem.api.status
import gitmem.api.syncing
import gitmem.api.timeline
import gitmem.api.upgrade
from gitmem.api.context import Context, Progress
from gitmem.api.facade import UseCase
from gitmem.base import clock
from gitmem.base.state import find_root

if TYPE_CHECKING:
    from gitmem.base.config import Config
    from gitmem.base.gitio import Git
    from gitmem.engines.harvest.planning import Harvested
    from gitmem.api.initrepo import InitResult
    from gitmem.writer.commit import Writer


class MemoryRepo:
    """A memory repository: every use case of gitmem as a method returning values."""

    setup: InitResult | None = None
    """What ``init`` did (created, hooks installed, its message); None on a repository opened with ``open``."""

    def __init__(self, root: str | Path, cfg: Config | None = None) -> None:
        self._ctx = Context.open(root, cfg)
        self.root: Path = self._ctx.root
        self.cfg: Config = self._ctx.cfg
        self.git: Git = self._ctx.git
        self.writer: Writer = self._ctx.writer
        self.format: int = self._ctx.format

    @classmethod
    def open(cls, repo: str | Path | None = None) -> MemoryRepo:
        """Open the memory repository named by --repo, GITMEM_DIR or the working folder."""
        opened = cls(find_root(repo))
        gitmem.api.syncing.warn_if_unhooked(opened.git.git_dir)
        gitmem.api.pulled.finish(opened._ctx)   # a plain `git pull` left the generated files to regenerate
        return opened

    @classmethod
    def init(cls, path: str | Path, now: datetime | None = None, install_hooks: bool = True) -> MemoryRepo:
        """Create a memory repository (or complete an existing one) and open it; ``setup`` says what was done."""
        from gitmem.api.initrepo import init as init_repo

        result = init_repo(Path(path), now or clock.now(), install_hooks)
        repo = cls(result.path)
        repo.setup = result
        return repo

    @property
    def head(self) -> str | None:
        """The commit memory is read from: the checked-out branch's tip (HEAD when detached)."""
        return self._ctx.head

    def recover(self) -> bool:
        """Finish (or undo) a write a killed gitmem left half done; True when there was one."""
        return self._ctx.writer.recover()

    upgrade_pending = UseCase(gitmem.api.upgrade.upgrade_pending)
    upgrade = UseCase(gitmem.api.upgrade.upgrade)

    # --- many machines ----------------------------------------------------------------------------
    sync = UseCase(gitmem.api.syncing.sync)
    install_merge_driver = UseCase(gitmem.api.syncing.install_merge_driver)
    doctor = UseCase(gitmem.api.doctor.doctor)
    repair = UseCase(gitmem.api.doctor.repair)

    # --- memories ----------------------------------------------------------------------------------
    show = UseCase(gitmem.api.memories.show)
    list = UseCase(gitmem.api.memories.list_memories)
    effective_importance = UseCase(gitmem.api.memories.effective_importance)
    export = UseCase(gitmem.api.memories.export)
    remember = UseCase(gitmem.api.memories.remember)
    forget = UseCase(gitmem.api.memories.forget)
    import_file = UseCase(gitmem.api.memories.import_file)
    link = UseCase(gitmem.api.memories.link)
    graph = UseCase(gitmem.api.memories.graph)
    why = UseCase(gitmem.api.memories.why)
    consolidate = UseCase(gitmem.api.memories.consolidate)

    # --- recall ------------------------------------------------------------------------------------
    recall = UseCase(gitmem.api.recall.recall)
    index = UseCase(gitmem.api.indexing.index)
    core_items = UseCase(gitmem.api.recall.core_items)
    load_core = UseCase(gitmem.api.recall.load_core)
    sync_core = UseCase(gitmem.api.recall.sync_core)

    # --- lifecycle ---------------------------------------------------------------------------------
    decay = UseCase(gitmem.api.lifecycle.decay)
    reflect = UseCase(gitmem.api.lifecycle.reflect)
    reflection_prompt = UseCase(gitmem.api.lifecycle.reflection_prompt)
    pending_reflections = UseCase(gitmem.api.lifecycle.pending_reflections)

    # --- sessions ----------------------------------------------------------------------------------
    note = UseCase(gitmem.api.sessions.note)
    notes = UseCase(gitmem.api.sessions.notes)
    session_end = UseCase(gitmem.api.sessions.session_end)

    # --- harvest -----------------------------------------------------------------------------------
    session_folders = UseCase(gitmem.api.harvest.session_folders)
    inside_session_folders = UseCase(gitmem.api.harvest.inside_session_folders)
    session_files = UseCase(gitmem.api.harvest.session_files)

    def harvest(self, paths: Sequence[str | Path], fmt: str = "auto", signals: int | None = 20, whole: bool = False,
                now: datetime | None = None, progress: Progress | None = None,
                rescan: bool = False, last: int | None = None) -> builtins.list[Harvested]:
        """Harvest agent transcripts into episodes and memories (one commit per session); ``last``: only the
        last that many signals of them all, newest sessions first (``harvest.harvest``)."""
        return gitmem.api.harvest.harvest(self._ctx, paths, fmt, signals, whole, now, progress, rescan, last=last)

    # --- patterns ----------------------------------------------------------------------------------
    patterns = UseCase(gitmem.api.patterns.patterns)
    pattern_add = UseCase(gitmem.api.patterns.pattern_add)
    weights = UseCase(gitmem.api.patterns.weights)
    open_weights_review = UseCase(gitmem.api.patterns.open_weights_review)
    propose_weights = UseCase(gitmem.api.patterns.propose_weights)
    apply_weights = UseCase(gitmem.api.patterns.apply_weights)
    analyze = UseCase(gitmem.api.patterns.analyze)
    atrophy = UseCase(gitmem.api.patterns.atrophy)
    promote = UseCase(gitmem.api.patterns.promote)

    # --- reviews -----------------------------------------------------------------------------------
    reviews = UseCase(gitmem.api.reviews.reviews)
    review_show = UseCase(gitmem.api.reviews.review_show)
    review_accept = UseCase(gitmem.api.review_decisions.review_accept)
    merged_reviews = UseCase(gitmem.api.review_merges.merged_reviews)
    review_reject = UseCase(gitmem.api.review_decisions.review_reject)
    review_push = UseCase(gitmem.api.reviews.review_push)
    review_reopen = UseCase(gitmem.api.promotions.reopen)

    # --- sedimentation -----------------------------------------------------------------------------
    sediment_reflect = UseCase(gitmem.api.sediment.reflect)
    sediment_reflect_sessions = UseCase(gitmem.api.sediment_harvest.reflect_sessions)
    sediment_like = UseCase(gitmem.api.sediment.like)
    sediment_distill = UseCase(gitmem.api.sediment.distill)
    sediment_promote = UseCase(gitmem.api.promotions.promote)
    sediment_set_threshold = UseCase(gitmem.api.bank.set_threshold)
    sediment_clear = UseCase(gitmem.api.bank.clear)
    sediment_status = UseCase(gitmem.api.bank.status)
    sediment_expire = UseCase(gitmem.api.promotions.expire)

    # --- false alarms of the secret scan ----------------------------------------------------------
    refused_sessions = UseCase(gitmem.api.findings.refused_sessions)
    pii_show = UseCase(gitmem.api.findings.pii_show)
    pii_allow = UseCase(gitmem.api.findings.pii_allow)

    # --- checks -----------------------------------------------------------------------------------
    check = UseCase(gitmem.api.checks.check)

    # --- timeline ----------------------------------------------------------------------------------
    snapshot = UseCase(gitmem.api.timeline.snapshot)
    snapshots = UseCase(gitmem.api.timeline.snapshots)
    rollback = UseCase(gitmem.api.timeline.rollback)
    drift = UseCase(gitmem.api.timeline.drift)
    pin_drift_baseline = UseCase(gitmem.api.timeline.pin_drift_baseline)

    # --- status ------------------------------------------------------------------------------------
    status = UseCase(gitmem.api.status.status)
    events = UseCase(gitmem.api.status.events)
    history = UseCase(gitmem.api.status.history)

    # --- jobs --------------------------------------------------------------------------------------
    run_job = UseCase(gitmem.api.jobs.run_job)
    job_runs = UseCase(gitmem.api.jobs.job_runs)
    decay_due = UseCase(gitmem.api.jobs.decay_due)

    # --- purging -----------------------------------------------------------------------------------
    purge = UseCase(gitmem.api.purging.purge)
    purge_remote = UseCase(gitmem.api.purge_remote.purge_remote)

    # --- insight -----------------------------------------------------------------------------------
    dashboard_data = UseCase(gitmem.api.insight.dashboard_data)

    # --- duplicates --------------------------------------------------------------------------------
    similar_memory = UseCase(gitmem.api.duplicates.similar_memory)
    prescan = UseCase(gitmem.api.duplicates.prescan)

    # --- projects ----------------------------------------------------------------------------------
    project_of = UseCase(gitmem.api.projects.project_of)
    resolve_project = UseCase(gitmem.api.projects.resolve_project)
