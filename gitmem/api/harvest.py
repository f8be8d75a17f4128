"""Harvest: agent transcripts read into episodes and memories, and the one rule of the unattended harvest
(the daemon's, cron's, an agent's through MCP): it reads the configured session folders and nothing
outside them, symbolic links that point out included."""

from __future__ import annotations

import builtins
import dataclasses
from collections.abc import Sequence
from dataclasses import dataclass
from datetime import datetime
from pathlib import Path
from typing import TYPE_CHECKING

from gitmem.api import duplicates, projects
from gitmem.api.context import Context, Progress
from gitmem.base import clock
from gitmem.base.errors import GitmemError
from gitmem.base.model import iso
from gitmem.engines import memorize
from gitmem.writer.plan import Plan

if TYPE_CHECKING:
    from gitmem.engines.harvest.encoder import Choice
    from gitmem.engines.harvest.planning import Harvested, Session, Unit


@dataclass(frozen=True)
class SessionFiles:
    """The transcripts an unattended harvest may read, and those it leaves out (their real path lies outside
    the session folders: a symbolic link pointing out)."""

    files: tuple[Path, ...]
    outside: tuple[Path, ...]


def session_folders(ctx: Context) -> builtins.list[Path]:
    """The configured folders agents write session logs to (``daemon.session_folders``), expanded."""
    from gitmem.api.sessionfolders import folders_of

    return folders_of(ctx.cfg)


def inside_session_folders(ctx: Context, path: str | Path) -> bool:
    """True when ``path`` (symlinks resolved) lies inside one of the configured session folders."""
    from gitmem.api.sessionfolders import inside

    return inside(path, session_folders(ctx))


def outside_folders_of(root: Path, path: Path) -> str | None:
    """Why an agent's hook must not harvest ``path`` for the repository at ``root`` (its real path lies
    outside daemon.session_folders, ``sessionfolders.inside``), or None; read from the configuration alone."""
    from gitmem.api.sessionfolders import folders_of, inside
    from gitmem.base import config

    try:
        folders = folders_of(config.load(root))
    except GitmemError as exc:
        return exc.message
    if inside(path, folders):
        return None
    return (f"the session's transcript {path.name} lies outside the session folders "
            "(daemon.session_folders of gitmem.yaml): not harvested")


def newest_session(folders: Sequence[Path]) -> Path | None:
    """The main transcript, in ``folders``, of the session written to last (its sub-agent files count)."""
    from gitmem.engines.harvest import planning

    existing = [f for f in folders if f.exists()]
    if not existing:
        return None
    best: tuple[int, str] | None = None
    found = None
    for unit in planning.list_sessions(existing, "auto", 0):
        try:
            stamp = max(p.stat().st_mtime_ns for p in unit.files)
        except OSError:
            continue
        if best is None or (stamp, str(unit.path)) > best:
            best, found = (stamp, str(unit.path)), unit.path
    return found


def session_files(ctx: Context, paths: Sequence[str | Path] | None = None) -> SessionFiles:
    """The transcripts under ``paths`` (default: every existing session folder) that an unattended harvest
    reads. A path given outside the session folders is refused (``SecurityError``); a transcript found
    inside whose real path lies outside is left out and listed in ``outside``."""
    from gitmem.base.errors import SecurityError
    from gitmem.engines.harvest.sources import discover

    folders = session_folders(ctx)
    for p in paths or ():
        if not inside_session_folders(ctx, p):
            raise SecurityError(f"{p} is outside the configured session folders",
                                hint="harvest only reads daemon.session_folders of gitmem.yaml: "
                                     + ", ".join(str(f) for f in folders))
    given = [Path(p).expanduser() for p in paths] if paths else [f for f in folders if f.exists()]
    files: builtins.list[Path] = []
    outside: builtins.list[Path] = []
    for f in discover(given):
        (files if inside_session_folders(ctx, f) else outside).append(f)
    return SessionFiles(tuple(files), tuple(outside))


