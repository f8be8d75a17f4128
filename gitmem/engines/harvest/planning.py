"""Harvest planning: which transcripts to read, and what one session's commit holds.

One commit per session: the episode under episodes/YYYY/MM/<session>.md and
the session's signals as memories (the reinforce-or-create rule of
``memorize.Batch``). A session holding a secret anywhere is rejected whole
(``screen``): nothing is written and the caller logs an alert.

Harvest is incremental and idempotent. The episode records how many lines of
the transcript it covers; a session harvested again with no new lines makes
no commit, and one that grew is harvested from where it stopped (signals from
the new lines only; the episode is regenerated from the whole transcript).
A per-clone cursor (path, size, mtime) skips unchanged files without reading.

Nothing here writes memory: ``draft`` fills a batch and returns the episode
document; the use case turns both into one commit.
"""

from __future__ import annotations

import json
import re
from dataclasses import dataclass, field, replace
from datetime import datetime
from pathlib import Path
from typing import TYPE_CHECKING, Any, Callable, Iterable, Literal, Sequence

from gitmem.store import documents, store
from gitmem.base.errors import UsageError
from gitmem.base.files import write_atomic
from gitmem.base.model import Memory, iso, name_key, new_id
from gitmem.engines import memorize
from gitmem.engines.harvest import episodes, reader, screen, subagents
from gitmem.engines.harvest.signals import Signal
from gitmem.engines.harvest.sources import Transcript, check_format, discover

if TYPE_CHECKING:
    from gitmem.base.config import Memory as MemoryConfig
    from gitmem.base.gitio import Git
    from gitmem.guards.pii import Allowlist, Finding

__all__ = ["CURSOR_FILE", "DEFAULT_SIGNALS", "EPISODE_DIR", "Cursors", "Draft", "Harvested", "Session", "Status",
           "StoredEpisode", "Unit", "draft", "find_episode", "list_sessions", "list_transcripts", "pick", "read_session",
           "report"]

Unit = subagents.Unit

CURSOR_FILE = "harvest-cursor.json"
EPISODE_DIR = store.EPISODE_DIR
DEFAULT_SIGNALS = 20
# The memory type of a signal kind; other kinds take the encoder's type.
SIGNAL_TYPES = {"preference": "preference", "decision": "decision", "correction": "preference", "error": "error"}

Status = Literal["harvested", "updated", "unchanged", "empty", "skipped", "rejected", "failed"]

# What a session's text passes before anything is derived from it: (text, user names
# learned from the session's own paths, the text's findings when the screen already scanned it
# under the same allowlist, else None) -> the text with PII replaced.
Redactor = Callable[[str, Sequence[str], "Sequence[Finding] | None"], str]


@dataclass(frozen=True)
class Harvested:
    """What harvesting one transcript file did."""

    path: str
    session_id: str
    status: Status
    commit: str | None = None
    episode: str | None = None
    created: int = 0
    reinforced: int = 0
    reason: str = ""
    warnings: tuple[str, ...] = ()
    inbox: int = 0                      # memories added to the harvest inbox
    inbox_branch: str | None = None
    findings: tuple[screen.Flagged, ...] = ()   # a refused session's secrets: ids and commands, never values

    def to_json(self) -> dict[str, object]:
        """The record ``gitmem harvest --json`` prints."""
        return {"path": self.path, "session": self.session_id, "status": self.status, "commit": self.commit,
                "episode": self.episode, "created": self.created, "reinforced": self.reinforced, "reason": self.reason,
                "warnings": list(self.warnings), "findings": [f.to_json() for f in self.findings],
                "inbox": self.inbox, "inbox_branch": self.inbox_branch}


