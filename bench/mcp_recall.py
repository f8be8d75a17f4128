"""A `recall` tool call to `gitmem serve --http` next to the CLI and to the API in process.

    python bench/mcp_recall.py [--size 10000] [--runs 30]

Builds a memory repository of --size memories, starts `gitmem serve --http` on a
free port, and times, interleaved in the same run:
  - one `recall` tool call over an open HTTP session (the steady state of an agent);
  - a new session (connect, handshake) plus one call;
  - one whole `gitmem recall --json` process;
  - `MemoryRepo.recall` in process (the floor both faces stand on).
Needs the MCP SDK (pip install -e '.[mcp]').
"""

from __future__ import annotations

import argparse
import os
import socket
import statistics
import subprocess
import sys
import tempfile
import time
from collections.abc import Awaitable, Callable
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))
sys.path.insert(0, str(Path(__file__).resolve().parent))

import anyio  # noqa: E402
from mcp import Client  # noqa: E402

from commit import build  # noqa: E402
from recall_latency import Corpus  # noqa: E402

from gitmem.api import MemoryRepo  # noqa: E402
from gitmem.base import text  # noqa: E402
from gitmem.store import refresh  # noqa: E402


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


def report(name: str, values: list[float], base: float) -> None:
    med = statistics.median(values)
    p95 = sorted(values)[int(0.95 * (len(values) - 1))]
    print(f"{name:<40} p50 {med:8.1f} ms  p95 {p95:8.1f} ms  ratio {med / base:6.2f}")


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--size", type=int, default=10_000)
    ap.add_argument("--runs", type=int, default=30)
    args = ap.parse_args()
    with tempfile.TemporaryDirectory(prefix="gitmem-bench-") as tmp:
        root = Path(tmp) / "mem"
        corpus = Corpus()
        texts = [corpus.text() for _ in range(args.size)]
        build(root, args.size, stamp="2026-11-28T12:00:00Z", text=texts.__getitem__)
        words = [w for w in texts[7].lower().rstrip(".").split() if w not in text.STOP_WORDS]
        query = " ".join(words[-3:])
        repo = MemoryRepo.open(root)
        refresh.rebuild_file(repo.git, repo.head).close()
        port = free_port()
        server = subprocess.Popen([sys.executable, "-m", "gitmem", "serve", "--repo", str(root), "--http",
                                   "--port", str(port)], stderr=subprocess.DEVNULL, env=dict(os.environ))
        try:
            for _ in range(600):
                try:
                    socket.create_connection(("127.0.0.1", port), timeout=1).close()
                    break
                except OSError:
                    time.sleep(0.1)
            url = f"http://127.0.0.1:{port}/mcp"
            anyio.run(lambda: run(url, root, query, args.runs, args.size))
        finally:
            server.terminate()
            server.wait(timeout=30)


async def run(url: str, root: Path, query: str, runs: int, size: int) -> None:
    cli = [sys.executable, "-m", "gitmem", "--repo", str(root), "recall", "--json", query]
    times: dict[str, list[float]] = {k: [] for k in ("api", "mcp call", "mcp connect + call", "cli")}

    async def timed(name: str, fn: Callable[[], Awaitable[object]]) -> None:
        t0 = time.perf_counter()
        await fn()
        times[name].append((time.perf_counter() - t0) * 1000)

    async def fresh() -> None:
        async with Client(url) as c:
            await c.call_tool("recall", {"query": query})

    async def in_process() -> None:
        await anyio.to_thread.run_sync(lambda: MemoryRepo.open(root).recall(query))

    async def process() -> None:
        await anyio.to_thread.run_sync(lambda: subprocess.run(cli, capture_output=True, check=True))

    async with Client(url) as session:
        async def call() -> None:
            result = await session.call_tool("recall", {"query": query})
            assert not result.is_error, result.content
        for warm in (in_process, call, fresh, process):
            await warm()
        for _ in range(runs):
            await timed("api", in_process)
            await timed("mcp call", call)
            await timed("mcp connect + call", fresh)
            await timed("cli", process)
    print(f"{size} memories, {runs} interleaved runs; ratios against MemoryRepo.recall in process")
    base = statistics.median(times["api"])
    for name, label in (("api", "MemoryRepo.recall (in process)"), ("mcp call", "recall tool, open HTTP session"),
                        ("mcp connect + call", "recall tool, new HTTP session"),
                        ("cli", "gitmem recall --json (whole process)")):
        report(label, times[name], base)


if __name__ == "__main__":
    main()
