"""What gitmem's reference-transaction hook adds to a ref update, as a ratio against the same update
with no hook at all, both timed in one run, interleaved.

git runs the hook for every ref update it makes (fetch, gc, checkout, commit …), twice or three times
per update (prepared, committed or aborted). One memory repository made by ``gitmem init``; each
round moves a branch by ``git update-ref`` in turn:

- ``none``:            no hook (``core.hooksPath`` names an empty folder);
- ``person``:          gitmem's hooks, no agent variable set: the script exits in the shell;
- ``agent, no check``: under ``CLAUDECODE=1``, a branch moved to a commit some ref already reaches:
                       Python starts, one ``git rev-list`` finds nothing new;
- ``agent, checked``:  under ``CLAUDECODE=1``, a branch moved to a new commit that changes
                       CLAUDE.md's Layer 2 (allowed): the whole check.

Printed: each variant's median and its ratio to ``none``. The figure that matters is
``person``/``none``: what every person's ref update pays, near 1.

    python bench/reftx.py [--runs 40]
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

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from gitmem.guards.reviewer import AGENT_VARIABLES  # noqa: E402


def git(root: Path, *args: str, env: dict[str, str] | None = None) -> str:
    return subprocess.run(["git", *args], cwd=root, check=True, capture_output=True, text=True, env=env).stdout.strip()


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--runs", type=int, default=40)
    runs = parser.parse_args().runs
    with tempfile.TemporaryDirectory() as tmp:
        root = Path(tmp) / "mem"
        subprocess.run([sys.executable, "-m", "gitmem", "init", str(root)], check=True, capture_output=True,
                       cwd=ROOT)
        (Path(tmp) / "empty-hooks").mkdir()
        person = {k: v for k, v in os.environ.items() if k not in {name for name, _ in AGENT_VARIABLES}}
        person.update(GIT_AUTHOR_NAME="Bench", GIT_AUTHOR_EMAIL="bench@example.org", GIT_COMMITTER_NAME="Bench",
                      GIT_COMMITTER_EMAIL="bench@example.org")
        agent = {**person, "CLAUDECODE": "1"}
        head = git(root, "rev-parse", "HEAD")
        claude = root / "CLAUDE.md"
        text = claude.read_text(encoding="utf-8")
        claude.write_text(text.replace("_No patterns yet.", "_No patterns yet, still._"), encoding="utf-8")
        git(root, "add", "CLAUDE.md")
        tree = git(root, "write-tree")
        git(root, "reset", "-q", "--hard", head)
        git(root, "branch", "bench", head)
        variants = {
            "none": (["-c", f"core.hooksPath={Path(tmp) / 'empty-hooks'}"], person, lambda i: head),
            "person": ([], person, lambda i: head),
            "agent, no check": ([], agent, lambda i: head),
            # a new commit each round, made without a ref (commit-tree runs no hook): the whole check
            "agent, checked": ([], agent, lambda i: git(root, "commit-tree", tree, "-p", head, "-m", f"round {i}",
                                                        env=person)),
        }
        times: dict[str, list[float]] = {name: [] for name in variants}
        for i in range(runs):
            for name, (config, env, target) in variants.items():
                new = target(i)
                started = time.perf_counter()
                subprocess.run(["git", *config, "update-ref", "refs/heads/bench", new], cwd=root, check=True, env=env,
                               capture_output=True)
                times[name].append(time.perf_counter() - started)
                git(root, "update-ref", "refs/heads/bench", head, env=person)   # back, as a person: shell exit
        base = statistics.median(times["none"])
        print(f"git update-ref of a branch, median of {runs} interleaved runs:")
        for name, found in times.items():
            median = statistics.median(found)
            print(f"  {name:16} {median * 1000:7.1f} ms  x{median / base:.2f}")


if __name__ == "__main__":
    main()
