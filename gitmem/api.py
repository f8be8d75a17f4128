"""The library API: ``MemoryRepo`` and the values its use cases return.

The CLI and the MCP server are thin shells over these methods; nothing here
prints. A ``MemoryRepo`` holds one pygit2 repository and must not be shared
between threads: open one per thread (or per request).
"""

from __future__ import annotations

from dataclasses import dataclass, field
from datetime import datetime
from pathlib import Path
from typing import Any, Callable, Iterator, Sequence

from gitmem.engines import bands
from gitmem.base import config as config_mod
from gitmem.store import documents, store
from gitmem.guards import guard
from gitmem.base.config import Config
from gitmem.base.errors import NotFoundError, UsageError, ValidationError
from gitmem.engines.initrepo import InitResult, init as init_repo
from gitmem.base.repodir import find_root
from gitmem.store.store import Listing
from gitmem.base.model import DOMAINS, TYPES, Memory, check_id, is_valid_id, iso, memory_path, new_id
from gitmem.guards.writepath import Plan, Store, Written

Progress = Callable[[int, int], None]


@dataclass(frozen=True)
class Remembered:
    id: str
    action: str                 # "created" or "reinforced"
    commit: str | None
    memory: Memory
    reason: str = ""            # why this importance (the encoder's rule)
    stripped: tuple[str, ...] = ()


@dataclass(frozen=True)
class Imported:
    created: int
    reinforced: int
    unchanged: int
    skipped: tuple[tuple[int, str], ...]     # (line, reason)
    commit: str | None
    ids: tuple[str, ...] = field(default=(), repr=False)


@dataclass(frozen=True)
class Forgotten:
    id: str
    commit: str | None
    path: str


