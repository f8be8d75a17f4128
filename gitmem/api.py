"""The library API: ``MemoryRepo`` and the values its use cases return.

The CLI and the MCP server are thin shells over these methods; nothing here
prints. A ``MemoryRepo`` holds one pygit2 repository and must not be shared
between threads: open one per thread (or per request).
"""

from __future__ import annotations

import builtins

from datetime import datetime
from pathlib import Path
from typing import TYPE_CHECKING, Any, Callable, Iterator, Sequence

from gitmem.base import clock
from gitmem.engines import memorize
from gitmem.base import config as config_mod
from gitmem.store import documents, formats, store
from gitmem.guards import guard
from gitmem.base.config import Config
from gitmem.base.errors import NotFoundError, UsageError, ValidationError
from gitmem.engines.initrepo import InitResult, init as init_repo
from gitmem.base.state import find_root
from gitmem.store.store import Listing
from gitmem.base.kinds import check_choice
from gitmem.base.model import DOMAINS, TYPES, Forgotten, Imported, Memory, Reflected, Remembered, check_id, iso, memory_path, new_id
from gitmem.guards.writepath import Plan, Store, Written

if TYPE_CHECKING:
    from gitmem.engines.decay import DecayReport
    from gitmem.engines.harvest.planning import Harvested
    from gitmem.engines.history import Review, Why
    from gitmem.engines.links import Graph
    from gitmem.engines.recall import Recalled
    from gitmem.engines.render import CoreItem, EpisodeLine, Rendered
    from gitmem.engines.working import Note, SessionEnd

Progress = Callable[[int, int], None]


