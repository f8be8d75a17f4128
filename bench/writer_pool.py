"""The writer's thread pool for a large change (a decay's or an import's work-tree files), sized to the
machine (``staging.workers``: two threads per usable processor, at most 8) against the fixed 8 threads it
used before, in the same run, interleaved (``--also 1 2``: other sizes beside them).

    python bench/writer_pool.py [--files 20000] [--reps 5] [--dir DIR]

Each rep moves ``--files`` memory-sized files (deletes them from one folder, writes them to another,
as an archive move does) with each pool size; prints the medians and their ratio, and the spread
(slowest / fastest rep) of each, which is what 8 threads on 2 cores made large.
"""

from __future__ import annotations

import argparse
import statistics
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from gitmem.base.gitio import staging  # noqa: E402


def move(root: Path, n: int, src: str, dst: str) -> float:
    body = b"---\nid: m\ntype: fact\nimportance: 0.5\n---\n" + b"the build step caches a layer " * 8
    changes: dict[str, bytes | None] = {f"{src}/d{i % 64}/m{i}.md": None for i in range(n)}
    changes.update({f"{dst}/d{i % 64}/m{i}.md": body for i in range(n)})
    start = time.perf_counter()
    staging.write_files(root, root / ".git", changes, frozenset())
    return time.perf_counter() - start


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--files", type=int, default=20_000)
    ap.add_argument("--reps", type=int, default=5)
    ap.add_argument("--dir", help="build under this folder (default: the system's temporary folder)")
    ap.add_argument("--also", type=int, nargs="*", default=[], metavar="N", help="other pool sizes to time too")
    args = ap.parse_args()
    sized = staging.workers()
    times: dict[int, list[float]] = {n: [] for n in dict.fromkeys([sized, 8, *args.also])}
    with tempfile.TemporaryDirectory(dir=args.dir) as tmp:
        root = Path(tmp)
        (root / ".git").mkdir()
        staging.write_files(root, root / ".git", {f"a/d{i % 64}/m{i}.md": b"x" for i in range(args.files)}, frozenset())
        where = ["a", "b"]
        for rep in range(args.reps):
            order = list(times)
            for threads in (order if rep % 2 == 0 else order[::-1]):   # interleaved, the order alternating
                original = staging.workers
                staging.workers = lambda threads=threads: threads   # type: ignore[misc]
                try:
                    times[threads].append(move(root, args.files, where[0], where[1]))
                finally:
                    staging.workers = original   # type: ignore[misc]
                where.reverse()
    for threads, got in times.items():
        print(f"{threads} threads: median {statistics.median(got):.3f} s, spread {max(got) / min(got):.2f}x "
              f"over {len(got)} reps of {args.files} files moved")
    for threads in times:
        print(f"ratio {threads} threads / fixed 8: {statistics.median(times[threads]) / statistics.median(times[8]):.2f}"
              + (" (the pool as sized now)" if threads == sized else ""))


if __name__ == "__main__":
    main()
