"""Cost of one-memory writes through gitmem's write path, next to a raw pygit2
commit of the same change, in repositories of 1k, 10k and 100k memories.

    python bench/commit.py [--sizes 1000,10000,100000] [--runs 30] [--dir FOLDER]

Each run changes one existing memory file (a different one each run) and commits it. Three pairs, each
measured on its own so that no third side's cache or disk traffic falls between the two of a pair:

- branch: gitmem's whole write path (write lock, guards, commit, ref) to a branch that is not checked
  out, against the raw pygit2 commit of the same change (TreeBuilder along the path, ``create_commit``,
  the ref update);
- checked-out: the same with the work tree and the git index kept in step, against `git add` +
  `git commit`;
- remember: a new memory through the use case, after the checked-out pair.

Within a pair the two sides alternate their order run by run, and the ratio column is the median of
each run's ratio. The repositories are built on disk (``--dir``; a tmpfs hides the cost of the file
system calls, so one is refused unless ``--tmpfs`` says it is meant). Also times `gitmem --help` as a
whole process next to `python -c pass`.
"""

from __future__ import annotations

import argparse
import os
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import pygit2
from pygit2.enums import FileMode

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from gitmem.base import clock  # noqa: E402
from gitmem.api import MemoryRepo  # noqa: E402
from gitmem.base.model import DOMAINS, Memory, memory_path  # noqa: E402
from gitmem.store import store  # noqa: E402
from gitmem.writer.plan import Plan  # noqa: E402

NOW = clock.parse_time("2026-11-29T12:00:00Z")


def build(root: Path, n: int, stamp: str = "2026-01-01T00:00:00Z", text=None) -> None:  # type: ignore[no-untyped-def]
    """A memory repository holding ``n`` memories (trees built directly, then checked out).

    ``text(i)`` gives memory i's content (default: a short numbered line).
    """
    MemoryRepo.init(root, NOW, install_hooks=False)
    repo = pygit2.Repository(str(root))
    head = repo.head.target
    base = repo[head].tree
    files: dict[str, dict[str, dict[str, pygit2.Oid]]] = {}
    for i in range(n):
        d = DOMAINS[i % len(DOMAINS)]
        mid = f"m-2026-01-01-{i:010x}"
        m = Memory(id=mid, content=text(i) if text else f"memory number {i} about topic {i % 97}", domain=d,
                   created=stamp, last_accessed=stamp, path=memory_path(d, mid))
        _, _, shard, name = m.path.split("/")
        files.setdefault(d, {}).setdefault(shard, {})[name] = repo.create_blob(store.render(m))
    mem_tb = repo.TreeBuilder()
    for d, shards in files.items():
        dom_tb = repo.TreeBuilder()
        for shard, names in shards.items():
            tb = repo.TreeBuilder()
            for name, oid in names.items():
                tb.insert(name, oid, FileMode.BLOB)
            dom_tb.insert(shard, tb.write(), FileMode.TREE)
        mem_tb.insert(d, dom_tb.write(), FileMode.TREE)
    top = repo.TreeBuilder(base)
    top.insert("memory", mem_tb.write(), FileMode.TREE)
    sig = pygit2.Signature("bench", "bench@localhost", 1764417600, 0)
    repo.create_commit("refs/heads/main", sig, sig, f"{n} memories", top.write(), [head])
    subprocess.run(["git", "reset", "-q", "--hard"], cwd=root, check=True)


def raw_commit(repo: pygit2.Repository, branch: str, path: str, data: bytes) -> None:
    """The baseline: read the tip, rewrite the trees on one path, commit."""
    ref = f"refs/heads/{branch}"
    parent = repo.references[ref].target
    tree = repo[parent].tree
    parts = path.split("/")
    trees: list[pygit2.Tree | None] = [tree]
    for name in parts[:-1]:
        up = trees[-1]
        trees.append(repo[up[name].id] if up is not None and name in up else None)
    oid = repo.create_blob(data)
    mode = FileMode.BLOB
    for depth in range(len(parts) - 1, -1, -1):
        tb = repo.TreeBuilder(trees[depth]) if trees[depth] is not None else repo.TreeBuilder()
        tb.insert(parts[depth], oid, mode)
        oid, mode = tb.write(), FileMode.TREE
    sig = pygit2.Signature("bench", "bench@localhost", 1764417600, 0)
    repo.create_commit(ref, sig, sig, "raw", oid, [parent])


