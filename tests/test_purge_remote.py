"""A purge that reaches the remote: every local branch, tag and remote-tracking ref rewritten, ``sync``
refusing a remote that still holds the purged history, and ``gitmem purge --remote`` force-updating it
after a confirmation (a bare repository served by ``git daemon`` and by smart HTTP, two clones)."""

from __future__ import annotations

import subprocess
from collections.abc import Iterator
from pathlib import Path

import pytest

from gitmem.api import MemoryRepo
from gitmem.base.clock import parse_time
from gitmem.base.errors import ConflictError, UsageError
from tests import servers
from tests.conftest import run_cli

T = parse_time("2026-11-20T12:00:00Z")
TOKEN = "leaked-value-Hx81Qa"


def git(root: Path, *args: str) -> str:
    return subprocess.run(["git", *args], cwd=root, capture_output=True, check=True).stdout.decode()


@pytest.fixture(params=["git-daemon", "smart-http"])
def server(request: pytest.FixtureRequest, tmp_path: Path) -> Iterator[tuple[Path, str]]:
    with servers.served(tmp_path, request.param) as found:
        yield found


def holds(root: Path, value: str) -> bool:
    """Whether any ref (branches, tags, remote-tracking refs) reaches a commit, tree or message holding ``value``."""
    revs = git(root, "rev-list", "--all").split()
    log = git(root, "log", "--all", "-p", "--format=%H %an %ae %s%n%b")
    grep = subprocess.run(["git", "grep", "-q", value, *revs], cwd=root).returncode == 0
    return value in log or grep or value in git(root, "for-each-ref", "--format=%(refname) %(contents)")


def leaked_clone(tmp_path: Path, url: str) -> MemoryRepo:
    a = MemoryRepo.init(tmp_path / "a", T)
    git(a.root, "remote", "add", "origin", url)
    assert a.sync(now=T).pushed
    path = a.root / "memory" / "user" / "leak.md"
    path.write_text(f"---\nid: leak\ntype: fact\ndomain: user\n---\nthe staging key is {TOKEN}\n")
    git(a.root, "add", "-A")
    git(a.root, "commit", "-q", "--no-verify", "-m", "a leak that got past the hooks")
    git(a.root, "branch", "topic")
    git(a.root, "tag", "-a", "v1", "-m", "a tag over the leak")
    git(a.root, "push", "-q", "origin", "main", "topic", "v1")   # the person's own pushes
    git(a.root, "fetch", "-q", "origin")                           # remote-tracking refs hold it too
    return a


def test_purge_rewrites_every_local_ref_and_sync_refuses_until_the_remote_is_purged(
        tmp_path: Path, server: tuple[Path, str], capsys: pytest.CaptureFixture[str]) -> None:
    bare, url = server
    a = leaked_clone(tmp_path, url)
    assert {"refs/remotes/origin/main", "refs/remotes/origin/topic", "refs/tags/v1"} <= set(
        git(a.root, "for-each-ref", "--format=%(refname)").split())
    done = a.purge(TOKEN, confirm=True)
    moved = {r.name for r in done.refs}
    assert {"refs/heads/main", "refs/heads/topic", "refs/tags/v1", "refs/remotes/origin/main",
            "refs/remotes/origin/topic"} <= moved
    assert not holds(a.root, TOKEN)

    before = git(bare, "for-each-ref", "--format=%(refname) %(objectname)")
    with pytest.raises(ConflictError, match="still holds history this clone purged") as refused:
        a.sync(now=T)
    assert "gitmem purge --remote origin" in (refused.value.hint or "")
    assert not holds(a.root, TOKEN)                                   # nothing was fetched back
    assert git(bare, "for-each-ref", "--format=%(refname) %(objectname)") == before

    # no terminal and no --yes: refused, nothing pushed
    code, out, err = run_cli(["--repo", str(a.root), "purge", "--remote", "origin"], capsys)
    assert code != 0 and "no terminal" in err and "--yes" in err
    assert "refs/heads/main" in out and "refs/tags/v1" in out and TOKEN not in out + err
    assert git(bare, "for-each-ref", "--format=%(refname) %(objectname)") == before

    code, out, err = run_cli(["--repo", str(a.root), "purge", "--remote", "origin", "--yes"], capsys)
    assert code == 0, err
    assert "force-updated 3 ref(s) on origin" in out
    for ref in ("refs/heads/main", "refs/heads/topic", "refs/tags/v1"):
        assert git(bare, "rev-parse", ref) == git(a.root, "rev-parse", ref)
    assert not holds(bare, TOKEN)

    synced = a.sync(now=T)                                            # works again
    assert synced.pushed and synced.how in ("up-to-date", "pushed")
    code, out, _ = run_cli(["--repo", str(a.root), "purge", "--remote", "origin"], capsys)
    assert code == 0 and "nothing to force-update" in out

    fresh = tmp_path / "fresh"
    subprocess.run(["git", "clone", "-q", url, str(fresh)], check=True, capture_output=True)
    assert not holds(fresh, TOKEN)


def test_a_ref_pushed_over_since_the_purge_is_not_overwritten(
        tmp_path: Path, server: tuple[Path, str], capsys: pytest.CaptureFixture[str]) -> None:
    bare, url = server
    a = leaked_clone(tmp_path, url)
    a.purge(TOKEN, confirm=True)
    found = a.purge_remote("origin")
    assert not found.applied and {f.ref for f in found.fixes} == {"refs/heads/main", "refs/heads/topic", "refs/tags/v1"}
    # a teammate pushes onto the old topic meanwhile: their commit is no purged id, so it is left to them
    other = tmp_path / "other"
    subprocess.run(["git", "clone", "-q", "-b", "topic", url, str(other)], check=True, capture_output=True)
    (other / "note.md").write_text("theirs\n")
    git(other, "add", "-A")
    git(other, "-c", "user.name=T", "-c", "user.email=t@example.org", "commit", "-q", "--no-verify", "-m", "theirs")
    git(other, "push", "-q", "origin", "topic")
    theirs = git(bare, "rev-parse", "refs/heads/topic")
    done = a.purge_remote("origin", confirm=True)
    assert done.applied and {f.ref for f in done.fixes} == {"refs/heads/main", "refs/tags/v1"}
    assert git(bare, "rev-parse", "refs/heads/topic") == theirs       # listed anew: not a purged id any more


def test_purge_remote_refuses_what_makes_no_sense(tmp_path: Path, server: tuple[Path, str]) -> None:
    _, url = server
    a = MemoryRepo.init(tmp_path / "a", T)
    git(a.root, "remote", "add", "origin", url)
    with pytest.raises(UsageError, match="purged nothing"):
        a.purge_remote("origin")
    with pytest.raises(UsageError, match="no remote called"):
        a.purge_remote("nowhere")
