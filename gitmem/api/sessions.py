"""The use cases of agent sessions: working notes, session end, harvest of transcripts."""

from __future__ import annotations

import builtins
from datetime import datetime
from pathlib import Path
from typing import TYPE_CHECKING, Sequence

from gitmem.base import clock
from gitmem.base.model import iso
from gitmem.engines import memorize
from gitmem.guards import guard
from gitmem.guards.writepath import Plan

if TYPE_CHECKING:
    from gitmem.engines.harvest.planning import Harvested
    from gitmem.engines.working import Note, SessionEnd


from gitmem.api.context import Context, Progress


class Sessions(Context):
    """The use cases of agent sessions: working notes, session end, harvest of transcripts."""

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
        """The working notes of the current session, oldest first (those a failed session end set aside too)."""
        from gitmem.engines import working

        return working.notes_from(self._working_log.with_suffix(".ending")) + working.notes_from(self._working_log)

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

        def plan(parent: str | None) -> Plan[None] | None:
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
                except (RecursionError, ValueError, TypeError, OverflowError, UnicodeError, OSError) as exc:
                    # each file stands alone: one that breaks a reader is reported, the next ones are read
                    r = planning.Harvested(str(path), "", "failed", reason=f"cannot be read: {type(exc).__name__}: {exc}"[:300])
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

        def plan(parent: str | None) -> Plan[None] | None:
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
