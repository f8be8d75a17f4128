"""Large commits: an import of N memories as one commit, next to `git fast-import` building the same tree.

    python bench/import_size.py [--sizes 16,32,64,128,256,1000] [--runs 3]

For each size N, in a fresh memory repository (checked out, so work tree and
index follow), times:
- ``write, loose`` / ``write, packed``: the write path committing N prepared
  memory files, with the new objects written loose and as one pack (where the
  pack starts to pay is ``gitio.packing.PACK_THRESHOLD``);
- ``import``: ``MemoryRepo.import_file`` of N JSONL rows (parse, redact, plan,
  commit), as a person runs ``gitmem import``;
- ``tree loose`` / ``tree packed``: the objects alone (blobs and trees of the
  same change, no commit, no work tree), loose and as one pack;
- ``fast-import``: ``git fast-import`` writing the resulting tree into an
  empty repository (every file inline: the same tree id, checked).
Medians in ms and the ratios to fast-import, measured in the same run.
"""

from __future__ import annotations

import argparse
import json
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from gitmem.api import MemoryRepo  # noqa: E402
from gitmem.base import clock  # noqa: E402
from gitmem.base.gitio import Git, packing, trees  # noqa: E402
from gitmem.base.model import Memory, memory_path  # noqa: E402
from gitmem.writer.plan import Plan  # noqa: E402
from gitmem.store import store  # noqa: E402

NOW = clock.parse_time("2026-11-29T12:00:00Z")


def fast_import_tree(git: Git, commit: str, work: Path) -> tuple[float, str]:
    """(seconds, tree id) of `git fast-import` writing every file of ``commit``'s tree into an empty repository."""
    parts = [b"commit refs/heads/b\ncommitter b <b@localhost> 0 +0000\ndata 0\n"]
    for path, data in git.blobs("", commit):
        parts += [b"M 100644 inline ", packing.quote(path), b"\ndata %d\n" % len(data), data, b"\n"]
    stream = b"".join(parts)
    target = work / f"fi-{time.monotonic_ns()}"
    subprocess.run(["git", "init", "-q", "--bare", str(target)], check=True)
    t0 = time.perf_counter()
    subprocess.run(["git", "fast-import", "--quiet"], cwd=target, input=stream, check=True)
    seconds = time.perf_counter() - t0
    tree = subprocess.run(["git", "rev-parse", "refs/heads/b^{tree}"], cwd=target, capture_output=True, text=True,
                          check=True).stdout.strip()
    subprocess.run(["rm", "-rf", str(target)], check=True)
    return seconds, tree


def memories(n: int, tag: str) -> dict[str, bytes | None]:
    """N rendered memory files (path -> bytes)."""
    out: dict[str, bytes | None] = {}
    for i in range(n):
        mid = f"m-2026-11-29-{tag}{i:06d}"
        m = Memory(id=mid, content=f"imported note {i} about the deploy key of service {i % 97}",
                   created="2026-11-29T12:00:00Z", last_accessed="2026-11-29T12:00:00Z",
                   path=memory_path(("user", "project", "world")[i % 3], mid))
        out[m.path] = store.render(m)
    return out


def one(n: int, work: Path, run: int) -> dict[str, float]:
    out: dict[str, float] = {}
    for label, threshold in (("loose", 10**9), ("packed", 1)):
        root = work / f"w-{label}-{n}-{run}"
        MemoryRepo.init(root, NOW, install_hooks=False)
        repo = MemoryRepo.open(root)
        changes = memories(n, "w")
        packing.PACK_THRESHOLD = threshold
        t0 = time.perf_counter()
        repo.writer.write(lambda parent: Plan(changes, "bench import", "memory.import"), NOW)
        out[label] = time.perf_counter() - t0
    packing.PACK_THRESHOLD = PACK_THRESHOLD
    # the objects alone: the same change's tree built loose and as one pack, on a fresh repository each
    for label in ("tree_loose", "tree_packed"):
        root = work / f"t-{label}-{n}-{run}"
        MemoryRepo.init(root, NOW, install_hooks=False)
        g = Git(root)
        parent = str(g.tip("main"))
        changes = memories(n, "t")
        t0 = time.perf_counter()
        if label == "tree_loose":
            trees.build(g.repo, g.repo.revparse_single(parent).tree,
                        {tuple(p.split("/")): d for p, d in changes.items()})
        else:
            packing.build(g.root, g.repo, parent, changes)
        out[label] = time.perf_counter() - t0
    root = work / f"imp-{n}-{run}"
    MemoryRepo.init(root, NOW, install_hooks=False)
    repo = MemoryRepo.open(root)
    rows = work / f"rows-{n}-{run}.jsonl"
    rows.write_text("".join(json.dumps({"content": f"imported {i}: the staging deploy step {i} rotates key {i * 7}"})
                            + "\n" for i in range(n)))
    t0 = time.perf_counter()
    repo.import_file(rows, now=NOW)
    out["import"] = time.perf_counter() - t0
    head = str(repo.head)
    seconds, tree = fast_import_tree(repo.git, head, work)
    assert tree == repo.git.tree_id(head), "fast-import built another tree"
    out["fast_import"] = seconds
    return out


PACK_THRESHOLD = packing.PACK_THRESHOLD


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--sizes", default="16,32,64,128,256,1000")
    ap.add_argument("--runs", type=int, default=3)
    args = ap.parse_args()
    print(f"pack threshold today: {PACK_THRESHOLD} changed files")
    print(f"{'memories':>9} {'tree loose':>11} {'tree packed':>12} {'loose ms':>9} {'packed ms':>10} {'import ms':>10} "
          f"{'fast-import ms':>15} {'import / fast-import':>21} {'packed write / fast-import':>27}")
    with tempfile.TemporaryDirectory(prefix="gitmem-bench-") as tmp:
        for n in (int(s) for s in args.sizes.split(",")):
            runs = [one(n, Path(tmp), r) for r in range(args.runs)]
            med = {k: statistics.median(r[k] for r in runs) * 1000 for k in runs[0]}
            print(f"{n:>9} {med['tree_loose']:>11.1f} {med['tree_packed']:>12.1f} {med['loose']:>9.1f} {med['packed']:>10.1f} {med['import']:>10.1f} {med['fast_import']:>15.1f} "
                  f"{med['import'] / med['fast_import']:>21.2f} {med['packed'] / med['fast_import']:>27.2f}")


if __name__ == "__main__":
    main()
