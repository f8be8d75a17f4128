"""``gitmem demo``: build a memory repository from a built-in sample and show
each thing gitmem does, with the real library and real commits."""

from __future__ import annotations

import tempfile
from datetime import datetime, timedelta
from pathlib import Path
from typing import TYPE_CHECKING, Callable

from gitmem.api.clone import short_log, template_dir

if TYPE_CHECKING:
    from gitmem.api import MemoryRepo

Say = Callable[[str], None]


def _section(say: Say, title: str) -> None:
    say("")
    say(f"== {title} " + "=" * max(0, 60 - len(title)))


def run(target: str | None, say: Say) -> int:
    """Build the demo repository in ``target`` (or a new temporary folder) and narrate."""
    from gitmem.base import clock
    from gitmem.api import MemoryRepo

    sample = template_dir() / "demo"
    root = Path(target) if target else Path(tempfile.mkdtemp(prefix="gitmem-demo-")) / "memory"
    now = clock.now()
    _section(say, "1. init: a memory repository is a git repository")
    repo = MemoryRepo.init(root, now)
    r = repo.setup
    assert r is not None  # init always records what it did
    say(r.message + ("" if r.created else " (pick an empty folder to run the demo again)"))
    if not r.created:
        return 1
    say("CLAUDE.md (4 fenced layers), gitmem.yaml (every default, commented), memory/, patterns/, episodes/, bank/")
    say(f"pre-commit hooks installed: {'yes' if r.hooks_installed else 'no (pre-commit missing)'}")

    _section(say, "2. import: a JSONL file becomes ONE commit; bad lines are reported, not fatal")
    imp = repo.import_file(sample / "memories.jsonl", now=now)
    say(f"{imp.created} memories created in commit {imp.commit[:12] if imp.commit else '-'}")
    for line, reason in imp.skipped:
        say(f"  memories.jsonl:{line}: skipped: {reason}")

    _section(say, "3. remember: a similar memory is reinforced, a near-miss is not merged")
    for text in ("Remember: the staging database is PostgreSQL 16 and it listens on port 5432.",
                 "The staging database is PostgreSQL 16 and listens on port 5433.",
                 "My email is sam@billing-corp.io; I prefer pytest over unittest."):
        m = repo.remember(text, now=now)
        extra = f" (PII replaced: {', '.join(m.stripped)})" if m.stripped else ""
        say(f"{m.action:<10} {m.id}  importance {m.memory.importance:.2f}  \"{m.memory.content}\"{extra}")

    _section(say, "4. recall: relevance, importance and recency together")
    for hit in repo.recall("which port does the staging database use", k=3, now=now):
        say(f"{hit.score:.3f}  {hit.id}  {' '.join(hit.content.split())[:80]}")

    _section(say, "5. harvest: a Claude Code session becomes an episode and memories")
    for res in repo.harvest([sample / "session-billing.jsonl"], now=now):
        say(f"{res.status}: {res.episode} ({res.created} new memories, {res.reinforced} reinforced)")
    again = repo.harvest([sample / "session-billing.jsonl"], now=now, rescan=True)
    say(f"harvested again: {again[0].status} (no new commit)")
    for res in repo.harvest([sample / "session-with-secret.jsonl"], now=now):
        say(f"{res.status}: {Path(res.path).name}: {res.reason}")

    _section(say, "6. link and why: every memory can say where it came from")
    mems = {m.id: m for m in repo.list().memories}
    a, b = mems.get("demo-8"), mems.get("demo-5")
    if a and b:
        repo.link(a.id, b.id, "related", now=now)
        say(f"linked {a.id} -related-> {b.id}")
        w = repo.why(a.id)
        say(f"{a.id}: source {w.source}")
        for s in w.steps:
            say(f"  {s.commit[:12]}  {s.event:<12} {s.subject}")

    _section(say, "7. reflect and sync-core: patterns, CLAUDE.md layers, core for the next session")
    ref = repo.reflect(now=now)
    say(f"reflect: {len(ref.created)} patterns from {len(ref.consumed)} memories (patterns/, patterns.md)")
    sync = repo.sync_core(now=now)
    say(f"sync-core: CLAUDE.md Layers 2 and 3 regenerated in commit {sync.commit[:12] if sync.commit else '-'}")
    say(repo.load_core(900).text.rstrip())

    _section(say, "8. decay: what is not used fades, and is archived, never deleted")
    later = now + timedelta(days=60)
    dec = repo.decay(now=later)
    say(f"decay as of {later:%Y-%m-%d}: {len(dec.moves)} changes, {len(dec.archived)} archived "
        f"in commit {dec.commit[:12] if dec.commit else '-'}")
    for move in dec.moves[:5]:
        say(f"  {move.id}: {move.change}")
    say("recall still finds archived memories when asked: gitmem recall --all QUERY")

    _section(say, "9. the review loop: sessions move a pattern's weight; a person reviews the update")
    _review_loop(repo, later, say)

    _section(say, "10. git is the audit log: one commit per change")
    say(short_log(root, 40))

    _section(say, "11. dashboard: the memory and its review loop in one HTML file, no network")
    page = _dashboard(repo, root, later + timedelta(hours=7))
    say(f"wrote {page} (open it in a browser; `gitmem dashboard --open` does)")

    _section(say, "12. wire it into your agent")
    say("Claude Code (SessionStart loads the core, SessionEnd harvests the session in the background):")
    say(f"  gitmem install claude-code --repo {root}")
    say("any MCP client: gitmem serve --repo DIR   (pip install 'gitmem-agent[mcp]')")
    _section(say, "next")
    say(f"cd {root}")
    for cmd in ("gitmem list", "gitmem recall --all 'export timeout'", "gitmem why demo-8", "gitmem consolidate",
                "gitmem status", "gitmem log --events", "git log --graph --oneline -8", "cat CLAUDE.md"):
        say(f"  {cmd}")
    return 0



