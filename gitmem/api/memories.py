"""The use cases of single memories: show, list, remember, forget, import, export, link, graph, why, consolidate."""

from __future__ import annotations

from datetime import datetime
from pathlib import Path
from typing import TYPE_CHECKING, Any, Iterator, Sequence

from gitmem.base import clock, people
from gitmem.base.errors import NotFoundError, ValidationError
from gitmem.base.kinds import GLOBAL_DOMAINS, check_choice
from gitmem.base.model import (DOMAINS, TYPES, Forgotten, Imported, Memory, Remembered, check_id, iso, memory_path,
                               name_key, new_id)
from gitmem.engines import memorize
from gitmem.guards import guard, redact
from gitmem.writer.plan import Plan, Written
from gitmem.store import store
from gitmem.store.store import Listing

if TYPE_CHECKING:
    from gitmem.engines import importer
    from gitmem.engines.history import Review, Why
    from gitmem.engines.links import Graph


from gitmem.api import duplicates, projects
from gitmem.api.context import Context, Progress


def show(ctx: Context, memory_id: str, at: str | None = None) -> Memory:
    """One memory (live or archived), as it is now or at a tag/commit."""
    return store.load(ctx.git, ctx.rev(at), memory_id)


def render(memory: Memory) -> str:
    """A memory as its Markdown file reads (front matter and body)."""
    from gitmem.store import documents

    return documents.render_memory(memory)


def list_memories(ctx: Context, type: str | None = None, domain: str | None = None, include_archive: bool = False,
                  at: str | None = None) -> Listing:
    """Memories (oldest first) and the files that could not be read."""
    check_choice("type", type, TYPES)
    check_choice("domain", domain, DOMAINS)
    found = store.listing(ctx.git, ctx.rev(at), include_archive)
    kept = tuple(m for m in found.memories
                 if (type is None or m.type == type) and (domain is None or m.domain == domain))
    return Listing(kept, found.problems)


def effective_importance(ctx: Context, memory: Memory, now: datetime | None = None) -> float:
    """The importance decay sees now (base x 0.99^whole days, and the weekly cost for short-term)."""
    from gitmem.engines import decay

    value = decay.effective(memory.importance, memory.tier, memory.last_accessed, now or clock.now(), ctx.cfg.memory)
    return round(value, 4)


def export(ctx: Context, include_archive: bool = True) -> Iterator[dict[str, Any]]:
    """Every memory as a JSON-able record (re-importable with `gitmem import`)."""
    for m in list_memories(ctx, include_archive=include_archive).memories:
        yield m.to_record()


