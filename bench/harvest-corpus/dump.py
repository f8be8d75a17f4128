"""Dump the harvest candidates of the corpus sessions, sampled for labelling.

Run by hand from the repository root, after ``rebuild.py``:

    PYTHONPATH=. python bench/harvest-corpus/dump.py SESSIONS OUT [--manifest FILE] [--per-speaker N]

SESSIONS is the folder ``rebuild.py`` wrote (``<id>.jsonl``); OUT is a folder
outside this repository. Each session is read as harvest reads it
(``planning.read_session``: screened for secrets, every text redacted by the
default redactor with the user names its own paths teach) and its candidates
are taken by ``candidates.extract``. For each session OUT gets:

- ``<id>.jsonl``: the sampled candidates, in transcript order, one object each:
  ``key``, ``speaker``, ``text``, the context flags (``turn``, ``position``,
  ``after_error``, ``then_passed``, ``fixed``, ``tool_before``), ``next_user`` and the
  previous and next statement (``prev``, ``next``: speaker and text, clipped);
- a line in ``index.jsonl``: how many candidates each speaker had and how many
  were sampled (to reweight figures), and whether the scanner refused the session.

Sampling: every user candidate (at most N, drawn at random if more) and at most
N assistant candidates drawn uniformly at random; the draw is seeded by the
session id, so a rerun samples the same candidates.

A session the scanner refuses is reported in ``refused.jsonl`` (id and the
findings: kind and place, never the value) and still dumped: its texts are
redacted as if the findings were allowed (so the keys are those a harvest that
accepts them would compute), and the found values are masked in ``text``.
"""

from __future__ import annotations

import argparse
import json
import random
import sys
from collections import Counter
from pathlib import Path
from typing import Any, Sequence

from gitmem.base.config import Config
from gitmem.engines.harvest import candidates, planning
from gitmem.engines.harvest.candidates import Candidate
from gitmem.guards import pii, redact

HERE = Path(__file__).resolve().parent
PROJECT = HERE.parents[1]
CLIP = 240
SALT = b"gitmem-harvest-corpus"


class Redactor:
    """The default redaction of harvest, with the secret findings it meets kept aside instead of refusing."""

    def __init__(self, cfg: Config) -> None:
        self.cfg = cfg
        self.allow = redact.allowlist(cfg)
        self.secrets: list[str] = []

    def findings(self, text: str, names: Sequence[str], scanned: Sequence[pii.Finding] | None = None) -> list[pii.Finding]:
        found = redact._active(list(scanned) if scanned is not None else pii.scan(text, self.allow), self.cfg)
        known = pii.Names(SALT, frozenset()).plus(names)
        return found + pii.find_names(text, known) if known.hashes else found

    def __call__(self, text: str, names: Sequence[str], scanned: Sequence[pii.Finding] | None = None) -> str:
        found = self.findings(text, names, scanned)   # the screen's scan of the text, when it has one
        if not found:
            return text
        plain = [f for f in found if not f.secret]
        secret = [f for f in found if f.secret]
        clean = redact.replace(text, plain) if plain else text
        self.secrets += [pii.describe(text, f) for f in secret]
        return clean


def mask(text: str, redactor: Redactor) -> str:
    """``text`` with any secret value it holds masked (display only; keys use the text as harvest has it)."""
    if not redactor.secrets:
        return text
    secret = [f for f in pii.scan(text, redactor.allow) if f.secret]
    return redact.replace(text, secret) if secret else text


def sample(found: Sequence[Candidate], session: str, per_speaker: int) -> list[int]:
    """Indexes of the candidates to label: users (all, or ``per_speaker`` at random), ``per_speaker`` assistants."""
    rng = random.Random(f"corpus-sample:{session}")
    picked: list[int] = []
    for speaker in ("user", "assistant"):
        idx = [n for n, c in enumerate(found) if c.speaker == speaker]
        picked += idx if len(idx) <= per_speaker else rng.sample(idx, per_speaker)
    return sorted(picked)


