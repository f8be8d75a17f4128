"""Decay: fold the access log, recompute bands, move tiers, archive — ONE commit.

Decay computes from the stored base importance and the date, never from its
own previous output, so a second run with the same clock changes nothing.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field
from datetime import datetime

from functools import lru_cache

from gitmem.store import store
from gitmem.base import people
from gitmem.base.clock import parse_time
from gitmem.base.config import Config
from gitmem.base.config import Memory as MemoryConfig
from gitmem.base.errors import DocumentError, UsageError
from gitmem.base.gitio import Git
from gitmem.base.model import Band, Memory, memory_path

FOLDING = "access.folding.jsonl"


def days_between(earlier: str, now: datetime) -> int:
    """Whole days from an ISO time to ``now`` (0 when unparseable, in the future or under a day).

    DESIGN.md section 5 counts whole days: a memory written a minute ago has
    not decayed at all, so a fact at the core threshold stays core until a day passes.
    """
    then = _parsed(earlier)
    if then is None or then >= now:
        return 0
    return (now - then).days


@lru_cache(maxsize=65536)
def _parsed(stamp: str) -> datetime | None:
    # decay parses two stamps per memory; bulk imports share a handful of them
    if not stamp:
        return None
    try:
        return parse_time(stamp)
    except UsageError:
        return None


def effective(base: float, tier: str, last_accessed: str, now: datetime, cfg: MemoryConfig) -> float:
    """base x decay_base^days, and for short-term also x (1 - decay_rate)^(whole weeks unaccessed)."""
    days = days_between(last_accessed, now)
    value: float = base * cfg.decay_base ** days
    if tier == "short":
        value *= (1.0 - cfg.decay_rate) ** (days // cfg.short_term_days)
    return max(0.0, min(1.0, value))


def band(value: float, cfg: MemoryConfig) -> Band:
    """core >= tiers.core > active >= tiers.active > background >= tiers.background > fading."""
    if value >= cfg.tiers.core:
        return "core"
    if value >= cfg.tiers.active:
        return "active"
    if value >= cfg.tiers.background:
        return "background"
    return "fading"


MIN_CHANGE_LIMIT = 50   # archives at once that never need a review, whatever the share
ARCHIVE_REVIEW = "gitmem/review/archive-"
FOLD_REVIEW = ARCHIVE_REVIEW + "fold-"   # reflect's: memories folded into patterns, one open beside decay's


def archive_branch(now: datetime, prefix: str = ARCHIVE_REVIEW) -> str:
    """The branch of an archive review (or, with ``FOLD_REVIEW``, a fold review) opened at ``now``."""
    from datetime import timezone

    return prefix + now.astimezone(timezone.utc).strftime("%Y%m%dT%H%M%SZ")


@dataclass(frozen=True)
class Move:
    id: str
    change: str            # "band active -> core", "tier short -> long", "archived (forgotten)", …
    paths: tuple[str, ...] = ()   # an archive: the memory's path and its path under archive/

    @property
    def archives(self) -> bool:
        return self.change.startswith("archived")


@dataclass(frozen=True)
class DecayReport:
    commit: str | None
    dry_run: bool
    examined: int
    accesses_folded: int
    moves: tuple[Move, ...] = field(default=())
    files_changed: int = 0                 # files the commit on the branch changed (or would change)
    held: tuple[Move, ...] = field(default=())   # archives held for review: too many at once
    review: str | None = None              # the archive review branch holding them
    review_commit: str | None = None
    superseded: tuple[str, ...] = field(default=())
    limit: int = 0                         # archives at once above which they go to review

    @property
    def archived(self) -> tuple[str, ...]:
        """Ids of the memories this decay archived on the branch (or would archive)."""
        return tuple(m.id for m in self.moves if m.archives)

    def to_json(self) -> dict[str, object]:
        """What ``decay --json`` prints."""
        return {"commit": self.commit, "dry_run": self.dry_run, "examined": self.examined,
                "accesses_folded": self.accesses_folded, "files_changed": self.files_changed,
                "moves": [{"id": m.id, "change": m.change} for m in self.moves], "archived": list(self.archived),
                "held_for_review": [{"id": m.id, "change": m.change} for m in self.held],
                "review": self.review, "review_commit": self.review_commit, "superseded": list(self.superseded),
                "limit": self.limit}


def change_limit(live: int, cfg: MemoryConfig) -> int:
    """The most live memories one automated run may archive or fold at once without a review:
    the larger of 50 and ``max_change_share`` of the ``live`` ones."""
    return max(MIN_CHANGE_LIMIT, int(cfg.max_change_share * live))


def hold_back(changes: dict[str, bytes | None], moves: list[Move], limit: int
              ) -> tuple[dict[str, bytes | None], list[Move], dict[str, bytes | None], list[Move]]:
    """(changes and moves for the branch, changes and moves for an archive review): every archive goes
    to the review when there are more than ``limit`` of them, else nothing does."""
    archives = [m for m in moves if m.archives]
    if len(archives) <= limit:
        return changes, moves, {}, []
    held_paths = {p for m in archives for p in m.paths}
    kept = {p: v for p, v in changes.items() if p not in held_paths}
    held = {p: v for p, v in changes.items() if p in held_paths}
    return kept, [m for m in moves if not m.archives], held, archives


def review_body(held: list[Move], examined: int, limit: int) -> str:
    """What an archive review lists: each memory that would go, and why."""
    head = (f"{len(held)} of {examined} live memories would be archived at once, more than {limit} "
            "(memory.max_change_share, at least 50): accept to archive them, reject to keep them.")
    return head + "\n\n" + "\n".join(f"{m.id}: {m.change}" for m in held)


def latest_access(records: Iterable[Mapping[str, object]], now: datetime) -> dict[str, str]:
    """The latest access of each memory id in the access log's ``records``, none after ``now``."""
    latest: dict[str, str] = {}
    for rec in records:
        mid, at = rec.get("id"), rec.get("at")
        if not isinstance(mid, str) or not isinstance(at, str):
            continue
        try:
            if parse_time(at) > now:
                continue  # a replay with an earlier clock must not see the future
        except Exception:
            continue
        if at > latest.get(mid, ""):
            latest[mid] = at
    return latest


