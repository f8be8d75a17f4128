"""Whole-process `gitmem status` and `gitmem load-core` next to `python -c pass`, in the same run.

    python bench/status_process.py [--size 10000] [--runs 20]

Builds a memory repository of --size memories and times, interleaved run by run:

- `gitmem status` answered from the state folder (the status kept for the same HEAD, refs, config,
  CLAUDE.md and hour: no pygit2, no document parsed); goal <= 5x `python -c pass`;
- the full `gitmem status`, as every status ran before (the kept one removed before each run, by a
  `sh -c` whose own start is in its figure);
- `gitmem load-core`, in its own process;

then `gitmem load-core` and `gitmem hook session-start` again while `gitmem daemon` runs and answers
them through its socket. Every process runs with a HOME of its own.
"""

from __future__ import annotations

import argparse
import os
import shlex
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

STAMP = "2026-11-28T12:00:00Z"
BASE = "python -c pass"


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--size", type=int, default=10_000)
    ap.add_argument("--runs", type=int, default=20)
    args = ap.parse_args()
    script = Path(sys.executable).parent / "gitmem"
    gitmem = [str(script)] if script.exists() else [sys.executable, "-m", "gitmem"]
    with tempfile.TemporaryDirectory(prefix="gitmem-bench-") as tmp:
        home = Path(tmp) / "home"
        home.mkdir()
        env = {**os.environ, "HOME": str(home), "XDG_CONFIG_HOME": str(home / ".config"),
               "XDG_CACHE_HOME": str(home / ".cache"), "XDG_STATE_HOME": str(home / ".local" / "state"),
               "GITMEM_NOW": STAMP}
        env.pop("PYTHONDONTWRITEBYTECODE", None)
        if not script.exists():
            env["PYTHONPATH"] = str(Path(__file__).resolve().parent.parent)
        root = Path(tmp) / "mem"
        build(root, args.size, stamp=STAMP)
        cfg = root / "gitmem.yaml"   # every memory live: the daemon's first decay leaves the store as it is
        cfg.write_text(cfg.read_text().replace("max_short_term: 100", "max_short_term: 10000000")
                       .replace("max_long_term: 500", "max_long_term: 10000000"))
        subprocess.run(["git", "commit", "-qam", "keep every memory live"], cwd=root, check=True)
        kept = root / ".git" / "gitmem" / "status-cache.json"
        status = [*gitmem, "--repo", str(root), "status"]
        commands = {
            BASE: [sys.executable, "-c", "pass"],
            "gitmem status (kept, from the state folder)": status,
            "gitmem status (full, as before)": ["sh", "-c", f"rm -f {shlex.quote(str(kept))}; exec {shlex.join(status)}"],
            "gitmem load-core (own process)": [*gitmem, "--repo", str(root), "load-core"],
        }
        print(f"{args.size} memories, {args.runs} interleaved runs")
        _time(commands, args.runs, env)
        hook = [*gitmem, "--repo", str(root), "hook", "session-start"]
        subprocess.run([*gitmem, "--repo", str(root), "daemon", "start"], capture_output=True, check=True, env=env)
        log = next(root.joinpath(".git", "gitmem").rglob("daemon.log"))
        while "Z snapshot " not in log.read_text():   # its first round of jobs, at start, is over
            time.sleep(0.2)
        try:
            print("with `gitmem daemon` running:")
            _time({BASE: commands[BASE], "gitmem load-core (answered by the daemon)": commands["gitmem load-core (own process)"],
                   "gitmem hook session-start (answered by the daemon)": ["sh", "-c", f"echo '{{}}' | exec {shlex.join(hook)}"]},
                  args.runs, env)
        finally:
            subprocess.run([*gitmem, "--repo", str(root), "daemon", "stop"], capture_output=True, env=env)


def _time(commands: dict[str, list[str]], runs: int, env: dict[str, str]) -> None:
    for cmd in commands.values():   # warm-up (bytecode, page cache, the kept status); a failure stops the bench
        subprocess.run(cmd, capture_output=True, env=env, check=True)
    times = sample_ms(env, Path.cwd(), commands, runs)
    base = statistics.median(times[BASE])
    for name, values in times.items():
        med = statistics.median(values)
        print(f"{name:<52} p50 {med:7.1f} ms  ratio {med / base:5.2f}")


if __name__ == "__main__":
    main()