def neighbour(found: Sequence[Candidate], n: int, redactor: Redactor) -> dict[str, str] | None:
    if not 0 <= n < len(found):
        return None
    return {"speaker": found[n].speaker, "text": mask(found[n].text, redactor)[:CLIP]}


def record(found: Sequence[Candidate], n: int, redactor: Redactor) -> dict[str, Any]:
    c = found[n]
    return {"key": c.key(), "speaker": c.speaker, "text": mask(c.text, redactor), "turn": c.turn, "position": c.position,
            "after_error": c.after_error, "then_passed": c.then_passed, "fixed": c.fixed, "tool_before": c.tool_before,
            "next_user": mask(c.next_user, redactor)[:CLIP], "prev": neighbour(found, n - 1, redactor),
            "next": neighbour(found, n + 1, redactor)}


def dump_one(entry: dict[str, Any], sessions: Path, out: Path, cfg: Config, per_speaker: int) -> dict[str, Any]:
    path = sessions / f"{entry['id']}.jsonl"
    redactor = Redactor(cfg)
    session = planning.read_session(path, entry["format"], redactor.allow, redactor)
    transcript = session.transcript
    if session.secrets:   # harvest leaves such a transcript unredacted; redact it as if the findings were allowed
        transcript = planning._redacted(transcript, path, redactor)
    found = candidates.extract(transcript)
    picked = sample(found, entry["id"], per_speaker)
    with (out / f"{entry['id']}.jsonl").open("w", encoding="utf-8") as fh:
        for n in picked:
            fh.write(json.dumps(record(found, n, redactor), ensure_ascii=False) + "\n")
    total = Counter(c.speaker for c in found)
    taken = Counter(found[n].speaker for n in picked)
    refused = list(session.secrets) + [f"{s} (in the text of an event)" for s in dict.fromkeys(redactor.secrets)]
    return {"session": entry["id"], "format": entry["format"], "language": entry["language"], "split": entry["split"],
            "candidates": {"user": total["user"], "assistant": total["assistant"]},
            "sampled": {"user": taken["user"], "assistant": taken["assistant"]}, "refused": refused}


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("sessions", type=Path, help="the folder rebuild.py wrote")
    ap.add_argument("out", type=Path, help="folder for the dumps (outside this repository)")
    ap.add_argument("--manifest", type=Path, default=HERE / "manifest.jsonl")
    ap.add_argument("--per-speaker", type=int, default=30)
    args = ap.parse_args(argv)
    out = args.out.resolve()
    if out == PROJECT or PROJECT in out.parents:
        print(f"error: {out} is inside the repository; dumps hold other people's words and stay outside it", file=sys.stderr)
        return 2
    out.mkdir(parents=True, exist_ok=True)
    cfg = Config()
    entries = [json.loads(line) for line in args.manifest.read_text(encoding="utf-8").splitlines() if line.strip()]
    rows, missing = [], 0
    for entry in entries:
        if not (args.sessions / f"{entry['id']}.jsonl").exists():
            missing += 1
            continue
        rows.append(dump_one(entry, args.sessions, out, cfg, args.per_speaker))
    with (out / "index.jsonl").open("w", encoding="utf-8") as fh:
        fh.writelines(json.dumps(r, ensure_ascii=False) + "\n" for r in rows)
    with (out / "refused.jsonl").open("w", encoding="utf-8") as fh:
        fh.writelines(json.dumps({"session": r["session"], "findings": r["refused"]}) + "\n" for r in rows if r["refused"])
    cands = Counter()
    for r in rows:
        for k in ("user", "assistant"):
            cands[f"{k} candidates"] += r["candidates"][k]
            cands[f"{k} sampled"] += r["sampled"][k]
    print(f"{len(rows)} sessions dumped to {out} ({missing} missing from {args.sessions}); "
          f"{sum(1 for r in rows if r['refused'])} refused by the scanner; " + ", ".join(f"{v} {k}" for k, v in cands.items()))
    return 0


if __name__ == "__main__":
    sys.exit(main())
