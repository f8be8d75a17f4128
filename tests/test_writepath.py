"""The one write path: one commit per change, sandbox and guard first, nothing lost."""

from __future__ import annotations

import os
import random
import signal
import subprocess
import sys
import textwrap
import time
from pathlib import Path

import pytest

from gitmem.base import clock
from gitmem.api import MemoryRepo
from gitmem.base.errors import ConflictError, SecurityError, ValidationError
from gitmem.guards.writepath import Plan
from tests.conftest import NOW, ROOT

T = clock.parse_time(NOW)


def git(repo_dir: Path, *args: str) -> str:
    return subprocess.run(["git", *args], cwd=repo_dir, capture_output=True, text=True, check=True).stdout


def commits(repo_dir: Path) -> int:
    return int(git(repo_dir, "rev-list", "--count", "HEAD"))


def write(repo: MemoryRepo, changes: dict[str, bytes | None], **kw: object):  # type: ignore[no-untyped-def]
    return repo.store.write(lambda parent: Plan(changes, "test write", "test.write", **kw), T)  # type: ignore[arg-type]


def test_one_commit_with_trailers_and_worktree_follows(repo: MemoryRepo, repo_dir: Path) -> None:
    before = commits(repo_dir)
    w = write(repo, {"memory/user/a.md": b"---\nid: a\n---\nhello\n", "patterns/p.md": b"p\n"},
              session="s-1", auto=True)
    assert commits(repo_dir) == before + 1
    msg = git(repo_dir, "log", "-1", "--format=%B")
    assert "Gitmem-Event: test.write" in msg and "Gitmem-Auto: true" in msg and "Gitmem-Session: s-1" in msg
    assert (repo_dir / "memory/user/a.md").read_text() == "---\nid: a\n---\nhello\n"
    assert git(repo_dir, "status", "--porcelain") == ""
    assert w.commit == git(repo_dir, "rev-parse", "HEAD").strip()


def test_automated_growth_over_amplitude_is_refused(repo: MemoryRepo, repo_dir: Path) -> None:
    from gitmem.base.errors import CheckFailed

    before = commits(repo_dir)
    with pytest.raises(CheckFailed, match="5%"):
        write(repo, {"bank/MEMORY.md": b"# Memory\n\nGeneral lessons.\nmore\n"}, auto=True)
    assert commits(repo_dir) == before
    write(repo, {"bank/MEMORY.md": b"# Memory\n\nGeneral lessons.\nmore\n"})   # a person's command may


def test_no_change_makes_no_commit(repo: MemoryRepo, repo_dir: Path) -> None:
    write(repo, {"memory/user/a.md": b"x\n"})
    before = commits(repo_dir)
    assert write(repo, {"memory/user/a.md": b"x\n"}).commit is None
    assert commits(repo_dir) == before


def test_delete_removes_file_and_empty_folder(repo: MemoryRepo, repo_dir: Path) -> None:
    write(repo, {"memory/user/sub/a.md": b"x\n"})
    write(repo, {"memory/user/sub/a.md": None})
    assert not (repo_dir / "memory/user/sub").exists()
    assert "sub" not in git(repo_dir, "ls-tree", "-r", "--name-only", "HEAD")
    assert git(repo_dir, "status", "--porcelain") == ""


def test_uncommitted_edit_refuses_the_write_and_keeps_the_edit(repo: MemoryRepo, repo_dir: Path) -> None:
    write(repo, {"memory/user/a.md": b"one\n"})
    (repo_dir / "memory/user/a.md").write_text("my own edit\n")
    before = commits(repo_dir)
    with pytest.raises(ConflictError, match="uncommitted"):
        write(repo, {"memory/user/a.md": b"two\n"})
    assert (repo_dir / "memory/user/a.md").read_text() == "my own edit\n"
    assert commits(repo_dir) == before


def test_write_to_another_branch_leaves_worktree_alone(repo: MemoryRepo, repo_dir: Path) -> None:
    repo.store.write(lambda p: Plan({"memory/user/r.md": b"review\n"}, "review", "test"), T, branch="gitmem/review/x")
    assert not (repo_dir / "memory/user/r.md").exists()
    assert git(repo_dir, "show", "gitmem/review/x:memory/user/r.md") == "review\n"


@pytest.mark.parametrize("path", ["../outside.md", "/etc/passwd", "memory/../../x.md", ".git/hooks/pre-commit",
                                  "src/app.py", "memory/user/../../../x"])
def test_sandbox_violations_write_nothing(repo: MemoryRepo, repo_dir: Path, path: str) -> None:
    before = commits(repo_dir)
    with pytest.raises(SecurityError):
        write(repo, {path: b"x"})
    assert commits(repo_dir) == before


