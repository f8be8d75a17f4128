"""What harvest keeps from the 25 bench sessions, against durable memories labelled by hand.

Run by hand from the repository root:

    PYTHONPATH=. python bench/harvest_quality.py [FOLDER]

Harvests every transcript of FOLDER (default ``$GITMEM_BENCH_DIR`` or
``../shared/bench/sessions``, read in place) into one fresh memory repository
with the default encoder, then matches each created memory to the labels of
``tests/fixtures/harvest_labels.jsonl`` (a label matches a memory of its own
session when every one of its ``keys`` patterns is found in the memory, or when
the two texts are near duplicates by ``similarity``). Prints recall and
precision on the tune part and on the hold-out part separately, then the full
keep/drop table: every memory created, its session, kind and whether a label
(a person's judgement) keeps it.
"""

from __future__ import annotations

import json
import os
import re
import sys
import tempfile
from collections import defaultdict
from datetime import datetime, timezone
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from gitmem.api import MemoryRepo  # noqa: E402
from gitmem.base.model import Memory  # noqa: E402
from gitmem.engines import similarity  # noqa: E402

LABELS = Path(__file__).resolve().parent.parent / "tests" / "fixtures" / "harvest_labels.jsonl"
NOW = datetime(2026, 11, 30, 12, 0, tzinfo=timezone.utc)


def default_folder() -> Path:
    """The shared bench folder: env ``GITMEM_BENCH_DIR``/sessions or ``../shared/bench/sessions``."""
    env = os.environ.get("GITMEM_BENCH_DIR")
    return Path(env) / "sessions" if env else Path(__file__).resolve().parents[2] / "shared" / "bench" / "sessions"


def load_labels() -> tuple[dict[str, str], dict[str, list[dict[str, object]]]]:
    """(split of each session, labels of each session)."""
    split: dict[str, str] = {}
    labels: dict[str, list[dict[str, object]]] = defaultdict(list)
    for line in LABELS.read_text(encoding="utf-8").splitlines():
        if line.strip():
            rec = json.loads(line)
            split[rec["session"]] = rec["split"]
            if rec["gist"]:
                labels[rec["session"]].append(rec)
    return split, labels


def matches(label: dict[str, object], text: str) -> bool:
    """Whether a memory's text carries the labelled memory."""
    keys = label.get("keys") or []
    assert isinstance(keys, list)
    if keys and all(re.search(str(k), text, re.I) for k in keys):
        return True
    return similarity.similarity(str(label["gist"]), text) >= 0.5


def harvest_all(folder: Path) -> tuple[dict[str, list[Memory]], dict[str, str]]:
    """Memories created per session file name, and each memory's signal kind."""
    with tempfile.TemporaryDirectory(prefix="gitmem-hq-") as tmp:
        root = Path(tmp) / "mem"
        MemoryRepo.init(root, now=NOW, install_hooks=False)
        repo = MemoryRepo.open(root)
        results = repo.harvest([folder], now=NOW)
        by_session = {r.session_id: Path(r.path).name for r in results if r.session_id}
        created: dict[str, list[Memory]] = defaultdict(list)
        kinds: dict[str, str] = {}
        for m in repo.list().memories:
            sid = m.source.removeprefix("session:").split("#L")[0]
            if sid in by_session:
                created[by_session[sid]].append(m)
                kinds[m.id] = next((t for t in m.tags if t != "harvest"), "")
        for r in results:
            if r.status not in ("harvested", "updated", "unchanged"):
                print(f"  note: {Path(r.path).name}: {r.status} {r.reason}")
        return created, kinds


def main() -> None:
    folder = Path(sys.argv[1]) if len(sys.argv) > 1 else default_folder()
    split, labels = load_labels()
    created, kinds = harvest_all(folder)
    rows: list[tuple[str, str, str, str, str]] = []
    figures: dict[str, dict[str, int]] = {p: defaultdict(int) for p in ("tune", "holdout")}
    for session in sorted(split):
        part = figures[split[session]]
        mems = created.get(session, [])
        found = [any(matches(lab, m.content) for m in mems) for lab in labels[session]]
        part["labels"] += len(found)
        part["recalled"] += sum(found)
        for m in mems:
            keep = any(matches(lab, m.content) for lab in labels[session])
            part["created"] += 1
            part["kept"] += keep
            rows.append((split[session], session[:28], kinds.get(m.id, ""), "keep" if keep else "drop", m.content[:90]))
    for name, f in figures.items():
        recall = f["recalled"] / f["labels"] if f["labels"] else 0.0
        precision = f["kept"] / f["created"] if f["created"] else 0.0
        print(f"{name:8s} labels {f['labels']:3d}  recalled {f['recalled']:3d}  recall {recall:.2f}   "
              f"created {f['created']:3d}  kept {f['kept']:3d}  precision {precision:.2f}")
    total = sum(f["created"] for f in figures.values())
    kept = sum(f["kept"] for f in figures.values())
    print(f"all 25 sessions: {total} memories created, {kept} kept ({kept / total if total else 0:.0%})\n")
    print("part     session                      kind        verdict  memory")
    for part_name, session, kind, verdict, text in rows:
        print(f"{part_name:8s} {session:28s} {kind:11s} {verdict:7s}  {text}")


if __name__ == "__main__":
    main()
