"""`gitmem sync` of 1,000 new memories on each of two machines, beside a plain `git pull` + `git push` of the
same commits, measured in the same run, through a real `git daemon` on loopback.

    python bench/sync.py [--memories 1000]

Two clones of one memory each import N new memories (one commit each, untimed). Their copies are
made before anything is timed, with a second bare repository holding the same history, so the plain
git path moves exactly the same commits. Timed, in order:

    gitmem: A sync (push) -> B sync (fetch, merge, regenerate, push) -> A sync (fast-forward)
    git:    A push        -> B pull --no-edit + push                 -> A pull
"""

from __future__ import annotations

import argparse
import json
import os
import shutil
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path[:0] = [str(ROOT)]

from gitmem.api import MemoryRepo  # noqa: E402
from gitmem.base import clock  # noqa: E402
from tests import servers  # noqa: E402

NOW = clock.parse_time("2026-11-20T12:00:00Z")


def git(cwd: Path, *args: str) -> str:
    return subprocess.run(["git", *args], cwd=cwd, check=True, capture_output=True, text=True).stdout.strip()


def rows(machine: str, n: int, folder: Path) -> Path:
    path = folder / f"{machine}.jsonl"
    topics = ["deploy", "cache", "schema", "token", "review", "kafka", "lint", "retry"]
    with path.open("w") as fh:
        for i in range(n):
            text = f"Machine {machine} note {i}: the {topics[i % 8]} of service {i} runs on port {4000 + i}"
            fh.write(json.dumps({"content": text, "type": "fact", "domain": "project"}) + "\n")
    return path


def timed(work: list[tuple[str, Path, list[str]]]) -> list[tuple[str, float]]:
    out = []
    for label, cwd, argv in work:
        start = time.perf_counter()
        subprocess.run(argv, cwd=cwd, check=True, capture_output=True)
        out.append((label, time.perf_counter() - start))
    return out


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--memories", type=int, default=1000)
    n = parser.parse_args().memories
    with tempfile.TemporaryDirectory(prefix="gitmem-bench-sync-") as tmp:
        base = Path(tmp)
        home = base / "home"
        home.mkdir()
        (home / ".gitconfig").write_text("[user]\n\tname = Bench\n\temail = bench@example.com\n"
                                         "[init]\n\tdefaultBranch = main\n")
        os.environ.update(HOME=str(home), GIT_CONFIG_GLOBAL=str(home / ".gitconfig"), GIT_CONFIG_NOSYSTEM="1")
        server = base / "server"
        server.mkdir()
        servers.bare(server, "gitmem.git")
        with servers.git_daemon(server) as url:
            a = MemoryRepo.init(base / "a", NOW)
            git(a.root, "remote", "add", "origin", f"{url}/gitmem.git")
            a.sync(now=NOW)
            git(base, "clone", "-q", f"{url}/gitmem.git", str(base / "b"))
            b = MemoryRepo.init(base / "b", NOW)
            for repo, name in ((a, "a"), (b, "b")):
                start = time.perf_counter()
                done = repo.import_file(rows(name, n, base), now=NOW)
                assert done.created == n, done.skipped[:3]
                print(f"import of {n} memories on {name} (untimed setup): {time.perf_counter() - start:.2f} s")
            # the plain git copies: the same clones and a second bare repository with the same history
            shutil.copytree(server / "gitmem.git", server / "plain.git")
            for name in ("a", "b"):
                shutil.copytree(base / name, base / f"{name}-plain", symlinks=True)
                git(base / f"{name}-plain", "remote", "set-url", "origin", f"{url}/plain.git")
            gm = [sys.executable, "-m", "gitmem", "--now", "2026-11-20T12:00:00Z", "sync"]
            ours = timed([("A sync (push)", a.root, gm), ("B sync (fetch, merge, regenerate, push)", b.root, gm),
                          ("A sync (fast-forward)", a.root, gm)])
            pa, pb = base / "a-plain", base / "b-plain"
            plain = timed([("A git push", pa, ["git", "push", "-q", "origin", "main"]),
                           ("B git pull + push", pb, ["sh", "-c", "git pull -q --no-rebase --no-edit origin main && "
                                                                  "git push -q origin main"]),
                           ("A git pull", pa, ["git", "pull", "-q", "--no-rebase", "origin", "main"])])
            assert a.head == b.head and len(a.list().memories) == 2 * n
    total_ours, total_plain = sum(t for _, t in ours), sum(t for _, t in plain)
    for (label, t), (plabel, p) in zip(ours, plain):
        print(f"{label:<42} {t:7.2f} s   | {plabel:<20} {p:7.2f} s   ratio {t / p:5.1f}x")
    print(f"{'total gitmem sync':<42} {total_ours:7.2f} s   | {'total git':<20} {total_plain:7.2f} s   "
          f"ratio {total_ours / total_plain:5.1f}x")


if __name__ == "__main__":
    main()
