"""Throughput of transcript reading and episode extraction (MB/s), per format.

Run by hand from the repository root:

    PYTHONPATH=. python bench/harvest.py [--repeat N] [--vs-scan R] [FOLDER]

FOLDER defaults to ``$GITMEM_BENCH_DIR`` or ``../shared/bench/sessions`` (the
real transcripts kept beside the repository, never copied into it). Each file
is read and extracted ``--repeat`` times; the best round counts, so the figure
is the code's speed rather than the machine's noise. Prints read-only and
read+extract figures per format and in total, and the same extraction with
the rule signals only (the learned scorer switched off: harvest as it was
before the scorer), in the same run, and a whole session as harvest reads it
(``planning.read_session``: the secret screen, the reading and the episode,
without redaction).

``--vs-scan R``: the whole harvest use case (every session screened, read,
redacted, scored and committed into a fresh memory repository under a
sandboxed ``HOME``) next to ``pii.scan`` of the same bytes (each file's text
as one string), R rounds each, interleaved; prints the medians and their
ratio, the figure of the scale issue (harvest within 3x of the scan).
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


def cpu() -> float:
    """CPU seconds of this process and of the children it waited for (git, hooks)."""
    t = os.times()
    return t.user + t.system + t.children_user + t.children_system


def vs_scan(folder: Path, rounds: int) -> None:
    """Median CPU seconds of a whole harvest of ``folder`` and of ``pii.scan`` of its files, interleaved."""
    import statistics
    import tempfile

    from gitmem.api import MemoryRepo
    from gitmem.guards import pii

    files = list(discover([folder]))
    texts = [p.read_text(encoding="utf-8", errors="replace") for p in files]
    mb = sum(p.stat().st_size for p in files) / 1e6
    pii.scan("warm up: compile the patterns once")
    harvest_s: list[float] = []
    scan_s: list[float] = []
    for _ in range(rounds):
        t0 = cpu()
        for text in texts:
            pii.scan(text)
        scan_s.append(cpu() - t0)
        with tempfile.TemporaryDirectory() as tmp:
            home = Path(tmp) / "home"
            home.mkdir()
            old = os.environ.get("HOME")
            os.environ["HOME"] = str(home)   # nothing of the machine's own configuration or sessions
            try:
                repo = MemoryRepo.init(Path(tmp) / "mem")
                t0 = cpu()
                repo.harvest([folder])
                harvest_s.append(cpu() - t0)
            finally:
                if old is not None:
                    os.environ["HOME"] = old
    h, sc = statistics.median(harvest_s), statistics.median(scan_s)
    print(f"{len(files)} files, {mb:.2f} MB; medians of {rounds} interleaved rounds, CPU time")
    print(f"  pii.scan of each file     {sc:7.3f} s  {mb / sc:6.2f} MB/s")
    print(f"  harvest (the use case)    {h:7.3f} s  {mb / h:6.2f} MB/s")
    print(f"  harvest / scan            {h / sc:7.2f}x")


def main(argv: list[str] | None = None) -> int:
    """Measure and print MB/s; returns an exit code."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("folder", nargs="?", type=Path, default=None)
    parser.add_argument("--repeat", type=int, default=5)
    parser.add_argument("--vs-scan", type=int, default=0, metavar="R",
                        help="only time the whole harvest against pii.scan of the same bytes, R rounds each")
    args = parser.parse_args(argv)
    folder = args.folder or default_folder()
    if not folder.is_dir():
        print(f"skipped: no bench transcripts at {folder} (set GITMEM_BENCH_DIR)")
        return 0
    if args.vs_scan:
        vs_scan(folder, args.vs_scan)
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
