"""pii.stream: a stream scanned a window at a time finds what a whole-text scan finds, in bounded memory."""

from __future__ import annotations

import io
import re
import random
import subprocess
import sys

import pytest

from gitmem.guards import pii
from gitmem.guards.pii.stream import scan_stream

FAKE_AWS_KEY = "AKIA" + "Q3EGRMX7T2LBN5VW"


def _corpus(seed: int, lines: int) -> str:
    rng = random.Random(seed)
    pem = ("-----BEGIN RSA PRIVATE KEY-----\n"
           + "\n".join("MIIEow" + "".join(rng.choice("ABCDEFGHabcdefgh0123456789+/") for _ in range(58)) for _ in range(25))
           + "\n-----END RSA PRIVATE KEY-----\n")
    parts = []
    for i in range(lines):
        r = rng.random()
        if r < 0.01:
            parts.append(f"aws_access_key_id = {FAKE_AWS_KEY}\n")
        elif r < 0.015:
            parts.append(pem)
        elif r < 0.03:
            parts.append(f"write to person{i}@example.org, or call +1 415 555 01{i % 100:02d}\n")
        elif r < 0.035:
            parts.append("é" * rng.randrange(1, 9000))   # a long line without newline, then the next part
        else:
            parts.append(f"ordinary words on line {i}, ünïcödé too\n")
    return "".join(parts)


@pytest.mark.parametrize("seed, block, overlap", [(1, 1 << 20, 1 << 16), (2, 997, 4096), (3, 5000, 8192),
                                                  (4, 1 << 12, 1 << 13)])
def test_a_stream_scan_finds_what_a_whole_scan_finds(seed: int, block: int, overlap: int) -> None:
    text = _corpus(seed, 3000)
    whole = [(f.kind, f.start, f.end, f.secret, *pii.position(text, f.start)) for f in pii.scan(text)]
    assert whole
    assert [tuple(f)[:6] for f in scan_stream(io.BytesIO(text.encode()), block=block, overlap=overlap)] == whole


def test_pii_scan_of_an_endless_pipe_reports_as_it_reads() -> None:
    """An endless generator piped into `gitmem pii scan -` in a real subprocess: findings arrive while it runs."""
    endless = ("import sys\ni = 0\nwhile True:\n    i += 1\n"
               f"    sys.stdout.write('aws_access_key_id = {FAKE_AWS_KEY}\\n' if i % 5000 == 0 else 'plain line\\n')\n")
    feeder = subprocess.Popen([sys.executable, "-c", endless], stdout=subprocess.PIPE)
    scanner = subprocess.Popen([sys.executable, "-m", "gitmem", "pii", "scan", "-"], stdin=feeder.stdout,
                               stdout=subprocess.PIPE, text=True)
    assert feeder.stdout is not None and scanner.stdout is not None
    feeder.stdout.close()
    import threading

    timer = threading.Timer(120, scanner.kill)   # a scanner that reads the stream whole never answers
    timer.start()
    try:
        first = [scanner.stdout.readline() for _ in range(3)]
    finally:
        timer.cancel()
        scanner.kill()
        feeder.kill()
        scanner.wait()
        feeder.wait()
    assert [line.rsplit("\t", 1)[0] for line in first] == ["aws_access_key at line 5000, column 21\tsecret",
                                                          "aws_access_key at line 10000, column 21\tsecret",
                                                          "aws_access_key at line 15000, column 21\tsecret"]
    assert all(re.fullmatch(r"aws_access_key-[0-9a-f]{12}\n", line.rsplit("\t", 1)[1]) for line in first)  # ids
