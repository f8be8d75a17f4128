"""What the dashboard shows, gathered as plain JSON-able values (issue 12 item 5).

Counts of memories by tier, band, domain and project; pattern weights over time read
from git history; the stage funnel; atrophy candidates; open reviews; the history of
the values that gate automatic changes (the forced-review streak against
``hebbian.forced_review_after``, and every change of a number in gitmem.yaml); drift;
recent events. Everything here reads: the dashboard writes no commit.
"""

from __future__ import annotations

import builtins
import math
from datetime import datetime
from typing import TYPE_CHECKING, Any

from gitmem.api import patterns, reviews, sessions, status, timeline
from gitmem.api.context import Context
from gitmem.base import clock

HISTORY_COMMITS = 2000    # commits of pattern, config and state history read at most (newest kept)
CHARTED_PATTERNS = 12     # weight lines drawn: the strongest patterns (more is unreadable, and costs a parse each)
EVENTS_SHOWN = 40
MEMORIES_SHOWN = 5000     # memory texts embedded in the page for its search (the most important first)
EPISODES_SHOWN = 200      # the most recent episodes embedded
TEXT_SHOWN = 4000         # characters of one memory's or episode's text embedded; the rest is cut, and says so
NO_PROJECT = "(global)"

if TYPE_CHECKING:
    from gitmem.base.gitio import CommitInfo
    from gitmem.base.model import Memory


def dashboard_data(ctx: Context, now: datetime | None = None) -> dict[str, Any]:
    """Every figure the dashboard draws, as plain JSON-able values (no dataclass, no datetime)."""
    from gitmem.base.model import iso
    from gitmem.engines import review
    from gitmem.engines.hebbian import STAGES
    from gitmem.store import store

    now = now or clock.now()
    head = ctx.head
    pats = store.all_patterns(ctx.git, head)
    found = store.listing(ctx.git, head, include_archive=True).memories   # read once: counted and listed
    candidates = review.atrophy_candidates(pats, now, ctx.cfg.hebbian, patterns.proposed(ctx, review.ATROPHY))
    drift = timeline.drift(ctx)
    weights, streak, config = _histories(ctx, head, [p.slug for p in pats[:CHARTED_PATTERNS]])
    titles = {p.slug: p.title for p in pats}
    for series in weights:
        series.update(title=titles.get(series["slug"], series["slug"]), current=series["slug"] in titles)
    return {
        "generated": iso(now),
        "repository": ctx.root.name,
        "head": head,
        "memories": _memory_counts(ctx, found, now),
        "memory_list": _memory_list(ctx, found, now),
        "episodes": _episode_list(ctx),
        "patterns": [{"slug": p.slug, "title": p.title, "weight": p.weight, "stage": p.stage} for p in pats],
        "weights": weights,
        "funnel": [{"stage": s, "count": sum(1 for p in pats if p.stage == s)} for s in STAGES],
        "atrophy": [{"slug": c.pattern.slug, "title": c.pattern.title, "weight": c.pattern.weight, "under_since": c.under_since,
                     "evidence": c.evidence} for c in candidates],
        "reviews": [_review(ctx, r) for r in reviews.reviews(ctx)],
        "thresholds": {"forced_review_after": ctx.cfg.hebbian.forced_review_after, "streak": streak,
                       "config_changes": config,
                       "hebbian": {"delete_below": ctx.cfg.hebbian.delete_below,
                                   "strong_weight": ctx.cfg.hebbian.strong_weight,
                                   "weight_max": ctx.cfg.hebbian.weight_max}},
        "drift": {**drift.to_json(), "describe": drift.describe()},
        "events": _recent(status.events(ctx, limit=EVENTS_SHOWN * 5)),
        "sediment": _sediment(ctx, now),
    }


def _cut(text: str) -> dict[str, Any]:
    return {"text": text[:TEXT_SHOWN], "cut": max(0, len(text) - TEXT_SHOWN)}


def _memory_list(ctx: Context, found: tuple[Memory, ...], now: datetime) -> dict[str, Any]:
    """Every memory (the archive too) with its text and the fields the page filters by; the ``MEMORIES_SHOWN``
    of highest effective importance when there are more, with the total."""
    from gitmem.engines import decay

    rows = []
    for m in found:
        value = decay.effective(m.importance, m.tier, m.last_accessed, now, ctx.cfg.memory)
        rows.append({"id": m.id, "type": m.type, "domain": m.domain, "tier": m.tier,
                     "band": "archived" if m.tier == "archive" else decay.band(value, ctx.cfg.memory),
                     "importance": m.importance, "effective": round(value, 3),
                     "project": (m.project_name or m.project) if m.project else NO_PROJECT,
                     "created": m.created, "last_accessed": m.last_accessed, "path": m.path, **_cut(m.content)})
    rows.sort(key=lambda r: (r["tier"] == "archive", -r["effective"], r["id"]))
    return {"total": len(rows), "items": rows[:MEMORIES_SHOWN]}


