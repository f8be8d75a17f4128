"""Harvest: agent transcripts become episode documents and memories.

One commit per session: the episode under episodes/YYYY/MM/<session>.md and
the session's signals encoded (reinforce or create). A session holding a
secret anywhere (user text, tool input, tool output, any string of any
record) is rejected whole: nothing is written and an alert event is logged.

Harvest is incremental and idempotent. The episode records how many lines of
the transcript it covers; a session harvested again with no new lines makes
no commit, and one that grew is harvested from where it stopped (signals from
the new lines only; the episode is regenerated from the whole transcript).
A per-clone cursor (path, size, mtime) skips unchanged files without reading.
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from datetime import datetime
from pathlib import Path
from typing import Any, Callable, Iterable, Sequence

from gitmem.engines import bands
from gitmem.store import documents, store
from gitmem.base import events
from gitmem.base.errors import GitmemError, SecretError, UsageError
from gitmem.base.model import Memory, iso, new_id
from gitmem.guards.writepath import Plan

CURSOR_FILE = "harvest-cursor.json"
EPISODE_DIR = "episodes"
DEFAULT_SIGNALS = 20
SIGNAL_TYPES = {"preference": "preference", "decision": "decision", "correction": "preference", "error": "error"}


@dataclass(frozen=True)
class Harvested:
    path: str
    session_id: str
    status: str                 # harvested | updated | unchanged | rejected | failed
    commit: str | None = None
    episode: str | None = None
    created: int = 0
    reinforced: int = 0
    reason: str = ""


def _is_media(record: dict[str, Any]) -> bool:
    """An image or other binary payload block: its base64 ``data`` holds no typed text."""
    return record.get("type") in ("image", "base64", "document") or "mimeType" in record or "media_type" in record


def _strings(value: Any, out: list[str], key: str = "", media: bool = False) -> None:
    if isinstance(value, str):
        if len(value) >= 8 and key != "signature" and not (media and key == "data"):
            out.append(value)
    elif isinstance(value, dict):
        here = _is_media(value)
        for k, v in value.items():
            _strings(v, out, str(k), here)
    elif isinstance(value, list):
        for v in value:
            _strings(v, out, key)


def find_secrets(path: Path, cfg: Any) -> list[str]:
    """'kind at line N' for each secret in any string of any complete record of the file."""
    from gitmem.guards import pii
    from gitmem.guards.redact import allowlist

    allow = allowlist(cfg)
    found: list[str] = []
    with path.open("rb") as fh:
        for n, raw in enumerate(fh, 1):
            try:
                record = json.loads(raw)
            except ValueError:
                continue
            texts: list[str] = []
            _strings(record, texts)
            kinds = {f.kind for t in texts for f in pii.scan(t, allow) if f.secret}
            found.extend(f"{k} at line {n}" for k in sorted(kinds))
    return found


def _cursors(state: Path) -> dict[str, Any]:
    try:
        data = json.loads((state / CURSOR_FILE).read_text())
        return data if isinstance(data, dict) else {}
    except (OSError, ValueError):
        return {}


def _save_cursors(state: Path, cursors: dict[str, Any]) -> None:
    tmp = state / (CURSOR_FILE + ".tmp")
    tmp.write_text(json.dumps(cursors, sort_keys=True))
    tmp.replace(state / CURSOR_FILE)


def _episode_path(slug: str, started: str | None, now: datetime) -> str:
    stamp = started or iso(now)
    return f"{EPISODE_DIR}/{stamp[:4]}/{stamp[5:7]}/{slug}.md"


def _find_episode(git: Any, rev: str | None, slug: str) -> tuple[str, dict[str, Any]] | None:
    if rev is None:
        return None
    for path, oid in git.files(EPISODE_DIR, rev):
        if path.endswith(f"/{slug}.md"):
            meta, _ = documents.split(path, documents.decode(path, git.blob(oid)))
            return path, meta
    return None


def _signal_memories(repo: Any, ep: Any, signals: Sequence[Any], parent: str | None, now: datetime,
                     changes: dict[str, bytes | None]) -> tuple[int, int]:
    """Encode ``signals`` into ``changes``: reinforce a similar memory, else create one."""
    from gitmem.engines import encode

    created = reinforced = 0
    batch: dict[str, Memory] = {}       # every memory this session touched, as it will be written
    origin: dict[str, Memory] = {}      # those that already exist at ``parent``, as they are there
    for sig in signals:
        enc = encode.encode(sig.text)
        typ = SIGNAL_TYPES.get(sig.kind, enc.type)
        floor = 0.9 if sig.kind == "remember" else 0.75 if sig.kind in ("correction", "decision") else 0.0
        imp = max(enc.importance, floor)
        local = [(m.id, m.content) for m in batch.values() if m.domain == enc.domain]
        dup_id = encode.find_duplicate(sig.text, local) if local else None
        dup = batch.get(dup_id) if dup_id else None
        if dup is None and parent is not None:
            dup = repo.similar_memory(sig.text, enc.domain, parent, enc.keywords)
            if dup is not None:
                origin.setdefault(dup.id, dup)
                dup = batch.get(dup.id, dup)
        if dup is not None:
            new = bands.reinforce(dup, now, repo.cfg.memory)
            batch[new.id] = new
            reinforced += 1
            continue
        mid = new_id(now, seed=f"{ep.session_id}#L{sig.line}:{sig.text}")
        batch[mid] = bands.new_memory(mid, sig.text, typ, enc.domain, imp, iso(now), now, repo.cfg.memory,
                                      keywords=enc.keywords, tags=("harvest", sig.kind),
                                      source=f"session:{ep.session_id}#L{sig.line}")
        created += 1
    for mid, mem in batch.items():
        was = origin.get(mid)
        changes[mem.path] = store.rewrite(repo.git, parent, was, mem) if was is not None else store.render(mem)
    return created, reinforced


def _pick(signals: Sequence[Any], limit: int) -> list[Any]:
    """The ``limit`` most important signals, in transcript order."""
    from gitmem.engines import encode

    ranked = sorted(signals, key=lambda s: (-encode.importance(s.text)[0], s.line))[:limit]
    return sorted(ranked, key=lambda s: s.line)


def harvest_file(repo: Any, path: Path, fmt: str, limit: int, whole: bool, now: datetime) -> Harvested:
    """Harvest one transcript file (one commit at most)."""
    from gitmem.engines import episodes, transcripts

    t = transcripts.read(path, fmt)  # type: ignore[arg-type]
    ep = episodes.extract(t)
    secrets = find_secrets(path, repo.cfg)
    if secrets:
        kinds = sorted({s.split(" at ")[0] for s in secrets})
        events.log_event(repo.git.git_dir, "secret.rejected", iso(now), source=str(path), session=t.session_id,
                         kinds=kinds, where=secrets[:20])
        return Harvested(str(path), t.session_id, "rejected", reason=f"secret in session ({', '.join(secrets[:5])}); nothing written")
    result: dict[str, Any] = {}

    def plan(parent: str | None) -> Plan | None:
        found = _find_episode(repo.git, parent, ep.slug)
        done_lines = int(found[1].get("lines_harvested") or 0) if found else 0
        if found and done_lines >= t.end_line:
            result.update(status="unchanged", episode=found[0])
            return None
        meta, body = episodes.render(ep)
        meta = dict(meta)
        meta["lines_harvested"] = t.end_line
        ep_path = found[0] if found else _episode_path(ep.slug, ep.started, now)
        changes: dict[str, bytes | None] = {ep_path: documents.render_document(meta, body).encode("utf-8")}
        if whole:
            new = [episodes.Signal(ep.summary, "fact", 1)] if not found and ep.summary else []
        else:
            new = _pick([s for s in ep.signals if s.line > done_lines], limit)
        created, reinforced = _signal_memories(repo, ep, new, parent, now, changes)
        result.update(status="updated" if found else "harvested", episode=ep_path, created=created, reinforced=reinforced)
        return Plan(changes, f"gitmem: harvest session {t.session_id[:40]} ({created} new, {reinforced} reinforced)",
                    "harvest.session", auto=True, session=t.session_id,
                    trailers=(("Gitmem-Source", f"{t.format}:{path.name}"),))

    try:
        written = repo.store.write(plan, now)
    except SecretError as exc:
        return Harvested(str(path), t.session_id, "rejected", reason=exc.message)
    status = result.get("status", "unchanged") if written.commit else "unchanged"
    return Harvested(str(path), t.session_id, status, written.commit, result.get("episode"),
                     result.get("created", 0), result.get("reinforced", 0))


def harvest(repo: Any, paths: Iterable[Path], fmt: str = "auto", limit: int = DEFAULT_SIGNALS, whole: bool = False,
            now: datetime | None = None, progress: Callable[[int, int], None] | None = None,
            rescan: bool = False) -> list[Harvested]:
    """Harvest every transcript under ``paths`` (files, or folders walked).

    ``rescan`` ignores the per-clone cursor (after a rollback, say); the
    episodes' line counts still keep it idempotent.
    """
    from gitmem.base import config
    from gitmem.engines import transcripts

    now = now or config.now()
    if fmt not in ("auto", "claude-code", "openclaw", "jsonl"):
        raise UsageError(f"unknown format {fmt!r}", hint="use auto, claude-code, openclaw or jsonl")
    if limit < 0:
        raise UsageError("--signals must be 0 or more")
    given = [Path(p) for p in paths]
    for p in given:
        if not p.exists():
            raise UsageError(f"no such file or folder: {p}")
    files = transcripts.discover(given)
    state = repo.store.state
    cursors = _cursors(state)
    results: list[Harvested] = []
    for n, path in enumerate(files, 1):
        key = str(path.resolve())
        stat = path.stat()
        mark = [stat.st_size, stat.st_mtime_ns]
        if not rescan and cursors.get(key) == mark:
            results.append(Harvested(str(path), "", "unchanged"))
        else:
            try:
                r = harvest_file(repo, path, fmt, limit, whole, now)
            except GitmemError as exc:
                r = Harvested(str(path), "", "failed", reason=exc.message)
            results.append(r)
            if r.status in ("harvested", "updated", "unchanged"):
                cursors[key] = mark
                _save_cursors(state, cursors)
        if progress is not None:
            progress(n, len(files))
    return results