def remember(ctx: Context, text: str, *, type: str | None = None, domain: str | None = None,
             importance: float | None = None, source: str | None = None, memory_id: str | None = None,
             tags: Sequence[str] = (), dedupe: bool = True, now: datetime | None = None,
             session: str | None = None, auto: bool = False, project: str | None = None) -> Remembered:
    """Encode ``text``: reinforce a similar memory if one exists, else create one (one commit).

    ``project`` (a directory, or a project's id or name) is the project a
    memory of the project or world domain came from; user, self and
    relationship memories stay global.
    """
    from gitmem.engines import encode

    now = now or clock.now()
    max_bytes = ctx.cfg.sediment.max_content_bytes
    text = guard.check_text(text, "memory text", max_bytes).strip()
    check_choice("type", type, TYPES)
    check_choice("domain", domain, DOMAINS)
    if importance is not None:
        guard.check_range("importance", importance, 0.0, 1.0)
    if memory_id is not None:
        check_id(memory_id)
        found = redact.name_findings(memory_id)
        if found:   # never echoed: an id becomes a file name, a commit trailer and a log field
            raise ValidationError(f"the memory id given holds {', '.join(found)}",
                                  hint="choose an id that names the memory, not a secret or a person (or omit --id)")
    # redacted once, before anything (keywords, type, message) is derived from it
    clean = ctx.redactor.redact(text, "memory text", "memory.create", now)
    text = clean.text
    tags = [ctx.redactor.redact_text(t, "tag", "memory.create", now) for t in tags]
    source = ctx.redactor.redact_text(source, "source", "memory.create", now) if source else source
    session = ctx.redactor.redact_text(session, "session", "memory.create", now) if session else session
    enc = encode.encode(text)
    typ, dom = type or enc.type, domain or enc.domain
    imp = enc.importance if importance is None else float(importance)
    reason = enc.reason if importance is None else "given"
    scope = projects.resolve_project(ctx, project) if dom not in GLOBAL_DOMAINS else None
    deduping = dedupe and memory_id is None
    # search and score before the write lock; under it, only what changed since is scored
    scan = duplicates.prescan(ctx, text, dom, enc.keywords, project=scope.id if scope else None) if deduping else None

    def plan(parent: str | None) -> Plan[tuple[str, Memory]] | None:
        mid = memory_id or new_id(now)
        mem = memorize.new_memory(mid, text, typ, dom, imp, iso(now), now, ctx.cfg.memory,
                                  keywords=enc.keywords, tags=tuple(tags), source=source or "user")
        if scope is not None:
            mem = mem.with_(project=scope.id, project_name=scope.name)
        lookup = (duplicates.rechecked(ctx, scan, parent, mem.project) if scan is not None else duplicates.duplicate_lookup(ctx, parent))
        batch = memorize.Batch(lookup, now, ctx.cfg.memory)
        outcome = batch.add(mem, dedupe=deduping, given=importance)
        if outcome.action == "reinforced":
            new = outcome.memory
            return Plan(duplicates.batch_changes(ctx, batch, parent), f"gitmem: reinforce {new.id} ({new.reinforced}x)",
                        "memory.reinforce", auto=auto, session=session,
                        trailers=(("Gitmem-Memory", new.id),), result=("reinforced", new))
        if store.locate(ctx.git, parent, mid, anywhere=False) is not None:
            raise ValidationError(f"a memory with id {mid!r} exists already", hint="choose another --id, or omit it")
        return Plan(duplicates.batch_changes(ctx, batch, parent), f"gitmem: remember {mid} ({typ}, {dom})",
                    "memory.create", auto=auto, session=session,
                    trailers=(("Gitmem-Memory", mid),), result=("created", mem))

    written = ctx.writer.write(plan, now)
    outcome = written.result
    if outcome is None:   # the planner above always plans a write
        raise RuntimeError("remember planned no write")
    action, mem = outcome
    moved = written.plan is not None and mem.path not in written.plan.changes   # into a person's folder
    if (written.stripped or moved) and written.commit:
        mem = store.load(ctx.git, written.commit, mem.id)   # what was stored: PII replaced, where it went
    return Remembered(mem.id, action, written.commit, mem, reason,
                      tuple(dict.fromkeys((*clean.kinds, *(k for _, kinds in written.stripped for k in kinds)))))


def forget(ctx: Context, memory_id: str, now: datetime | None = None) -> Forgotten:
    """Move a memory to archive/ (git keeps its history), in one commit."""
    now = now or clock.now()
    check_id(memory_id)

    def plan(parent: str | None) -> Plan[str] | None:
        mem = store.load(ctx.git, parent, memory_id)
        if mem.archived:
            return None
        new_path = people.archived(mem.path, memory_path(mem.domain, mem.id, archived=True))
        data = store.rewrite(ctx.git, parent, mem, mem.with_(tier="archive"))
        return Plan({mem.path: None, new_path: data}, f"gitmem: forget {mem.id} (archived)", "memory.forget",
                    trailers=(("Gitmem-Memory", mem.id),), result=new_path)

    written = ctx.writer.write(plan, now)
    path = written.result or store.locate(ctx.git, ctx.head, memory_id) or ""
    return Forgotten(memory_id, written.commit, path)


