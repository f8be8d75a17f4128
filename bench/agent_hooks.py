"""How long Claude Code waits for gitmem's SessionStart and SessionEnd hooks, against a bare interpreter.

A memory repository with N memories (default 200, a tenth of them core) in a temporary HOME; each
round runs, as Claude Code would (a shell, the hook JSON on stdin):

- ``baseline``:      ``python -c pass`` (the floor any Python hook pays);
- ``load-core``:     ``python -m gitmem load-core`` (the same core, printed by the verb);
- ``session-start``: ``python -m gitmem hook session-start`` (the core printed into the context);
- ``session-end``:   ``python -m gitmem hook session-end`` (returns once the harvest is handed off; the
                     detached harvest is waited for between rounds, outside the timing).

SessionEnd shares a 1.5 s budget unless its ``timeout`` is raised (install sets 10 s). Figures are
medians and ratios to the baseline of the same run; these 2-core machines are shared and noisy.

    python bench/agent_hooks.py [--runs 10] [--memories 200]
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent


def timed(argv: list[str], stdin: bytes, env: dict[str, str]) -> float:
    start = time.perf_counter()
    done = subprocess.run(argv, input=stdin, capture_output=True, env=env)
    took = time.perf_counter() - start
    if done.returncode != 0:
        raise SystemExit(f"{argv[2:6]} failed: {done.stderr.decode()[-400:]}")
    return took


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--runs", type=int, default=10)
    parser.add_argument("--memories", type=int, default=200)
    args = parser.parse_args()
    sys.path.insert(0, str(ROOT))
    with tempfile.TemporaryDirectory() as tmp:
        home = Path(tmp)
        env = {"HOME": str(home), "PATH": os.environ.get("PATH", "/usr/bin:/bin"),
               "GIT_CONFIG_GLOBAL": str(home / ".gitconfig"), "GIT_CONFIG_NOSYSTEM": "1",
               "PYTHONPATH": str(ROOT)}
        (home / ".gitconfig").write_text("[user]\n\tname = Bench\n\temail = bench@example.com\n")
        os.environ.update(env)
        from gitmem.api import MemoryRepo

        mem = home / "memory"
        MemoryRepo.init(mem, install_hooks=False)
        repo = MemoryRepo.open(mem)
        for n in range(args.memories):
            repo.remember(f"lesson {n}: the {n % 17}th build step must run before packaging on host {n}",
                          importance=0.95 if n % 10 == 0 else 0.5, dedupe=False)
        transcript = home / "s.jsonl"
        rows = [{"type": "user", "sessionId": "b", "cwd": "/p", "uuid": "u", "timestamp": "2026-11-01T09:00:00Z",
                 "message": {"role": "user", "content": "remember: bench sessions are short"}}]
        transcript.write_text("".join(json.dumps(r) + "\n" for r in rows))
        py = sys.executable
        start_in = json.dumps({"session_id": "b", "transcript_path": str(transcript), "cwd": str(home),
                               "hook_event_name": "SessionStart", "source": "startup"}).encode()
        end_in = json.dumps({"session_id": "b", "transcript_path": str(transcript), "cwd": str(home),
                             "hook_event_name": "SessionEnd", "reason": "other"}).encode()
        log = mem / ".git" / "gitmem" / "post-session.log"
        times: dict[str, list[float]] = {"baseline": [], "load-core": [], "session-start": [], "session-end": []}
        for _ in range(args.runs):
            times["baseline"].append(timed([py, "-c", "pass"], b"", env))
            times["load-core"].append(timed([py, "-m", "gitmem", "--repo", str(mem), "load-core"], b"", env))
            times["session-start"].append(timed([py, "-m", "gitmem", "hook", "session-start", "--repo", str(mem)],
                                                start_in, env))
            seen = log.read_text().count("post-session:") if log.exists() else 0
            times["session-end"].append(timed([py, "-m", "gitmem", "hook", "session-end", "--repo", str(mem)],
                                              end_in, env))
            while (log.read_text().count("post-session:") if log.exists() else 0) == seen:
                time.sleep(0.05)   # the detached harvest, outside the timing
        base = statistics.median(times["baseline"])
        print(f"{args.memories} memories, {args.runs} runs, medians:")
        for name, values in times.items():
            med = statistics.median(values)
            print(f"  {name:<14} {med * 1000:7.1f} ms  {med / base:5.1f}x baseline   max {max(values) * 1000:7.1f} ms")


if __name__ == "__main__":
    main()
