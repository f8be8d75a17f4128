"""``MemoryRepo``: every use case of gitmem as one object whose methods return typed values.

A thin facade: it opens a ``Context`` (root, config, git, the writer) and each
method delegates to the function of the same name in the use case's module
(``memories``, ``recall``, ``lifecycle``, ``sessions``, ``harvest``, ``patterns``,
``reviews``, ``timeline``, ``status``, ``jobs``, ``purging``, ``insight``, ``sediment``, ``promotions``,
``bank``).
A new use case is a function in its module first, then one line here.
"""

from __future__ import annotations

import builtins
from collections.abc import Iterator, Sequence
from datetime import datetime
from pathlib import Path
from typing import TYPE_CHECKING, Any

from gitmem.api import (bank, checks, doctor, duplicates, findings, harvest, indexing, insight, jobs, lifecycle,
                        memories, patterns, projects, promotions, purging, recall, reviews, sediment, sediment_harvest,
                        sessions, status, syncing, timeline, upgrade)
from gitmem.api.context import Context, Progress
from gitmem.api.harvest import SessionFiles
from gitmem.api.indexing import IndexInfo
from gitmem.api.jobs import JobRun
from gitmem.api.patterns import PatternAdded, WeightsReport
from gitmem.api.reviews import ReviewDecided, ReviewInfo, ReviewMerged, ReviewShown
from gitmem.api.status import Status
from gitmem.api.syncing import Synced
from gitmem.api.timeline import RolledBack
from gitmem.api.upgrade import Upgraded
from gitmem.base import clock
from gitmem.base.state import find_root

