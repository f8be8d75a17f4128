"""Values: memories and their closed sets of types, domains, tiers and bands."""

from __future__ import annotations

import re
from dataclasses import dataclass, field, replace
from datetime import datetime
from typing import Any, Literal, cast

from gitmem.base.errors import ValidationError
from gitmem.base.kinds import BANDS, DOMAINS, TIERS, TYPES

MemoryType = Literal["fact", "preference", "decision", "skill", "error", "emotion", "pattern", "reflection"]
Domain = Literal["user", "self", "relationship", "world", "project"]
Tier = Literal["working", "short", "long", "archive"]
Band = Literal["core", "active", "background", "fading"]

__all__ = ["BANDS", "DOMAINS", "TIERS", "TYPES"]  # re-exported: the closed sets live in gitmem.base.kinds

# The most text a memory may hold, in UTF-8 bytes: every reader accepts this much, and the highest
# sediment.max_content_bytes (gitmem.base.config) may go. Here, not in config: reading a document
# (the pre-commit hook does) must not load the config schema.
MAX_CONTENT_BYTES = 1_048_576
ID_RE = re.compile(r"[a-z0-9][a-z0-9-]{0,127}")
MEMORY_DIR = "memory"
ARCHIVE_DIR = "archive"

# Front matter keys in the order gitmem writes them (DESIGN.md section 3).
KEY_ORDER = ("id", "type", "domain", "tier", "band", "importance", "created", "last_accessed",
             "reinforced", "keywords", "tags", "links", "source", "source_id", "project", "project_name")


def iso(moment: datetime) -> str:
    """A UTC datetime as the ISO string gitmem stores (seconds, 'Z')."""
    return moment.replace(microsecond=0).isoformat().replace("+00:00", "Z")


def is_valid_id(value: str) -> bool:
    """True for ids that can be a file name: [a-z0-9-], at most 128 characters."""
    return bool(ID_RE.fullmatch(value)) and "--" not in value[:2]


def check_id(value: str) -> str:
    """Return ``value`` if it is a valid memory id, else raise ValidationError."""
    if not isinstance(value, str) or not is_valid_id(value):
        raise ValidationError(f"invalid memory id: {value!r}",
                              hint="ids use lower-case letters, digits and '-', start with a letter or digit, at most 128 characters")
    return value


def new_id(moment: datetime, seed: str | None = None) -> str:
    """``m-YYYY-MM-DD-xxxxxx``: random, or derived from ``seed`` so re-imports are idempotent."""
    import hashlib  # here, not at the top: hashlib loads OpenSSL, secrets random; reading a document needs neither
    import secrets

    tail = hashlib.sha256(seed.encode()).hexdigest()[:10] if seed is not None else secrets.token_hex(5)
    return f"m-{moment:%Y-%m-%d}-{tail}"


_UUID = re.compile(r"[0-9a-fA-F]{8}-(?:[0-9a-fA-F]{4}-){3}[0-9a-fA-F]{12}\Z")


def name_key(name: str, prefix: str = "h") -> str:
    """What gitmem records and builds paths from in place of a name it was given (a
    transcript's or import file's name, a session id): the id itself when it is a
    UUID, else ``<prefix>-`` and a hash of the whole name. Never the name, nor its
    redacted text, so two names that redact alike do not collide."""
    if _UUID.match(name):
        return name.lower()
    import hashlib

    return f"{prefix}-{hashlib.sha256(name.encode('utf-8', 'surrogateescape')).hexdigest()[:16]}"


def shard(memory_id: str) -> str:
    """Two hex digits that spread a domain's memories over 256 folders.

    A commit rewrites every tree on the changed path; with one flat folder of
    20k memories that is a 1 MB tree object per write. Sharded, a one-memory
    commit costs about the same at 1k and at 100k memories (as git's own
    objects/ folder does it).
    """
    import hashlib

    return hashlib.sha1(memory_id.encode()).hexdigest()[:2]


def memory_path(domain: str, memory_id: str, archived: bool = False) -> str:
    """Repository path of a memory file: ``memory/<domain>/<shard>/<id>.md``."""
    return f"{ARCHIVE_DIR if archived else MEMORY_DIR}/{domain}/{shard(memory_id)}/{memory_id}.md"


def legacy_path(domain: str, memory_id: str, archived: bool = False) -> str:
    """The unsharded path a person may use for a hand-written memory."""
    return f"{ARCHIVE_DIR if archived else MEMORY_DIR}/{domain}/{memory_id}.md"


