"""Bulk writes against git's own cost: import of N rows and a decay archiving every memory, at 10k (and 100k).

The decay runs on memories that came in through gitmem's own import, as
memory does, so the write path has scanned their bodies before.

    python bench/bulk.py [--sizes 10000] [--runs 3]

The fair baseline for a large change is ``git fast-import`` of the same
change onto the same parent, plus git's own update of the changed work-tree
files and the index (``git read-tree -m -u``), timed in a clone of the
repository as it stood before the change. Each run times gitmem, then the
baseline of the very commit it made, so the two sides interleave; medians of
each side and of the per-run ratios are printed (goal: <= 2x, and <= 30 s at
100k).
"""

from __future__ import annotations

import argparse
import json
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from datetime import timedelta
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))
sys.path.insert(0, str(Path(__file__).resolve().parent))

from commit import NOW  # noqa: E402

from gitmem.api import MemoryRepo  # noqa: E402
from gitmem.base.gitio import Git, packing  # noqa: E402


def baseline(root: Path, parent: str, commit: str, work: Path) -> float:
    """Seconds of git itself making ``commit``'s change on ``parent``: fast-import, then read-tree -m -u."""
    git = Git(root)
    old = {p: h for p, h in git.tree_entry_hashes(parent, list(_paths(root, parent))).items()}
    new_paths = list(_paths(root, commit))
    new = git.tree_entry_hashes(commit, new_paths)
    parts = [b"commit refs/heads/base\ncommitter b <b@localhost> 0 +0000\ndata 0\nfrom %s\n" % parent.encode()]
    parts += [b"D %s\n" % packing.quote(p) for p in old if p not in new]
    for path, blob in new.items():
        if old.get(path) != blob and blob is not None:
            data = git.repo[blob].data
            parts += [b"M 100644 inline ", packing.quote(path), b"\ndata %d\n" % len(data), data, b"\n"]
    stream = b"".join(parts)
    clone = work / f"base-{time.monotonic_ns()}"
    subprocess.run(["git", "clone", "-q", "--no-hardlinks", str(root), str(clone)], check=True)
    subprocess.run(["git", "checkout", "-q", "--detach", parent], cwd=clone, check=True)
    subprocess.run(["git", "gc", "-q"], cwd=clone, check=True, capture_output=True)
    t0 = time.perf_counter()
    subprocess.run(["git", "-c", "fastimport.unpackLimit=0", "fast-import", "--quiet"], cwd=clone, input=stream,
                   check=True)
    subprocess.run(["git", "read-tree", "-m", "-u", "HEAD", "refs/heads/base"], cwd=clone, check=True)
    seconds = time.perf_counter() - t0
    tree = subprocess.run(["git", "rev-parse", "refs/heads/base^{tree}"], cwd=clone, capture_output=True, text=True,
                          check=True).stdout.strip()
    assert tree == git.tree_id(commit), "the baseline built another tree"
    shutil.rmtree(clone)
    return seconds


def _paths(root: Path, rev: str) -> list[str]:
    out = subprocess.run(["git", "ls-tree", "-r", "-z", "--name-only", rev], cwd=root, capture_output=True,
                         check=True).stdout
    return [p.decode() for p in out.split(b"\0") if p]


def run_import(n: int, work: Path, run: int) -> tuple[float, float]:
    root = work / f"imp-{n}-{run}"
    MemoryRepo.init(root, NOW, install_hooks=False)
    repo = MemoryRepo.open(root)
    parent = str(repo.head)
    rows = work / f"rows-{n}-{run}.jsonl"
    rows.write_text("".join(json.dumps({"content": f"imported {i}: the staging deploy step {i} rotates key {i * 7}"})
                            + "\n" for i in range(n)))
    t0 = time.perf_counter()
    repo.import_file(rows, now=NOW)
    took = time.perf_counter() - t0
    base = baseline(root, parent, str(MemoryRepo.open(root).head), work)
    shutil.rmtree(root)
    return took, base


def run_decay(n: int, work: Path, run: int) -> tuple[float, float]:
    """Memories that came in through gitmem (an import, untimed), all archived 60 days later in one commit."""
    root = work / f"dec-{n}-{run}"
    MemoryRepo.init(root, NOW, install_hooks=False)
    cfg_path = root / "gitmem.yaml"   # every memory live, and every archive in the one commit on the branch
    cfg_path.write_text(cfg_path.read_text().replace("max_short_term: 100", "max_short_term: 10000000")
                        .replace("max_long_term: 500", "max_long_term: 10000000")
                        .replace("max_change_share: 0.1", "max_change_share: 1.0"))
    subprocess.run(["git", "commit", "-qam", "raise caps"], cwd=root, check=True)
    rows = work / f"drows-{n}-{run}.jsonl"
    rows.write_text("".join(json.dumps({"content": f"note {i}: the staging deploy step {i} rotates key {i * 7}"})
                            + "\n" for i in range(n)))
    MemoryRepo.open(root).import_file(rows, now=NOW)
    repo = MemoryRepo.open(root)
    parent = str(repo.head)
    t0 = time.perf_counter()
    report = repo.decay(now=NOW + timedelta(days=400))
    took = time.perf_counter() - t0
    archived = sum(1 for m in report.moves if m.archives)
    assert report.commit is not None and archived >= n * 9 // 10, (report.commit, archived)
    base = baseline(root, parent, report.commit, work)
    shutil.rmtree(root)
    return took, base


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--sizes", default="10000")
    ap.add_argument("--runs", type=int, default=3)
    ap.add_argument("--only", choices=("import", "decay"), default=None)
    args = ap.parse_args()
    print(f"{'what':>7} {'memories':>9} {'gitmem s':>9} {'git s':>7} {'ratio':>6}   (median of per-run ratios; goal <= 2)")
    with tempfile.TemporaryDirectory(prefix="gitmem-bench-") as tmp:
        for n in (int(s) for s in args.sizes.split(",")):
            for what, fn in (("import", run_import), ("decay", run_decay)):
                if args.only and what != args.only:
                    continue
                pairs = [fn(n, Path(tmp), r) for r in range(args.runs)]
                ours = statistics.median(p[0] for p in pairs)
                theirs = statistics.median(p[1] for p in pairs)
                ratio = statistics.median(p[0] / p[1] for p in pairs)
                print(f"{what:>7} {n:>9} {ours:>9.2f} {theirs:>7.2f} {ratio:>6.1f}", flush=True)


if __name__ == "__main__":
    main()
