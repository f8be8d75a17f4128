"""Whole-process `gitmem recall` next to `python -c "import sqlite3"`.

    python bench/recall_process.py [--size 100000] [--runs 30] [--before CHECKOUT]

Builds a memory repository of --size memories, brings its index up to date,
then times one `gitmem recall` process per query (interpreter start-up
included), with and without a common word, next to the bare interpreter
importing sqlite3, interleaved in the same run; then the same while
`gitmem daemon` runs and answers the recalls through its socket. ``--before CHECKOUT`` adds the
same recalls by the gitmem of another checkout (an earlier commit, extracted
with ``git archive``) started as the console script starts it, on a clone of the same
repository with an index of its own: a before/after in one run. Every process runs
with a HOME of its own, so the daemon's harvest job finds no transcripts of the machine.
"""

from __future__ import annotations

import argparse
import os
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))
sys.path.insert(0, str(Path(__file__).resolve().parent))

from commit import build  # noqa: E402
from hooks import sample_ms  # noqa: E402
from recall_latency import Corpus  # noqa: E402

from gitmem.base import text  # noqa: E402
from gitmem.store import refresh  # noqa: E402
from gitmem.api import MemoryRepo  # noqa: E402


STAMP = "2026-11-28T12:00:00Z"


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--size", type=int, default=100_000)
    ap.add_argument("--runs", type=int, default=30)
    ap.add_argument("--module", action="store_true", help="run `python -m gitmem`, not the console script")
    ap.add_argument("--before", metavar="CHECKOUT", help="also time the gitmem of this checkout, in the same run")
    args = ap.parse_args()
    script = Path(sys.executable).parent / "gitmem"
    use_script = script.exists() and not args.module
    gitmem = [str(script)] if use_script else [sys.executable, "-m", "gitmem"]
    env = dict(os.environ)
    env.pop("PYTHONDONTWRITEBYTECODE", None)
    if not use_script and "PYTHONPATH" not in env:
        env["PYTHONPATH"] = str(Path(__file__).resolve().parent.parent)
    with tempfile.TemporaryDirectory(prefix="gitmem-bench-") as tmp:
        # a HOME of its own: the daemon's harvest job must not read this machine's agent transcripts
        home = Path(tmp) / "home"
        home.mkdir()
        env.update(HOME=str(home), XDG_CONFIG_HOME=str(home / ".config"), XDG_CACHE_HOME=str(home / ".cache"),
                   XDG_STATE_HOME=str(home / ".local" / "state"))
        for var in ("CLAUDE_CONFIG_DIR", "OPENCLAW_HOME", "OPENCLAW_STATE_DIR"):
            env.pop(var, None)
        root = Path(tmp) / "mem"
        corpus = Corpus()
        texts = [corpus.text() for _ in range(args.size)]
        build(root, args.size, stamp=STAMP, text=texts.__getitem__)
        # caps that keep every memory live: the daemon's first decay (below) then leaves the store as it is
        cfg = root / "gitmem.yaml"
        cfg.write_text(cfg.read_text().replace("max_short_term: 100", "max_short_term: 10000000")
                       .replace("max_long_term: 500", "max_long_term: 10000000"))
        # no auto gc: a detached one packing the loose objects races the clone below
        subprocess.run(["git", "-c", "gc.auto=0", "commit", "-qam", "keep every memory live"], cwd=root, check=True)
        # three content words of one memory: a query of stop words only would find nothing and time nothing
        content = [w for w in texts[7].lower().rstrip(".").split() if w not in text.STOP_WORDS]
        rare = " ".join(content[-3:])
        repo = MemoryRepo.open(root)
        refresh.rebuild_file(repo.git, repo.head).close()
        commands = {
            "python -c 'import sqlite3'": [sys.executable, "-c", "import sqlite3"],
            "gitmem recall (words of one memory)": [*gitmem, "--repo", str(root), "recall", rare],
            "gitmem recall (plus a stop word)": [*gitmem, "--repo", str(root), "recall", f"the {rare}"],
        }
        if args.before:   # what the console script runs (`import re` included), from the other checkout
            before = [sys.executable, "-c", f"import sys; sys.path.insert(0, {str(Path(args.before).resolve())!r}); "
                      "import re; from gitmem.faces.cli import main; sys.exit(main())"]
            # a clone of its own: the two versions' indexes may differ in layout, and one clone's index
            # is rebuilt by whichever version finds the other's; the first recall builds it, untimed
            twin = Path(tmp) / "mem-before"
            subprocess.run(["git", "clone", "-q", str(root), str(twin)], check=True)
            subprocess.run([*before, "--repo", str(twin), "recall", rare], capture_output=True, env=env, check=True)
            commands["before: recall (words of one memory)"] = [*before, "--repo", str(twin), "recall", rare]
            commands["before: recall (plus a stop word)"] = [*before, "--repo", str(twin), "recall", f"the {rare}"]
        print(f"{args.size} memories, {args.runs} interleaved runs")
        _time(commands, args.runs, env)
        # the same recalls while `gitmem daemon` runs: each process hands its query to the daemon
        # its jobs run on the build's clock, so its first decay leaves the store as the runs above saw it
        subprocess.run([*gitmem, "--repo", str(root), "daemon", "start"], capture_output=True, check=True,
                       env={**env, "GITMEM_NOW": STAMP})
        log = next(root.joinpath(".git", "gitmem").rglob("daemon.log"))
        while "Z snapshot " not in log.read_text():   # its first round of jobs, at start, is over
            time.sleep(0.2)
        try:
            print("with `gitmem daemon` running (recall answered through its socket):")
            _time({k: v for k, v in commands.items() if not k.startswith("before")}, args.runs, env)
        finally:
            stop = subprocess.run([*gitmem, "--repo", str(root), "daemon", "stop"], capture_output=True, env=env, text=True)
            print(log.read_text()[-2000:] if stop.returncode else "", stop.stdout, stop.stderr)
        shutil.rmtree(root, ignore_errors=True)


def _time(commands: dict[str, list[str]], runs: int, env: dict[str, str]) -> None:
    for cmd in commands.values():   # warm-up (bytecode, page cache); a failing command stops the bench
        subprocess.run(cmd, capture_output=True, env=env, check=True)
    times = sample_ms(env, Path.cwd(), commands, runs)
    base = statistics.median(times["python -c 'import sqlite3'"])
    for name, values in times.items():
        med = statistics.median(values)
        p95 = sorted(values)[int(0.95 * (len(values) - 1))]
        print(f"{name:<40} p50 {med:7.1f} ms  p95 {p95:7.1f} ms  ratio {med / base:5.2f}")


if __name__ == "__main__":
    main()
