"""Index upkeep, full rebuild and decay at scale.

    python bench/lifecycle.py [--size 100000] [--changes 500]

Prints: full index rebuild from git (goal <= 10 s at 100k) next to a raw
FTS5 insert of the same texts, incremental upkeep per changed memory after a
commit (goal <= 0.5 ms) next to a raw FTS5 row update, decay over every memory
(dry run and a real run; the real one archives every memory in ONE commit,
goal <= 30 s at 100k and <= 2x `git fast-import` writing the same tree), next
to reading every memory file from git alone, measured in the same run.
"""

from __future__ import annotations

import argparse
import sqlite3
import subprocess
import sys
import tempfile
import time
from datetime import timedelta
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))
sys.path.insert(0, str(Path(__file__).resolve().parent))

from commit import NOW, build  # noqa: E402
from import_size import fast_import_tree  # noqa: E402

from gitmem.store import documents, refresh, store  # noqa: E402
from gitmem.api import MemoryRepo  # noqa: E402
from gitmem.base.model import Memory, memory_path  # noqa: E402
from gitmem.writer.plan import Plan  # noqa: E402


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--size", type=int, default=100_000)
    ap.add_argument("--changes", type=int, default=500)
    args = ap.parse_args()
    with tempfile.TemporaryDirectory(prefix="gitmem-bench-") as tmp:
        root = Path(tmp) / "mem"
        t0 = time.perf_counter()
        build(root, args.size, stamp="2026-11-28T12:00:00Z")
        print(f"built {args.size} memories in {time.perf_counter() - t0:.1f} s")
        repo = MemoryRepo.open(root)
        git, head = repo.git, repo.head

        t0 = time.perf_counter()
        n = 0
        for path, data in store.iter_files(git, head):
            documents.read_memory(path, data)
            n += 1
        read_s = time.perf_counter() - t0
        print(f"read and parse every memory file from git: {read_s:.2f} s ({n} files, {read_s / n * 1e6:.0f} us each)")

        t0 = time.perf_counter()
        index = refresh.rebuild_file(git, head)
        rebuild_s = time.perf_counter() - t0
        texts = [(f"{r.content}\n{' '.join((*r.keywords, *r.tags))}",) for r in index.rows()]
        raw = sqlite3.connect(str(Path(tmp) / "raw.sqlite"), isolation_level=None)
        raw.execute("CREATE VIRTUAL TABLE t USING fts5 (content, tokenize='porter unicode61 remove_diacritics 2')")
        t0 = time.perf_counter()
        raw.execute("BEGIN")
        raw.executemany("INSERT INTO t (content) VALUES (?)", texts)
        raw.execute("COMMIT")
        raw_s = time.perf_counter() - t0
        print(f"full index rebuild: {rebuild_s:.2f} s ({index.count()} rows; goal <= 10 s at 100k); "
              f"raw FTS5 insert of the same texts {raw_s:.2f} s; ratio {rebuild_s / raw_s:.1f}")

        changes = {}
        for i in range(args.changes):
            mid = f"m-2026-11-29-u{i:06d}"
            m = Memory(id=mid, content=f"upkeep change {i} about kafka partition {i % 31}", created="2026-11-29T12:00:00Z",
                       last_accessed="2026-11-29T12:00:00Z", path=memory_path("project", mid))
            changes[m.path] = store.render(m)
        repo.writer.write(lambda parent: Plan(changes, "bench upkeep", "bench"), NOW)
        t0 = time.perf_counter()
        touched = refresh.sync(index, git, repo.head)
        sync_s = time.perf_counter() - t0
        t0 = time.perf_counter()
        raw.execute("BEGIN")
        for i, (text,) in enumerate(texts[:touched]):
            raw.execute("DELETE FROM t WHERE rowid = ?", (i + 1,))
            raw.execute("INSERT INTO t (rowid, content) VALUES (?, ?)", (i + 1, text + " upkeep"))
        raw.execute("COMMIT")
        raw_row = (time.perf_counter() - t0) / touched
        raw.close()
        print(f"incremental upkeep: {touched} rows in {sync_s * 1000:.0f} ms = {sync_s / touched * 1000:.3f} ms per changed memory "
              f"(goal <= 0.5); raw FTS5 row update {raw_row * 1000:.3f} ms; ratio {sync_s / touched / raw_row:.1f}")
        index.close()

        # The default caps keep 100 short-term and 500 long-term memories live;
        # raise them so the first runs measure examining every memory.
        cfg_path = root / "gitmem.yaml"
        cfg_path.write_text(cfg_path.read_text().replace("max_short_term: 100", "max_short_term: 10000000")
                            .replace("max_long_term: 500", "max_long_term: 10000000"))
        subprocess.run(["git", "commit", "-qam", "raise caps"], cwd=root, check=True)
        repo = MemoryRepo.open(root)
        later = NOW + timedelta(days=60)
        for label, now, dry in (("decay, nothing due (examines every memory, no commit)", NOW, False),
                                ("decay, dry run, 60 days later (every memory due)", later, True),
                                ("decay, 60 days later: ONE commit archiving every memory", later, False)):
            t0 = time.perf_counter()
            report = repo.decay(now=now, dry_run=dry)
            decay_s = time.perf_counter() - t0
            print(f"{label}: {decay_s:.2f} s ({report.examined} examined, {len(report.moves)} moves)")
        if report.commit is not None:
            fi_s, tree = fast_import_tree(repo.git, report.commit, Path(tmp))
            same = "the same tree" if tree == repo.git.tree_id(report.commit) else "ANOTHER TREE"
            print(f"git fast-import writing that commit's whole tree into an empty repository: {fi_s:.2f} s ({same}); "
                  f"decay / fast-import {decay_s / fi_s:.1f} (goal <= 2, and <= 30 s at 100k)")


if __name__ == "__main__":
    main()