@dataclass(frozen=True)
class Session:
    """One transcript read: its events, its episode, the secrets it holds (``kind at line N``).

    The transcript's ``session_id`` is its key (the UUID, else a hash of the id) and
    its ``path`` a hash of the file's name; ``given_id`` is the id as the file gives
    it, reported to the person who runs harvest and never written.
    """

    path: Path
    transcript: Transcript
    episode: episodes.Episode
    secrets: tuple[str, ...]
    given_id: str = ""
    given_cwd: str | None = None   # the working folder as recorded: only to find its project, never written
    found: tuple[screen.Found, ...] = ()   # the secrets that refuse it, values in memory only (screen.Found)

    @property
    def legacy_slug(self) -> str:
        """The episode name older versions built from the id as given, still found when a session grows."""
        return episodes.slugify(self.given_id) if self.given_id else ""

    def alert(self) -> dict[str, object]:
        """The fields of the ``secret.rejected`` event: kinds and lines, never the secret nor a file name."""
        kinds = sorted({s.split(" at ")[0] for s in self.secrets})
        return {"source": self.transcript.path, "session": self.transcript.session_id, "kinds": kinds,
                "where": list(self.secrets[:20])}

    def rejected(self) -> Harvested:
        """The result of a session refused for its secrets."""
        return Harvested(str(self.path), self.given_id or self.transcript.session_id, "rejected",
                         reason=f"secret in session ({', '.join(self.secrets[:5])}); nothing written")


@dataclass(frozen=True)
class StoredEpisode:
    """The episode of a session as a commit holds it: its path and how many transcript lines it covers."""

    path: str
    lines: int


@dataclass(frozen=True)
class Draft:
    """One session's commit before the memories are rendered: the episode document and what the batch got."""

    status: Literal["harvested", "updated", "unchanged"]
    episode: str
    changes: dict[str, bytes | None] = field(default_factory=dict)
    created: int = 0
    reinforced: int = 0
    subject: str = ""
    trailers: tuple[tuple[str, str], ...] = ()
    inbox: tuple[Memory, ...] = ()     # what the scorer is unsure of: for the harvest inbox, not this commit


def list_transcripts(paths: Iterable[Path | str], fmt: str, limit: int) -> list[Path]:
    """The transcript files under ``paths`` (files, or folders walked), after checking the request."""
    check_format(fmt)
    if limit < 0:
        raise UsageError("--per-session must be 0 or more")
    given = [Path(p) for p in paths]
    for p in given:
        try:
            found = p.exists()
        except (OSError, ValueError):   # a name too long for the system, or holding a NUL
            found = False
        if not found:
            raise UsageError(f"no such file or folder: {str(p)[:200]}")
    return discover(given)


def list_sessions(paths: Iterable[Path | str], fmt: str, limit: int) -> list[Unit]:
    """The sessions under ``paths``: each main transcript with its sub-agent files (``subagents.group``)."""
    return subagents.group(list_transcripts(paths, fmt, limit), fmt)


def read_session(unit: Unit | Path, fmt: str, allow: Allowlist | None, redactor: Redactor | None = None,
                 settled: screen.Judge | None = None) -> Session:
    """Read one session (a transcript, or a ``Unit`` with its sub-agent files), screen every one of its files
    for secrets, redact it, extract its episode.

    A bare path brings the sub-agent files of its session folder along. Every
    text of a session without secrets passes ``redactor`` before the episode,
    its tags or its signals are derived, with the user names its own paths
    (``cwd``, the project folder) teach. Names gitmem builds come from the
    session's key, never from its id or file name as given. A finding a person
    ``settled`` as not a secret does not refuse the session: its value is
    replaced by a placeholder before the redactor sees the text.
    """
    if not isinstance(unit, Unit):
        unit = Unit(Path(unit), subagents.companions(Path(unit)))
    path = unit.path
    main = reader.load(path, fmt)   # each file is read once: screen, events and redaction share it
    counted = [p for p in unit.parts if subagents.part_of(p) in ("main", "agent")]
    parts = {p: reader.load(p, fmt) for p in counted}
    scans: screen.Scans = {}   # each string scanned once: by the screen, reused by the redaction
    screened = screen.screen_session(path, unit.parts, allow, settled,
                                     {path: main.records, **{p: got.records for p, got in parts.items()}}, scans)
    secrets = screened.secrets
    t = main.transcript
    screen.check_transcript(path, fmt, t, main.detected)
    if unit.parts:
        t = subagents.merge(t, [(p, parts[p].transcript) for p in counted])
    elif subagents.part_of(path) != "main":
        t = subagents.merge(t, [])
    given, given_cwd = t.session_id, t.cwd
    t = replace(t, session_id=name_key(t.session_id, "s"), path=name_key(path.name, "f"))
    if redactor is not None and not secrets:
        t = _redacted(t, path, _masking(redactor, screened) if screened.masked else redactor, main.data, scans)
    return Session(path, t, episodes.extract(t), tuple(secrets), given, given_cwd, screened.found)