class MemoryRepo:
    """A memory repository: every use case of gitmem as a method returning values."""

    def __init__(self, root: Path, cfg: Config | None = None) -> None:
        self.root = Path(root)
        self.cfg = cfg if cfg is not None else config_mod.load(self.root)
        self.store = Store(self.root, self.cfg)
        self.git = self.store.git

    @classmethod
    def open(cls, repo: str | Path | None = None) -> "MemoryRepo":
        """Open the memory repository named by --repo, GITMEM_DIR or the working folder."""
        return cls(find_root(repo))

    @staticmethod
    def init(path: str | Path, now: datetime | None = None, install_hooks: bool = True) -> InitResult:
        """Create a memory repository (a no-op with a message on an existing one)."""
        return init_repo(Path(path), now or config_mod.now(), install_hooks)

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
        _check_choice("type", type, TYPES)
        _check_choice("domain", domain, DOMAINS)
        found = store.listing(self.git, self._rev(at), include_archive)
        kept = tuple(m for m in found.memories
                     if (type is None or m.type == type) and (domain is None or m.domain == domain))
        return Listing(kept, found.problems)

    def export(self, include_archive: bool = True) -> Iterator[dict[str, Any]]:
        """Every memory as a JSON-able record (re-importable with `gitmem import`)."""
        from gitmem.engines.importer import export_record

        for m in self.list(include_archive=include_archive).memories:
            yield export_record(m)

    # --- writing ---------------------------------------------------------------
    def remember(self, text: str, *, type: str | None = None, domain: str | None = None,
                 importance: float | None = None, source: str | None = None, memory_id: str | None = None,
                 tags: Sequence[str] = (), dedupe: bool = True, now: datetime | None = None,
                 session: str | None = None, auto: bool = False) -> Remembered:
        """Encode ``text``: reinforce a similar memory if one exists, else create one (one commit)."""
        from gitmem.engines import encode

        now = now or config_mod.now()
        max_bytes = self.cfg.sediment.max_content_bytes
        text = guard.check_text(text, "memory text", max_bytes).strip()
        _check_choice("type", type, TYPES)
        _check_choice("domain", domain, DOMAINS)
        if importance is not None:
            guard.check_range("importance", importance, 0.0, 1.0)
        if memory_id is not None:
            check_id(memory_id)
        enc = encode.encode(text)
        typ, dom = type or enc.type, domain or enc.domain
        imp = enc.importance if importance is None else float(importance)
        reason = enc.reason if importance is None else "given"

        def plan(parent: str | None) -> Plan | None:
            if dedupe and memory_id is None and parent is not None:
                dup = self.similar_memory(text, dom, parent, enc.keywords)
                if dup is not None:
                    return self._reinforce_plan(dup, parent, now, session, auto)
            mid = memory_id or new_id(now)
            if store.locate(self.git, parent, mid, anywhere=False) is not None:
                raise ValidationError(f"a memory with id {mid!r} exists already", hint="choose another --id, or omit it")
            mem = bands.new_memory(mid, text, typ, dom, imp, iso(now), now, self.cfg.memory,
                                   keywords=enc.keywords, tags=tuple(tags), source=source or "user")
            return Plan({mem.path: store.render(mem)}, f"gitmem: remember {mid} ({typ}, {dom})",
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
        from gitmem.engines import encode
        from gitmem.store.index import Filters
        from gitmem.store.indexer import open_synced

        index = open_synced(self.git, rev)
        try:
            query = " ".join(keywords) or text
            hits = index.search(query, k=25, filters=Filters(domain=domain, include_background=True))
        finally:
            index.close()
        threshold = self.cfg.memory.reinforce_similarity or None
        cands = [(h.id, h.row.content) for h in hits if h.row.tier != "archive"]
        found = encode.find_duplicate(text, cands, threshold) if threshold else encode.find_duplicate(text, cands)
        return store.load(self.git, rev, found, include_archive=False) if found else None

    def _reinforce_plan(self, old: Memory, parent: str, now: datetime, session: str | None, auto: bool) -> Plan:
        new = bands.reinforce(old, now, self.cfg.memory)
        return Plan({old.path: store.rewrite(self.git, parent, old, new)},
                    f"gitmem: reinforce {old.id} ({old.reinforced + 1}x)", "memory.reinforce", auto=auto,
                    session=session, trailers=(("Gitmem-Memory", old.id),), result=("reinforced", new))

    def forget(self, memory_id: str, now: datetime | None = None) -> Forgotten:
        """Move a memory to archive/ (git keeps its history), in one commit."""
        now = now or config_mod.now()
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
        from gitmem.engines import encode, importer

        now = now or config_mod.now()
        src = Path(path)
        rows, skipped = importer.iter_rows(src)
        max_bytes = self.cfg.sediment.max_content_bytes
        good: list[tuple[importer.Row, Memory]] = []
        bad = [(s.line, s.reason) for s in skipped]
        total = len(rows)
        for n, r in enumerate(rows, 1):
            try:
                text = guard.check_text(r.content, f"line {r.line} content", max_bytes).strip()
                enc = encode.encode(text)
            except ValidationError as exc:
                bad.append((r.line, exc.message))
                continue
            created = r.created or iso(now)
            seed = f"{src.name}:{r.line}:{r.id or ''}:{text}"
            if r.id is not None and is_valid_id(r.id):
                mid, source_id = r.id, None
            else:
                mid, source_id = new_id(config_mod.parse_time(created), seed), r.id
            imp = r.importance if r.importance is not None else enc.importance
            dom = r.domain or enc.domain
            good.append((r, bands.new_memory(mid, text, r.type or enc.type, dom, imp, created, now, self.cfg.memory,
                                             keywords=enc.keywords, tags=r.tags, source_id=source_id,
                                             source=r.source or f"import:{src.name}#L{r.line}")))
            if progress is not None and (n % 200 == 0 or n == total):
                progress(n, total)
        counts = {"created": 0, "reinforced": 0, "unchanged": 0}

        def plan(parent: str | None) -> Plan | None:
            counts.update(created=0, reinforced=0, unchanged=0)
            changes: dict[str, bytes | None] = {}
            batch: dict[str, Memory] = {}
            for _, mem in good:
                if mem.path in changes or store.locate(self.git, parent, mem.id, anywhere=False) is not None:
                    counts["unchanged"] += 1
                    continue
                if dedupe:
                    target = self._import_duplicate(mem, parent, batch)
                    if target is not None:
                        target = bands.reinforce(target, now, self.cfg.memory)
                        batch[target.id] = target
                        changes[target.path] = store.render(target)
                        counts["reinforced"] += 1
                        continue
                    batch[mem.id] = mem
                changes[mem.path] = store.render(mem)
                counts["created"] += 1
            if not changes:
                return None
            return Plan(changes, f"gitmem: import {len(changes)} memories from {src.name}", "memory.import",
                        body=f"{counts['created']} created, {counts['reinforced']} reinforced, "
                             f"{counts['unchanged']} unchanged, {len(bad)} lines skipped",
                        trailers=(("Gitmem-Source", f"import:{src.name}"),))

        written = self.store.write(plan, now)
        return Imported(counts["created"], counts["reinforced"], counts["unchanged"], tuple(sorted(bad)),
                        written.commit, tuple(m.id for _, m in good))

    def _import_duplicate(self, mem: Memory, parent: str | None, batch: dict[str, Memory]) -> Memory | None:
        from gitmem.engines import encode

        local = [(m.id, m.content) for m in batch.values() if m.domain == mem.domain]
        found = encode.find_duplicate(mem.content, local)
        if found is not None:
            return batch[found]
        if parent is None:
            return None
        existing = self.similar_memory(mem.content, mem.domain, parent, mem.keywords)
        if existing is not None and existing.id in batch:
            return batch[existing.id]
        return existing


    # --- lifecycle -----------------------------------------------------------------
    def recall(self, query: str, k: int = 10, *, type: str | None = None, domain: str | None = None,
               tier: str | None = None, band: str | None = None, include_archive: bool = False,
               include_background: bool = False, at: str | None = None, expand: bool = False,
               now: datetime | None = None) -> list[Any]:
        """Memories ranked by relevance, importance and recency; hits go to the access log."""
        from gitmem.engines import recall
        from gitmem.store.index import Filters

        _check_choice("type", type, TYPES)
        _check_choice("domain", domain, DOMAINS)
        filters = Filters(type=type, domain=domain, tier=tier, band=band,
                          include_archive=include_archive or tier == "archive",
                          include_background=include_background or band in ("background", "fading"))
        return recall.recall(self.root, query, k, filters, at, expand, now or config_mod.now())

    def decay(self, now: datetime | None = None, dry_run: bool = False) -> Any:
        """Fold the access log, recompute bands and tiers, archive what is forgotten: ONE commit."""
        from gitmem.engines import decay

        return decay.run(self.store, now or config_mod.now(), dry_run)

    def link(self, a: str, b: str, relation: str = "related", now: datetime | None = None) -> Written:
        """Link two memories with a typed relation; both ends record it (one commit)."""
        from gitmem.engines import links

        now = now or config_mod.now()
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

    def graph(self, include_archive: bool = False) -> Any:
        """The link graph of the memories."""
        from gitmem.engines import links

        return links.graph(list(self.list(include_archive=include_archive).memories))

    def why(self, memory_id: str) -> Any:
        """Where a memory came from and every commit that touched it."""
        from gitmem.engines import history

        return history.why(self.git, self.head, self.show(memory_id))  # type: ignore[arg-type]

    def consolidate(self, since: str = "7d", now: datetime | None = None) -> Any:
        """The weekly review: what was created, reinforced, decayed, archived, promoted."""
        from gitmem.engines import history

        now = now or config_mod.now()
        return history.consolidate(self.git, self.head, history.parse_since(since, now))

    def core_items(self) -> list[Any]:
        """Core-band memories, best first (importance, then most recently used)."""
        from gitmem.engines.recall import open_index
        from gitmem.engines.render import CoreItem

        index = open_index(self.root)
        try:
            rows = [r for r in index.rows() if r.band == "core" and r.tier != "archive"]
        finally:
            index.close()
        rows.sort(key=lambda r: (-r.importance, _neg(r.last_accessed), r.id))
        return [CoreItem(r.id, r.type, r.domain, r.importance, r.content) for r in rows]

    def load_core(self, max_chars: int | None = None) -> Any:
        """Core memories for a session start, whole items within ``max_chars`` (default budgets.core_chars)."""
        from gitmem.engines import render

        limit = max_chars if max_chars is not None else self.cfg.budgets.core_chars
        if limit < 200:
            raise UsageError("--max-chars must be at least 200")
        return render.load_core(self.core_items(), limit)

    def sync_core(self, now: datetime | None = None) -> Written:
        """Write HIPPOCAMPUS_CORE.md and regenerate Layers 2 and 3 of CLAUDE.md (one commit)."""
        from gitmem.engines import render

        now = now or config_mod.now()
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

    def _episode_lines(self, rev: str | None, limit: int = 30) -> list[Any]:
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

    def reflect(self, now: datetime | None = None, auto: bool = False) -> Any:
        """Group similar memories no pattern holds yet into patterns (one commit)."""
        from gitmem.engines import reflect

        now = now or config_mod.now()
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
        return ReflectResult(written.commit, tuple(info.get("created", ())), tuple(info.get("updated", ())),
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
                now: datetime | None = None, progress: Progress | None = None, rescan: bool = False) -> list[Any]:
        """Harvest agent transcripts into episodes and memories (one commit per session)."""
        from gitmem.engines import harvest

        return harvest.harvest(self, [Path(p) for p in paths], fmt, signals, whole, now, progress, rescan)


@dataclass(frozen=True)
class ReflectResult:
    commit: str | None
    created: tuple[str, ...]
    updated: tuple[str, ...]
    consumed: tuple[str, ...]
    pending: int


def _neg(stamp: str) -> str:
    """Sort key putting later ISO times first."""
    return "".join(chr(0x10FFFF - ord(c)) for c in stamp)


def _check_choice(name: str, value: str | None, allowed: Sequence[str]) -> None:
    if value is not None and value not in allowed:
        raise UsageError(f"{name} {value!r} is not one of: {', '.join(allowed)}")