def import_file(ctx: Context, path: str | Path, dedupe: bool = False, now: datetime | None = None,
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
    rows, skipped = importer.iter_rows(src, ctx.cfg.sediment.max_content_bytes)
    # redacted before anything is derived from them; a secret refuses the import, naming the input line
    rows = [_redacted_row(ctx, r, src.name, now) for r in rows]
    good, refused = importer.to_memories(rows, src.name, now, ctx.cfg, progress)
    bad = [(s.line, s.reason) for s in (*skipped, *refused)]
    counts = {"created": 0, "reinforced": 0, "unchanged": 0}
    # search and score before the write lock; under it, only what changed since is scored
    head = ctx.head
    scans = {m.id: duplicates.prescan(ctx, m.content, m.domain, m.keywords, head) for m in good} if dedupe and head else {}
    key = name_key(src.name, "f")   # a file's name may name a person: its hash is recorded

    def plan(parent: str | None) -> Plan[None] | None:
        counts.update(created=0, reinforced=0, unchanged=0)
        lookup = ((duplicates.rechecked_each(ctx, scans, parent) if scans else duplicates.duplicate_lookup(ctx, parent)) if dedupe
                  else _exact_lookup(ctx, parent))
        batch = memorize.Batch(lookup, now, ctx.cfg.memory, exact=not dedupe)
        for mem in good:
            if mem.id in batch.planned or store.locate(ctx.git, parent, mem.id, anywhere=False) is not None:
                counts["unchanged"] += 1
                continue
            counts[batch.add(mem).action] += 1
        changes = duplicates.batch_changes(ctx, batch, parent)
        if not changes:
            return None
        return Plan(changes, f"gitmem: import {len(changes)} memories from {key}", "memory.import",
                    body=f"{counts['created']} created, {counts['reinforced']} reinforced, "
                         f"{counts['unchanged']} unchanged, {len(bad)} lines skipped",
                    trailers=(("Gitmem-Source", f"import:{key}"),))

    written = ctx.writer.write(plan, now)
    over: tuple[tuple[str, int, int], ...] = ()
    would, limit = 0, 0
    if written.commit is not None:   # the next decay, which the daemon runs daily, is no surprise
        from gitmem.engines import decay

        preview = decay.preview(ctx.git, written.commit, ctx.cfg, now)
        over, would, limit = tuple(preview.over()), preview.would_archive, preview.limit
    return Imported(counts["created"], counts["reinforced"], counts["unchanged"], tuple(sorted(bad)),
                    written.commit, tuple(m.id for m in good), over, would if over else 0, limit)


def _redacted_row(ctx: Context, row: importer.Row, name: str, now: datetime) -> importer.Row:
    """``row`` with every text field redacted (PII replaced); a secret refuses the import, naming the
    input file and line to the person (the clone's event log keeps only the file's hash)."""
    from dataclasses import replace

    from gitmem.base.errors import SecretError

    key = name_key(name, "f")

    def clean(text: str, what: str) -> str:
        try:
            return ctx.redactor.redact_text(text, f"{key}:{row.line} ({what})", "memory.import", now)
        except SecretError as exc:
            raise SecretError(exc.message.replace(key, name), exc.findings, exc.hint) from None

    return replace(row, content=clean(row.content, "content"), tags=tuple(clean(t, "tag") for t in row.tags),
                   source=row.source and clean(row.source, "source"),
                   # an id that holds a secret or PII (lower-cased too) becomes no file name: a new one is made
                   id=row.id and (None if redact.name_findings(row.id) else clean(row.id, "id")))


def _exact_lookup(ctx: Context, parent: str | None) -> memorize.Lookup | None:
    """The live memory holding exactly a text (spacing and case aside), for an import without --dedupe."""
    if parent is None:
        return None
    from gitmem.store.refresh import open_synced

    with open_synced(ctx.git, parent) as index:
        known = {(r.domain, memorize.exact_key(r.content)): r.id for r in index.rows() if r.tier != "archive"}

    def lookup(mem: Memory) -> Memory | None:
        found = known.get((mem.domain, memorize.exact_key(mem.content)))
        return store.load(ctx.git, parent, found, include_archive=False) if found else None
    return lookup


def link(ctx: Context, a: str, b: str, relation: str = "related", now: datetime | None = None) -> Written[None]:
    """Link two memories with a typed relation; both ends record it (one commit)."""
    from gitmem.engines import links

    now = now or clock.now()
    relation = links.check_relation(relation)
    if check_id(a) == check_id(b):
        raise ValidationError("a memory cannot link to itself")

    def plan(parent: str | None) -> Plan[None] | None:
        ma, mb = store.load(ctx.git, parent, a), store.load(ctx.git, parent, b)
        na, nb = links.linked(ma, b, relation), links.linked(mb, a, links.inverse(relation))
        changes = {m.path: store.rewrite(ctx.git, parent, m, n)
                   for m, n in ((ma, na), (mb, nb)) if n != m}
        return Plan(changes, f"gitmem: link {a} -{relation}-> {b}", "memory.link",
                    trailers=(("Gitmem-Memory", a), ("Gitmem-Memory", b))) if changes else None

    return ctx.writer.write(plan, now)


def graph(ctx: Context, include_archive: bool = False) -> Graph:
    """The link graph of the memories, each link in the direction it was made."""
    from gitmem.engines import history, links

    made = history.links_made(ctx.git, ctx.head)
    return links.graph(list(list_memories(ctx, include_archive=include_archive).memories), made)


def why(ctx: Context, memory_id: str) -> Why:
    """Where a memory came from and every commit that touched it."""
    from gitmem.engines import history

    memory = show(ctx, memory_id)
    head = ctx.head
    if head is None:
        raise NotFoundError(f"no memory {memory_id!r}: the repository has no commits yet")
    return history.why(ctx.git, head, memory)


def consolidate(ctx: Context, since: str = "7d", now: datetime | None = None) -> Review:
    """The weekly review: what was created, reinforced, decayed, archived, promoted."""
    from gitmem.engines import history

    now = now or clock.now()
    return history.consolidate(ctx.git, ctx.head, history.parse_since(since, now))