class MemoryRepo:
    """A memory repository: every use case of gitmem as a method returning values."""

    def __init__(self, root: Path, cfg: Config | None = None) -> None:
        self.root = Path(root)
        self.cfg = cfg if cfg is not None else config_mod.load(self.root)
        self.store = Store(self.root, self.cfg)
        self.git = self.store.git
        self.format = formats.check(self.git.read(formats.STATE_FILE, self.head) if self.head else None)

    @classmethod
    def open(cls, repo: str | Path | None = None) -> "MemoryRepo":
        """Open the memory repository named by --repo, GITMEM_DIR or the working folder."""
        return cls(find_root(repo))

    @staticmethod
    def init(path: str | Path, now: datetime | None = None, install_hooks: bool = True) -> InitResult:
        """Create a memory repository (a no-op with a message on an existing one)."""
        return init_repo(Path(path), now or clock.now(), install_hooks)

    # --- reading ---------------------------------------------------------------
    @property
    def head(self) -> str | None:
        """The commit memory is read from: the checked-out branch's tip (HEAD when detached)."""
        branch = self.git.head_branch()
        if branch is None:
            return self.git.commit("HEAD").id
        return self.git.tip(branch)

    def _rev(self, at: str | None) -> str | None:
        return self.git.commit(at).id if at else self.head

    def show(self, memory_id: str, at: str | None = None) -> Memory:
        """One memory (live or archived), as it is now or at a tag/commit."""
        return store.load(self.git, self._rev(at), memory_id)

    def list(self, type: str | None = None, domain: str | None = None, include_archive: bool = False,
             at: str | None = None) -> Listing:
        """Memories (oldest first) and the files that could not be read."""
        check_choice("type", type, TYPES)
        check_choice("domain", domain, DOMAINS)
        found = store.listing(self.git, self._rev(at), include_archive)
        kept = tuple(m for m in found.memories
                     if (type is None or m.type == type) and (domain is None or m.domain == domain))
        return Listing(kept, found.problems)

    def effective_importance(self, memory: Memory, now: datetime | None = None) -> float:
        """The importance decay sees now (base x 0.99^whole days, and the weekly cost for short-term)."""
        from gitmem.engines import decay

        value = decay.effective(memory.importance, memory.tier, memory.last_accessed, now or clock.now(), self.cfg.memory)
        return round(value, 4)

    def export(self, include_archive: bool = True) -> Iterator[dict[str, Any]]:
        """Every memory as a JSON-able record (re-importable with `gitmem import`)."""
        for m in self.list(include_archive=include_archive).memories:
            yield m.to_record()

    # --- writing ---------------------------------------------------------------
    def remember(self, text: str, *, type: str | None = None, domain: str | None = None,
                 importance: float | None = None, source: str | None = None, memory_id: str | None = None,
                 tags: Sequence[str] = (), dedupe: bool = True, now: datetime | None = None,
                 session: str | None = None, auto: bool = False) -> Remembered:
        """Encode ``text``: reinforce a similar memory if one exists, else create one (one commit)."""
        from gitmem.engines import encode

        now = now or clock.now()
        max_bytes = self.cfg.sediment.max_content_bytes
        text = guard.check_text(text, "memory text", max_bytes).strip()
        check_choice("type", type, TYPES)
        check_choice("domain", domain, DOMAINS)
        if importance is not None:
            guard.check_range("importance", importance, 0.0, 1.0)
        if memory_id is not None:
            check_id(memory_id)
        enc = encode.encode(text)
        typ, dom = type or enc.type, domain or enc.domain
        imp = enc.importance if importance is None else float(importance)
        reason = enc.reason if importance is None else "given"

        def plan(parent: str | None) -> Plan | None:
            mid = memory_id or new_id(now)
            mem = memorize.new_memory(mid, text, typ, dom, imp, iso(now), now, self.cfg.memory,
                                      keywords=enc.keywords, tags=tuple(tags), source=source or "user")
            batch = memorize.Batch(self._lookup(parent), now, self.cfg.memory)
            outcome = batch.add(mem, dedupe=dedupe and memory_id is None)
            if outcome.action == "reinforced":
                new = outcome.memory
                return Plan(self._changes(batch, parent), f"gitmem: reinforce {new.id} ({new.reinforced}x)",
                            "memory.reinforce", auto=auto, session=session,
                            trailers=(("Gitmem-Memory", new.id),), result=("reinforced", new))
            if store.locate(self.git, parent, mid, anywhere=False) is not None:
                raise ValidationError(f"a memory with id {mid!r} exists already", hint="choose another --id, or omit it")
            return Plan(self._changes(batch, parent), f"gitmem: remember {mid} ({typ}, {dom})",
                        "memory.create", auto=auto, session=session,
                        trailers=(("Gitmem-Memory", mid),), result=("created", mem))

        written = self.store.write(plan, now)
        action, mem = written.result
        if written.stripped and written.commit:
            mem = store.load(self.git, written.commit, mem.id)   # what was stored: PII replaced
        return Remembered(mem.id, action, written.commit, mem, reason,
                          tuple(k for _, kinds in written.stripped for k in kinds))

    def similar_memory(self, text: str, domain: str, rev: str, keywords: Sequence[str]) -> Memory | None:
        """The live memory of ``domain`` at ``rev`` that ``text`` duplicates, if any (reinforce it instead)."""
        from gitmem.engines import similarity
        from gitmem.store.index import Filters
        from gitmem.store.refresh import open_synced

        index = open_synced(self.git, rev)
        try:
            query = " ".join(keywords) or text
            hits = index.search(query, k=25, filters=Filters(domain=domain, include_background=True))
        finally:
            index.close()
        threshold = self.cfg.memory.reinforce_similarity or None
        cands = [(h.id, h.row.content) for h in hits if h.row.tier != "archive"]
        found = similarity.find_duplicate(text, cands, threshold or similarity.DUPLICATE_THRESHOLD)
        return store.load(self.git, rev, found, include_archive=False) if found else None

    def _lookup(self, parent: str | None) -> memorize.Lookup | None:
        """The stored-duplicate lookup at ``parent`` that the reinforce-or-create rule asks."""
        if parent is None:
            return None
        return lambda mem: self.similar_memory(mem.content, mem.domain, parent, mem.keywords)

    def _changes(self, batch: memorize.Batch, parent: str | None) -> dict[str, bytes | None]:
        """The file changes that write a batch: new files rendered, reinforced ones rewritten in place."""
        changes: dict[str, bytes | None] = {}
        for planned in batch.planned.values():
            if planned.stored is None or parent is None:
                changes[planned.memory.path] = store.render(planned.memory)
            else:
                changes[planned.stored.path] = store.rewrite(self.git, parent, planned.stored, planned.memory)
        return changes

    # --- working memory ------------------------------------------------------------
    @property
    def _working_log(self) -> Path:
        from gitmem.engines.working import WORKING_LOG

        return self.store.state / WORKING_LOG

    def note(self, text: str, *, importance: float | None = None, type: str | None = None,
             domain: str | None = None, now: datetime | None = None) -> Note:
        """Keep ``text`` for this session only (no commit): a working note."""
        from gitmem.base import state
        from gitmem.engines import working

        now = now or clock.now()
        max_bytes = self.cfg.sediment.max_content_bytes
        text = self.store.redact_text(guard.check_text(text, "note", max_bytes), "working note", "memory.working", now)
        n = working.note(text, importance, type, domain, now, max_bytes)
        state.append(self._working_log, n.__dict__)
        return n

    def notes(self) -> builtins.list[Note]:
        """The working notes of the current session, oldest first."""
        from gitmem.engines import working

        return working.notes_from(self._working_log)

    def session_end(self, now: datetime | None = None, session: str | None = None) -> SessionEnd:
        """Move the working notes that matter into short-term memory (one commit), drop the rest."""
        from gitmem.base import state
        from gitmem.engines import working

        now = now or clock.now()
        pending = self._working_log.with_suffix(".ending")
        state.set_aside(self._working_log, pending)
        all_notes = working.notes_from(pending)
        keep = working.kept(all_notes, self.cfg.memory)
        kept_ids: builtins.list[str] = []

        def plan(parent: str | None) -> Plan | None:
            batch = memorize.Batch(self._lookup(parent), now, self.cfg.memory)
            kept_ids[:] = [batch.add(working.to_memory(n, now, self.cfg.memory, session)).memory.id for n in keep]
            changes = self._changes(batch, parent)
            if not changes:
                return None
            return Plan(changes, f"gitmem: session end, {len(keep)} working notes kept", "memory.session_end",
                        session=session, body=f"{len(all_notes) - len(keep)} notes dropped")

        written = self.store.write(plan, now)
        pending.unlink(missing_ok=True)
        return working.SessionEnd(tuple(dict.fromkeys(kept_ids)), len(all_notes) - len(keep), written.commit)

    def forget(self, memory_id: str, now: datetime | None = None) -> Forgotten:
        """Move a memory to archive/ (git keeps its history), in one commit."""
        now = now or clock.now()
        check_id(memory_id)

        def plan(parent: str | None) -> Plan | None:
            mem = store.load(self.git, parent, memory_id)
            if mem.archived:
                return None
            new_path = memory_path(mem.domain, mem.id, archived=True)
            data = store.rewrite(self.git, parent, mem, mem.with_(tier="archive"))
            return Plan({mem.path: None, new_path: data}, f"gitmem: forget {mem.id} (archived)", "memory.forget",
                        trailers=(("Gitmem-Memory", mem.id),), result=new_path)

        written = self.store.write(plan, now)
        path = written.result or store.locate(self.git, self.head, memory_id) or ""
        return Forgotten(memory_id, written.commit, path)

    def import_file(self, path: str | Path, dedupe: bool = False, now: datetime | None = None,
                    progress: Progress | None = None) -> Imported:
        """Import a JSONL file, a MEMORY.md or a .learnings/ folder in ONE commit.

        Bad lines are skipped and reported with their line numbers. Each row keeps
        its ``created``; its last access counts from now, so old data is not born
        faded. A row id that is a valid file id becomes the memory's id, any other
        id is kept as ``source_id``. Re-importing the same file changes nothing.
        """
        from gitmem.engines import importer

        now = now or clock.now()
        src = Path(path)
        rows, skipped = importer.iter_rows(src)
        good, refused = importer.to_memories(rows, src.name, now, self.cfg, progress)
        bad = [(s.line, s.reason) for s in (*skipped, *refused)]
        counts = {"created": 0, "reinforced": 0, "unchanged": 0}

        def plan(parent: str | None) -> Plan | None:
            counts.update(created=0, reinforced=0, unchanged=0)
            batch = memorize.Batch(self._lookup(parent) if dedupe else None, now, self.cfg.memory)
            for mem in good:
                if mem.id in batch.planned or store.locate(self.git, parent, mem.id, anywhere=False) is not None:
                    counts["unchanged"] += 1
                    continue
                counts[batch.add(mem, dedupe=dedupe).action] += 1
            changes = self._changes(batch, parent)
            if not changes:
                return None
            return Plan(changes, f"gitmem: import {len(changes)} memories from {src.name}", "memory.import",
                        body=f"{counts['created']} created, {counts['reinforced']} reinforced, "
                             f"{counts['unchanged']} unchanged, {len(bad)} lines skipped",
                        trailers=(("Gitmem-Source", f"import:{src.name}"),))

        written = self.store.write(plan, now)
        return Imported(counts["created"], counts["reinforced"], counts["unchanged"], tuple(sorted(bad)),
                        written.commit, tuple(m.id for m in good))

    # --- lifecycle -----------------------------------------------------------------
    def recall(self, query: str, k: int = 10, *, type: str | None = None, domain: str | None = None,
               tier: str | None = None, band: str | None = None, include_archive: bool = False,
               include_background: bool = False, at: str | None = None, expand: bool = False,
               now: datetime | None = None) -> builtins.list[Recalled]:
        """Memories ranked by relevance, importance and recency; hits go to the access log."""
        from gitmem.engines import recall
        from gitmem.store.index import Filters

        check_choice("type", type, TYPES)
        check_choice("domain", domain, DOMAINS)
        filters = Filters(type=type, domain=domain, tier=tier, band=band,
                          include_archive=include_archive or tier == "archive",
                          include_background=include_background or band in ("background", "fading"))
        return recall.recall(self.root, query, k, filters, at, expand, now or clock.now())

    def decay(self, now: datetime | None = None, dry_run: bool = False) -> DecayReport:
        """Fold the access log, recompute bands and tiers, archive what is forgotten: ONE commit."""
        from gitmem.base import state
        from gitmem.engines import decay
        from gitmem.engines.recall import ACCESS_LOG

        now = now or clock.now()
        log, folding = self.store.state / ACCESS_LOG, self.store.state / decay.FOLDING
        if not dry_run:
            state.set_aside(log, folding)
        accesses = decay.latest_access([folding, log], now)
        report: dict[str, Any] = {}

        def plan(parent: str | None) -> Plan | None:
            if parent is None:
                return None
            changes, moves, examined = decay.plan_decay(self.git, parent, self.cfg, now, accesses)
            report.update(moves=tuple(moves), examined=examined)
            if dry_run or not changes:
                return None
            archived = sum(1 for m in moves if m.change.startswith("archived"))
            return Plan(changes, f"gitmem: decay as of {iso(now)} ({len(moves)} moves, {archived} archived)",
                        "memory.decay", auto=True, body="\n".join(f"{m.id}: {m.change}" for m in moves[:200]),
                        trailers=(("Gitmem-Now", iso(now)),))

        written = self.store.write(plan, now)
        if not dry_run:
            folding.unlink(missing_ok=True)
        return decay.DecayReport(written.commit, dry_run, int(report.get("examined", 0)), len(accesses),
                                 report.get("moves", ()))

    def link(self, a: str, b: str, relation: str = "related", now: datetime | None = None) -> Written:
        """Link two memories with a typed relation; both ends record it (one commit)."""
        from gitmem.engines import links

        now = now or clock.now()
        links.check_relation(relation)
        if check_id(a) == check_id(b):
            raise ValidationError("a memory cannot link to itself")

        def plan(parent: str | None) -> Plan | None:
            ma, mb = store.load(self.git, parent, a), store.load(self.git, parent, b)
            na, nb = links.linked(ma, b, relation), links.linked(mb, a, links.inverse(relation))
            changes = {m.path: store.rewrite(self.git, parent, m, n)
                       for m, n in ((ma, na), (mb, nb)) if n != m}
            return Plan(changes, f"gitmem: link {a} -{relation}-> {b}", "memory.link",
                        trailers=(("Gitmem-Memory", a), ("Gitmem-Memory", b))) if changes else None

        return self.store.write(plan, now)

    def graph(self, include_archive: bool = False) -> Graph:
        """The link graph of the memories."""
        from gitmem.engines import links

        return links.graph(list(self.list(include_archive=include_archive).memories))

    def why(self, memory_id: str) -> Why:
        """Where a memory came from and every commit that touched it."""
        from gitmem.engines import history

        return history.why(self.git, self.head, self.show(memory_id))  # type: ignore[arg-type]

    def consolidate(self, since: str = "7d", now: datetime | None = None) -> Review:
        """The weekly review: what was created, reinforced, decayed, archived, promoted."""
        from gitmem.engines import history

        now = now or clock.now()
        return history.consolidate(self.git, self.head, history.parse_since(since, now))

    def core_items(self) -> builtins.list[CoreItem]:
        """Core-band memories and those at or above ``never_forget``, best first (importance, then most recently used)."""
        from gitmem.engines.recall import open_index
        from gitmem.engines.render import CoreItem

        index = open_index(self.root)
        try:
            keep = self.cfg.memory.never_forget   # at or above it: always loaded, whatever the band
            rows = [r for r in index.rows() if r.tier != "archive" and (r.band == "core" or r.importance >= keep)]
        finally:
            index.close()
        rows.sort(key=lambda r: (-r.importance, _neg(r.last_accessed), r.id))
        return [CoreItem(r.id, r.type, r.domain, r.importance, r.content) for r in rows]

    def load_core(self, max_chars: int | None = None) -> Rendered:
        """Core memories for a session start, whole items within ``max_chars`` (default budgets.core_chars)."""
        from gitmem.engines import render

        limit = max_chars if max_chars is not None else self.cfg.budgets.core_chars
        if limit < 200:
            raise UsageError("--max-chars must be at least 200")
        return render.load_core(self.core_items(), limit)

    def sync_core(self, now: datetime | None = None) -> Written:
        """Write HIPPOCAMPUS_CORE.md and regenerate Layers 2 and 3 of CLAUDE.md (one commit)."""
        from gitmem.engines import render

        now = now or clock.now()
        core = self.load_core()

        def plan(parent: str | None) -> Plan | None:
            claude = self.git.read("CLAUDE.md", parent) if parent else None
            if claude is None:
                raise NotFoundError("CLAUDE.md is missing from the repository", hint="restore it from a fresh `gitmem init`")
            pats = [render.PatternLine(p.slug, p.title, p.weight, p.stage, p.lessons)
                    for p in store.all_patterns(self.git, parent)]
            text = render.claude_md(claude.decode("utf-8"), pats, self._episode_lines(parent),
                                    self.cfg.budgets.claude_md_lines)
            changes = {"HIPPOCAMPUS_CORE.md": core.text.encode("utf-8"), "CLAUDE.md": text.encode("utf-8")}
            return Plan(changes, f"gitmem: sync core ({len(core.included)} core memories, {len(pats)} patterns)",
                        "render.sync_core", auto=True)

        return self.store.write(plan, now)

    def _episode_lines(self, rev: str | None, limit: int = 30) -> builtins.list[EpisodeLine]:
        from gitmem.engines.render import EpisodeLine

        found = []
        for path, oid in (self.git.files("episodes", rev) if rev else ()):
            if not path.endswith(".md"):
                continue
            try:
                meta, _ = documents.split(path, documents.decode(path, self.git.blob(oid)))
            except Exception:
                continue
            stamp = str(meta.get("started") or meta.get("date") or "")
            found.append(EpisodeLine(path, stamp[:10], str(meta.get("summary") or meta.get("title") or path)))
        found.sort(key=lambda e: (e.date, e.path), reverse=True)
        return found[:limit]

    def reflect(self, now: datetime | None = None, auto: bool = False) -> Reflected:
        """Group similar memories no pattern holds yet into patterns (one commit)."""
        from gitmem.engines import reflect

        now = now or clock.now()
        info: dict[str, Any] = {}

        def plan(parent: str | None) -> Plan | None:
            existing = store.all_patterns(self.git, parent)
            consumed = {s for p in existing for s in p.sources}
            live = store.listing(self.git, parent).memories
            fresh = [m for m in live if m.id not in consumed and m.type not in ("pattern", "reflection")]
            last, runs = reflect.read_state(self.git.read(reflect.STATE_FILE, parent) if parent else None)
            pending = [m for m in fresh if m.created > last]
            info.update(pending=len(pending), examined=len(fresh))
            if not pending and not auto:
                pending = fresh
            if not pending or (auto and len(pending) < self.cfg.memory.reflect_trigger):
                return None
            drafts = reflect.group([reflect.Item(m.id, m.content, m.type, m.created) for m in fresh])
            result = reflect.plan_reflect(existing, drafts, now)
            info.update(created=result.created, updated=result.updated, consumed=result.consumed)
            changes = dict(result.changes)
            if changes:
                pats = store.all_patterns(self.git, parent)
                by_slug = {p.slug: p for p in pats}
                for path, data in result.changes.items():
                    by_slug[path.rsplit("/", 1)[-1][:-3]] = documents.read_pattern(path, data or b"")
                from gitmem.engines import render

                lines = [render.PatternLine(p.slug, p.title, p.weight, p.stage, p.lessons)
                         for p in sorted(by_slug.values(), key=lambda p: (-p.weight, p.slug))]
                changes["patterns.md"] = render.patterns_md(lines).encode("utf-8")
            changes[reflect.STATE_FILE] = reflect.state_file(now, runs + 1)
            return Plan(changes, f"gitmem: reflect ({len(result.created)} new patterns, {len(result.updated)} verified again)",
                        "reflect.patterns", auto=True,
                        body="consumed: " + ", ".join(result.consumed[:100]) if result.consumed else "")

        written = self.store.write(plan, now)
        return Reflected(written.commit, tuple(info.get("created", ())), tuple(info.get("updated", ())),
                             tuple(info.get("consumed", ())), int(info.get("pending", 0)))

    def reflection_prompt(self, limit: int = 20) -> str:
        """A self-reflection prompt from recent memories, for an agent to answer and `remember`."""
        from gitmem.engines import reflect

        recent = sorted(self.list().memories, key=lambda m: m.created, reverse=True)[:limit]
        return reflect.reflection_prompt([reflect.Item(m.id, m.content, m.type, m.created) for m in recent], limit)

    def pending_reflections(self) -> int:
        """New memories no pattern holds yet, created since the last reflect."""
        from gitmem.engines import reflect

        head = self.head
        consumed = {s for p in store.all_patterns(self.git, head) for s in p.sources}
        last, _ = reflect.read_state(self.git.read(reflect.STATE_FILE, head) if head else None)
        return sum(1 for m in self.list().memories if m.id not in consumed and m.created > last)

    def harvest(self, paths: Sequence[str | Path], fmt: str = "auto", signals: int = 20, whole: bool = False,
                now: datetime | None = None, progress: Progress | None = None,
                rescan: bool = False) -> builtins.list[Harvested]:
        """Harvest agent transcripts into episodes and memories (one commit per session).

        A session holding a secret is rejected whole (an alert event is logged);
        a file unchanged since it was harvested is skipped unless ``rescan``.
        """
        from gitmem.base.errors import GitmemError
        from gitmem.engines.harvest import planning

        now = now or clock.now()
        files = planning.list_transcripts(paths, fmt, signals)
        cursors = planning.Cursors(self.store.state)
        results: builtins.list[Harvested] = []
        for n, path in enumerate(files, 1):
            stamp = cursors.stamp(path)
            if not rescan and cursors.unchanged(stamp):
                results.append(planning.Harvested(str(path), "", "unchanged"))
            else:
                try:
                    r = self._harvest_file(path, fmt, signals, whole, now)
                except GitmemError as exc:
                    r = planning.Harvested(str(path), "", "failed", reason=exc.message)
                results.append(r)
                if r.status in ("harvested", "updated", "unchanged"):
                    cursors.record(stamp)
            if progress is not None:
                progress(n, len(files))
        return results

    def _harvest_file(self, path: Path, fmt: str, signals: int, whole: bool, now: datetime) -> Harvested:
        """One transcript: screened, then its episode and memories in one commit at most."""
        from gitmem.base import state
        from gitmem.base.errors import SecretError
        from gitmem.engines.harvest import planning
        from gitmem.guards.redact import allowlist

        session = planning.read_session(path, fmt, allowlist(self.cfg))
        if session.secrets:
            state.log_event(self.git.root, "secret.rejected", iso(now), **session.alert())
            return session.rejected()
        drafts: builtins.list[planning.Draft] = []

        def plan(parent: str | None) -> Plan | None:
            batch = memorize.Batch(self._lookup(parent), now, self.cfg.memory)
            stored = planning.find_episode(self.git, parent, session.episode.slug)
            drafts[:] = [planning.draft(session, stored, batch, signals, whole, now)]
            if drafts[0].status == "unchanged":
                return None
            return Plan({**drafts[0].changes, **self._changes(batch, parent)}, drafts[0].subject, "harvest.session",
                        auto=True, session=session.transcript.session_id, trailers=drafts[0].trailers)

        try:
            written = self.store.write(plan, now)
        except SecretError as exc:
            return planning.Harvested(str(path), session.transcript.session_id, "rejected", reason=exc.message)
        return planning.report(session, drafts[0] if drafts else None, written.commit)


def _neg(stamp: str) -> str:
    """Sort key putting later ISO times first."""
    return "".join(chr(0x10FFFF - ord(c)) for c in stamp)