def _masking(redactor: Redactor, screened: screen.Screened) -> Redactor:
    def masked(text: str, names: Sequence[str], found: Sequence[Finding] | None) -> str:
        shown = screened.mask(text)
        return redactor(shown, names, found if shown == text else None)   # a masked text is scanned afresh

    return masked


def _redacted(t: Transcript, path: Path, redactor: Redactor, data: bytes | None = None,
              scans: screen.Scans | None = None) -> Transcript:
    from gitmem.guards import pii

    names = pii.names_in([t.cwd or "", *_cwds(path, data), path.parent.name, str(path.parent)])
    cache: dict[str, str] = {}
    scanned: screen.Scans = scans or {}

    def clean(text: str) -> str:
        if text not in cache:
            cache[text] = redactor(text, names, scanned.get(text))
        return cache[text]

    events = tuple(replace(e, text=clean(e.text)) for e in t.events)
    return replace(t, events=events, cwd=clean(t.cwd) if t.cwd else t.cwd)


_CWD = re.compile(rb'"cwd"\s*:\s*"((?:[^"\\]|\\.){1,4096})"')


def _cwds(path: Path, data: bytes | None = None) -> set[str]:
    """Every ``cwd`` the records of a transcript name (a session may move between folders); ``data``: its bytes
    when already read."""
    found: set[str] = set()
    if data is None:
        try:
            data = path.read_bytes()
        except OSError:
            return found
    for raw in set(_CWD.findall(data)):
        try:
            value = json.loads(b'"' + raw + b'"')
        except ValueError:
            continue
        if isinstance(value, str):
            found.add(value)
    return found


def find_episode(git: Git, rev: str | None, slug: str, legacy_slug: str = "") -> StoredEpisode | None:
    """The episode of session ``slug`` (or, in a repository harvested before, ``legacy_slug``) at ``rev``."""
    ends = tuple(f"/{s}.md" for s in (slug, legacy_slug) if s)
    for path, meta in store.episodes(git, rev):
        if path.endswith(ends):
            return StoredEpisode(path, int(meta.get("lines_harvested") or 0))
    return None


def _episode_path(slug: str, started: str | None, now: datetime) -> str:
    stamp = started or iso(now)
    return f"{EPISODE_DIR}/{stamp[:4]}/{stamp[5:7]}/{slug}.md"


def pick(signals: Sequence[Signal], limit: int) -> list[Signal]:
    """The ``limit`` most important durable signals, in transcript order (transient ones stay in the episode,
    inbox ones go to the harvest inbox)."""
    from gitmem.engines import encode

    ranked = sorted((s for s in signals if s.durable and not s.inbox), key=lambda s: (-encode.importance(s.text)[0], s.line))[:limit]
    return sorted(ranked, key=lambda s: s.line)


def harvested_memory(session_id: str, sig: Signal, now: datetime, cfg: MemoryConfig,
                     project: tuple[str, str] | None = None) -> Memory:
    """The memory a signal becomes: a concise statement, kept under core unless a user rule (``placement``);
    of ``project`` (id, display name) unless its domain holds everywhere."""
    from gitmem.base.kinds import GLOBAL_DOMAINS
    from gitmem.engines import encode
    from gitmem.engines.harvest import placement

    text = placement.concise(sig.text)
    enc = encode.encode(text)
    domain = placement.domain_of(sig.kind, enc.domain)
    mid = new_id(now, seed=f"{session_id}#L{sig.line}:{sig.text}")
    mem = memorize.new_memory(mid, text, SIGNAL_TYPES.get(sig.kind, enc.type), domain,
                              placement.importance(sig.kind, domain, max(enc.importance, sig.floor), cfg),
                              iso(now), now, cfg, keywords=enc.keywords, tags=("harvest", sig.kind),
                              source=f"session:{session_id}#L{sig.line}", source_id=sig.key or None)
    if project is not None and domain not in GLOBAL_DOMAINS:
        mem = mem.with_(project=project[0], project_name=project[1])
    return mem


