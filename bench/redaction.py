"""Cost of redacting a session before its episode is derived (issue 8 item 1), per file set.

Run by hand from the repository root:

    PYTHONPATH=. python bench/redaction.py [--repeat N] [FOLDER]

FOLDER defaults to ``$GITMEM_BENCH_DIR`` or ``../shared/bench/sessions`` (read
in place, never copied). Each transcript is read, screened and extracted by
``planning.read_session`` without a redactor (the baseline) and with the one
gitmem uses (scanner, then the user names the session's paths teach, matched
by salted hash); the best of ``--repeat`` rounds counts. Prints MB/s of both
and their ratio, and how many user-name words the learned names replaced.
"""

from __future__ import annotations

import argparse
import sys
import time
from pathlib import Path
from typing import Sequence

from gitmem.base.config import Config
from gitmem.engines.harvest import planning
from gitmem.engines.harvest.sources import detect_format, discover
from gitmem.guards import pii, redact

sys.path.insert(0, str(Path(__file__).resolve().parent))
from harvest import default_folder  # noqa: E402  (the same default folder as bench/harvest.py)


def best_time(path: Path, fmt: str, repeat: int, redactor: planning.Redactor | None) -> float:
    """Best wall time of ``repeat`` rounds of read_session on one file."""
    best = float("inf")
    for _ in range(repeat):
        start = time.perf_counter()
        planning.read_session(path, fmt, None, redactor)
        best = min(best, time.perf_counter() - start)
    return best


def main(argv: list[str] | None = None) -> int:
    """Measure and print MB/s with and without redaction; returns an exit code."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("folder", nargs="?", type=Path, default=None)
    parser.add_argument("--repeat", type=int, default=3)
    args = parser.parse_args(argv)
    folder = args.folder or default_folder()
    if not folder.is_dir():
        print(f"skipped: no bench transcripts at {folder} (set GITMEM_BENCH_DIR)")
        return 0
    cfg = Config()
    replaced = [0]

    def redactor(text: str, names: Sequence[str], found: Sequence[pii.Finding] | None) -> str:
        out: str = redact.redact_text(text, cfg, names=pii.Names(b"bench-salt", frozenset()).plus(names),
                                      found=found).text
        return out

    def counter(text: str, names: Sequence[str], found: Sequence[pii.Finding] | None) -> str:
        replaced[0] += len(pii.find_names(text, pii.Names(b"bench-salt", frozenset()).plus(names)))
        return text

    size, base, with_redaction, files = 0, 0.0, 0.0, 0
    for path in discover([folder]):
        fmt = detect_format(path)
        size += path.stat().st_size
        files += 1
        base += best_time(path, fmt, args.repeat, None)
        with_redaction += best_time(path, fmt, args.repeat, redactor)
        planning.read_session(path, fmt, None, counter)   # untimed: what the learned names replace
    mb = size / 1e6
    print(f"{files} files, {mb:.2f} MB")
    print(f"read+screen+extract            {mb / base:7.2f} MB/s")
    print(f"read+screen+redact+extract     {mb / with_redaction:7.2f} MB/s   ({with_redaction / base:.2f}x the time)")
    print(f"user-name words the learned names replace: {replaced[0]}")
    print(f"(best of {args.repeat} rounds per file; MB = 10^6 bytes; python {sys.version.split()[0]})")
    return 0


if __name__ == "__main__":
    sys.exit(main())
