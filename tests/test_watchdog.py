"""A writer SIGKILLed at a real, observed moment of its write: a person's next `git add` and `git commit`
go through, and nothing gitmem committed is lost (bench/kills.py counts the same at random moments)."""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import time
from pathlib import Path

from gitmem.api import MemoryRepo
from gitmem.base.clock import parse_time

ROOT = Path(__file__).resolve().parent.parent
T = parse_time("2026-11-29T12:00:00Z")
LIMIT = 120.0   # seconds any poll below may wait: generous, never a measured duration

REMEMBER = """
import sys
from gitmem.api import MemoryRepo
from gitmem.base.clock import parse_time
repo = MemoryRepo.open(sys.argv[1])
for i in range(400):
    repo.remember(f"note {i} about the build cache of service {i}", dedupe=False, now=parse_time("2026-11-29T12:00:00Z"))
"""


def git(root: Path, *args: str) -> str:
    return subprocess.run(["git", *args], cwd=root, capture_output=True, text=True, check=True).stdout


def poll(condition: object, what: str) -> None:
    deadline = time.monotonic() + LIMIT
    while not condition():   # type: ignore[operator]
        assert time.monotonic() < deadline, f"still waiting for {what}"
        time.sleep(0.0005)


def memories_at_head(root: Path) -> set[str]:
    return {p for p in git(root, "ls-tree", "-r", "--name-only", "HEAD").splitlines() if p.startswith("memory/")}


def a_person_commits(root: Path, n: int) -> None:
    """A person's `git add` of a new file and `git commit`, then a `git commit -a` of an edit: both must go through."""
    (root / f"person-{n}.txt").write_text("a person's file\n")
    subprocess.run(["git", "add", f"person-{n}.txt"], cwd=root, check=True, capture_output=True)
    subprocess.run(["git", "commit", "-qm", f"person {n}"], cwd=root, check=True, capture_output=True)
    (root / f"person-{n}.txt").write_text("edited\n")
    subprocess.run(["git", "commit", "-qam", f"person {n} again"], cwd=root, check=True, capture_output=True)


def repo_at(tmp_path: Path) -> MemoryRepo:
    repo = MemoryRepo.init(tmp_path / "mem", T, install_hooks=False)
    repo.remember("the first memory, so the branch has one", now=T)
    return repo