def _episode_list(ctx: Context) -> dict[str, Any]:
    """The ``EPISODES_SHOWN`` most recent episodes with their text, newest first, with the total."""
    from gitmem.store import store

    rows = []
    for path, meta, body in store.episode_documents(ctx.git, ctx.head):
        stamp = str(meta.get("started") or meta.get("date") or "")
        title = meta.get("title") or meta.get("summary") or meta.get("session") or path.rsplit("/", 1)[-1][:-3]
        rows.append({"path": path, "date": stamp, "title": str(title), "project": str(meta.get("project") or ""),
                     **_cut(body.strip())})
    rows.sort(key=lambda r: (r["date"], r["path"]), reverse=True)
    return {"total": len(rows), "items": rows[:EPISODES_SHOWN]}


def _review(ctx: Context, info: reviews.ReviewInfo) -> dict[str, Any]:
    """One open review as ``review show --json`` gives it, without the raw diff and the inbox items."""
    from gitmem.base.errors import GitmemError

    try:
        shown = reviews.review_show(ctx, info.name).to_json()
    except GitmemError as exc:      # a branch a person broke: listed, with why it cannot be shown
        return {**info.to_json(), "semantic": [], "scope": "", "paths": [], "outside": [], "on_accept": [],
                "error": str(exc)}
    return {key: value for key, value in shown.items() if key not in ("diff", "items", "message")}


def _sediment(ctx: Context, now: datetime) -> dict[str, Any]:
    """The sedimentation bank, the growth queued in .gitmem/pending/, and the threshold's history."""
    from gitmem.api import bank

    s = bank.status(ctx, now).to_json()
    return {key: s[key] for key in ("threshold", "base", "history", "reflections", "reviews", "queue", "promotions",
                                    "degraded")}


def _memory_counts(ctx: Context, found: tuple[Memory, ...], now: datetime) -> dict[str, builtins.list[dict[str, Any]]]:
    """Live memories by band (effective importance now), domain and project; every memory by tier."""
    from gitmem.base.kinds import BANDS, DOMAINS, TIERS
    from gitmem.engines import decay

    live = [m for m in found if m.tier != "archive"]
    tiers = {t: 0 for t in TIERS}
    tiers["working"] = len(sessions.notes(ctx))
    for m in found:
        tiers[m.tier if m.tier in tiers else "short"] += 1
    bands = {b: 0 for b in BANDS}
    domains = {d: 0 for d in DOMAINS}
    projects: dict[str, int] = {}
    for m in live:
        bands[decay.band(decay.effective(m.importance, m.tier, m.last_accessed, now, ctx.cfg.memory),
                         ctx.cfg.memory)] += 1
        domains[m.domain] = domains.get(m.domain, 0) + 1
        name = (m.project_name or m.project) if m.project else NO_PROJECT
        projects[name] = projects.get(name, 0) + 1
    ranked = sorted(projects.items(), key=lambda kv: (-kv[1], kv[0]))
    return {"tier": _rows(tiers), "band": _rows(bands), "domain": _rows(domains), "project": _rows(dict(ranked))}


