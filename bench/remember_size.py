"""Cost of `remember` by text size, and how long a small write waits behind a large one (run by hand).

    python bench/remember_size.py [--kib 1000] [--memories 200]

Builds a memory repository of ``--memories`` short memories, then measures in
the same run: a small ``remember``; a ``remember`` of a ~``--kib`` KiB text
(new, then the same text again: reinforced by exact equality, the only way a
text over the compare cap can be); the encoder and the duplicate scoring
alone on the large text; and a small ``remember`` started in another process
while the large one is written (it starts once the large text is encoded),
with the time it took. Ratios are against the
small ``remember``. Figures are wall-clock seconds on a shared machine: read
the ratios, not the absolutes.
"""

from __future__ import annotations

import argparse
import subprocess
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from gitmem.api import MemoryRepo  # noqa: E402
from gitmem.base import clock  # noqa: E402
from gitmem.engines import encode, similarity  # noqa: E402

NOW = clock.parse_time("2026-03-01T10:00:00Z")
_SMALL_WRITER = """
import sys, time
from gitmem.api import MemoryRepo
repo = MemoryRepo(sys.argv[1])
time.sleep(float(sys.argv[2]))   # arrive after the large text is encoded, while it is written
start = time.perf_counter()
repo.remember("The coffee machine on floor 2 is broken again")
print(time.perf_counter() - start)
"""


def _large(kib: int) -> str:
    words = "deploy the staging database on port before review merge tests Alice GitHub config.yaml".split()
    out: list[str] = []
    size, n = 0, 0
    while size < kib * 1024 - 64:
        word = f"{words[n % len(words)]}{n % 97}" if n % 7 == 0 else words[n % len(words)]
        out.append(word)
        size += len(word) + 1
        n += 1
    return " ".join(out)


def _timed(label: str, seconds: float, base: float) -> None:
    print(f"  {label:<44} {seconds:8.3f} s  x{seconds / base:7.1f}")


def main() -> None:
    """Print the figures."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--kib", type=int, default=1000)
    parser.add_argument("--memories", type=int, default=200)
    args = parser.parse_args()
    big = _large(args.kib)
    with tempfile.TemporaryDirectory() as tmp:
        root = Path(tmp) / "mem"
        repo = MemoryRepo.init(root, NOW, install_hooks=False)
        repo = MemoryRepo(root)
        for n in range(args.memories):
            repo.remember(f"fact {n}: service {n} listens on port {8000 + n}", now=NOW)
        start = time.perf_counter()
        repo.remember("The staging database listens on port 5432", now=NOW)
        base = time.perf_counter() - start
        print(f"remember by size ({args.memories} memories stored, compare cap {similarity.COMPARE_CHARS} chars)")
        _timed("small remember (baseline)", base, base)
        start = time.perf_counter()
        enc = encode.encode(big)
        encoded = time.perf_counter() - start
        _timed(f"encode {len(big) // 1024} KiB", encoded, base)
        start = time.perf_counter()
        repo.prescan(big, enc.domain, enc.keywords)
        _timed(f"search + score {len(big) // 1024} KiB (no lock)", time.perf_counter() - start, base)
        writer = subprocess.Popen([sys.executable, "-c", _SMALL_WRITER, str(root), str(encoded + 1.0)], stdout=subprocess.PIPE, text=True)
        start = time.perf_counter()
        first = repo.remember(big, now=NOW)
        _timed(f"remember {len(big) // 1024} KiB ({first.action})", time.perf_counter() - start, base)
        out, _ = writer.communicate()
        _timed("small remember in another process, meanwhile", float(out.strip() or "nan"), base)
        start = time.perf_counter()
        again = repo.remember(big, now=NOW)
        _timed(f"remember {len(big) // 1024} KiB again ({again.action})", time.perf_counter() - start, base)


if __name__ == "__main__":
    main()