def harvest(ctx: Context, paths: Sequence[str | Path], fmt: str = "auto", signals: int | None = 20, whole: bool = False,
            now: datetime | None = None, progress: Progress | None = None,
            rescan: bool = False, confine: bool = False, last: int | None = None) -> builtins.list[Harvested]:
    """Harvest agent transcripts into episodes and memories (one commit per session).

    ``signals`` caps the signals kept from one session (None: no cap, the seed's ``--whole``); ``whole``
    keeps each session's summary as one memory instead. With ``last`` only the last that many signals of all the sessions are kept (the seed's
    ``--signals N``): the sessions are read newest first, and those older than the last N signals are
    ``skipped`` and marked read, so no later harvest takes them unless ``rescan``.
    A session holding a secret is rejected whole (an alert event is logged);
    a file unchanged since it was harvested is skipped unless ``rescan``. With ``confine`` (the
    unattended harvest) a session or sub-agent file whose real path lies outside the session
    folders is left out, a sub-agent folder linked out of them included.
    """
    from gitmem.base.errors import UsageError
    from gitmem.engines.harvest import planning
    from gitmem.engines.harvest.signals import MAX_SIGNALS

    signals = MAX_SIGNALS if signals is None else signals   # an episode holds at most MAX_SIGNALS
    if last is not None and last < 0:
        raise UsageError("--signals must be 0 or more")
    now = now or clock.now()
    files = planning.list_sessions(paths, fmt, signals)  # a session's sub-agent files come with it
    if confine:
        files = [dataclasses.replace(u, parts=tuple(p for p in u.parts if inside_session_folders(ctx, p)))
                 for u in files if inside_session_folders(ctx, u.path)]
    if last is not None:
        files = sorted(files, key=_written_at, reverse=True)
    left = last
    cursors = planning.Cursors(ctx.writer.state)
    command, warned = _encoder_command(ctx)
    results: builtins.list[Harvested] = []
    for n, unit in enumerate(files, 1):
        path = unit.path
        stamp = cursors.stamp(path, unit.parts)
        if not rescan and cursors.unchanged(stamp):
            results.append(planning.Harvested(str(path), "", "unchanged"))
        elif left == 0:
            results.append(planning.Harvested(str(path), "", "skipped", reason=(
                f"older than the last {last} signals: not read, and marked read "
                "(gitmem harvest --whole --rescan PATH takes it)")))
            cursors.record(stamp)
        else:
            try:
                r = _harvest_file(ctx, unit, fmt, signals, whole, now, command, left)
                if left is not None:
                    left -= min(left, r.created + r.reinforced)
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


def _written_at(unit: Unit) -> tuple[int, str]:
    """When a session was last written to (its newest file's mtime; 0 when it cannot be read), then its path."""
    try:
        return max(p.stat().st_mtime_ns for p in unit.files), str(unit.path)
    except OSError:
        return 0, str(unit.path)


def _encoder_command(ctx: Context) -> tuple[Choice | None, tuple[str, ...]]:
    """The encoder of this clone or user (git config), and warnings (gitmem.yaml naming one, two set at once)."""
    from gitmem.engines.harvest import encoder

    return encoder.configured(ctx.git.root)


