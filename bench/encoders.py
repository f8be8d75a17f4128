"""What the built-in encoders send, and what they cost a harvest, over the bench sessions.

Run by hand from the repository root:

    PYTHONPATH=. python bench/encoders.py [FOLDER]

Harvests every transcript of FOLDER (default ``$GITMEM_BENCH_DIR``/sessions or
``../shared/bench/sessions``, read in place, never copied) twice, each into a
fresh memory repository: with the default encoder, then with an endpoint
encoder pointed at a stand-in chat server on 127.0.0.1 that answers at once
with the durable signals it was sent (so the figure is gitmem's own overhead,
not a model's). Prints, per budget (the endpoint's 8,000 characters and
Claude's 60,000), the size of what one session sends (characters of the
request, a rough token count at 4 characters a token, the largest turns part), how many
sessions are never sent (a secret), and both harvests' wall times.
"""

from __future__ import annotations

import json
import os
import statistics
import subprocess
import sys
import tempfile
import threading
import time
from datetime import datetime, timezone
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from gitmem.api import MemoryRepo  # noqa: E402
from gitmem.engines.harvest import encoder  # noqa: E402

NOW = datetime(2026, 11, 30, 12, 0, tzinfo=timezone.utc)


def default_folder() -> Path:
    """The shared bench folder: env ``GITMEM_BENCH_DIR``/sessions or ``../shared/bench/sessions``."""
    env = os.environ.get("GITMEM_BENCH_DIR")
    return Path(env) / "sessions" if env else Path(__file__).resolve().parents[2] / "shared" / "bench" / "sessions"


def serve(sizes: list[dict[str, Any]]) -> ThreadingHTTPServer:
    """A stand-in chat endpoint: records each request's size and answers with the durable signals it got."""
    class Handler(BaseHTTPRequestHandler):
        def do_POST(self) -> None:   # noqa: N802
            body = json.loads(self.rfile.read(int(self.headers.get("Content-Length", 0))))
            sent = json.loads(body["messages"][1]["content"])
            sizes.append({"chars": sum(len(m["content"]) for m in body["messages"]),
                          "turns": len(sent["turns"]), "turn_chars": sum(len(t["text"]) for t in sent["turns"])})
            lines = [json.dumps({"text": s["text"], "kind": s["kind"], "line": s["line"]})
                     for s in sent["signals"] if s["durable"]]
            reply = json.dumps({"choices": [{"message": {"content": "\n".join(lines)}}]}).encode()
            self.send_response(200)
            self.send_header("Content-Length", str(len(reply)))
            self.end_headers()
            self.wfile.write(reply)

        def log_message(self, *args: Any) -> None:
            pass

    server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
    threading.Thread(target=server.serve_forever, daemon=True).start()
    return server


def harvest(folder: Path, url: str | None, chars: int) -> tuple[float, list[Any]]:
    """One harvest of ``folder`` into a fresh repository: (seconds, results)."""
    root = Path(tempfile.mkdtemp(prefix="gitmem-bench-enc-")) / "mem"
    MemoryRepo.init(root, NOW, install_hooks=False)
    if url:
        for key, value in ((encoder.URL_KEY, url), (encoder.MODEL_KEY, "bench"), (encoder.CHARS_KEY, str(chars))):
            subprocess.run(["git", "config", key, value], cwd=root, check=True)
    start = time.perf_counter()
    results = MemoryRepo.open(root).harvest([folder], now=NOW)
    return time.perf_counter() - start, results


def main(argv: list[str] | None = None) -> int:
    """Measure and print; returns an exit code."""
    args = sys.argv[1:] if argv is None else argv
    folder = Path(args[0]) if args else default_folder()
    if not folder.is_dir():
        print(f"skipped: no bench transcripts at {folder} (set GITMEM_BENCH_DIR)")
        return 0
    base_s, base = harvest(folder, None, 0)
    print(f"default encoder: {len(base)} sessions in {base_s:.1f} s, "
          f"{sum(r.created for r in base)} memories created, {sum(r.status == 'rejected' for r in base)} rejected")
    for chars in (encoder.ENDPOINT_CHARS, encoder.TURNS_CHARS):
        sizes: list[dict[str, Any]] = []
        server = serve(sizes)
        try:
            took, results = harvest(folder, f"http://127.0.0.1:{server.server_address[1]}/v1", chars)
        finally:
            server.shutdown()
        warned = sum(bool(r.warnings) and any("encoder" in w for w in r.warnings) for r in results)
        per = sorted(s["chars"] for s in sizes)
        turns = max((s["turn_chars"] for s in sizes), default=0)
        print(f"turn budget {chars:>6} chars: {len(sizes)} sessions sent, "
              f"{sum(r.status == 'rejected' for r in results)} never sent (a secret), {warned} fell back; "
              f"request median {statistics.median(per) if per else 0:.0f} chars (~{(statistics.median(per) if per else 0) / 4:.0f} "
              f"tokens), max {max(per, default=0)} (~{max(per, default=0) / 4:.0f} tokens), turns at most {turns} chars; "
              f"{sum(r.created for r in results)} memories created; harvest {took:.1f} s "
              f"({(took - base_s) / max(len(sizes), 1) * 1000:+.0f} ms a session against the default)")
    return 0


if __name__ == "__main__":
    sys.exit(main())
