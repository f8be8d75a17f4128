"""Pattern documents (patterns/<slug>.md, DNA pattern format) and reflect.

Reflect groups similar memories that no pattern holds yet into patterns; a
pattern's ``sources`` record which memories it consumed, so the same batch is
never induced twice, and decay moves those memories to long-term.
"""

from __future__ import annotations

from dataclasses import dataclass
from datetime import datetime
from typing import Any, Sequence

from gitmem.store import documents, frontmatter
from gitmem.base.errors import DocumentError
from gitmem.base.gitio import Git
from gitmem.base.model import iso

PATTERN_DIR = "patterns"
STATE_FILE = ".gitmem/reflect.yaml"
INITIAL_WEIGHT = 0.3


@dataclass(frozen=True)
class Pattern:
    slug: str
    title: str
    weight: float
    stage: str
    triggers: tuple[str, ...]
    lessons: tuple[str, ...]
    sources: tuple[str, ...]
    verified: int
    last_verified: str
    created: str
    path: str
    meta: tuple[tuple[str, Any], ...] = ()


def _lessons(body: str) -> tuple[str, ...]:
    from gitmem.base import mdio

    for section in mdio.sections(body):
        if section.heading.lower() == "lessons":
            return tuple(text for text, _ in mdio.list_items(section.text))
    return ()


def read(path: str, data: bytes) -> Pattern:
    meta, body = documents.split(path, documents.decode(path, data))
    slug = path.rsplit("/", 1)[-1][:-3]

    def num(key: str, default: float) -> float:
        try:
            return float(meta.get(key, default))
        except (TypeError, ValueError):
            return default

    return Pattern(slug, str(meta.get("title") or slug), num("weight", INITIAL_WEIGHT), str(meta.get("stage") or "episodic"),
                   tuple(str(t) for t in meta.get("triggers") or ()), _lessons(body),
                   tuple(str(s) for s in meta.get("sources") or ()), int(num("verified", 0)),
                   str(meta.get("last_verified") or ""), str(meta.get("created") or ""), path,
                   tuple((k, v) for k, v in meta.items() if k not in _KEYS))


_KEYS = {"slug", "title", "weight", "stage", "triggers", "sources", "verified", "last_verified", "created"}


def render(p: Pattern) -> bytes:
    meta: dict[str, Any] = {"slug": p.slug, "title": p.title, "weight": round(p.weight, 4), "stage": p.stage,
                            "triggers": list(p.triggers), "sources": list(p.sources), "verified": p.verified,
                            "last_verified": p.last_verified, "created": p.created}
    meta.update(dict(p.meta))
    body = [f"# {p.title}", "", "## Trigger", "", *(f"- {t}" for t in p.triggers), "", "## Lessons", "",
            *(f"- {' '.join(l.split())}" for l in p.lessons), "", "## Sources", "", *(f"- {s}" for s in p.sources)]
    return frontmatter.render(meta, "\n".join(body) + "\n").encode("utf-8")


def all_patterns(git: Git, rev: str | None) -> list[Pattern]:
    """Every readable pattern at ``rev``, strongest first."""
    out = []
    if rev is None:
        return out
    for path, oid in git.files(PATTERN_DIR, rev):
        if not path.endswith(".md") or path.count("/") != 1:
            continue
        try:
            out.append(read(path, git.blob(oid)))
        except DocumentError:
            continue
    out.sort(key=lambda p: (-p.weight, p.slug))
    return out


def read_state(git: Git, rev: str | None) -> tuple[str, int]:
    """(time of the last reflect, number of runs) from .gitmem/reflect.yaml."""
    data = git.read(STATE_FILE, rev) if rev else None
    if not data:
        return "", 0
    try:
        state = frontmatter.parse(data.decode("utf-8"), STATE_FILE)
        return str(state.get("last_run") or ""), int(state.get("runs") or 0)
    except (DocumentError, TypeError, ValueError):
        return "", 0


@dataclass(frozen=True)
class ReflectPlan:
    changes: dict[str, bytes | None]
    created: tuple[str, ...]
    updated: tuple[str, ...]
    consumed: tuple[str, ...]


def plan_reflect(existing: Sequence[Pattern], drafts: Sequence[Any], now: datetime) -> ReflectPlan:
    """File changes that fold ``drafts`` (from reflect.group) into patterns."""
    by_slug = {p.slug: p for p in existing}
    changes: dict[str, bytes | None] = {}
    created, updated, consumed = [], [], []
    stamp = iso(now)
    for d in drafts:
        old = by_slug.get(d.slug)
        consumed.extend(d.sources)
        if old is None:
            p = Pattern(d.slug, d.title, INITIAL_WEIGHT, "episodic", tuple(d.trigger), tuple(d.lessons),
                        tuple(d.sources), 1, stamp, stamp, f"{PATTERN_DIR}/{d.slug}.md")
            created.append(d.slug)
        else:
            lessons = old.lessons + tuple(l for l in d.lessons if l not in old.lessons)
            triggers = old.triggers + tuple(t for t in d.trigger if t not in old.triggers)
            sources = old.sources + tuple(s for s in d.sources if s not in old.sources)
            p = Pattern(old.slug, old.title, old.weight, old.stage, triggers, lessons, sources,
                        old.verified + 1, stamp, old.created, old.path, old.meta)
            updated.append(d.slug)
        by_slug[p.slug] = p
        changes[p.path] = render(p)
    return ReflectPlan(changes, tuple(created), tuple(updated), tuple(consumed))


def state_file(now: datetime, runs: int) -> bytes:
    return frontmatter.emit({"last_run": iso(now), "runs": runs}).encode("utf-8")
