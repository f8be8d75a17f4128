"""Shared by the review-loop tests: sessions written as episode documents, committed by a person."""

from __future__ import annotations

import subprocess
from datetime import datetime, timedelta
from pathlib import Path
from typing import TYPE_CHECKING

from gitmem.base.clock import parse_time
from gitmem.engines.hebbian import session_terms

if TYPE_CHECKING:
    from gitmem.api import MemoryRepo

START = parse_time("2026-11-01T09:00:00Z")


def git(root: Path, *args: str) -> str:
    done = subprocess.run(["git", *args], cwd=root, capture_output=True, text=True)
    assert done.returncode == 0, done.stderr
    return done.stdout.strip()


def add_sessions(root: Path, texts: list[str], start: datetime = START, first: int = 0) -> list[str]:
    """One episode per text, an hour apart from ``start``; one person's commit. Their session ids."""
    ids = []
    for n, text in enumerate(texts, start=first):
        at = (start + timedelta(hours=n - first)).strftime("%Y-%m-%dT%H:%M:%SZ")
        sid = f"00000000-0000-4000-8000-{n:012d}"
        stems, cited = session_terms([text])
        path = root / "episodes" / at[:4] / at[5:7] / f"{sid}.md"
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(f"---\nid: {sid}\ntype: episode\nsession: {sid}\nstarted: '{at}'\nstems: '{stems}'\n"
                        f"cited: '{cited}'\n---\n## Summary\n\nsession {n}\n")
        ids.append(sid)
    git(root, "add", "-A", "episodes")
    git(root, "commit", "-qm", f"sessions {first}..{first + len(texts) - 1}")
    return ids


def write_transcripts(folder: Path, texts: list[str], start: datetime = START) -> list[Path]:
    """One small Claude Code transcript per text (a user turn and an assistant turn), an hour apart."""
    import json

    folder.mkdir(parents=True, exist_ok=True)
    paths = []
    for n, text in enumerate(texts):
        sid = f"11111111-0000-4000-8000-{n:012d}"
        stamp = (start + timedelta(hours=n)).strftime("%Y-%m-%dT%H:%M:%SZ")
        rows = [{"type": "user", "sessionId": sid, "cwd": "/project", "uuid": f"u{n}", "timestamp": stamp,
                 "message": {"role": "user", "content": text}},
                {"type": "assistant", "sessionId": sid, "cwd": "/project", "uuid": f"a{n}", "timestamp": stamp,
                 "message": {"role": "assistant", "content": [{"type": "text", "text": "Done."}]}}]
        path = folder / f"{sid}.jsonl"
        path.write_text("".join(json.dumps(r) + "\n" for r in rows))
        paths.append(path)
    return paths


def proposed(repo: MemoryRepo, sessions: int = 3, now: datetime = parse_time("2026-10-30T12:00:00Z")) -> str:
    """A weights review of one pattern over ``sessions`` sessions that activate it; its branch."""
    repo.pattern_add("Retry flaky calls with backoff", ["backoff"], now=now)
    add_sessions(repo.root, ["backoff helps"] * sessions)
    branch = repo.propose_weights(now=now).branch
    assert branch is not None
    return branch
