"""`gitmem dashboard` on a repository of N memories with a weight history, next to `gitmem list` on the same
repository in the same run (both as a person runs them: a fresh process each).

    python bench/dashboard.py [--size 1000] [--patterns 20] [--updates 40] [--runs 3]

The repository: N memories in one commit, then P patterns whose weights
``--updates`` applied weight updates move (one session commit and one weight
commit each), so the page's git-history walk has real history to read.
Prints the median wall time of each command, their ratio and the page's size.
"""

from __future__ import annotations

import argparse
import statistics
import subprocess
import sys
import tempfile
import time
from datetime import timedelta
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))
sys.path.insert(0, str(Path(__file__).resolve().parent))
sys.path.insert(0, str(Path(__file__).resolve().parent.parent / "tests"))

from commit import NOW, build  # noqa: E402
from loop_helpers import add_sessions, git  # noqa: E402

from gitmem.api import MemoryRepo  # noqa: E402

WORDS = ["deploy", "backoff", "kafka", "schema", "lint", "cache", "retry", "index", "docs", "review"]


def history(root: Path, patterns: int, updates: int) -> None:
    config = root / "gitmem.yaml"
    config.write_text(config.read_text().replace("forced_review_after: 3", "forced_review_after: 100"))
    git(root, "commit", "-qam", "allow many automatic updates")
    repo = MemoryRepo.open(root)
    for i in range(patterns):
        repo.pattern_add(f"Rule {i} about {WORDS[i % 10]}", [WORDS[i % 10], f"w{i}"], now=NOW)
    for n in range(updates):
        at = NOW + timedelta(days=n + 1)
        add_sessions(root, [f"{WORDS[n % 10]} and {WORDS[(n * 3) % 10]}"], at, first=n)
        repo.apply_weights(now=at + timedelta(hours=1))


def timed(cmd: list[str], cwd: Path, runs: int) -> float:
    times = []
    for _ in range(runs):
        t0 = time.perf_counter()
        subprocess.run(cmd, cwd=cwd, check=True, capture_output=True)
        times.append(time.perf_counter() - t0)
    return statistics.median(times)


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--size", type=int, default=1000)
    ap.add_argument("--patterns", type=int, default=20)
    ap.add_argument("--updates", type=int, default=40)
    ap.add_argument("--runs", type=int, default=3)
    args = ap.parse_args()
    exe = str(Path(sys.executable).with_name("gitmem"))
    with tempfile.TemporaryDirectory(prefix="gitmem-bench-") as tmp:
        root = Path(tmp) / "mem"
        t0 = time.perf_counter()
        build(root, args.size)
        history(root, args.patterns, args.updates)
        commits = git(root, "rev-list", "--count", "HEAD")
        print(f"built {args.size} memories, {args.patterns} patterns, {args.updates} weight updates "
              f"({commits} commits) in {time.perf_counter() - t0:.1f} s")
        now = ["--now", (NOW + timedelta(days=args.updates + 2)).strftime("%Y-%m-%dT%H:%M:%SZ")]
        page = Path(tmp) / "dashboard.html"
        listing = timed([exe, *now, "list"], root, args.runs)
        board = timed([exe, *now, "dashboard", "-o", str(page)], root, args.runs)
        print(f"gitmem list:      {listing:.2f} s (median of {args.runs})")
        print(f"gitmem dashboard: {board:.2f} s (median of {args.runs}), {board / listing:.1f}x list")
        print(f"page: {page.stat().st_size / 1024:.0f} KiB")


if __name__ == "__main__":
    main()
