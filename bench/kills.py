"""Kill gitmem at random moments, then commit as a person would: nothing may be lost.

Each round starts one gitmem writer (a burst of ``remember``, an ``import`` of
a few hundred rows, or a ``decay`` that archives most memories), SIGKILLs it at
a random moment (or the moment its branch moves), then commits an unrelated
file with a plain ``git commit`` (every other round ``git commit -a``). That
commit may refuse (gitmem's ``index.lock``): then ``gitmem recover`` runs and
the commit is made again. A round fails when the person's commit deletes or
changes anything gitmem had committed, when it fails for another reason, when
``gitmem recover`` fails, or when the work tree is not clean afterwards.

Run from the project root:  python bench/kills.py [-n 100] [--seed 1]
Prints one line per failed round (and, with --show-refusals, per refused commit) and a summary
(rounds, refusals, failures).
"""

from __future__ import annotations

import argparse
import json
import os
import random
import signal
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
KINDS = ("remember", "import", "decay")
NOW = "2026-11-29T12:00:00Z"
REMEMBER = """
import sys
sys.path.insert(0, {root!r})
from gitmem.api import MemoryRepo
from gitmem.base.clock import parse_time
repo = MemoryRepo.open(sys.argv[1])
for i in range(int(sys.argv[3])):
    repo.remember(f"round {{sys.argv[2]}} note {{i}} about the build cache of service {{i}}", dedupe=False,
                  now=parse_time({now!r}))
"""


def git(repo: Path, *args: str, check: bool = True) -> subprocess.CompletedProcess[str]:
    """``git ARGS`` in ``repo`` (a person's git: no gitmem involved)."""
    return subprocess.run(["git", *args], cwd=repo, capture_output=True, text=True, check=check)


def gitmem(repo: Path, *args: str) -> list[str]:
    """The command line of ``gitmem --repo REPO ARGS`` run from this checkout."""
    return [sys.executable, "-c", f"import sys; sys.path.insert(0, {str(ROOT)!r}); "
            "from gitmem.faces.cli import main; sys.exit(main())", "--repo", str(repo), *args]


def make_repo(path: Path, hooks: bool = False) -> Path:
    """A fresh memory repository with a tracked file a person edits, and a first batch of memories."""
    subprocess.run(gitmem(path.parent, "--now", NOW, "init", str(path), *([] if hooks else ["--no-hooks"])),
                   check=True, capture_output=True)
    (path / "person.txt").write_text("0\n")
    git(path, "add", "person.txt")
    git(path, "commit", "-q", "-m", "a person's file")
    rows = path.parent / "seed.jsonl"
    rows.write_text("".join(json.dumps({"content": f"seed memory {i} on the release checklist step {i}",
                                        "created": "2026-01-02T00:00:00Z"}) + "\n" for i in range(60)))
    subprocess.run(gitmem(path, "--now", NOW, "import", str(rows)), check=True, capture_output=True)
    return path


def writer(repo: Path, kind: str, n: int, work: Path) -> subprocess.Popen[bytes]:
    """Start one gitmem writer of ``kind``."""
    if kind == "remember":
        cmd = [sys.executable, "-c", REMEMBER.format(root=str(ROOT), now=NOW), str(repo), str(n), "40"]
    elif kind == "import":
        rows = work / f"rows-{n}.jsonl"
        rows.write_text("".join(json.dumps({"content": f"imported {n}-{i}: deploy step {i} needs the {n} key rotated"})
                                + "\n" for i in range(300)))
        cmd = gitmem(repo, "--now", NOW, "import", str(rows))
    else:
        # each decay a month later than the last: there is always something to move to the archive
        cmd = gitmem(repo, "--now", f"{2027 + n // 12:04d}-{n % 12 + 1:02d}-15T12:00:00Z", "decay")
    return subprocess.Popen(cmd, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)


def kill_when(p: subprocess.Popen[bytes], repo: Path, rng: random.Random, on_move: bool) -> None:
    """SIGKILL ``p`` after a random delay, or (``on_move``) as soon as its branch moves."""
    if on_move:
        before = git(repo, "rev-parse", "HEAD").stdout
        ref = repo / ".git" / "refs" / "heads" / "main"
        deadline = time.monotonic() + 20
        while time.monotonic() < deadline and p.poll() is None:
            try:
                if ref.read_bytes().decode() != before:
                    break
            except OSError:   # packed, or between lock and rename: ask git
                if git(repo, "rev-parse", "HEAD", check=False).stdout != before:
                    break
    else:
        time.sleep(rng.uniform(0.05, 1.5))
    p.send_signal(signal.SIGKILL)
    p.wait()


def tree(repo: Path) -> dict[str, str]:
    """path -> blob id of every file at HEAD."""
    out = git(repo, "ls-tree", "-r", "HEAD").stdout
    return {line.split("\t", 1)[1]: line.split()[2] for line in out.splitlines()}


def person_commits(repo: Path, n: int, all_flag: bool) -> tuple[bool, str]:
    """A person's commit of an unrelated change; (refused, problem or "")."""
    if all_flag:
        (repo / "person.txt").write_text(f"{n}\n")
        args = ["commit", "-q", "-a", "-m", f"person {n}"]
    else:
        (repo / "notes").mkdir(exist_ok=True)
        (repo / "notes" / f"p{n}.txt").write_text(f"{n}\n")
        added = git(repo, "add", f"notes/p{n}.txt", check=False)
        if added.returncode != 0:
            if "index.lock" not in added.stderr:
                return True, f"git add failed: {added.stderr.strip()}"
            return True, ""
        args = ["commit", "-q", "-m", f"person {n}"]
    done = git(repo, *args, check=False)
    if done.returncode == 0:
        return False, ""
    if "index.lock" in done.stderr or "gitmem recover" in done.stdout + done.stderr:
        return True, ""
    return True, f"git commit failed: {(done.stderr or done.stdout).strip()[:300]}"


