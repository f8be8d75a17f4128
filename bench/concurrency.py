"""Many writers at once: 8 processes and 4 threads remembering into one memory repository; none may be lost.

    python bench/concurrency.py [--processes 8] [--threads 4] [--writes 50]

Each process and each thread of one more process writes ``--writes`` distinct
memories (dedupe off) through the one write path. Prints how many memories and
commits the branch holds against how many were written, the merges (none
expected), ``git fsck --strict`` and a clean work tree, and the wall time.
"""

from __future__ import annotations

import argparse
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

WRITER = """
import sys, threading
sys.path.insert(0, {root!r})
from gitmem.api import MemoryRepo
root, name, threads, count = sys.argv[1], sys.argv[2], int(sys.argv[3]), int(sys.argv[4])
def write(t):
    repo = MemoryRepo.open(root)       # one handle per thread: no pygit2 object is shared
    for i in range(count):
        repo.remember(f"writer {{name}} thread {{t}} note {{i}} about topic {{name}}{{t}}x{{i}}", dedupe=False)
workers = [threading.Thread(target=write, args=(t,)) for t in range(threads)]
for w in workers: w.start()
for w in workers: w.join()
"""


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--processes", type=int, default=8)
    ap.add_argument("--threads", type=int, default=4)
    ap.add_argument("--writes", type=int, default=50)
    a = ap.parse_args()
    from gitmem.api import MemoryRepo

    with tempfile.TemporaryDirectory(prefix="gitmem-concurrency-") as tmp:
        root = Path(tmp) / "mem"
        MemoryRepo.init(root, install_hooks=False)
        script = WRITER.format(root=str(ROOT))
        start = time.perf_counter()
        procs = [subprocess.Popen([sys.executable, "-c", script, str(root), f"p{n}", "1", str(a.writes)],
                                  stderr=subprocess.PIPE) for n in range(a.processes)]
        procs.append(subprocess.Popen([sys.executable, "-c", script, str(root), "t", str(a.threads), str(a.writes)],
                                      stderr=subprocess.PIPE))
        failed = 0
        for p in procs:
            _, err = p.communicate()
            if p.returncode:
                failed += 1
                print(err.decode()[-800:], file=sys.stderr)
        took = time.perf_counter() - start
        expected = (a.processes + a.threads) * a.writes
        held = len(MemoryRepo.open(root).list().memories)

        def git(*args: str) -> subprocess.CompletedProcess[str]:
            return subprocess.run(["git", *args], cwd=root, capture_output=True, text=True)

        merges = git("rev-list", "--merges", "HEAD").stdout.split()
        fsck = git("fsck", "--strict")
        status = git("status", "--porcelain").stdout
        print(f"writers: {a.processes} processes + {a.threads} threads x {a.writes} writes = {expected}")
        print(f"memories on the branch: {held} ({expected - held} lost); writer processes failed: {failed}")
        print(f"commits: {git('rev-list', '--count', 'HEAD').stdout.strip()}; merges: {len(merges)}")
        print(f"git fsck --strict: {'clean' if fsck.returncode == 0 else fsck.stderr.strip()[:300]}; "
              f"work tree: {'clean' if not status else 'DIRTY'}")
        print(f"wall: {took:.1f} s ({took / expected * 1000:.1f} ms a write)")
        return 0 if held == expected and not failed and fsck.returncode == 0 and not status else 1


if __name__ == "__main__":
    sys.exit(main())
