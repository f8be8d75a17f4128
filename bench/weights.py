"""One Hebbian weight update over 1k and 10k patterns, next to a raw pygit2 commit of the same
files in the same run; then `review show` and `review accept` of that update.

    python bench/weights.py [--sizes 1000,10000] [--sessions 5]

Patterns and sessions are written straight into git (no write path), then
timed: `weights --propose` (compute + one commit to a review branch, no work
tree), the raw commit it is measured against (pygit2 TreeBuilders along the
changed paths, the same blobs, one commit to a branch: no work tree, no git
index), `review show` and `review accept` of the proposal, and `weights --apply`
(one commit to main, work tree and git index updated). Ratios: propose / raw,
accept / propose.
"""

from __future__ import annotations

import argparse
import shutil
import statistics
import sys
import tempfile
import time
from datetime import timedelta
from pathlib import Path

import pygit2
from pygit2.enums import FileMode

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from gitmem.api import MemoryRepo, patterns  # noqa: E402
from gitmem.base import clock  # noqa: E402
from gitmem.engines.hebbian import session_terms  # noqa: E402
from gitmem.store.documents import Pattern, render_pattern  # noqa: E402

NOW = clock.parse_time("2026-11-29T12:00:00Z")
# "token" was one: the secret scanner then refuses the accept, reading patterns.md's line
# "- **Rule 98 about token** (weight 0.27, episodic) — patterns/pattern-000098.md" as a credential.
WORDS = ["deploy", "backoff", "kafka", "schema", "lint", "cache", "retry", "index", "queue", "review"]


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


def raw_commit(root: Path, changes: dict[str, bytes | None]) -> float:
    """Seconds for pygit2 to write the same blobs, rebuild the trees along their paths and commit to a
    branch (no work tree, no git index): the floor a commit to a review branch can reach."""
    repo = pygit2.Repository(str(root))
    start = time.perf_counter()
    head = repo.head.peel(pygit2.Commit)
    tree = _tree_with(repo, head.tree, {tuple(p.split("/")): d for p, d in changes.items()})
    sig = pygit2.Signature("bench", "bench@example.com")
    commit = repo.create_commit(None, sig, sig, "raw", tree, [head.id])
    repo.references.create("refs/heads/bench-raw", commit, force=True)
    return time.perf_counter() - start


def _tree_with(repo: pygit2.Repository, tree: pygit2.Tree | None,
               changes: dict[tuple[str, ...], bytes | None]) -> pygit2.Oid:
    """``tree`` with ``changes`` (path parts -> blob data, None deletes) applied, one TreeBuilder per folder."""
    builder = repo.TreeBuilder(tree) if tree is not None else repo.TreeBuilder()
    below: dict[str, dict[tuple[str, ...], bytes | None]] = {}
    for parts, data in changes.items():
        if len(parts) > 1:
            below.setdefault(parts[0], {})[parts[1:]] = data
        elif data is None:
            if builder.get(parts[0]) is not None:
                builder.remove(parts[0])
        else:
            builder.insert(parts[0], repo.create_blob(data), FileMode.BLOB)
    for name, sub in below.items():
        entry = tree[name] if tree is not None and name in tree else None
        child = repo.get(entry.id) if entry is not None else None
        builder.insert(name, _tree_with(repo, child if isinstance(child, pygit2.Tree) else None, sub), FileMode.TREE)
    return builder.write()


def timed(fn):  # type: ignore[no-untyped-def]
    start = time.perf_counter()
    value = fn()
    return time.perf_counter() - start, value


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__)
    ap.add_argument("--sizes", default="1000,10000")
    ap.add_argument("--sessions", type=int, default=5)
    args = ap.parse_args()
    print(f"{'patterns':>9} {'dry run':>9} {'propose':>9} {'raw pygit2':>11} {'ratio':>6} {'show':>8} "
          f"{'accept':>8} {'acc/prop':>8} {'apply':>9}")
    for n in (int(s) for s in args.sizes.split(",")):
        tmp = Path(tempfile.mkdtemp(prefix="gitmem-bench-weights-"))
        try:
            build(tmp / "a", n, args.sessions)
            repo = MemoryRepo.open(tmp / "a")
            dry, report = timed(lambda: repo.weights(NOW))
            update = patterns.weights_plan(repo._ctx, repo.head)
            changes = patterns.weights_changes(repo._ctx, repo.head, update)
            raws, proposes = [], []
            for _ in range(3):   # interleaved: raw, propose, raw, propose ...
                raws.append(raw_commit(tmp / "a", changes))
                build(tmp / "b", n, args.sessions)
                other = MemoryRepo.open(tmp / "b")
                seconds, proposal = timed(lambda: other.propose_weights(NOW))
                proposes.append(seconds)
                if len(proposes) < 3:
                    shutil.rmtree(tmp / "b")
            raw, propose = statistics.median(raws), statistics.median(proposes)
            show, _ = timed(lambda: other.review_show(proposal.branch))
            accept, _ = timed(lambda: other.review_accept(proposal.branch, i_am_the_reviewer=True, now=NOW))
            apply, _ = timed(lambda: repo.apply_weights(NOW))
            print(f"{n:>9} {dry:>8.2f}s {propose:>8.2f}s {raw:>10.2f}s {propose / raw:>5.1f}x {show:>7.2f}s "
                  f"{accept:>7.2f}s {accept / propose:>7.1f}x {apply:>8.2f}s   ({len(report.rows)} patterns moved)")
        finally:
            shutil.rmtree(tmp, ignore_errors=True)


if __name__ == "__main__":
    main()