def _harvest_file(ctx: Context, unit: Unit, fmt: str, signals: int, whole: bool, now: datetime,
                  command: Choice | None = None, keep_last: int | None = None) -> Harvested:
    """One session (a transcript and its sub-agent files): screened, then its episode and memories in one
    commit at most."""
    from gitmem.api.findings import clear_refusal, folders_of, judge, record_refusal, refusal_reason
    from gitmem.base import state
    from gitmem.base.errors import SecretError
    from gitmem.engines.harvest import planning, screen
    from gitmem.guards import pii
    from gitmem.guards.redact import allowlist

    path = unit.path

    allow = allowlist(ctx.cfg)
    reuse = allowlist(ctx.redactor.cfg) == allow   # the screen's scans stand for the redaction's own

    def redactor(text: str, names: Sequence[str], found: Sequence[pii.Finding] | None) -> str:
        clean: str = ctx.redactor.redact(text, "transcript", "harvest.session", now, names=names,
                                         found=found if reuse else None).text
        return clean

    settled = judge(ctx.root, ctx.git, ctx.head)   # false alarms a person settled
    session = planning.read_session(unit, fmt, allow, redactor, settled)
    if session.secrets:
        state.log_event(ctx.git.root, "secret.rejected", iso(now), **session.alert())
        refusal = record_refusal(ctx.root, folders_of(ctx.cfg), session.transcript.session_id, path,
                                 unit.parts, session.found, iso(now))
        return dataclasses.replace(session.rejected(), reason=refusal_reason(session.secrets, refusal),
                                   findings=refusal.findings)
    clear_refusal(ctx.root, session.transcript.session_id)
    if not screen.has_conversation(session.transcript):
        return planning.Harvested(str(path), session.transcript.session_id, "empty",
                                  reason="no conversation in the session; nothing written")
    session = _with_repeated_corrections(ctx, session)
    warnings: tuple[str, ...] = ()
    if command and not whole:
        session, warnings = _encode_with(ctx, command, session)
    drafts: builtins.list[planning.Draft] = []
    project = projects.project_of(ctx, session.given_cwd)   # the repository the session ran in (its id, never the path)

    def plan(parent: str | None) -> Plan[None] | None:
        batch = memorize.Batch(duplicates.duplicate_lookup(ctx, parent, project), now, ctx.cfg.memory)
        stored = planning.find_episode(ctx.git, parent, session.episode.slug, session.legacy_slug)
        drafts[:] = [planning.draft(session, stored, batch, signals, whole, now, project, keep_last)]
        if drafts[0].status == "unchanged":
            return None
        return Plan({**drafts[0].changes, **duplicates.batch_changes(ctx, batch, parent, project)}, drafts[0].subject, "harvest.session",
                    auto=True, session=session.transcript.session_id, trailers=drafts[0].trailers)

    try:
        written = ctx.writer.write(plan, now)
    except SecretError as exc:
        return planning.Harvested(str(path), session.given_id, "rejected", reason=exc.message)
    done = dataclasses.replace(planning.report(session, drafts[0] if drafts else None, written.commit),
                               warnings=warnings)
    if written.commit and drafts and drafts[0].inbox:   # the unsure memories wait for a person
        from gitmem.api.inbox import add

        try:
            added = add(ctx, drafts[0].inbox, now, session.transcript.session_id)
        except GitmemError as exc:   # the session is on the branch: said, never reported as failed
            done = dataclasses.replace(done, warnings=(*done.warnings, f"harvest inbox not written: {exc.message}"))
        else:
            if added is not None:
                done = dataclasses.replace(done, inbox=added.added, inbox_branch=added.branch)
    return done


def _with_repeated_corrections(ctx: Context, session: Session) -> Session:
    """The session with each one-off correction made durable when an earlier session's episode holds it too."""
    from gitmem.engines.harvest import episodes, signals
    from gitmem.store import documents, store

    ep = session.episode
    if ctx.head is None or not any(s.kind == "correction" and not s.durable for s in ep.signals):
        return session
    earlier: builtins.list[str] = []
    for path, data in ctx.git.blobs(store.EPISODE_DIR, ctx.head):
        if path.endswith(".md") and not path.endswith(f"/{ep.slug}.md"):
            try:
                earlier += episodes.section_items(documents.split(path, documents.decode(path, data))[1], "Corrections")
            except GitmemError:
                continue
    return dataclasses.replace(session, episode=dataclasses.replace(
        ep, signals=signals.repeated_across(ep.signals, earlier)))


def _encode_with(ctx: Context, command: Choice, session: Session) -> tuple[Session, tuple[str, ...]]:
    """The session with the encoder command's candidates as its signals, or as it was and the warning why."""
    from gitmem.engines.harvest import encoder, planning

    ep, t = session.episode, session.transcript
    stored = planning.find_episode(ctx.git, ctx.head, ep.slug)
    done = stored.lines if stored else 0
    got = encoder.propose(command, ep, [s for s in ep.signals if s.line > done], t.end_line, ctx.cfg,
                          turns=[e for e in t.events if e.line > done])
    if got.signals is None:
        return session, (got.warning,)
    return (dataclasses.replace(session, episode=dataclasses.replace(ep, signals=got.signals)),
            (got.warning,) if got.warning else ())