def _dashboard(repo: MemoryRepo, root: Path, now: datetime) -> Path:
    """Write the dashboard beside the memory repository (never inside its work tree)."""
    from gitmem.faces import dashboard
    from gitmem.faces.verbs_dashboard import write_page

    path = root.parent / f"{root.name}-dashboard.html"
    write_page(path, dashboard.render(repo.dashboard_data(now)))
    return path


LOOP_SESSIONS = (
    ("The nightly sync failed again on a flaky network call; add retry with backoff.",
     "Added exponential backoff with jitter around the sync client."),
    ("The upload job hit a timeout; same retry idea please.", "Wrapped the upload in the retry helper with backoff."),
    ("Tests for the new parser, please.", "Added tests for the parser edge cases."),
)


def _session_file(folder: Path, n: int, when: datetime, asked: str, answered: str) -> Path:
    """A small Claude Code transcript: one user turn, one assistant turn."""
    import json

    sid = f"0d3e{n:04d}-demo-4c2a-9f10-loop00000001"
    stamp = when.strftime("%Y-%m-%dT%H:%M:%SZ")
    rows = [{"type": "user", "sessionId": sid, "cwd": "/project", "uuid": f"u{n}", "timestamp": stamp,
             "message": {"role": "user", "content": asked}},
            {"type": "assistant", "sessionId": sid, "cwd": "/project", "uuid": f"a{n}", "timestamp": stamp,
             "message": {"role": "assistant", "content": [{"type": "text", "text": answered}]}}]
    path = folder / f"{sid}.jsonl"
    path.write_text("".join(json.dumps(r) + "\n" for r in rows))
    return path


def _review_loop(repo: MemoryRepo, now: datetime, say: Say) -> None:
    """Pattern, sessions, a proposed weight update, its review and acceptance, a snapshot, a rollback."""
    added = repo.pattern_add("Retry flaky network calls with exponential backoff", ["backoff", "retry"], now=now)
    say(f"pattern add: {added.slug} at weight {added.weight:.2f} (triggers: backoff, retry)")
    with tempfile.TemporaryDirectory(prefix="gitmem-sessions-") as folder:
        files = [_session_file(Path(folder), n, now + timedelta(hours=n + 1), asked, answered)
                 for n, (asked, answered) in enumerate(LOOP_SESSIONS)]
        repo.harvest(files, now=now + timedelta(hours=4))
    say(f"harvested {len(files)} new sessions (two mention backoff, one does not)")
    snap = repo.snapshot(now + timedelta(hours=4))
    say(f"snapshot: {snap.tag} on {snap.commit[:12]}")
    dry = repo.weights(now + timedelta(hours=4))
    for r in dry.rows:
        say(f"weights (dry run): {r.slug}: {r.before:.2f} -> {r.after:.2f} over {r.counted} sessions")
    proposal = repo.propose_weights(now + timedelta(hours=4))
    say(f"weights --propose: one commit on {proposal.branch}; main is unchanged")
    if proposal.branch:
        for line in repo.review_show(proposal.branch).semantic:
            say(f"review show: {line}")
        from gitmem.base.errors import UsageError

        try:   # the person running the demo is the reviewer; under an agent even the demo's accept is refused
            done = repo.review_accept(proposal.branch, i_am_the_reviewer=True, now=now + timedelta(hours=5))
        except UsageError as refused:
            say(f"review accept: refused, {refused.message}; run the demo in your own terminal to see the rest")
            return
        say(f"review accept: merge commit {(done.commit or '')[:12]} with Gitmem-Approved-By")
    back = repo.rollback(snap.tag, i_am_the_reviewer=True, now=now + timedelta(hours=6))
    say(f"rollback {snap.tag}: a new commit {(back.commit or '-')[:12]} with the snapshot's tree "
        f"({len(back.paths)} files); history is kept, so the rollback itself can be undone")