def _add_signals(batch: memorize.Batch, session_id: str, signals: Sequence[Signal], now: datetime) -> tuple[int, int]:
    """Add one memory per signal to ``batch``; (created, reinforced). One that is no user rule is never
    reinforced into the core band."""
    from gitmem.engines.harvest import placement

    counts = {"created": 0, "reinforced": 0}
    for sig in signals:
        mem = harvested_memory(session_id, sig, now, batch.cfg)
        cap = None if placement.is_user_rule(sig.kind, mem.domain) else placement.below_core(batch.cfg)
        counts[batch.add(mem, cap=cap).action] += 1
    return counts["created"], counts["reinforced"]


def draft(session: Session, stored: StoredEpisode | None, batch: memorize.Batch, limit: int, whole: bool,
          now: datetime, project: tuple[str, str] | None = None, keep_last: int | None = None) -> Draft:
    """Plan one session against the episode a commit holds: the episode document, and its signals added to ``batch``.

    ``unchanged`` when the stored episode already covers every line. ``whole``
    keeps the session summary as one memory (first harvest only) instead of
    the ``limit`` most important new signals; ``keep_last`` keeps only the latest
    that many of those (a harvest of the last N signals ending in this session).
    """
    t, ep = session.transcript, session.episode
    done = stored.lines if stored else 0
    if stored and done >= t.end_line:
        return Draft("unchanged", stored.path)
    meta, body = episodes.render(ep)
    meta = dict(meta)
    meta["lines_harvested"] = t.end_line
    if project is not None:   # (id, display name) of the repository the session ran in
        meta["project"], meta["project_name"] = project
    path = stored.path if stored else _episode_path(ep.slug, ep.started, now)
    unsure: tuple[Memory, ...] = ()
    if whole:
        new = [Signal(ep.summary, "fact", 1)] if not stored and ep.summary else []
    else:
        fresh = [s for s in ep.signals if s.line > done]
        new = pick([s for s in fresh if not s.inbox], limit)
        inbox = [s for s in fresh if s.inbox][:limit]
        if keep_last is not None:
            new, inbox = new[max(0, len(new) - keep_last):], inbox[max(0, len(inbox) - keep_last):]
        unsure = tuple(harvested_memory(t.session_id, s, now, batch.cfg, project) for s in inbox)
    created, reinforced = _add_signals(batch, t.session_id, new, now)
    return Draft("updated" if stored else "harvested", path, {path: documents.render_document(meta, body).encode("utf-8")},
                 created, reinforced,
                 f"gitmem: harvest session {t.session_id[:40]} ({created} new, {reinforced} reinforced)",
                 (("Gitmem-Source", f"{t.format}:{t.path}"),), unsure)


def report(session: Session, drafted: Draft | None, commit: str | None) -> Harvested:
    """The result of one session's write: ``unchanged`` unless a commit landed."""
    path, sid = str(session.path), session.given_id or session.transcript.session_id
    if drafted is None:
        return Harvested(path, sid, "unchanged", commit)
    return Harvested(path, sid, drafted.status if commit else "unchanged", commit, drafted.episode,
                     drafted.created, drafted.reinforced)


class Cursors:
    """The per-clone record of (size, mtime) of each transcript already harvested, under the state folder."""

    def __init__(self, state: Path) -> None:
        self.state = state
        try:
            data = json.loads((state / CURSOR_FILE).read_text())
        except (OSError, ValueError):
            data = {}
        # keys are hashes of the paths; a path an older version kept in clear is dropped
        self.marks: dict[str, Any] = {k: v for k, v in data.items() if k.startswith("p-")} \
            if isinstance(data, dict) else {}

    @staticmethod
    def stamp(path: Path, parts: Sequence[Path] = ()) -> tuple[str, list[int]]:
        """The key and mark of ``path`` (and of its sub-agent files) as they are now, taken before reading."""
        mark: list[int] = []
        for p in (path, *parts):
            stat = p.stat()
            mark += [stat.st_size, stat.st_mtime_ns]
        return name_key(str(path.resolve()), "p"), mark   # a path names its user: only its hash is kept

    def unchanged(self, stamp: tuple[str, list[int]]) -> bool:
        """Whether the file was harvested with this same size and mtime."""
        return self.marks.get(stamp[0]) == stamp[1]

    def record(self, stamp: tuple[str, list[int]]) -> None:
        """Remember the file as harvested at ``stamp`` (written at once, atomically)."""
        self.marks[stamp[0]] = stamp[1]
        write_atomic(self.state / CURSOR_FILE, json.dumps(self.marks, sort_keys=True))
