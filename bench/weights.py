"""One Hebbian weight update over 1k and 10k patterns, as one commit, next to a raw pygit2 commit of
the same files in the same run; then `review show` and `review accept` of that update.

    python bench/weights.py [--sizes 1000,10000] [--sessions 5]

Patterns and sessions are written straight into git (no write path), then
timed: `weights --apply` (compute + one commit, work tree and index updated),
the raw commit (pygit2: the same blobs into a tree, one commit, no work tree),
`weights --propose`, `review show` and `review accept` of the proposal.
"""

from __future__ import annotations

import argparse
import shutil
import sys
import tempfile
import time
from datetime import timedelta
from pathlib import Path

import pygit2
from pygit2.enums import FileMode

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from gitmem.api import MemoryRepo  # noqa: E402
from gitmem.base import clock  # noqa: E402
from gitmem.engines.hebbian import session_terms  # noqa: E402
from gitmem.store.documents import Pattern, render_pattern  # noqa: E402

NOW = clock.parse_time("2026-11-29T12:00:00Z")
WORDS = ["deploy", "backoff", "kafka", "schema", "lint", "cache", "retry", "index", "token", "review"]


def build(root: Path, n: int, sessions: int) -> None:
    """A memory repository with ``n`` patterns and ``sessions`` episodes, committed in one go."""
    MemoryRepo.init(root, NOW - timedelta(days=30), install_hooks=False)
    repo = pygit2.Repository(str(root))
    tip = repo.head.target
    index = repo.index
    index.read()
    for i in range(n):
        slug = f"pattern-{i:06d}"
        p = Pattern(slug, f"Rule {i} about {WORDS[i % 10]}", 0.3, "episodic", (WORDS[i % 10], f"w{i % 97}"),
                    (f"lesson {i}",), (), 0, "", "2026-10-01T00:00:00Z", f"patterns/{slug}.md")
        data = render_pattern(p)
        (root / p.path).write_bytes(data)
        index.add(p.path)
    for s in range(sessions):
        at = (NOW - timedelta(days=20 - s)).strftime("%Y-%m-%dT%H:%M:%SZ")
        stems, cited = session_terms([" ".join(WORDS[s % 10:s % 10 + 3]) + f" w{s}"])
        sid = f"00000000-0000-4000-8000-{s:012d}"
        path = f"episodes/{at[:4]}/{at[5:7]}/{sid}.md"
        (root / path).parent.mkdir(parents=True, exist_ok=True)
        (root / path).write_text(f"---\nid: {sid}\ntype: episode\nsession: {sid}\nstarted: '{at}'\n"
                                 f"stems: '{stems}'\ncited: '{cited}'\n---\nsession {s}\n")
        index.add(path)
    index.write()
    sig = pygit2.Signature("bench", "bench@example.com")
    repo.create_commit("HEAD", sig, sig, "bench: patterns and sessions", index.write_tree(), [tip])


def raw_commit(root: Path, changes: dict[str, bytes]) -> float:
    """Seconds for pygit2 to write the same blobs, rebuild the tree and commit (no work tree)."""
    repo = pygit2.Repository(str(root))
    start = time.perf_counter()
    index = pygit2.Index()
    index.read_tree(repo.head.peel().tree)
    for path, data in changes.items():
        index.add(pygit2.IndexEntry(path, repo.create_blob(data), FileMode.BLOB))
    tree = index.write_tree(repo)
    sig = pygit2.Signature("bench", "bench@example.com")
    repo.create_commit(None, sig, sig, "raw", tree, [repo.head.target])
    return time.perf_counter() - start


def timed(fn):  # type: ignore[no-untyped-def]
    start = time.perf_counter()
    value = fn()
    return time.perf_counter() - start, value


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__)
    ap.add_argument("--sizes", default="1000,10000")
    ap.add_argument("--sessions", type=int, default=5)
    args = ap.parse_args()
    print(f"{'patterns':>9} {'dry run':>9} {'apply':>9} {'raw pygit2':>11} {'ratio':>6} {'propose':>9} "
          f"{'show':>8} {'accept':>8}")
    for n in (int(s) for s in args.sizes.split(",")):
        tmp = Path(tempfile.mkdtemp(prefix="gitmem-bench-weights-"))
        try:
            build(tmp / "a", n, args.sessions)
            repo = MemoryRepo.open(tmp / "a")
            dry, report = timed(lambda: repo.weights(NOW))
            plan = repo._weights_plan(repo.head)
            raw = raw_commit(tmp / "a", dict(plan.changes))
            apply, _ = timed(lambda: repo.apply_weights(NOW))
            build(tmp / "b", n, args.sessions)
            other = MemoryRepo.open(tmp / "b")
            propose, proposal = timed(lambda: other.propose_weights(NOW))
            show, _ = timed(lambda: other.review_show(proposal.branch))
            accept, _ = timed(lambda: other.review_accept(proposal.branch, i_am_the_reviewer=True, now=NOW))
            print(f"{n:>9} {dry:>8.2f}s {apply:>8.2f}s {raw:>10.2f}s {apply / raw:>5.1f}x {propose:>8.2f}s "
                  f"{show:>7.2f}s {accept:>7.2f}s   ({len(report.rows)} patterns moved)")
        finally:
            shutil.rmtree(tmp, ignore_errors=True)


if __name__ == "__main__":
    main()
