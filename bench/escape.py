"""Cost of the one Markdown escaper on hostile lines, next to plain prose of the same length.

    python bench/escape.py [--lengths 1000,10000,50000] [--runs 5]

A line of nested list markers (``- - - … x``) or block quotes makes the escaper
step through every container; each step must stay constant time, so the
hostile/plain ratio should not grow with the length. Prints medians (ms) and
ratios measured in the same run.
"""

from __future__ import annotations

import argparse
import statistics
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from gitmem.base import mdio  # noqa: E402

SHAPES = {
    "list markers": lambda n: ("- " * (n // 2))[:n - 1] + "x",
    "block quotes": lambda n: ("> " * (n // 2))[:n - 1] + "x",
    "ordered markers": lambda n: ("1. " * (n // 3))[:n - 1] + "x",
    "rule": lambda n: "- " * (n // 2),
}


def median_ms(text: str, runs: int, item: bool = False) -> float:
    times = []
    for _ in range(runs):
        start = time.perf_counter()
        (mdio.escape_item if item else mdio.escape)(text)
        times.append((time.perf_counter() - start) * 1000)
    return statistics.median(times)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--lengths", default="1000,10000,50000")
    parser.add_argument("--runs", type=int, default=5)
    args = parser.parse_args()
    for n in (int(x) for x in args.lengths.split(",")):
        plain = median_ms("word " * (n // 5), args.runs)
        print(f"length {n}: plain prose {plain:.2f} ms")
        for name, shape in SHAPES.items():
            ms = median_ms(shape(n), args.runs)
            print(f"  {name:16} {ms:9.2f} ms  x{ms / max(plain, 1e-6):.1f} of plain")


if __name__ == "__main__":
    main()