def left_behind(repo: Path, head: str) -> str:
    """What a killed writer left: index.lock (gitmem's record of it), its journal, whether the branch moved."""
    gdir = repo / ".git"
    found = [name for name, path in (("index.lock", gdir / "index.lock"),
                                     ("its record", gdir / "gitmem" / "index-writer.json"),
                                     ("a ref lock", gdir / "refs" / "heads" / "main.lock"),
                                     ("the journal", gdir / "gitmem" / "worktree-journal.json")) if path.exists()]
    now = git(repo, "rev-parse", "HEAD").stdout.strip()
    try:
        parent = json.loads((gdir / "gitmem" / "worktree-journal.json").read_text()).get("parent")
    except (OSError, ValueError):
        parent = None
    # the journal of a write whose branch has not moved names the tip as its parent: the kill came during
    # a later write than the one that moved the branch
    later = " (by a later write)" if parent is not None and parent == now and now != head else ""
    return f"{', '.join(found) or 'nothing'} left{later}; the branch {'moved' if now != head else 'did not move'}"


def one_round(repo: Path, n: int, rng: random.Random, work: Path) -> tuple[bool, list[str], str]:
    """Kill one writer, then commit as a person; (the person's commit refused first, problems, what the
    kill left)."""
    kind = KINDS[n % len(KINDS)]
    start = git(repo, "rev-parse", "HEAD").stdout.strip()
    kill_when(writer(repo, kind, n, work), repo, rng, on_move=n % 4 == 3)
    left = left_behind(repo, start)
    problems: list[str] = []
    before = tree(repo)
    head = git(repo, "rev-parse", "HEAD").stdout.strip()
    refused, problem = person_commits(repo, n, all_flag=n % 2 == 1)
    if problem:
        problems.append(problem)
    if refused:
        rec = subprocess.run(gitmem(repo, "recover"), capture_output=True, text=True)
        if rec.returncode != 0:
            problems.append(f"gitmem recover exit {rec.returncode}: {(rec.stderr or rec.stdout).strip()[:300]}")
            return refused, [f"{kind}: {p}" for p in problems], left
        before = tree(repo)
        head = git(repo, "rev-parse", "HEAD").stdout.strip()
        again, problem = person_commits(repo, n, all_flag=n % 2 == 1)
        if again or problem:
            problems.append(f"the commit after `gitmem recover` failed: {problem or 'refused again'}")
    after = tree(repo)
    if git(repo, "rev-parse", "HEAD").stdout.strip() != head:   # the person's commit landed
        lost = sorted(p for p in before if p not in after)
        changed = sorted(p for p in before if p in after and after[p] != before[p] and p != "person.txt")
        if lost:
            problems.append(f"the person's commit deleted {len(lost)} file(s) gitmem had committed: {lost[:3]}")
        if changed:
            problems.append(f"the person's commit changed {len(changed)} file(s) of gitmem's: {changed[:3]}")
    subprocess.run(gitmem(repo, "recover"), capture_output=True)
    status = git(repo, "status", "--porcelain").stdout
    if status.strip():
        problems.append(f"work tree not clean after recovery: {status.splitlines()[:3]}")
    fsck = git(repo, "fsck", check=False)
    if fsck.returncode != 0:
        problems.append(f"git fsck: {fsck.stderr.strip()[:200]}")
    return refused, [f"{kind}: {p}" for p in problems], left


def run(rounds: int, seed: int, base: Path, per_repo: int = 25, verbose: bool = True,
        show_refusals: bool = False) -> tuple[int, int]:
    """``rounds`` kill rounds (a fresh repository every ``per_repo``); returns (refusals, failed rounds)."""
    rng = random.Random(seed)
    refusals = failed = 0
    repo = base
    for n in range(rounds):
        if n % per_repo == 0:
            repo = make_repo(base / f"mem-{n}")
        refused, problems, left = one_round(repo, n, rng, base)
        refusals += refused
        if refused and show_refusals:
            print(f"round {n}: {KINDS[n % len(KINDS)]} killed {'as its branch moved' if n % 4 == 3 else 'at random'}"
                  f": the person's commit was refused ({left})", flush=True)
        if problems:
            failed += 1
            if verbose:
                print(f"round {n}: " + "; ".join(problems), flush=True)
    return refusals, failed


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("-n", "--rounds", type=int, default=100)
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--show-refusals", action="store_true", help="a line for each refused commit")
    args = parser.parse_args()
    os.environ.setdefault("GIT_AUTHOR_NAME", "A Person")
    os.environ.setdefault("GIT_AUTHOR_EMAIL", "person@example.com")
    os.environ.setdefault("GIT_COMMITTER_NAME", "A Person")
    os.environ.setdefault("GIT_COMMITTER_EMAIL", "person@example.com")
    with tempfile.TemporaryDirectory() as tmp:
        start = time.monotonic()
        refusals, failed = run(args.rounds, args.seed, Path(tmp), show_refusals=args.show_refusals)
        print(f"kills: {args.rounds} rounds (remember, import, decay; seed {args.seed}), "
              f"{refusals} commits refused until `gitmem recover`, {failed} failed rounds "
              f"({time.monotonic() - start:.0f} s)")
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
