"""The use cases of agent sessions: working notes, session end, harvest of transcripts."""

from __future__ import annotations

import builtins
import dataclasses
from datetime import datetime
from pathlib import Path
from typing import TYPE_CHECKING, Sequence

from gitmem.base import clock
from gitmem.base.errors import GitmemError
from gitmem.base.model import iso
from gitmem.engines import memorize
from gitmem.guards import guard
from gitmem.writer.plan import Plan

if TYPE_CHECKING:
    from gitmem.engines.harvest.encoder import Choice
    from gitmem.engines.harvest.planning import Harvested, Session, Unit
    from gitmem.engines.working import Note, SessionEnd


from gitmem.api.context import Context, Progress


class Sessions(Context):
    """The use cases of agent sessions: working notes, session end, harvest of transcripts."""

    @property
    def _working_log(self) -> Path:
        from gitmem.engines.working import WORKING_LOG

        return self.writer.state / WORKING_LOG

    def note(self, text: str, *, importance: float | None = None, type: str | None = None,
             domain: str | None = None, now: datetime | None = None) -> Note:
        """Keep ``text`` for this session only (no commit): a working note."""
        from gitmem.base import state
        from gitmem.engines import working

        now = now or clock.now()
        max_bytes = self.cfg.sediment.max_content_bytes
        text = self.redactor.redact_text(guard.check_text(text, "note", max_bytes), "working note", "memory.working", now)
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
        if session:   # redacted before the memories' source is derived from it
            session = self.redactor.redact_text(session, "session", "memory.session_end", now)
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

        written = self.writer.write(plan, now)
        pending.unlink(missing_ok=True)
        return working.SessionEnd(tuple(dict.fromkeys(kept_ids)), len(all_notes) - len(keep), written.commit)

    def harvest(self, paths: Sequence[str | Path], fmt: str = "auto", signals: int = 20, whole: bool = False,
                now: datetime | None = None, progress: Progress | None = None,
                rescan: bool = False) -> builtins.list[Harvested]:
        """Harvest agent transcripts into episodes and memories (one commit per session).

        A session holding a secret is rejected whole (an alert event is logged);
        a file unchanged since it was harvested is skipped unless ``rescan``.
        """
        from gitmem.engines.harvest import planning

        now = now or clock.now()
        files = planning.list_sessions(paths, fmt, signals)  # a session's sub-agent files come with it
        cursors = planning.Cursors(self.writer.state)
        command, warned = self._encoder_command()
        results: builtins.list[Harvested] = []
        for n, unit in enumerate(files, 1):
            path = unit.path
            stamp = cursors.stamp(path, unit.parts)
            if not rescan and cursors.unchanged(stamp):
                results.append(planning.Harvested(str(path), "", "unchanged"))
            else:
                try:
                    r = self._harvest_file(unit, fmt, signals, whole, now, command)
                except GitmemError as exc:
                    r = planning.Harvested(str(path), "", "failed", reason=exc.message)
                except (RecursionError, ValueError, TypeError, OverflowError, UnicodeError, OSError) as exc:
                    # each file stands alone: one that breaks a reader is reported, the next ones are read
                    r = planning.Harvested(str(path), "", "failed", reason=f"cannot be read: {type(exc).__name__}: {exc}"[:300])
                results.append(r)
                if r.status in ("harvested", "updated", "unchanged", "empty"):
                    cursors.record(stamp)
            if progress is not None:
                progress(n, len(files))
        if warned and results:
            results[0] = dataclasses.replace(results[0], warnings=(*warned, *results[0].warnings))
        return results

    def _encoder_command(self) -> tuple[Choice | None, tuple[str, ...]]:
        """The encoder of this clone or user (git config), and warnings (gitmem.yaml naming one, two set at once)."""
        from gitmem.engines.harvest import encoder

        return encoder.configured(self.git.root)

    def _harvest_file(self, unit: Unit, fmt: str, signals: int, whole: bool, now: datetime,
                      command: Choice | None = None) -> Harvested:
        """One session (a transcript and its sub-agent files): screened, then its episode and memories in one
        commit at most."""
        from gitmem.api.findings import clear_refusal, folders_of, judge, record_refusal, refusal_reason
        from gitmem.base import state
        from gitmem.base.errors import SecretError
        from gitmem.engines.harvest import planning, screen
        from gitmem.guards.redact import allowlist

        path = unit.path

        def redactor(text: str, names: Sequence[str]) -> str:
            clean: str = self.redactor.redact(text, "transcript", "harvest.session", now, names=names).text
            return clean

        settled = judge(self.root, self.git, self.head)   # false alarms a person settled
        session = planning.read_session(unit, fmt, allowlist(self.cfg), redactor, settled)
        if session.secrets:
            state.log_event(self.git.root, "secret.rejected", iso(now), **session.alert())
            refusal = record_refusal(self.root, folders_of(self.cfg), session.transcript.session_id, path,
                                     unit.parts, session.found, iso(now))
            return dataclasses.replace(session.rejected(), reason=refusal_reason(session.secrets, refusal),
                                       findings=refusal.findings)
        clear_refusal(self.root, session.transcript.session_id)
        if not screen.has_conversation(session.transcript):
            return planning.Harvested(str(path), session.transcript.session_id, "empty",
                                      reason="no conversation in the session; nothing written")
        session = self._with_repeated_corrections(session)
        warnings: tuple[str, ...] = ()
        if command and not whole:
            session, warnings = self._encode_with(command, session)
        drafts: builtins.list[planning.Draft] = []
        project = self.project_of(session.given_cwd)   # the repository the session ran in (its id, never the path)

        def plan(parent: str | None) -> Plan[None] | None:
            batch = memorize.Batch(self._lookup(parent, project), now, self.cfg.memory)
            stored = planning.find_episode(self.git, parent, session.episode.slug, session.legacy_slug)
            drafts[:] = [planning.draft(session, stored, batch, signals, whole, now, project)]
            if drafts[0].status == "unchanged":
                return None
            return Plan({**drafts[0].changes, **self._changes(batch, parent, project)}, drafts[0].subject, "harvest.session",
                        auto=True, session=session.transcript.session_id, trailers=drafts[0].trailers)

        try:
            written = self.writer.write(plan, now)
        except SecretError as exc:
            return planning.Harvested(str(path), session.given_id, "rejected", reason=exc.message)
        return dataclasses.replace(planning.report(session, drafts[0] if drafts else None, written.commit),
                                   warnings=warnings)

    def _with_repeated_corrections(self, session: Session) -> Session:
        """The session with each one-off correction made durable when an earlier session's episode holds it too."""
        from gitmem.engines.harvest import episodes, signals
        from gitmem.store import documents, store

        ep = session.episode
        if self.head is None or not any(s.kind == "correction" and not s.durable for s in ep.signals):
            return session
        earlier: builtins.list[str] = []
        for path, data in self.git.blobs(store.EPISODE_DIR, self.head):
            if path.endswith(".md") and not path.endswith(f"/{ep.slug}.md"):
                try:
                    earlier += episodes.section_items(documents.split(path, documents.decode(path, data))[1], "Corrections")
                except GitmemError:
                    continue
        return dataclasses.replace(session, episode=dataclasses.replace(
            ep, signals=signals.repeated_across(ep.signals, earlier)))

    def _encode_with(self, command: Choice, session: Session) -> tuple[Session, tuple[str, ...]]:
        """The session with the encoder command's candidates as its signals, or as it was and the warning why."""
        from gitmem.engines.harvest import encoder, planning

        ep, t = session.episode, session.transcript
        stored = planning.find_episode(self.git, self.head, ep.slug)
        done = stored.lines if stored else 0
        got = encoder.propose(command, ep, [s for s in ep.signals if s.line > done], t.end_line, self.cfg,
                              turns=[e for e in t.events if e.line > done])
        if got.signals is None:
            return session, (got.warning,)
        return (dataclasses.replace(session, episode=dataclasses.replace(ep, signals=got.signals)),
                (got.warning,) if got.warning else ())
