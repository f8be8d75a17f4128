"""The use cases of memory over time: recall, decay, core loading, CLAUDE.md sync, reflect."""

from __future__ import annotations

import builtins
from datetime import datetime
from pathlib import Path
from typing import TYPE_CHECKING, Any

from gitmem.base import clock
from gitmem.base.errors import NotFoundError, UsageError
from gitmem.base.kinds import RESULT_TYPES, check_choice
from gitmem.base.model import DOMAINS, Reflected, iso
from gitmem.writer.plan import Plan, Written
from gitmem.store import store

if TYPE_CHECKING:
    from gitmem.engines.decay import DecayReport
    from gitmem.engines.recall import Recalled
    from gitmem.engines.render import CoreItem, Rendered


from gitmem.api.memories import Memories


class Lifecycle(Memories):
    """The use cases of memory over time: recall, decay, core loading, CLAUDE.md sync, reflect."""

    def recall(self, query: str, k: int = 10, *, type: str | None = None, domain: str | None = None,
               tier: str | None = None, band: str | None = None, include_archive: bool = False,
               include_background: bool = False, at: str | None = None, expand: bool = False,
               now: datetime | None = None, project: str | None = None,
               here: str | Path | None = None) -> builtins.list[Recalled]:
        """Memories ranked by relevance, importance and recency; hits go to the access log.

        Up to 3 matching episodes (``type`` "episode") follow the ``k`` memories;
        ``type="episode"`` returns only episodes, ``k`` of them.

        ``project`` (an id or display name) keeps to global memories and that
        project's; without it, ``here`` (a directory) does the same for the
        project holding it when memories carry that project; neither: every project.
        """
        from gitmem.engines import recall
        from gitmem.store.index import Filters

        check_choice("type", type, RESULT_TYPES)
        check_choice("domain", domain, DOMAINS)
        filters = Filters(type=type, domain=domain, tier=tier, band=band,
                          include_archive=include_archive or tier == "archive",
                          include_background=include_background or band in ("background", "fading"),
                          project=project or None)
        return recall.recall(self.root, query, k, filters, at, expand, now or clock.now(),
                             here=Path(here) if here is not None and not project else None)

    def decay(self, now: datetime | None = None, dry_run: bool = False) -> DecayReport:
        """Fold the access log, recompute bands and tiers, archive what is forgotten: ONE commit."""
        from gitmem.base import state
        from gitmem.engines import decay
        from gitmem.engines.recall import ACCESS_LOG

        now = now or clock.now()
        log, folding = self.writer.state / ACCESS_LOG, self.writer.state / decay.FOLDING
        if not dry_run:
            state.set_aside(log, folding)
        accesses = decay.latest_access([folding, log], now)
        report: dict[str, Any] = {}

        def plan(parent: str | None) -> Plan[None] | None:
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

        written = self.writer.write(plan, now)
        if not dry_run:
            folding.unlink(missing_ok=True)
        return decay.DecayReport(written.commit, dry_run, int(report.get("examined", 0)), len(accesses),
                                 report.get("moves", ()))

    def core_items(self, project: str | None = None, here: str | Path | None = None) -> builtins.list[CoreItem]:
        """Core-band memories and those at or above ``never_forget``, best first (importance, then most recently used).

        ``project`` and ``here`` scope them as in ``recall``: global memories always come.
        """
        from gitmem.engines.recall import open_index, project_here
        from gitmem.engines.render import CoreItem

        index = open_index(self.root)
        try:
            if not project and here is not None:
                project = project_here(index, here)
            keep = self.cfg.memory.never_forget   # at or above it: always loaded, whatever the band
            rows = [r for r in index.rows() if r.tier != "archive" and r.type != "episode"
                    and (r.band == "core" or r.importance >= keep)
                    and (not project or r.project is None or project in (r.project, r.project_name))]
        finally:
            index.close()
        rows.sort(key=lambda r: (-r.importance, _neg(r.last_accessed), r.id))
        return [CoreItem(r.id, r.type, r.domain, r.importance, r.content) for r in rows]

    def load_core(self, max_chars: int | None = None, project: str | None = None,
                  here: str | Path | None = None) -> Rendered:
        """Core memories for a session start, whole items within ``max_chars`` (default budgets.core_chars).

        ``project`` and ``here`` scope them as in ``recall``.
        """
        from gitmem.engines import render

        limit = max_chars if max_chars is not None else self.cfg.budgets.core_chars
        if limit < 200:
            raise UsageError("--max-chars must be at least 200")
        return render.load_core(self.core_items(project, here), limit)

    def sync_core(self, now: datetime | None = None) -> Written[None]:
        """Write HIPPOCAMPUS_CORE.md and regenerate Layers 2 and 3 of CLAUDE.md (one commit)."""
        now = now or clock.now()
        core = self.load_core()

        def plan(parent: str | None) -> Plan[None] | None:
            pats = store.all_patterns(self.git, parent) if parent else []
            _, text = self._claude_md(parent, pats) if parent else (None, None)
            if text is None:
                raise NotFoundError("CLAUDE.md is missing from the repository", hint="restore it from a fresh `gitmem init`")
            changes = {"HIPPOCAMPUS_CORE.md": core.text.encode("utf-8"), "CLAUDE.md": text}
            return Plan(changes, f"gitmem: sync core ({len(core.included)} core memories, {len(pats)} patterns)",
                        "render.sync_core", auto=True)

        return self.writer.write(plan, now)

    def reflect(self, now: datetime | None = None, auto: bool = False) -> Reflected:
        """Group similar memories no pattern holds yet into patterns (one commit)."""
        from gitmem.engines import reflect

        now = now or clock.now()
        info: dict[str, Any] = {}

        def plan(parent: str | None) -> Plan[None] | None:
            state = self.git.read(reflect.STATE_FILE, parent) if parent else None
            run = reflect.plan_run(store.all_patterns(self.git, parent), store.listing(self.git, parent).memories,
                                   state, now, auto, self.cfg.memory.reflect_trigger, self.cfg.hebbian.initial_weight)
            info.update(pending=run.pending, result=run.plan)
            if run.plan is None:
                return None
            result = run.plan
            return Plan(result.changes, f"gitmem: reflect ({len(result.created)} new patterns, "
                        f"{len(result.updated)} verified again)", "reflect.patterns", auto=True,
                        body="consumed: " + ", ".join(result.consumed[:100]) if result.consumed else "")

        written = self.writer.write(plan, now)
        done = info.get("result")
        return Reflected(written.commit, tuple(done.created) if done else (), tuple(done.updated) if done else (),
                         tuple(done.consumed) if done else (), int(info.get("pending", 0)))

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


def _neg(stamp: str) -> str:
    """Sort key putting later ISO times first."""
    return "".join(chr(0x10FFFF - ord(c)) for c in stamp)