@dataclass(frozen=True)
class Link:
    to: str
    relation: str


@dataclass(frozen=True)
class Memory:
    """One memory: its front matter fields and its Markdown body."""

    id: str
    content: str
    type: MemoryType = "fact"
    domain: Domain = "user"
    tier: Tier = "short"
    band: Band = "active"
    importance: float = 0.5
    created: str = ""
    last_accessed: str = ""
    reinforced: int = 0
    keywords: tuple[str, ...] = ()
    tags: tuple[str, ...] = ()
    links: tuple[Link, ...] = ()
    source: str = ""
    source_id: str | None = None
    path: str = ""
    # the project it came from (DESIGN.md section 5): its id and display name; None is global
    project: str | None = None
    project_name: str | None = None
    extra: tuple[tuple[str, Any], ...] = field(default=(), compare=False)

    @property
    def archived(self) -> bool:
        return self.tier == "archive"

    def front_matter(self) -> dict[str, Any]:
        """Front matter mapping in gitmem's key order; unknown keys a person added are kept."""
        data: dict[str, Any] = {
            "id": self.id, "type": self.type, "domain": self.domain, "tier": self.tier, "band": self.band,
            "importance": round(self.importance, 4), "created": self.created, "last_accessed": self.last_accessed,
            "reinforced": self.reinforced, "keywords": list(self.keywords),
        }
        if self.tags:
            data["tags"] = list(self.tags)
        if self.links:
            data["links"] = [{"to": l.to, "relation": l.relation} for l in self.links]
        data["source"] = self.source
        if self.source_id is not None:
            data["source_id"] = self.source_id
        if self.project is not None:
            data["project"] = self.project
            data["project_name"] = self.project_name or self.project
        for key, value in self.extra:
            data.setdefault(key, value)
        return data

    def with_(self, **changes: Any) -> "Memory":
        """A copy with ``changes`` applied."""
        return replace(self, **changes)

    def to_record(self) -> dict[str, Any]:
        """The memory as one JSONL export record (re-importable with ``gitmem import``)."""
        rec: dict[str, Any] = {
            "id": self.id, "content": self.content, "created": self.created, "tags": list(self.tags),
            "type": self.type, "domain": self.domain, "importance": self.importance, "source": self.source,
            "tier": self.tier, "band": self.band, "reinforced": self.reinforced,
            "last_accessed": self.last_accessed, "keywords": list(self.keywords),
            "links": [{"to": l.to, "relation": l.relation} for l in self.links]}
        if self.source_id is not None:
            rec["source_id"] = self.source_id
        if self.project is not None:
            rec["project"] = self.project
            rec["project_name"] = self.project_name or self.project
        return rec

    def to_json(self) -> dict[str, Any]:
        """The export record plus where the memory lives (``show --json``, ``list --json``)."""
        return {**self.to_record(), "path": self.path}


@dataclass(frozen=True)
class Remembered:
    """What ``remember`` did: created or reinforced, in which commit."""

    id: str
    action: str                 # "created" or "reinforced"
    commit: str | None
    memory: Memory
    reason: str = ""            # why this importance (the encoder's rule)
    stripped: tuple[str, ...] = ()

    def to_json(self) -> dict[str, Any]:
        return {"id": self.id, "action": self.action, "commit": self.commit, "reason": self.reason,
                "stripped": list(self.stripped), "memory": self.memory.to_json()}


@dataclass(frozen=True)
class Imported:
    """What an import did, and the lines it skipped (line, reason)."""

    created: int
    reinforced: int
    unchanged: int
    skipped: tuple[tuple[int, str], ...]
    commit: str | None
    ids: tuple[str, ...] = field(default=(), repr=False)
    over_caps: tuple[tuple[str, int, int], ...] = ()   # (tier, live memories, cap) of each tier now over its cap
    would_archive: int = 0      # memories the next decay would archive
    review_limit: int = 0       # archives at once above which decay opens an archive review instead

    def to_json(self) -> dict[str, Any]:
        return {"created": self.created, "reinforced": self.reinforced, "unchanged": self.unchanged,
                "skipped": [{"line": line, "reason": why} for line, why in self.skipped], "commit": self.commit,
                "over_caps": [{"tier": t, "memories": n, "cap": cap} for t, n, cap in self.over_caps],
                "would_archive": self.would_archive, "review_limit": self.review_limit}


