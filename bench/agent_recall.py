"""A coding agent's recall set: questions an agent asks its memory in the middle of a task.

    python bench/agent_recall.py build [--sessions DIR]     # resolve evidence, write bench/agent-recall/*.jsonl
    python bench/agent_recall.py score [--split dev|holdout|all] [--distractors FILE] [--k 10] [--model SPEC]

The memories in ``bench/agent-recall/memories.jsonl`` are what a careful harvester keeps from the 25
real transcripts of the shared bench (preferences, decisions, project and machine facts, error-to-fix
lessons), each written in its own words with the ids of the transcript records that are its evidence.
Each query names the memories that answer it. The queries of four sessions are the hold-out split:
look at them once, never tune on them.

``score`` builds a memory repository holding every memory (plus, with ``--distractors``, the rows of
another JSONL file such as the LoCoMo dev memories, read in place), asks every question of the split
through the use case (``MemoryRepo.recall``) and prints R@5, R@10 and MRR@10.
``build`` re-reads the transcripts (``--sessions``, default the shared bench folder) to turn the
record-id prefixes in ``agent_recall_data.py`` into full ids and timestamps; it fails on a prefix that
is missing or ambiguous, so the evidence stays checkable.
"""

from __future__ import annotations

import argparse
import json
import statistics
import sys
import tempfile
from datetime import datetime, timezone
from pathlib import Path

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE.parent))
sys.path.insert(0, str(HERE))

OUT = HERE / "agent-recall"
DEFAULT_SESSIONS = HERE.parent.parent / "shared" / "bench" / "sessions"
NOW = datetime(2026, 6, 1, tzinfo=timezone.utc)


def _records(path: Path) -> dict[str, str]:
    """Record id -> timestamp, for every record of one transcript that has an id."""
    out: dict[str, str] = {}
    for line in path.read_text("utf-8", "replace").split("\n"):   # not splitlines: U+2028 sits inside records
        try:
            rec = json.loads(line)
        except ValueError:
            continue
        rid = rec.get("uuid") or rec.get("id")
        if isinstance(rid, str):
            out[rid] = str(rec.get("timestamp") or "")
    return out


def build(sessions: Path) -> None:
    from agent_recall_data import HOLDOUT, M

    files = {p.relative_to(sessions).as_posix(): p for p in sessions.rglob("*") if p.is_file() and p.name != "README.md"}
    memories, queries, problems = [], [], []
    for key, prefix, evidence, domain, project, content, questions in M:
        matches = [name for name in files if name.startswith(prefix)]
        if len(matches) != 1:
            problems.append(f"{key}: {len(matches)} transcripts start with {prefix!r}")
            continue
        records = _records(files[matches[0]])
        ids, stamps = [], []
        for short in evidence:
            full = [r for r in records if r.startswith(short)]
            if len(full) != 1:
                problems.append(f"{key}: {len(full)} records of {matches[0]} start with {short!r}")
                continue
            ids.append(full[0])
            stamps.append(records[full[0]])
        created = min((s for s in stamps if s), default="2026-01-01T00:00:00Z")
        memories.append({"id": f"ar-{key}", "content": content, "domain": domain, "project": project or None,
                         "created": created, "session": matches[0], "evidence": ids})
        split = "holdout" if any(matches[0].split("/", 1)[-1].startswith(h) for h in HOLDOUT) else "dev"
        for n, q in enumerate(questions):
            queries.append({"id": f"q-{key}-{n}", "question": q, "answers": [f"ar-{key}"], "split": split})
    if problems:
        raise SystemExit("evidence that does not resolve:\n  " + "\n  ".join(problems))
    OUT.mkdir(exist_ok=True)
    for name, rows in (("memories.jsonl", memories), ("queries.jsonl", queries)):
        (OUT / name).write_text("".join(json.dumps(r, ensure_ascii=False) + "\n" for r in rows), "utf-8")
    dev = sum(q["split"] == "dev" for q in queries)
    print(f"{len(memories)} memories, {len(queries)} queries ({dev} dev, {len(queries) - dev} hold-out)")


def score(split: str, distractors: Path | None, k: int, verbose: bool = False, expand: bool = False,
          model: str | None = None) -> None:
    from gitmem.api import MemoryRepo

    memories = [json.loads(line) for line in (OUT / "memories.jsonl").read_text("utf-8").splitlines()]
    queries = [json.loads(line) for line in (OUT / "queries.jsonl").read_text("utf-8").splitlines()]
    queries = [q for q in queries if split == "all" or q["split"] == split]
    rows = [{"id": m["id"], "content": m["content"], "domain": m["domain"], "created": m["created"],
             **({"project": m["project"]} if m["project"] else {})} for m in memories]
    if distractors:
        for line in distractors.read_text("utf-8").splitlines():
            d = json.loads(line)
            rows.append({"id": f"d-{d['id']}", "content": d["content"], "created": d.get("created") or
                         "2026-01-01T00:00:00Z"})
    with tempfile.TemporaryDirectory(prefix="gitmem-agent-recall-") as tmp:
        src = Path(tmp) / "rows.jsonl"
        src.write_text("".join(json.dumps(r, ensure_ascii=False) + "\n" for r in rows), "utf-8")
        repo = MemoryRepo.init(Path(tmp) / "mem", NOW, install_hooks=False)
        repo.import_file(src, now=NOW)
        if model:   # the embedding model, named as a person would (git config of the clone)
            import subprocess

            subprocess.run(["git", "config", "gitmem.embed-model", model], cwd=Path(tmp) / "mem", check=True)
        hits5, hits10, rr = [], [], []
        misses = []
        for q in queries:
            ids = [r.id for r in repo.recall(q["question"], k, now=NOW, expand=expand)][:k]
            want = set(q["answers"])
            rank = next((i for i, g in enumerate(ids) if g in want), None)
            hits5.append(rank is not None and rank < 5)
            hits10.append(rank is not None and rank < 10)
            rr.append(0.0 if rank is None else 1.0 / (rank + 1))
            if rank is None:
                misses.append(q["question"])
    n = len(queries)
    print(f"split {split}: {n} questions over {len(rows)} memories ({len(memories)} agent memories)")
    print(f"R@5 {sum(hits5) / n:.3f}  R@10 {sum(hits10) / n:.3f}  MRR@10 {statistics.fmean(rr):.3f}")
    if misses:
        print(f"not in the top {k}: {len(misses)}")
        if verbose:
            print("  " + "\n  ".join(misses))


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    sub = ap.add_subparsers(dest="cmd", required=True)
    b = sub.add_parser("build")
    b.add_argument("--sessions", type=Path, default=DEFAULT_SESSIONS)
    s = sub.add_parser("score")
    s.add_argument("--split", choices=("dev", "holdout", "all"), default="dev")
    s.add_argument("--distractors", type=Path)
    s.add_argument("--k", type=int, default=10)
    s.add_argument("--verbose", action="store_true", help="list the questions whose answer is not in the top k")
    s.add_argument("--expand", action="store_true", help="recall as --expand does (shared rare terms, links)")
    s.add_argument("--model", help="recall with this embedding model too (gitmem.embed-model: a folder or a package)")
    args = ap.parse_args()
    if args.cmd == "build":
        build(args.sessions)
    else:
        score(args.split, args.distractors, args.k, args.verbose, args.expand, args.model)


if __name__ == "__main__":
    main()