if TYPE_CHECKING:
    from gitmem.api.bank import BankStatus, Cleared, ThresholdSet
    from gitmem.api.doctor import Diagnosis, Repaired
    from gitmem.api.duplicates import Prescan
    from gitmem.api.findings import Allowed, Refused, Shown
    from gitmem.api.promotions import Proposed
    from gitmem.api.sediment import Distilled, Reflected as SedimentReflected
    from gitmem.api.sediment_harvest import FromSession
    from gitmem.base.config import Config
    from gitmem.base.gitio import Git
    from gitmem.base.gitio.project import Project
    from gitmem.base.model import Forgotten, Imported, Memory, Reflected, Remembered
    from gitmem.engines.analyze import Analysis
    from gitmem.engines.checks import Report
    from gitmem.engines.decay import DecayReport
    from gitmem.engines.drift import Drift
    from gitmem.engines.harvest.planning import Harvested
    from gitmem.engines.history import Review, Why
    from gitmem.engines.initrepo import InitResult
    from gitmem.engines.links import Graph
    from gitmem.engines.purge import Purged
    from gitmem.engines.recall import Recalled
    from gitmem.engines.render import CoreItem, Rendered
    from gitmem.engines.sediment.entry import Reflection
    from gitmem.engines.working import Note, SessionEnd
    from gitmem.store.documents import Pattern
    from gitmem.store.snapshots import Snapshot
    from gitmem.store.store import Listing
    from gitmem.writer.commit import Writer
    from gitmem.writer.plan import Written


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
        syncing.warn_if_unhooked(opened.git.git_dir)
        return opened

    @classmethod
    def init(cls, path: str | Path, now: datetime | None = None, install_hooks: bool = True) -> MemoryRepo:
        """Create a memory repository (or complete an existing one) and open it; ``setup`` says what was done."""
        from gitmem.engines.initrepo import init as init_repo

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

    def upgrade_pending(self) -> Upgraded:
        """What ``upgrade`` would migrate: this repository's format and the files it would rewrite."""
        return upgrade.upgrade_pending(self._ctx)

    def upgrade(self, now: datetime | None = None) -> Upgraded:
        """Migrate the repository to this gitmem's format in one commit (``git revert`` undoes it)."""
        return upgrade.upgrade(self._ctx, now)

    # --- many machines ----------------------------------------------------------------------------
    def sync(self, remote: str | None = None, now: datetime | None = None) -> Synced:
        """Fetch, merge field by field, regenerate and push (``gitmem sync``); never forces."""
        return syncing.sync(self._ctx, remote, now)

    def install_merge_driver(self) -> str:
        """Register gitmem's merge driver in this clone's git config; the command git will run."""
        return syncing.install_merge_driver(self._ctx)

    def doctor(self, online: bool = True) -> Diagnosis:
        """Check this clone: hooks, merge driver, line endings, remote, reviews, merges, index."""
        return doctor.doctor(self._ctx, online)

    def repair(self, paths: Sequence[str] = ()) -> Repaired:
        """Merge properly the memory documents a text merge left with markers or broken front matter."""
        return doctor.repair(self._ctx, paths)

    # --- memories ----------------------------------------------------------------------------------
    def show(self, memory_id: str, at: str | None = None) -> Memory:
        """One memory (live or archived), as it is now or at a tag/commit."""
        return memories.show(self._ctx, memory_id, at)

    def list(self, type: str | None = None, domain: str | None = None, include_archive: bool = False,
             at: str | None = None) -> Listing:
        """Memories (oldest first) and the files that could not be read."""
        return memories.list_memories(self._ctx, type, domain, include_archive, at)

    def effective_importance(self, memory: Memory, now: datetime | None = None) -> float:
        """The importance decay sees now (base x 0.99^whole days, and the weekly cost for short-term)."""
        return memories.effective_importance(self._ctx, memory, now)

    def export(self, include_archive: bool = True) -> Iterator[dict[str, Any]]:
        """Every memory as a JSON-able record (re-importable with `gitmem import`)."""
        return memories.export(self._ctx, include_archive)

    def remember(self, text: str, *, type: str | None = None, domain: str | None = None,
                 importance: float | None = None, source: str | None = None, memory_id: str | None = None,
                 tags: Sequence[str] = (), dedupe: bool = True, now: datetime | None = None,
                 session: str | None = None, auto: bool = False, project: str | None = None) -> Remembered:
        """Encode ``text``: reinforce a similar memory if one exists, else create one (one commit)."""
        return memories.remember(self._ctx, text, type=type, domain=domain, importance=importance, source=source,
                                 memory_id=memory_id, tags=tags, dedupe=dedupe, now=now, session=session, auto=auto,
                                 project=project)

    def forget(self, memory_id: str, now: datetime | None = None) -> Forgotten:
        """Move a memory to archive/ (git keeps its history), in one commit."""
        return memories.forget(self._ctx, memory_id, now)

    def import_file(self, path: str | Path, dedupe: bool = False, now: datetime | None = None,
                    progress: Progress | None = None) -> Imported:
        """Import a JSONL file, a MEMORY.md or a .learnings/ folder in ONE commit."""
        return memories.import_file(self._ctx, path, dedupe, now, progress)

    def link(self, a: str, b: str, relation: str = "related", now: datetime | None = None) -> Written[None]:
        """Link two memories with a typed relation; both ends record it (one commit)."""
        return memories.link(self._ctx, a, b, relation, now)

    def graph(self, include_archive: bool = False) -> Graph:
        """The link graph of the memories, each link in the direction it was made."""
        return memories.graph(self._ctx, include_archive)

    def why(self, memory_id: str) -> Why:
        """Where a memory came from and every commit that touched it."""
        return memories.why(self._ctx, memory_id)

    def consolidate(self, since: str = "7d", now: datetime | None = None) -> Review:
        """The weekly review: what was created, reinforced, decayed, archived, promoted."""
        return memories.consolidate(self._ctx, since, now)

    # --- recall ------------------------------------------------------------------------------------
    def recall(self, query: str, k: int = 10, *, type: str | None = None, domain: str | None = None,
               tier: str | None = None, band: str | None = None, include_archive: bool = False,
               include_background: bool = False, at: str | None = None, expand: bool = False,
               now: datetime | None = None, project: str | None = None,
               here: str | Path | None = None) -> builtins.list[Recalled]:
        """Memories ranked by relevance, importance and recency; hits go to the access log."""
        return recall.recall(self._ctx, query, k, type=type, domain=domain, tier=tier, band=band,
                             include_archive=include_archive, include_background=include_background, at=at,
                             expand=expand, now=now, project=project, here=here)

    def index(self, rebuild: bool = False) -> IndexInfo:
        """The recall index brought up to the head (``rebuild``: made again from git), and what it holds."""
        return indexing.index(self._ctx, rebuild)

    def core_items(self, project: str | None = None, here: str | Path | None = None) -> builtins.list[CoreItem]:
        """Core-band memories and those at or above ``never_forget``, best first."""
        return recall.core_items(self._ctx, project, here)

    def load_core(self, max_chars: int | None = None, project: str | None = None,
                  here: str | Path | None = None) -> Rendered:
        """Core memories for a session start, whole items within ``max_chars`` (default budgets.core_chars)."""
        return recall.load_core(self._ctx, max_chars, project, here)

    def sync_core(self, now: datetime | None = None) -> Written[None]:
        """Write HIPPOCAMPUS_CORE.md and regenerate Layers 2 and 3 of CLAUDE.md (one commit)."""
        return recall.sync_core(self._ctx, now)

    # --- lifecycle ---------------------------------------------------------------------------------
    def decay(self, now: datetime | None = None, dry_run: bool = False) -> DecayReport:
        """Fold the access log, recompute bands and tiers, archive what is forgotten: ONE commit."""
        return lifecycle.decay(self._ctx, now, dry_run)

    def reflect(self, now: datetime | None = None, auto: bool = False) -> Reflected:
        """Group similar memories no pattern holds yet into patterns (one commit)."""
        return lifecycle.reflect(self._ctx, now, auto)

    def reflection_prompt(self, limit: int = 20) -> str:
        """A self-reflection prompt from recent memories, for an agent to answer and `remember`."""
        return lifecycle.reflection_prompt(self._ctx, limit)

    def pending_reflections(self) -> int:
        """New memories no pattern holds yet, created since the last reflect."""
        return lifecycle.pending_reflections(self._ctx)

    # --- sessions ----------------------------------------------------------------------------------
    def note(self, text: str, *, importance: float | None = None, type: str | None = None,
             domain: str | None = None, now: datetime | None = None) -> Note:
        """Keep ``text`` for this session only (no commit): a working note."""
        return sessions.note(self._ctx, text, importance=importance, type=type, domain=domain, now=now)

    def notes(self) -> builtins.list[Note]:
        """The working notes of the current session, oldest first (those a failed session end set aside too)."""
        return sessions.notes(self._ctx)

    def session_end(self, now: datetime | None = None, session: str | None = None) -> SessionEnd:
        """Move the working notes that matter into short-term memory (one commit), drop the rest."""
        return sessions.session_end(self._ctx, now, session)

    # --- harvest -----------------------------------------------------------------------------------
    def session_folders(self) -> builtins.list[Path]:
        """The configured folders agents write session logs to (``daemon.session_folders``), expanded."""
        return harvest.session_folders(self._ctx)

    def inside_session_folders(self, path: str | Path) -> bool:
        """True when ``path`` (symlinks resolved) lies inside one of the configured session folders."""
        return harvest.inside_session_folders(self._ctx, path)

    def session_files(self, paths: Sequence[str | Path] | None = None) -> SessionFiles:
        """The transcripts an unattended harvest reads under ``paths``."""
        return harvest.session_files(self._ctx, paths)

    def harvest(self, paths: Sequence[str | Path], fmt: str = "auto", signals: int | None = 20, whole: bool = False,
                now: datetime | None = None, progress: Progress | None = None,
                rescan: bool = False, last: int | None = None) -> builtins.list[Harvested]:
        """Harvest agent transcripts into episodes and memories (one commit per session); ``last``: only the
        last that many signals of them all, newest sessions first (``harvest.harvest``)."""
        return harvest.harvest(self._ctx, paths, fmt, signals, whole, now, progress, rescan, last=last)

    # --- patterns ----------------------------------------------------------------------------------
    def patterns(self, at: str | None = None) -> builtins.list[Pattern]:
        """Every readable pattern, strongest first."""
        return patterns.patterns(self._ctx, at)

    def pattern_add(self, text: str, triggers: builtins.list[str], weight: float | None = None,
                    now: datetime | None = None) -> PatternAdded:
        """Add a pattern a person wrote (one commit); it starts at ``hebbian.initial_weight`` unless given."""
        return patterns.pattern_add(self._ctx, text, triggers, weight, now)

    def weights(self, now: datetime | None = None) -> WeightsReport:
        """The next weight update, computed on the checked-out branch; a dry run that writes nothing."""
        return patterns.weights(self._ctx, now)

    def open_weights_review(self) -> str | None:
        """The open weights review branch, if any."""
        return patterns.open_weights_review(self._ctx)

    def propose_weights(self, now: datetime | None = None) -> WeightsReport:
        """Commit the weight update as ONE commit on a new review branch; it supersedes the open one."""
        return patterns.propose_weights(self._ctx, now)

    def apply_weights(self, now: datetime | None = None) -> WeightsReport:
        """Commit the weight update on the branch itself, while automatic changes are allowed."""
        return patterns.apply_weights(self._ctx, now)

    def analyze(self, cluster_threshold: float | None = None, merge_threshold: float | None = None) -> Analysis:
        """Co-activation of patterns: Jaccard over the sessions that activate them, clusters, merge candidates."""
        return patterns.analyze(self._ctx, cluster_threshold, merge_threshold)

    def atrophy(self, now: datetime | None = None) -> builtins.list[str]:
        """Open one branch ``gitmem/atrophy/<slug>`` per pattern long under ``delete_below``; never twice."""
        return patterns.atrophy(self._ctx, now)

    def promote(self, now: datetime | None = None) -> builtins.list[str]:
        """Open one branch ``gitmem/review/promote-<slug>`` per core-candidate pattern."""
        return patterns.promote(self._ctx, now)

    # --- reviews -----------------------------------------------------------------------------------
    def reviews(self) -> builtins.list[ReviewInfo]:
        """Every open review branch, oldest name first."""
        return reviews.reviews(self._ctx)

    def review_show(self, name: str) -> ReviewShown:
        """What a review changes: in words, every path with what is outside its kind's scope marked, the raw diff."""
        return reviews.review_show(self._ctx, name)

    def review_accept(self, name: str, *, only: str | None = None, interactive: bool = False,
                      i_am_the_reviewer: bool = False, now: datetime | None = None,
                      recomputed: str | None = None) -> ReviewDecided:
        """Merge a review into the checked-out branch (a merge commit with ``Gitmem-Approved-By``)."""
        return reviews.review_accept(self._ctx, name, only=only, interactive=interactive,
                                     i_am_the_reviewer=i_am_the_reviewer, now=now, recomputed=recomputed)

    def merged_reviews(self, now: datetime | None = None) -> builtins.list[ReviewMerged]:
        """Open reviews merged on a remote (after a fetch), recorded as accepted by the merge's author."""
        return reviews.merged_reviews(self._ctx, now)

    def review_reject(self, name: str, reason: str = "", *, interactive: bool = False,
                      i_am_the_reviewer: bool = False, now: datetime | None = None) -> ReviewDecided:
        """Keep the branch under ``refs/gitmem/rejected/`` and record the veto with its reason (one commit)."""
        return reviews.review_reject(self._ctx, name, reason, interactive=interactive,
                                     i_am_the_reviewer=i_am_the_reviewer, now=now)

    def review_push(self, remote: str = "origin") -> builtins.list[str]:
        """Push every open review branch to ``remote`` through git (never with force); the branches pushed."""
        return reviews.review_push(self._ctx, remote)

    def review_reopen(self, name: str, now: datetime | None = None) -> str:
        """Undo the default rejection of a sedimentation review ("allow this promotion"); its branch."""
        return promotions.reopen(self._ctx, name, now)

    # --- sedimentation -----------------------------------------------------------------------------
    def sediment_reflect(self, *, topic: str, context: str, approach: str, result: str, score: int, reusable: str,
                         kind: str, tags: tuple[str, ...] = (), skill: str = "", role: str = "", repeat: bool = False,
                         deviation: bool = False, loop: str = "", source: str = "agent", output: str | None = None,
                         operator: str = "agent", session: str = "",
                         now: datetime | None = None) -> SedimentReflected:
        """Append one reflection in the seed's format to ``bank/reflections.md`` (see ``api.sediment.reflect``)."""
        return sediment.reflect(self._ctx, topic=topic, context=context, approach=approach, result=result,
                                score=score, reusable=reusable, kind=kind, tags=tags, skill=skill, role=role,
                                repeat=repeat, deviation=deviation, loop=loop, source=source, output=output,
                                operator=operator, session=session, now=now)

    def sediment_reflect_sessions(self, paths: Sequence[str | Path],
                                  now: datetime | None = None) -> builtins.list[FromSession]:
        """Harvest ``paths`` and propose one reflection per session that fixed a failure or made a decision."""
        return sediment_harvest.reflect_sessions(self._ctx, paths, now)

    def sediment_like(self, entry_id: str, operator: str = "user", now: datetime | None = None) -> Reflection:
        """Count a person's explicit "keep this for later" for a reflection."""
        return sediment.like(self._ctx, entry_id, operator, now)

    def sediment_distill(self, entry_id: str | None = None, operator: str = "agent", session: str = "",
                         now: datetime | None = None) -> builtins.list[Distilled]:
        """Route reflections not yet distilled into TABOOS.md, a skill, a role or day file, or MEMORY.md."""
        return sediment.distill(self._ctx, entry_id, operator, session, now)

    def sediment_promote(self, entry_id: str | None = None, operator: str = "agent", session: str = "",
                         now: datetime | None = None) -> builtins.list[Proposed]:
        """Open a ``gitmem/review/sediment-<id>`` review per reflection whose priority reaches the threshold."""
        return promotions.promote(self._ctx, entry_id, operator, session, now)

    def sediment_set_threshold(self, value: float, operator: str = "user",
                               now: datetime | None = None) -> ThresholdSet:
        """Set the promotion threshold (audited; locks automatic changes for 60 s)."""
        return bank.set_threshold(self._ctx, value, operator, now)

    def sediment_clear(self, skill: str | None = None, cascade: bool = False, confirm: bool = False,
                       operator: str = "user", now: datetime | None = None) -> Cleared:
        """Clear reflections (all or a skill's), with ``cascade`` their promotions; refuses without ``confirm``."""
        return bank.clear(self._ctx, skill, cascade, confirm, operator, now)

    def sediment_status(self, now: datetime | None = None) -> BankStatus:
        """The threshold in force and its history, the reflections, open reviews, the queue, the disk check."""
        return bank.status(self._ctx, now)

    def sediment_expire(self, now: datetime | None = None) -> builtins.list[str]:
        """Reject by default the marked promotions no person accepted within ``sediment.veto_timeout_minutes``."""
        return promotions.expire(self._ctx, now)

    # --- false alarms of the secret scan ----------------------------------------------------------
    def refused_sessions(self) -> builtins.list[Refused]:
        """Every session a secret refused in this clone and not harvested since, with its finding ids."""
        return findings.refused_sessions(self._ctx)

    def pii_show(self, finding: str, file: str | Path | None = None) -> Shown:
        """Where a refused session's finding is (file, line, kind, context), its value masked."""
        return findings.pii_show(self._ctx, finding, file)

    def pii_allow(self, finding: str, reason: str = "", shared: bool = False, now: datetime | None = None,
                  file: str | Path | None = None) -> Allowed:
        """Record a finding as not a secret (a salted hash of its value): per clone, or committed with ``shared``."""
        return findings.pii_allow(self._ctx, finding, reason, shared, now, file)

    # --- checks -----------------------------------------------------------------------------------
    def check(self, what: str, rev_range: str | None = None) -> Report:
        """Run the check ``what`` (pii, layers, amplitude, config); ``rev_range`` also audits commits."""
        return checks.check(self._ctx, what, rev_range)

    # --- timeline ----------------------------------------------------------------------------------
    def snapshot(self, now: datetime | None = None) -> Snapshot:
        """Tag HEAD as this UTC month's snapshot (``gitmem/snapshot/YYYY-MM``), or report the existing tag."""
        return timeline.snapshot(self._ctx, now)

    def snapshots(self) -> builtins.list[str]:
        """Every snapshot tag, oldest first."""
        return timeline.snapshots(self._ctx)

    def rollback(self, tag: str, *, yes: bool = False, interactive: bool = False, i_am_the_reviewer: bool = False,
                 now: datetime | None = None) -> RolledBack:
        """A new commit whose tree is ``tag``'s; no history is rewritten."""
        return timeline.rollback(self._ctx, tag, yes=yes, interactive=interactive,
                                 i_am_the_reviewer=i_am_the_reviewer, now=now)

    def drift(self, now_text: str | None = None) -> Drift:
        """Layers 1+2 of CLAUDE.md (the work tree's, or ``now_text``) against the baseline."""
        return timeline.drift(self._ctx, now_text)

    def pin_drift_baseline(self, now: datetime | None = None) -> str | None:
        """Pin HEAD as the drift baseline in ``.gitmem/state.yaml`` (one commit; None when already pinned)."""
        return timeline.pin_drift_baseline(self._ctx, now)

    # --- status ------------------------------------------------------------------------------------
    def status(self, now: datetime | None = None) -> Status:
        """Counts, weights and stages, reviews, drift, the last snapshot and job error, refused sessions."""
        return status.status(self._ctx, now)

    def events(self, limit: int | None = None) -> builtins.list[dict[str, object]]:
        """The structured event stream, oldest first: one event per gitmem commit."""
        return status.events(self._ctx, limit)

    def history(self, limit: int | None = None) -> builtins.list[dict[str, object]]:
        """The commit history of the branch, newest first, each commit with its gitmem event."""
        return status.history(self._ctx, limit)

    # --- jobs --------------------------------------------------------------------------------------
    def run_job(self, job: str, now: datetime | None = None,
                paths: Sequence[str | Path] | None = None) -> JobRun:
        """Run one job (see ``JOBS``) and record its outcome; a failure is recorded and returned, not raised."""
        return jobs.run_job(self._ctx, job, now, paths)

    def job_runs(self) -> dict[str, dict[str, object]]:
        """The last recorded run of each job that ran in this clone, by job name."""
        return jobs.job_runs(self._ctx)

    def decay_due(self, now: datetime | None = None) -> bool:
        """Whether decay is due in this clone (never ran here, or ``daemon.decay_hours`` ago)."""
        return jobs.decay_due(self._ctx, now)

    # --- purging -----------------------------------------------------------------------------------
    def purge(self, value: str | None = None, finding: str | None = None, confirm: bool = False,
              now: datetime | None = None) -> "Purged":
        """Rewrite every branch and tag holding a leaked value."""
        return purging.purge(self._ctx, value, finding, confirm, now)

    # --- insight -----------------------------------------------------------------------------------
    def dashboard_data(self, now: datetime | None = None) -> dict[str, Any]:
        """Every figure the dashboard draws, as plain JSON-able values (no dataclass, no datetime)."""
        return insight.dashboard_data(self._ctx, now)

    # --- duplicates --------------------------------------------------------------------------------
    def similar_memory(self, text: str, domain: str, rev: str, keywords: Sequence[str],
                       project: str | None = None) -> Memory | None:
        """The live memory of ``domain`` at ``rev`` that ``text`` duplicates, if any (reinforce it instead)."""
        return duplicates.similar_memory(self._ctx, text, domain, rev, keywords, project)

    def prescan(self, text: str, domain: str, keywords: Sequence[str], rev: str | None = None,
                project: str | None = None) -> Prescan:
        """The duplicate of ``text`` at ``rev`` (default the tip), searched and scored without the write lock."""
        return duplicates.prescan(self._ctx, text, domain, keywords, rev, project)

    # --- projects ----------------------------------------------------------------------------------
    def project_of(self, directory: str | Path | None) -> Project | None:
        """The project of the git repository holding ``directory`` (its name PII-stripped), or None."""
        return projects.project_of(self._ctx, directory)

    def resolve_project(self, value: str | None) -> Project | None:
        """A project named on the command line: a directory, a known id or name, else a new id of that name."""
        return projects.resolve_project(self._ctx, value)

