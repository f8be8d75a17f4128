"""Throughput of transcript reading and episode extraction (MB/s), per format.

Run by hand from the repository root:

    PYTHONPATH=. python bench/harvest.py [--repeat N] [FOLDER]

FOLDER defaults to ``$GITMEM_BENCH_DIR`` or ``../shared/bench/sessions`` (the
real transcripts kept beside the repository, never copied into it). Each file
is read and extracted ``--repeat`` times; the best round counts, so the figure
is the code's speed rather than the machine's noise. Prints read-only and
read+extract figures per format and in total, and the same extraction with
the rule signals only (the learned scorer switched off: harvest as it was
before the scorer), in the same run, and a whole session as harvest reads it
(``planning.read_session``: the secret screen, the reading and the episode,
without redaction).
"""

from __future__ import annotations

import argparse
import os
import sys
import time
from collections import defaultdict
from pathlib import Path

from gitmem.engines.harvest import planning, scorer
from gitmem.engines.harvest.episodes import extract
from gitmem.engines.harvest.reader import read
from gitmem.engines.harvest.sources import detect_format, discover


def default_folder() -> Path:
    """The shared bench folder: env ``GITMEM_BENCH_DIR`` or ``../shared/bench/sessions``."""
    env = os.environ.get("GITMEM_BENCH_DIR")
    return Path(env) if env else Path(__file__).resolve().parents[2] / "shared" / "bench" / "sessions"


def rules_only(t: object, rules: object = (), model: object = None) -> tuple[object, ...]:
    """``scorer.find_signals`` switched off: the rule signals alone, as harvest had them before the scorer."""
    return tuple(rules)  # type: ignore[call-overload]


def best_time(path: Path, fmt: str, repeat: int, with_extract: bool, scored: bool = True) -> float:
    """Best wall time of ``repeat`` rounds of read (and extract) of one file."""
    shipped = scorer.find_signals
    if not scored:
        scorer.find_signals = rules_only  # type: ignore[assignment]
    try:
        return _best_time(path, fmt, repeat, with_extract)
    finally:
        scorer.find_signals = shipped


def session_time(path: Path, fmt: str, repeat: int) -> float:
    """Best wall time of ``repeat`` rounds of reading one session as harvest does (screen, read, episode)."""
    best = float("inf")
    for _ in range(repeat):
        start = time.perf_counter()
        planning.read_session(path, fmt, None)
        best = min(best, time.perf_counter() - start)
    return best


def _best_time(path: Path, fmt: str, repeat: int, with_extract: bool) -> float:
    best = float("inf")
    for _ in range(repeat):
        start = time.perf_counter()
        transcript = read(path, fmt=fmt)
        if with_extract:
            extract(transcript)
        best = min(best, time.perf_counter() - start)
    return best


def main(argv: list[str] | None = None) -> int:
    """Measure and print MB/s; returns an exit code."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("folder", nargs="?", type=Path, default=None)
    parser.add_argument("--repeat", type=int, default=5)
    args = parser.parse_args(argv)
    folder = args.folder or default_folder()
    if not folder.is_dir():
        print(f"skipped: no bench transcripts at {folder} (set GITMEM_BENCH_DIR)")
        return 0
    scorer.load()   # the weights are read once per process, before the clock runs
    sizes: dict[str, int] = defaultdict(int)
    read_s: dict[str, float] = defaultdict(float)
    both_s: dict[str, float] = defaultdict(float)
    rules_s: dict[str, float] = defaultdict(float)
    session_s: dict[str, float] = defaultdict(float)
    counts: dict[str, int] = defaultdict(int)
    for path in discover([folder]):
        form = detect_format(path)
        sizes[form] += path.stat().st_size
        counts[form] += 1
        read_s[form] += best_time(path, form, args.repeat, with_extract=False)
        both_s[form] += best_time(path, form, args.repeat, with_extract=True)
        rules_s[form] += best_time(path, form, args.repeat, with_extract=True, scored=False)
        session_s[form] += session_time(path, form, args.repeat)
    rows = sorted(sizes) + ["total"]
    sizes["total"], counts["total"] = sum(sizes.values()), sum(counts.values())
    read_s["total"], both_s["total"] = sum(read_s.values()), sum(both_s.values())
    rules_s["total"], session_s["total"] = sum(rules_s.values()), sum(session_s.values())
    print(f"{'format':<12} {'files':>5} {'MB':>7} {'read MB/s':>10} {'read+extract MB/s':>18} {'rules only MB/s':>16} "
          f"{'session MB/s':>13}")
    for row in rows:
        mb = sizes[row] / 1e6
        print(f"{row:<12} {counts[row]:>5} {mb:>7.2f} {mb / read_s[row]:>10.1f} {mb / both_s[row]:>18.1f} "
              f"{mb / rules_s[row]:>16.1f} {mb / session_s[row]:>13.1f}")
    print(f"(best of {args.repeat} rounds per file; MB = 10^6 bytes; python {sys.version.split()[0]})")
    return 0


if __name__ == "__main__":
    sys.exit(main())
