"""The harvest inbox as it grows: the cost of one harvest's addition, of `review show`, of `accept --only`.

    python bench/inbox.py [--sessions 100] [--items 3] [--memories 200]

A memory repository holding ``--memories`` memories receives ``--sessions``
harvests' unsure memories (``--items`` each) through the inbox use case, each
after a commit on main (as a harvest's episode is); the time of each addition
is printed by tenths, so a cost that grows with the inbox shows. Then the
inbox is shown and accepted keeping every other item.
"""

from __future__ import annotations

import argparse
import shutil
import statistics
import sys
import tempfile
import time
from datetime import timedelta
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from gitmem.api import MemoryRepo  # noqa: E402
from gitmem.api import inbox  # noqa: E402
from gitmem.base import clock  # noqa: E402
from gitmem.engines.harvest import planning  # noqa: E402
from gitmem.engines.harvest.signals import Signal  # noqa: E402

NOW = clock.parse_time("2026-11-29T12:00:00Z")
TOPICS = ["deploy", "backoff", "kafka", "schema", "lint", "cache", "retry", "index", "token", "review", "pnpm",
          "docker", "nginx", "redis", "celery", "vite", "eslint", "mypy", "terraform", "helm"]


def statement(n: int) -> str:
    a, b = TOPICS[n % len(TOPICS)], TOPICS[(n // len(TOPICS)) % len(TOPICS)]
    return f"The {a} step of service {n} runs after {b} on port {10000 + n}."


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--sessions", type=int, default=100)
    ap.add_argument("--items", type=int, default=3)
    ap.add_argument("--memories", type=int, default=200)
    args = ap.parse_args()
    tmp = Path(tempfile.mkdtemp(prefix="gitmem-inbox-bench-"))
    try:
        repo = MemoryRepo.init(tmp / "mem", NOW - timedelta(days=1), install_hooks=False)
        for n in range(args.memories):
            repo.remember(f"Background fact {n}: the {TOPICS[n % 20]} job {n} keeps {n % 7} replicas.", now=NOW)
        times = []
        for s in range(args.sessions):
            repo.remember(f"Episode stand-in {s}: session {s} touched {TOPICS[s % 20]}.", now=NOW)  # main moves
            mems = [planning.harvested_memory(f"s-{s:04d}", Signal(statement(s * args.items + i), "fact", i + 1,
                                                                   inbox=True), NOW, repo.cfg.memory)
                    for i in range(args.items)]
            start = time.perf_counter()
            added = inbox.add(repo, mems, NOW, f"s-{s:04d}")
            times.append(time.perf_counter() - start)
            assert added is not None and added.added == args.items
        tenth = max(1, len(times) // 10)
        print(f"inbox add, {args.items} items a harvest, over a repository of {args.memories} memories:")
        for k in range(0, len(times), tenth):
            chunk = times[k:k + tenth]
            print(f"  harvests {k + 1:4d}-{k + len(chunk):4d}: median {statistics.median(chunk) * 1000:7.1f} ms")
        [review] = repo.reviews()
        start = time.perf_counter()
        shown = repo.review_show(review.name)
        show = time.perf_counter() - start
        keep = ",".join(str(i.number) for i in shown.items if i.number % 2)
        start = time.perf_counter()
        done = repo.review_accept(review.name, only=keep, i_am_the_reviewer=True, now=NOW)
        accept = time.perf_counter() - start
        print(f"review show of {len(shown.items)} items: {show * 1000:.0f} ms")
        print(f"review accept --only ({done.kept} kept, {done.dropped} dropped, one merge): {accept * 1000:.0f} ms")
    finally:
        shutil.rmtree(tmp, ignore_errors=True)


if __name__ == "__main__":
    main()