def _histories(ctx: Context, head: str | None, charted: builtins.list[str]) -> tuple[builtins.list[dict[str, Any]], builtins.list[dict[str, Any]],
               builtins.list[dict[str, Any]]]:
    """From one walk over the commits that touched patterns, gitmem.yaml or the state file (oldest first):
    the weight of each ``charted`` pattern after every commit that changed it (patterns since deleted
    fill the lines left while there is room), the forced-review streak whenever it changed, and every
    number of gitmem.yaml that changed."""
    from gitmem.base.config import CONFIG_FILE
    from gitmem.store.documents import PATTERN_DIR
    from gitmem.store.formats import STATE_FILE

    if head is None:
        return [], [], []
    infos: builtins.list[CommitInfo] = []
    for info in ctx.git.log(head, path=(PATTERN_DIR, CONFIG_FILE, STATE_FILE)):
        infos.append(info)
        if len(infos) >= HISTORY_COMMITS:
            break
    infos.reverse()
    series: dict[str, builtins.list[dict[str, Any]]] = {}
    wanted, room = set(charted), CHARTED_PATTERNS - len(charted)
    streak: builtins.list[dict[str, Any]] = []
    changes: builtins.list[dict[str, Any]] = []
    last_streak: int | None = None
    last_config: dict[str, object] | None = None
    for info in infos:
        parent = info.parents[0] if info.parents else None
        touched = [c for c in ctx.git.diff(parent, info.id)]
        paths = {c.path for c in touched}
        for change in touched:
            if change.status == "D" or not change.path.startswith(PATTERN_DIR + "/") \
                    or not change.path.endswith(".md") or change.path.count("/") != 1:
                continue
            slug = change.path[len(PATTERN_DIR) + 1:-3]
            if slug not in wanted and room > 0:
                wanted.add(slug)
                room -= 1
            if slug in wanted:
                _weight_point(ctx, series, slug, change.path, info)
        if STATE_FILE in paths:
            value = _streak_at(ctx, info.id)
            if value != last_streak:
                streak.append({"time": info.time, "commit": info.id, "value": value})
                last_streak = value
        if CONFIG_FILE in paths:
            numbers = _config_numbers(ctx, info.id)
            if numbers is not None:
                if last_config is not None:
                    changes.extend({"time": info.time, "commit": info.id, "field": key,
                                    "before": last_config.get(key), "after": value}
                                   for key, value in numbers.items() if last_config.get(key) != value)
                last_config = numbers
    weights = [{"slug": slug, "points": points} for slug, points in sorted(series.items())]
    return weights, streak, changes


def _weight_point(ctx: Context, series: dict[str, builtins.list[dict[str, Any]]], slug: str, path: str,
                  info: CommitInfo) -> None:
    from gitmem.base.errors import DocumentError
    from gitmem.store.documents import read_front_matter

    data = ctx.git.read(path, info.id)
    if data is None:
        return
    try:   # the front matter alone: the body's Markdown is not needed for a weight
        raw = read_front_matter(path, data).get("weight")
    except DocumentError:
        return
    if isinstance(raw, bool) or not isinstance(raw, (int, float)) or not math.isfinite(raw):
        return   # no weight, or none a chart can draw
    weight = float(raw)
    points = series.setdefault(slug, [])
    if points and points[-1]["weight"] == weight:
        return   # the commit changed the document, not its weight
    if points and points[-1]["time"] == info.time:
        points.pop()   # two commits in the same second: the later weight stands
    points.append({"time": info.time, "commit": info.id, "weight": weight})


def _streak_at(ctx: Context, commit: str) -> int:
    from gitmem.base.errors import GitmemError
    from gitmem.store import enginestate

    try:
        return enginestate.read(ctx.git.read(enginestate.STATE_FILE, commit)).auto_streak
    except GitmemError:
        return 0


def _config_numbers(ctx: Context, commit: str) -> dict[str, object] | None:
    """Every leaf of gitmem.yaml at ``commit`` as dotted name -> value (None when it cannot be read)."""
    from gitmem.base import config
    from gitmem.base.errors import GitmemError

    data = ctx.git.read(config.CONFIG_FILE, commit)
    if data is None:
        return {}
    try:
        checked = config.check_text(data.decode("utf-8", "replace"))
    except GitmemError:
        return None
    flat: dict[str, object] = {}
    _flatten(config.to_data(checked.config), "", flat)
    return flat


def _rows(counts: dict[str, int]) -> builtins.list[dict[str, Any]]:
    return [{"key": key, "count": n} for key, n in counts.items()]


def _flatten(data: object, prefix: str, into: dict[str, object]) -> None:
    if isinstance(data, dict):
        for key, value in data.items():
            _flatten(value, f"{prefix}{key}.", into)
    elif isinstance(data, (int, float)) and not isinstance(data, bool):
        into[prefix.rstrip(".")] = data


def _recent(events: builtins.list[dict[str, object]]) -> builtins.list[dict[str, Any]]:
    """The last ``EVENTS_SHOWN`` events, oldest first; commits of the same second in the order they were made."""
    def key(item: tuple[int, dict[str, object]]) -> tuple[str, int, int]:
        n, event = item
        commit = event.get("origin") == "commit"   # git lists them newest first
        return str(event.get("timestamp") or ""), 0 if commit else 1, -n if commit else n

    return [_event(e) for _, e in sorted(enumerate(events), key=key)][-EVENTS_SHOWN:]


def _event(event: dict[str, object]) -> dict[str, Any]:
    """One event of the stream, reduced to what a person scans: when, what, and a line about it."""
    detail = event.get("subject") or event.get("error") or event.get("branch") or event.get("job") or ""
    return {"time": str(event.get("timestamp") or ""), "type": str(event.get("event_type") or ""),
            "origin": str(event.get("origin") or ""), "detail": str(detail)[:300]}