def interleaved(fns: dict[str, object], runs: int, base: str) -> dict[str, float]:
    """Median ms of each function, and the median of each run's ratio to ``base`` (key ``NAME/base``).

    The calls are interleaved and their order alternates run by run (forwards, then backwards), so disk
    and cache noise, and whatever runs first or last, hit every side alike.
    """
    times: dict[str, list[float]] = {k: [] for k in fns}
    cpu: dict[str, list[float]] = {k: [] for k in fns}
    names = list(fns)
    for i in range(runs):
        for name in names if i % 2 == 0 else names[::-1]:
            t0, c0 = time.perf_counter(), time.process_time()
            fns[name](i)  # type: ignore[operator]
            times[name].append((time.perf_counter() - t0) * 1000)
            cpu[name].append((time.process_time() - c0) * 1000)
    out = {k: statistics.median(v) for k, v in times.items()}
    for k, v in times.items():
        out[f"{k}/{base}"] = statistics.median(a / b for a, b in zip(v, times[base]))
        # this process's CPU time (a git subprocess's is not counted): on a loaded machine the wall
        # clock also counts the waits for a core, the CPU time does not
        out[f"{k}/{base} cpu"] = statistics.median(a / max(b, 1e-6) for a, b in zip(cpu[k], cpu[base]))
    return out


def measure(n: int, runs: int, where: str | None) -> dict[str, float]:
    with tempfile.TemporaryDirectory(prefix="gitmem-bench-", dir=where) as tmp:
        root = Path(tmp) / "mem"
        t0 = time.perf_counter()
        build(root, n)
        built = time.perf_counter() - t0
        repo = MemoryRepo.open(root)
        raw = pygit2.Repository(str(root))
        raw.references.create("refs/heads/side", raw.head.target)
        raw.references.create("refs/heads/rawside", raw.head.target)

        def doc(tag: str, i: int) -> tuple[str, bytes]:
            """A new version of one existing memory (a different one each run): a change, not an add."""
            j = (i * 7919) % n
            d = DOMAINS[j % len(DOMAINS)]
            mid = f"m-2026-01-01-{j:010x}"
            m = Memory(id=mid, content=f"memory number {j} rewritten by {tag} {i}", domain=d,
                       created="2026-01-01T00:00:00Z", last_accessed="2026-11-29T12:00:00Z",
                       path=memory_path(d, mid))
            return m.path, store.render(m)

        def gitmem_side(i: int) -> None:
            p, d = doc("s", i)
            repo.writer.write(lambda parent: Plan({p: d}, "bench", "bench"), NOW, branch="side")

        def gitmem_main(i: int) -> None:
            p, d = doc("w", i)
            repo.writer.write(lambda parent: Plan({p: d}, "bench", "bench"), NOW)

        def remember(i: int) -> None:
            repo.remember(f"bench remember {i} topic {i * 13}", dedupe=False, now=NOW)

        def baseline(i: int) -> None:
            p, d = doc("r", i)
            raw_commit(raw, "rawside", p, d)

        def git_cli(i: int) -> None:
            # what a person pays for the same change in the checked-out work tree
            p, d = doc("g", i)
            (root / p).parent.mkdir(parents=True, exist_ok=True)
            (root / p).write_bytes(d)
            subprocess.run(["git", "add", p], cwd=root, check=True)
            subprocess.run(["git", "commit", "-q", "--no-verify", "-m", "x"], cwd=root, check=True)

        for warm in (gitmem_side, baseline, gitmem_main, git_cli, remember):
            warm(999_999)
        out = interleaved({"raw": baseline, "write_branch": gitmem_side}, runs, "raw")
        out.update(interleaved({"git_cli": git_cli, "write_checked_out": gitmem_main}, runs, "git_cli"))
        out.update(interleaved({"remember": remember}, runs, "remember"))
        out["build_s"] = built
        return out


