"""What each shortcut that shadows a library saves, against that library, in the same run.

gitmem keeps a shortcut beside a well-kept library only where this script
shows it pays, and a property test checks it against the library:

- ``yamlio`` reading gitmem's own front-matter shape (``load_plain``: lines
  undone, a line of plain words taken as libyaml's emitter writes it and any
  other line verified by dumping it again), and its tree builder over the
  C parser's events, next to ruamel's safe loader (the full library path).
  Property tests: ``tests/test_yamlio.py`` (``..._agrees_with_the_parser_or_declines``,
  ``..._agrees_with_ruamel``).
- ``TYPE_CHECKING = False`` in the modules a recall or a hook loads: their
  annotations name ``typing``'s names without importing ``typing`` at run
  time (mypy reads them as usual); the figure is what importing ``typing``
  costs a fresh interpreter.
- ``gitio.heads`` reading HEAD and refs from git's files, next to importing
  pygit2 and asking it, each in a fresh interpreter (what a recall or a hook
  pays). Property test: ``tests/test_gitio_heads.py``
  (``test_reading_refs_from_files_agrees_with_pygit2``).

    python bench/shortcuts.py [--docs 2000] [--runs 15]

Absolute times are noisy on shared machines; read the ratios, measured in the same run.
"""

from __future__ import annotations

import argparse
import random
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))
from gitmem.base import yamlio  # noqa: E402


def _front_matters(n: int) -> list[str]:
    """``n`` memory front matters in the shape gitmem writes (dump_plain)."""
    rng = random.Random(7)
    words = ["deploy", "staging", "database", "port", "review", "python", "cache", "token", "build", "lint"]
    out = []
    for i in range(n):
        out.append(yamlio.dump_plain({
            "id": f"m-2026-11-{1 + i % 28:02d}-{rng.getrandbits(24):06x}", "type": rng.choice(["fact", "preference"]),
            "domain": "project", "tier": "working", "importance": round(rng.random(), 3),
            "created": "2026-11-29T13:40:00Z", "last_accessed": "2026-11-30T08:00:00Z", "access_count": i % 9,
            "keywords": rng.sample(words, 3), "tags": [], "links": [f"m-2026-10-01-{i:06x}"] if i % 3 else [],
            "source": f"session:{i:08x}#L{i % 400}",
        }))
    return out


def _time(fn: object, docs: list[str], rounds: int = 3) -> float:
    best = float("inf")
    for _ in range(rounds):
        start = time.perf_counter()
        for doc in docs:
            fn(doc)  # type: ignore[operator]
        best = min(best, time.perf_counter() - start)
    return best / len(docs) * 1e6


def yaml_figures(n: int) -> None:
    docs = _front_matters(n)
    assert all(yamlio.load_plain(d) == yamlio.normalize(yamlio.load_safe(d)) for d in docs[:200])
    safe = _time(yamlio.load_safe, docs)
    events = _time(yamlio.plain.load_events, docs)
    plain = _time(yamlio.load_plain, docs)
    # the reading before lines of plain words were taken as the emitter writes them: all dumped again
    dumped = _time(lambda d: yamlio.dump_plain(yamlio.plain.read_canonical(d) or {}) == d, docs)
    print(f"yaml, {n} memory front matters (us per document, best of 3)")
    print(f"  ruamel safe loader (the library)   {safe:8.1f}")
    print(f"  tree from the C parser's events    {events:8.1f}   {safe / events:5.1f}x faster")
    print(f"  gitmem's own shape, dumped again   {dumped:8.1f}   {safe / dumped:5.1f}x faster")
    print(f"  gitmem's own shape, plain words    {plain:8.1f}   {safe / plain:5.1f}x faster"
          f"   ({dumped / plain:.1f}x the one dumped again)")


def _fresh(code: str, runs: int) -> float:
    times = []
    for _ in range(runs):
        start = time.perf_counter()
        subprocess.run([sys.executable, "-c", code], check=True, cwd=ROOT)
        times.append(time.perf_counter() - start)
    return statistics.median(times) * 1000


def heads_figures(runs: int) -> None:
    with tempfile.TemporaryDirectory() as tmp:
        repo = Path(tmp) / "r"
        subprocess.run(["git", "init", "-q", "-b", "main", str(repo)], check=True)
        subprocess.run(["git", "-C", str(repo), "-c", "user.name=b", "-c", "user.email=b@e", "commit", "-q",
                        "--allow-empty", "-m", "one"], check=True)
        for month in range(1, 13):
            subprocess.run(["git", "-C", str(repo), "tag", f"gitmem/snapshot/2026-{month:02d}"], check=True)
        subprocess.run(["git", "-C", str(repo), "pack-refs", "--all"], check=True)
        prefix = "refs/tags/gitmem/snapshot/"
        bare = _fresh("pass", runs)
        files = _fresh("from gitmem.base.gitio.heads import head_commit, ref_names, read_git_dirs\n"
                       f"g, c = read_git_dirs({str(repo)!r}); head_commit(g); ref_names(c, {prefix!r})", runs)
        lib = _fresh(f"import pygit2\nr = pygit2.Repository({str(repo)!r}); r.head.target\n"
                     f"[x for x in r.references if x.startswith({prefix!r})]", runs)
    print(f"HEAD and snapshot refs, fresh interpreter (median of {runs}, ms; an empty interpreter {bare:.1f})")
    print(f"  pygit2 (the library)               {lib - bare:8.1f}")
    print(f"  gitmem's file readers              {files - bare:8.1f}   {(lib - bare) / max(files - bare, 0.1):5.1f}x less")


def typing_figure(runs: int) -> None:
    bare = _fresh("pass", runs)
    typed = _fresh("import typing", runs)
    recall = _fresh("from gitmem.faces import cli", runs)
    print(f"typing, fresh interpreter (median of {runs}, ms)")
    print(f"  import typing                      {typed - bare:8.1f}")
    print(f"  import gitmem.faces.cli (no typing) {recall - bare:7.1f}")


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--docs", type=int, default=2000)
    parser.add_argument("--runs", type=int, default=15)
    args = parser.parse_args(argv)
    yaml_figures(args.docs)
    heads_figures(args.runs)
    typing_figure(args.runs)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