def test_a_writer_killed_holding_the_index_lock_leaves_it_free_at_once(tmp_path: Path) -> None:
    root = repo_at(tmp_path).root
    lock, record = root / ".git" / "index.lock", root / ".git" / "gitmem" / "index-writer.json"
    for n in range(3):
        writer = subprocess.Popen([sys.executable, "-c", REMEMBER, str(root)], cwd=ROOT,
                                  stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
        try:
            poll(lock.exists, "the writer's index.lock")
            os.kill(writer.pid, signal.SIGSTOP)   # frozen inside its window, which the lock proves
            held = lock.exists() and json.loads(record.read_text())["pid"] == writer.pid
        finally:
            os.kill(writer.pid, signal.SIGKILL)
            writer.wait()
        if not held:
            continue   # it let go between our look and the stop: no window to test this time
        before = memories_at_head(root)
        poll(lambda: not lock.exists(), "the watchdog to release index.lock")
        a_person_commits(root, n)
        assert memories_at_head(root) >= before   # nothing gitmem committed is lost
        poll(lambda: not (root / ".git" / "gitmem" / "worktree-journal.json").exists(), "the journal to be settled")
        assert git(root, "status", "--porcelain") == ""   # nothing half written left in the work tree
        assert MemoryRepo.open(root).recover() is False


IMPORT_ROWS = 1500


def test_an_import_killed_while_it_writes_its_files_holds_no_index_lock(tmp_path: Path) -> None:
    repo = repo_at(tmp_path)
    root = repo.root
    rows = tmp_path / "rows.jsonl"
    rows.write_text("".join(json.dumps({"content": f"imported {i}: deploy step {i} needs the key rotated"}) + "\n"
                            for i in range(IMPORT_ROWS)))
    journal = root / ".git" / "gitmem" / "worktree-journal.json"
    before = memories_at_head(root)
    writer = subprocess.Popen([sys.executable, "-m", "gitmem", "--repo", str(root), "--now", "2026-11-29T12:00:00Z",
                               "import", str(rows)], cwd=ROOT, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    try:
        poll(journal.exists, "the import's journal (written before its first file)")
        new = [root / p for p, blob in json.loads(journal.read_text())["new"].items() if blob is not None]
        poll(lambda: any(f.exists() for f in new), "the import's first new file")
        os.kill(writer.pid, signal.SIGSTOP)
        untracked = [p for p in git(root, "status", "--porcelain", "-uall").splitlines() if p.startswith("?? memory/")]
        locked = (root / ".git" / "index.lock").exists()
        moved = memories_at_head(root) != before
    finally:
        os.kill(writer.pid, signal.SIGKILL)
        writer.wait()
    if not moved:   # stopped before its branch moved, while it wrote its new files: no lock held
        assert not locked, "index.lock held while new files were written"
    a_person_commits(root, 0)   # at once: no wait for anyone
    assert memories_at_head(root) >= before
    poll(lambda: not journal.exists(), "the watchdog to settle the journal")
    assert git(root, "status", "--porcelain") == "", "the import's own files were left in the work tree"
    assert untracked or moved   # the stop came while the files were being written (or after)


def test_a_write_splits_its_files_by_when_they_may_be_written() -> None:
    from gitmem.writer.worktree import phases

    todo: dict[str, bytes | None] = {"memory/a.md": b"new", "memory/b.md": b"changed", "memory/c.md": None}
    before: dict[str, str | None] = {"memory/a.md": None, "memory/b.md": "b0", "memory/c.md": "c0"}
    assert phases(todo, before) == ({"memory/a.md": b"new"}, {"memory/b.md": b"changed"}, {"memory/c.md": None})
    # a file giving way to a folder of its name (and the reverse): the deletions and those new files go
    # together under the lock, the deletions first; an unrelated new file still goes before
    todo = {"x": None, "x/y.md": b"new", "z.md": b"new", "w/v.md": None, "w": b"file"}
    before = {"x": "x0", "x/y.md": None, "z.md": None, "w/v.md": "v0", "w": None}
    early, held, late = phases(todo, before)
    assert early == {"z.md": b"new"} and late == {}
    assert held == {"x": None, "x/y.md": b"new", "w/v.md": None, "w": b"file"}


def test_the_watchdog_leaves_what_another_process_left_alone(tmp_path: Path) -> None:
    from gitmem.writer import watchdog

    root = repo_at(tmp_path).root
    journal = root / ".git" / "gitmem" / "worktree-journal.json"
    other = subprocess.Popen([sys.executable, "-c", "pass"])
    other.wait()
    tip = git(root, "rev-parse", "HEAD").strip()
    made = {"branch": "main", "parent": tip, "paths": [], "new": {}, "held": [], "commit": tip, "gone": {},
            "next": "index.1.next", "pid": other.pid}
    journal.write_text(json.dumps(made))
    assert watchdog.settle(str(root), other.pid + 1) is False and journal.exists()   # not the watched writer's
    assert watchdog.settle(str(root), other.pid) is True and not journal.exists()


def test_the_watchdog_loads_what_settling_needs_before_it_waits() -> None:
    # woken by a kill on a busy machine, a watchdog that first imported these took some 25 ms to
    # drop the lock; one that has them already drops it with system calls alone
    code = ("import json, sys; from gitmem.writer import watchdog; need = {'socket', '_sha1'}; "
            "before = sorted(need & set(sys.modules)); watchdog.prime(); "
            "print(json.dumps([before, sorted(need & set(sys.modules))]))")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True).stdout
    before, after = json.loads(out)
    assert before == []   # the watchdog's module alone does not load them (the hooks import it too)
    assert after == ["_sha1", "socket"]