def fs_type(folder: str) -> str | None:
    """The file system type of the mount holding ``folder`` (Linux /proc/mounts; None elsewhere)."""
    real, best, kind = os.path.realpath(folder), "", None
    try:
        with open("/proc/mounts", encoding="utf-8") as fh:
            for line in fh:
                fields = line.split()
                if len(fields) > 2 and (real == fields[1] or real.startswith(fields[1].rstrip("/") + "/")) \
                        and len(fields[1]) >= len(best):
                    best, kind = fields[1], fields[2]
    except OSError:
        return None
    return kind


def process_ms(cmd: list[str], runs: int = 15) -> float:
    env = dict(os.environ, PYTHONPATH=str(Path(__file__).resolve().parent.parent))
    env.pop("PYTHONDONTWRITEBYTECODE", None)   # an installed package has its bytecode
    subprocess.run(cmd, capture_output=True, env=env, check=False)   # warm-up writes it
    times = []
    for _ in range(runs):
        t0 = time.perf_counter()
        subprocess.run(cmd, capture_output=True, env=env, check=False)
        times.append((time.perf_counter() - t0) * 1000)
    return statistics.median(times)


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--sizes", default="1000,10000,100000")
    ap.add_argument("--runs", type=int, default=30)
    ap.add_argument("--dir", help="where the repositories are built, on disk (default: the system's temporary "
                                  "folder, or /var/tmp when that one is a tmpfs)")
    ap.add_argument("--tmpfs", action="store_true", help="allow a folder on a tmpfs (the figures then leave out "
                                                         "the disk's cost)")
    args = ap.parse_args()
    where = args.dir or tempfile.gettempdir()
    if args.dir is None and fs_type(where) == "tmpfs" and os.path.isdir("/var/tmp"):
        where = "/var/tmp"
    if fs_type(where) == "tmpfs" and not args.tmpfs:
        sys.exit(f"{where} is on a tmpfs, which hides what the file system calls cost: give --dir a folder "
                 "on disk (or --tmpfs to measure there anyway)")
    print(f"repositories built under {where} ({fs_type(where) or 'file system unknown'})")
    rows = {}
    print("branch: gitmem's write path to a branch that is not checked out, vs the raw pygit2 commit;")
    print("checked-out: the same with work tree and index kept in step, vs `git add` + `git commit`.")
    print(f"{'memories':>9} {'raw ms':>8} {'branch ms':>10} {'ratio':>6} {'git CLI ms':>11} {'checked-out ms':>15} {'ratio':>6} {'remember ms':>12}")
    cpu_rows = []
    for n in (int(s) for s in args.sizes.split(",")):
        r = measure(n, args.runs, where)
        rows[n] = r
        cpu_rows.append(f"{n:>9} branch write / raw commit, CPU time of this process: {r['write_branch/raw cpu']:.2f}")
        print(f"{n:>9} {r['raw']:>8.2f} {r['write_branch']:>10.2f} {r['write_branch/raw']:>6.2f} "
              f"{r['git_cli']:>11.2f} {r['write_checked_out']:>15.2f} {r['write_checked_out/git_cli']:>6.2f} "
              f"{r['remember']:>12.2f}"
              f"   (built in {r['build_s']:.1f} s)")
    print("\n".join(cpu_rows))
    if 10000 in rows and 100000 in rows:
        for key in ("write_branch", "write_checked_out", "remember"):
            print(f"100k / 10k for {key}: {rows[100000][key] / rows[10000][key]:.2f}")
    py = process_ms([sys.executable, "-c", "pass"])
    script = Path(sys.executable).parent / "gitmem"    # the console script, when installed here
    helps = process_ms([str(script), "--help"] if script.exists() else [sys.executable, "-m", "gitmem", "--help"])
    print(f"python -c pass: {py:.1f} ms; gitmem --help: {helps:.1f} ms; ratio {helps / py:.2f}")


if __name__ == "__main__":
    main()
