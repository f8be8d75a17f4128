"""The sedimentation loop's cost per step on a real memory repository, as the bank grows.

    python bench/sediment.py [--entries 50] [--threads 10]

Prints the median milliseconds of reflect, like, distill, promote (a review branch
and its mark on main) and accept over --entries reflections, the size the bank
reaches, and the wall time of --threads threads promoting at once (each opens
its own repository), with the count of review branches they left.
"""

from __future__ import annotations

import argparse
import statistics
import sys
import tempfile
import threading
import time
from datetime import timedelta
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from gitmem.api import MemoryRepo  # noqa: E402
from gitmem.base.clock import parse_time  # noqa: E402

T0 = parse_time("2026-12-01T10:00:00Z")
TOPICS = ["deploy", "clock", "lockfile", "env", "index", "branch", "cache", "config", "port", "disk", "unicode",
          "retry", "timeout", "schema", "queue", "token", "locale", "backup", "mirror", "quota"]


def ms(start: float) -> float:
    return (time.perf_counter() - start) * 1000


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--entries", type=int, default=50)
    ap.add_argument("--threads", type=int, default=10)
    args = ap.parse_args()
    with tempfile.TemporaryDirectory() as tmp:
        repo = MemoryRepo.init(Path(tmp) / "mem", T0, install_hooks=False)
        times: dict[str, list[float]] = {k: [] for k in ("reflect", "like", "distill", "promote", "accept")}
        for n in range(args.entries):
            now = T0 + timedelta(hours=n)
            word = f"{TOPICS[n % len(TOPICS)]} {n} {TOPICS[(n * 7) % len(TOPICS)]}"
            t = time.perf_counter()
            made = repo.sediment_reflect(topic=f"{word} broke", context=f"the {word} step failed in run {n}",
                                         approach=f"found the {word} cause number {n}", result="good", score=4,
                                         reusable=f"check the {word} first, case {n}", kind="error_fix", now=now)
            times["reflect"].append(ms(t))
            assert made.reflection is not None
            rid = made.reflection.id
            t = time.perf_counter()
            repo.sediment_like(rid, now=now + timedelta(minutes=1))
            times["like"].append(ms(t))
            t = time.perf_counter()
            repo.sediment_distill(rid, now=now + timedelta(minutes=2))
            times["distill"].append(ms(t))
            t = time.perf_counter()
            [p] = repo.sediment_promote(rid, now=now + timedelta(minutes=3))
            times["promote"].append(ms(t))
            t = time.perf_counter()
            repo.review_accept(p.branch or "", i_am_the_reviewer=True, now=now + timedelta(minutes=4))
            times["accept"].append(ms(t))
        bank = Path(repo.root) / "bank"
        print(f"{args.entries} reflections; bank/reflections.md {(bank / 'reflections.md').stat().st_size} bytes, "
              f"bank/TABOOS.md {(bank / 'TABOOS.md').stat().st_size} bytes")
        for step, values in times.items():
            print(f"{step:<8} median {statistics.median(values):7.1f} ms   first {values[0]:7.1f} ms   "
                  f"last {values[-1]:7.1f} ms")
        later = T0 + timedelta(hours=args.entries + 1)
        ids = []
        for n in range(args.threads):
            made = repo.sediment_reflect(topic=f"parallel {n} {TOPICS[n % len(TOPICS)]}",
                                         context=f"thread case {n}", approach=f"approach {n} {TOPICS[-n % 20]}",
                                         result="good", score=5, reusable=f"parallel rule {n}", kind="error_fix",
                                         now=later + timedelta(minutes=n))
            assert made.reflection is not None
            ids.append(made.reflection.id)
        root = repo.root
        t = time.perf_counter()
        threads = [threading.Thread(target=lambda i=i: MemoryRepo.open(root).sediment_promote(
            i, now=later + timedelta(hours=1))) for i in ids]
        for th in threads:
            th.start()
        for th in threads:
            th.join()
        opened = len(MemoryRepo.open(root).reviews())
        print(f"{args.threads} threads promoting at once: {ms(t):.0f} ms wall, {opened} review branches")


if __name__ == "__main__":
    main()