def _rewritten(git: Git, rev: str, old: Memory, new: Memory, data: bytes, shaped: bool) -> bytes | None:
    """``old``'s file rewritten to hold ``new``, or None (reported) when its text cannot be rewritten."""
    try:
        return store.rewrite(git, rev, old, new, data, shaped)
    except DocumentError as exc:
        store.skipped(exc)
    except (ValueError, TypeError, OverflowError, RecursionError) as exc:
        store.skipped(DocumentError(old.path, None, f"cannot be rewritten ({exc}); decay left it as it is"))
    return None


@dataclass(frozen=True)
class Preview:
    """What the next decay would do to the tiers, without writing: live memories per tier, the caps,
    how many it would archive (``over_cap`` of them for a cap), and the most it archives without review."""

    tiers: dict[str, int]
    caps: dict[str, int]
    would_archive: int
    over_cap: int
    limit: int

    def over(self) -> list[tuple[str, int, int]]:
        """(tier, live memories, cap) of each tier over its cap."""
        return [(t, self.tiers.get(t, 0), cap) for t, cap in self.caps.items() if self.tiers.get(t, 0) > cap]


def preview(git: Git, rev: str, cfg: Config, now: datetime) -> Preview:
    """The next decay's archives at ``rev`` as counts (an import warns with them)."""
    live, _, archive = _assess(git, rev, cfg, now, {})
    tiers: dict[str, int] = {}
    for _, new, _ in live:
        tiers[new.tier] = tiers.get(new.tier, 0) + 1
    over_cap = sum(1 for why in archive.values() if "over max_" in why)
    caps = {"short": cfg.memory.max_short_term, "long": cfg.memory.max_long_term}
    return Preview(tiers, caps, len(archive), over_cap, change_limit(len(live), cfg.memory))


def _assess(git: Git, rev: str, cfg: Config, now: datetime, accesses: dict[str, str]
            ) -> tuple[list[tuple[Memory, Memory, float]], dict[str, tuple[bytes, bool]], dict[str, str]]:
    """Each memory before and after decay with its effective importance, the files' bytes, and the
    ids decay archives with the reason."""
    mc = cfg.memory
    folded = {s for p in store.all_patterns(git, rev) for s in p.sources}   # reflect made them long-term
    live: list[tuple[Memory, Memory, float]] = []   # (old, new, effective importance)
    raw: dict[str, tuple[bytes, bool]] = {}   # file bytes, and whether gitmem rendered them as they are
    for old, data, shaped in store.read_memories_shaped(git, rev):
        raw[old.id] = data, shaped
        last = max(old.last_accessed, accesses.get(old.id, ""))
        tier = old.tier
        if tier == "short" and (old.reinforced >= 2 or old.id in folded):
            tier = "long"
        eff = effective(old.importance, tier, last, now, mc)
        band_ = band(eff, mc)
        unchanged = last == old.last_accessed and tier == old.tier and band_ == old.band
        live.append((old, old if unchanged else old.with_(last_accessed=last, tier=tier, band=band_), eff))
    archive: dict[str, str] = {}
    for old, new, eff in live:
        if new.tier == "short" and eff < mc.forget_threshold and old.importance < mc.never_forget:
            archive[old.id] = "archived (forgotten: effective importance under forget_threshold)"
    for tier, cap in (("short", mc.max_short_term), ("long", mc.max_long_term)):
        kept = sorted((t for t in live if t[1].tier == tier and t[0].id not in archive), key=lambda t: (t[2], t[0].id))
        excess = len(kept) - cap
        for old, _, _ in kept:
            if excess <= 0:
                break
            if old.importance >= mc.never_forget:
                continue
            archive[old.id] = f"archived (over max_{tier}_term)"
            excess -= 1
    return live, raw, archive


def plan_decay(git: Git, rev: str, cfg: Config, now: datetime, accesses: dict[str, str]) -> tuple[dict[str, bytes | None], list[Move], int]:
    """The file changes decay makes at ``rev``, the moves for the report, and memories examined."""
    live, raw, archive = _assess(git, rev, cfg, now, accesses)
    changes: dict[str, bytes | None] = {}
    moves: list[Move] = []
    for old, new, _ in live:
        if old.id in archive:
            new = new.with_(tier="archive")
            moved = _rewritten(git, rev, old, new, *raw[old.id])
            if moved is None:
                continue
            to = people.archived(old.path, memory_path(old.domain, old.id, archived=True))
            changes[old.path] = None
            changes[to] = moved
            moves.append(Move(old.id, archive[old.id], (old.path, to)))
            continue
        if new == old:
            continue
        rewritten = _rewritten(git, rev, old, new, *raw[old.id])
        if rewritten is None:
            continue
        changes[old.path] = rewritten
        if new.band != old.band:
            moves.append(Move(old.id, f"band {old.band} -> {new.band}"))
        if new.tier != old.tier:
            moves.append(Move(old.id, f"tier {old.tier} -> {new.tier}"))
    return changes, moves, len(live)