def test_allowed_dirs_env_narrows(repo: MemoryRepo, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("GITMEM_ALLOWED_DIRS", "memory")
    write(repo, {"memory/user/ok.md": b"x\n"})
    with pytest.raises(SecurityError, match="GITMEM_ALLOWED_DIRS"):
        write(repo, {"bank/x.md": b"x\n"})


def test_symlink_leading_out_is_refused(repo: MemoryRepo, repo_dir: Path, tmp_path: Path) -> None:
    outside = tmp_path / "outside"
    outside.mkdir()
    os.symlink(outside, repo_dir / "memory" / "evil")
    with pytest.raises(SecurityError):
        write(repo, {"memory/evil/x.md": b"x\n"})
    assert list(outside.iterdir()) == []


def test_content_over_one_mib_and_bad_utf8_are_refused(repo: MemoryRepo, repo_dir: Path) -> None:
    before = commits(repo_dir)
    with pytest.raises(ValidationError, match="over the limit"):
        write(repo, {"memory/user/big.md": b"a" * (1024 * 1024 + 1)})
    with pytest.raises(ValidationError, match="UTF-8"):
        write(repo, {"memory/user/bad.md": b"\xff\xfe bad"})
    assert commits(repo_dir) == before
    write(repo, {"memory/user/max.md": b"a" * (1024 * 1024)})


def test_concurrent_threads_lose_no_update(repo_dir: Path) -> None:
    import threading

    errors: list[BaseException] = []

    def worker(n: int) -> None:
        try:
            r = MemoryRepo.open(repo_dir)
            for i in range(10):
                r.store.write(lambda p, n=n, i=i: Plan({f"memory/user/t{n}-{i}.md": f"{n} {i}\n".encode()}, "t", "t"), T)
        except BaseException as exc:  # pragma: no cover - reported below
            errors.append(exc)

    before = commits(repo_dir)
    threads = [threading.Thread(target=worker, args=(n,)) for n in range(4)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert errors == []
    assert commits(repo_dir) == before + 40
    assert len(list((repo_dir / "memory/user").glob("t*.md"))) == 40


WRITER = textwrap.dedent("""
    import sys
    sys.path.insert(0, {root!r})
    from gitmem.api import MemoryRepo
    from gitmem.base.clock import parse_time
    repo = MemoryRepo.open(sys.argv[1])
    n, count = int(sys.argv[2]), int(sys.argv[3])
    for i in range(count):
        repo.remember(f"writer {{n}} note {{i}} about topic {{n * 1000 + i}}", dedupe=False,
                      now=parse_time("2026-11-29T12:00:00Z"))
""")


def _writer(repo_dir: Path, n: int, count: int) -> subprocess.Popen[bytes]:
    script = WRITER.format(root=str(ROOT))
    return subprocess.Popen([sys.executable, "-c", script, str(repo_dir), str(n), str(count)],
                            stdout=subprocess.PIPE, stderr=subprocess.PIPE)


def test_eight_processes_write_two_hundred_memories(repo_dir: Path) -> None:
    procs = [_writer(repo_dir, n, 25) for n in range(8)]
    for p in procs:
        _, err = p.communicate(timeout=300)
        assert p.returncode == 0, err.decode()
    assert commits(repo_dir) == 201
    assert git(repo_dir, "rev-list", "--merges", "HEAD") == ""
    assert len(MemoryRepo.open(repo_dir).list().memories) == 200
    fsck = subprocess.run(["git", "fsck", "--strict"], cwd=repo_dir, capture_output=True, text=True)
    assert fsck.returncode == 0, fsck.stderr
    assert git(repo_dir, "status", "--porcelain") == ""


def test_sigkill_at_random_moments_leaves_a_sound_repository(repo_dir: Path) -> None:
    rng = random.Random(20261129)
    for round_ in range(30):
        p = _writer(repo_dir, round_, 50)
        time.sleep(rng.uniform(0.05, 0.6))
        p.send_signal(signal.SIGKILL)
        p.wait()
        fsck = subprocess.run(["git", "fsck"], cwd=repo_dir, capture_output=True, text=True)
        assert fsck.returncode == 0, fsck.stderr
    repo = MemoryRepo.open(repo_dir)
    listing = repo.list()
    assert listing.problems == ()                 # no partial file on the branch
    for m in listing.memories:
        assert m.content.startswith("writer ")
    repo.remember("one more after the storm", dedupe=False, now=T)   # the next writer recovers
    assert git(repo_dir, "status", "--porcelain") == ""


def test_symlink_committed_in_the_tree_is_refused_on_another_branch(repo: MemoryRepo, repo_dir: Path) -> None:
    os.symlink("/etc", repo_dir / "memory" / "etc")
    git(repo_dir, "add", "memory/etc")
    git(repo_dir, "commit", "-qm", "a person's symlink")
    git(repo_dir, "branch", "other")
    with pytest.raises(SecurityError):
        repo.store.write(lambda p: Plan({"memory/etc/passwd.md": b"x\n"}, "t", "t"), T, branch="other")
    with pytest.raises(SecurityError):
        write(repo, {"memory/etc/passwd.md": b"x\n"})


def test_detached_head_refuses_writes_but_reads_work(repo: MemoryRepo, repo_dir: Path) -> None:
    r = repo.remember("the queue is rabbitmq", now=T)
    git(repo_dir, "checkout", "-q", "--detach")
    before = commits(repo_dir)
    with pytest.raises(ConflictError, match="detached"):
        repo.remember("another note", now=T)
    assert commits(repo_dir) == before
    assert repo.show(r.id).content == "the queue is rabbitmq"
    assert [m.id for m in repo.list().memories] == [r.id]
    (repo_dir / ".git/gitmem/index.sqlite").unlink(missing_ok=True)
    assert [h.id for h in repo.recall("queue rabbitmq", now=T)] == [r.id]