@dataclass(frozen=True)
class Forgotten:
    """A memory moved to archive/ (commit None: it was archived already)."""

    id: str
    commit: str | None
    path: str

    def to_json(self) -> dict[str, Any]:
        return {"id": self.id, "commit": self.commit, "path": self.path}


@dataclass(frozen=True)
class Reflected:
    """What reflect did: patterns created and verified again, memories consumed."""

    commit: str | None
    created: tuple[str, ...]
    updated: tuple[str, ...]
    consumed: tuple[str, ...]
    pending: int
    review: str | None = None          # too many folded at once: the fold review holding them, not the branch
    review_commit: str | None = None
    superseded: tuple[str, ...] = ()
    limit: int = 0                     # memories folded at once above which the fold goes to review

    def to_json(self) -> dict[str, Any]:
        return {"commit": self.commit, "created": list(self.created), "updated": list(self.updated),
                "consumed": list(self.consumed), "pending": self.pending, "review": self.review,
                "review_commit": self.review_commit, "superseded": list(self.superseded), "limit": self.limit}


def _str_tuple(value: Any) -> tuple[str, ...]:
    if value is None:
        return ()
    if isinstance(value, (list, tuple)):
        return tuple(str(v) for v in value if v is not None)
    return (str(value),)


def _opt_str(value: Any) -> str | None:
    return str(value) if value not in (None, "") else None


def _links(value: Any) -> tuple[Link, ...]:
    # A hand edit may give one link instead of a list, or a number: keep what reads as a link.
    items = value if isinstance(value, (list, tuple)) else [value] if isinstance(value, (str, dict)) else []
    out = []
    for item in items:
        if isinstance(item, dict) and item.get("to"):
            out.append(Link(str(item["to"]), str(item.get("relation") or "related")))
        elif isinstance(item, str) and item:
            out.append(Link(item, "related"))
    return tuple(out)


def _num(value: Any, default: float) -> float:
    try:
        return float(value)
    except (TypeError, ValueError):
        return default


def as_importance(value: Any, default: float = 0.5) -> float:
    """A stored importance; ``default`` when it is not a number in [0, 1] (a hand edit or a hostile value).

    Never clamped to 0: a mistyped ``-0.5`` must not make the next decay archive the memory.
    """
    number = _num(value, default)
    return number if 0.0 <= number <= 1.0 else default


def as_type(value: str, default: MemoryType = "fact") -> MemoryType:
    """``value`` as a memory type; ``default`` when it is not one (a hand edit)."""
    return cast("MemoryType", value) if value in TYPES else default


def as_domain(value: str, default: Domain = "user") -> Domain:
    """``value`` as a domain; ``default`` when it is not one."""
    return cast("Domain", value) if value in DOMAINS else default


def as_tier(value: str, default: Tier = "short") -> Tier:
    """``value`` as a tier; ``default`` when it is not one."""
    return cast("Tier", value) if value in TIERS else default


def as_band(value: str, default: Band = "active") -> Band:
    """``value`` as a band; ``default`` when it is not one."""
    return cast("Band", value) if value in BANDS else default


def memory_from(data: dict[str, Any], body: str, path: str) -> Memory:
    """A Memory from parsed front matter; tolerant of hand edits (bad values fall back)."""
    known = set(KEY_ORDER)
    stem = path.rsplit("/", 1)[-1].removesuffix(".md")
    mid = str(data.get("id") or stem)
    domain = as_domain(str(data.get("domain") or (path.split("/")[1] if path.count("/") >= 2 else "user")))
    try:
        reinforced = int(data.get("reinforced") or 0)
    except (TypeError, ValueError, OverflowError):
        reinforced = 0
    source_id = data.get("source_id")
    return Memory(
        id=mid, content=body.strip("\n"), type=as_type(str(data.get("type") or "fact")), domain=domain,
        tier=as_tier(str(data.get("tier") or ("archive" if path.startswith(ARCHIVE_DIR + "/") else "short"))),
        band=as_band(str(data.get("band") or "active")), importance=as_importance(data.get("importance")),
        created=str(data.get("created") or ""), last_accessed=str(data.get("last_accessed") or data.get("created") or ""),
        reinforced=reinforced, keywords=_str_tuple(data.get("keywords")), tags=_str_tuple(data.get("tags")),
        links=_links(data.get("links")), source=str(data.get("source") or ""),
        source_id=None if source_id is None else str(source_id), path=path,
        project=_opt_str(data.get("project")), project_name=_opt_str(data.get("project_name")),
        extra=tuple((k, v) for k, v in data.items() if k not in known),
    )
