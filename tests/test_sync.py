"""Tests for gitmem sync: clones of one memory through real git servers on loopback (git daemon, smart HTTP)."""

from __future__ import annotations

import subprocess
from collections.abc import Iterator
from datetime import timedelta
from pathlib import Path

import pytest

from gitmem.api import MemoryRepo
from gitmem.base.clock import parse_time
from gitmem.base.config import Hebbian
from gitmem.base.errors import ConflictError, UsageError
from gitmem.engines import hebbian
from tests import servers
from tests.loop_helpers import START, add_sessions, git

T = parse_time("2026-10-30T12:00:00Z")       # the pattern and the shared memory, before the sessions
LATER = parse_time("2026-11-20T12:00:00Z")   # every later write and sync: inside November
SHARED = "I prefer small pull requests that do one thing"
@pytest.fixture(params=sorted(servers.SERVERS))
def remote_url(request: pytest.FixtureRequest, tmp_path: Path) -> Iterator[str]:
    with servers.served(tmp_path, request.param) as (_, url):
        yield url


def first_machine(tmp_path: Path, url: str) -> MemoryRepo:
    repo = MemoryRepo.init(tmp_path / "a", T)
    repo.pattern_add("Retry flaky calls with backoff", ["backoff"], now=T)
    repo.remember(SHARED, now=T)
    git(repo.root, "remote", "add", "origin", url)
    assert repo.sync(now=T).pushed
    return repo


def clone(tmp_path: Path, url: str, name: str) -> MemoryRepo:
    target = tmp_path / name
    subprocess.run(["git", "clone", "-q", url, str(target)], check=True, capture_output=True)
    return MemoryRepo.init(target, T)    # gitmem init in a clone: hooks and the merge driver


def shared(repo: MemoryRepo) -> tuple[float, int]:
    (m,) = [m for m in repo.list().memories if m.content.startswith(SHARED[:20])]
    return m.importance, m.reinforced


def work(repo: MemoryRepo, n: int) -> None:
    """Machine ``n``: a memory of its own, a reinforcement of the shared one, three sessions of its own
    (two activate the pattern), and a weight update."""
    repo.remember(f"The staging server of team {n} deploys from branch release-{n}", now=LATER)
    assert repo.remember(SHARED, now=LATER + timedelta(minutes=n)).action == "reinforced"
    add_sessions(repo.root, ["the backoff helped again", "the backoff fixed the flaky call", "unrelated lunch"],
                 START + timedelta(days=n), first=10 * n)
    assert repo.apply_weights(now=LATER).commit is not None


def expected_weight(machines: int) -> float:
    """Every machine's sessions applied once, in time order, from the initial weight."""
    cfg = Hebbian()
    w = cfg.initial_weight
    for _ in range(machines):   # each machine's sessions are a day apart: in order machine by machine
        for on in (True, True, False):
            w = hebbian.step(w, on, cfg)
    return w


@pytest.mark.parametrize("order", ["abc", "cba", "bca"])
def test_three_clones_write_concurrently_and_sync_in_any_order(tmp_path: Path, remote_url: str, order: str) -> None:
    a = first_machine(tmp_path, remote_url)
    machines = {"a": a, "b": clone(tmp_path, remote_url, "b"), "c": clone(tmp_path, remote_url, "c")}
    base_importance, _ = shared(a)
    deltas = []
    for n, name in enumerate("abc", start=1):
        work(machines[name], n)
        deltas.append(shared(machines[name])[0] - base_importance)
    for name in order + order[:2]:      # the first two sync once more to take in the last ones' work
        done = machines[name].sync(now=LATER)
        assert done.pushed
    heads = {name: m.head for name, m in machines.items()}
    assert len(set(heads.values())) == 1, heads
    for m in machines.values():
        assert not (m.git.git_dir / "MERGE_HEAD").exists()
        assert git(m.root, "status", "--porcelain") == ""
        importance, reinforced = shared(m)
        assert reinforced == 3                                  # no reinforcement lost
        assert importance == pytest.approx(min(1.0, base_importance + sum(deltas)), abs=1e-6)
        own = [x for x in m.list().memories if "staging server of team" in x.content]
        assert len(own) == 3                                    # every machine's memory everywhere
        (p,) = m.patterns()
        assert p.weight == pytest.approx(expected_weight(3), abs=1e-9)
        state = hebbian.state_of(p.weight, p.stage, p.created, dict(p.meta))
        assert len(state.counted) == 9 and len(state.activated) == 6
        claude = (m.root / "CLAUDE.md").read_text()
        assert "<<<<<<<" not in claude and f"{expected_weight(3):.2f}" in claude
        assert m.doctor(online=True).ok, [f for f in m.doctor().findings if not f.ok]


def test_sync_fast_forwards_and_pushes_review_branches(tmp_path: Path, remote_url: str) -> None:
    a = first_machine(tmp_path, remote_url)
    b = clone(tmp_path, remote_url, "b")
    a.remember("The build cache lives in the shared bucket", now=LATER)
    add_sessions(a.root, ["the backoff again"], START, first=0)
    proposed = a.propose_weights(now=LATER)
    assert proposed.branch
    done = a.sync(now=LATER)
    assert done.how == "pushed" and proposed.branch in done.reviews
    assert git(a.root, "ls-remote", "origin", f"refs/heads/{proposed.branch}")
    pulled = b.sync(now=LATER)
    assert pulled.how == "fast-forward" and b.head == a.head
    assert b.sync(now=LATER).how == "up-to-date"


def test_sync_refuses_a_rewritten_remote(tmp_path: Path, remote_url: str) -> None:
    a = first_machine(tmp_path, remote_url)
    b = clone(tmp_path, remote_url, "b")
    a.remember("The first fact everyone fetched", now=LATER)
    a.sync(now=LATER)
    b.sync(now=LATER)
    # someone rewrites the remote's history (a force-push from a clone that dropped the last commit)
    git(a.root, "push", "-q", "--force", "origin", f"{a.head}~1:refs/heads/main")
    for _ in range(2):   # and again: a refused sync leaves nothing that would let the next one through
        with pytest.raises(ConflictError, match="rewritten"):
            b.sync(now=LATER)


def test_gitmem_commits_nothing_while_a_merge_is_unresolved(tmp_path: Path, remote_url: str) -> None:
    a = first_machine(tmp_path, remote_url)
    b = clone(tmp_path, remote_url, "b")
    (a.root / "notes.txt").write_text("one\n")
    git(a.root, "add", "notes.txt")
    git(a.root, "commit", "-qm", "notes")
    a.sync(now=LATER)
    (b.root / "notes.txt").write_text("two\n")
    git(b.root, "add", "notes.txt")
    git(b.root, "commit", "-qm", "other notes")
    with pytest.raises(ConflictError, match="for a person"):
        b.sync(now=LATER)
    tip = b.head
    with pytest.raises(ConflictError, match="merge is in progress") as info:
        b.remember("Anything at all during the merge", now=LATER)
    assert info.value.hint and "git merge --abort" in info.value.hint
    assert b.head == tip
    assert not b.doctor(online=False).ok


def test_monthly_snapshot_is_made_once_by_sync_and_taken_by_the_others(tmp_path: Path, remote_url: str) -> None:
    a = first_machine(tmp_path, remote_url)
    b = clone(tmp_path, remote_url, "b")
    a.remember("A November fact from machine a", now=LATER)
    b.remember("A November fact from machine b", now=LATER)
    december = parse_time("2026-12-02T08:00:00Z")
    done_a = a.sync(now=december)
    assert "gitmem/snapshot/2026-11" in done_a.snapshots
    done_b = b.sync(now=december)
    assert "gitmem/snapshot/2026-11" not in done_b.snapshots    # the remote's tag is taken, never remade
    tag_a = git(a.root, "rev-parse", "gitmem/snapshot/2026-11^{commit}")
    assert git(b.root, "rev-parse", "gitmem/snapshot/2026-11^{commit}") == tag_a
    remote_tags = git(a.root, "ls-remote", "--tags", "origin", "refs/tags/gitmem/snapshot/*")
    names = [line.split("\t")[1] for line in remote_tags.splitlines() if not line.endswith("^{}")]
    assert names == ["refs/tags/gitmem/snapshot/2026-10", "refs/tags/gitmem/snapshot/2026-11"]


def test_with_a_remote_only_sync_tags_the_month(tmp_path: Path, remote_url: str) -> None:
    a = first_machine(tmp_path, remote_url)
    december = parse_time("2026-12-02T08:00:00Z")
    with pytest.raises(UsageError, match="only `gitmem sync`"):
        a.snapshot(december)
    job = a.run_job("snapshot", now=december)
    assert job.ok and "gitmem sync" in job.summary
    assert git(a.root, "tag", "--list", "gitmem/snapshot/*") == ""          # October stays for sync to tag


def test_a_clone_without_the_driver_is_caught_and_repaired(tmp_path: Path, remote_url: str) -> None:
    a = first_machine(tmp_path, remote_url)
    b = clone(tmp_path, remote_url, "b")
    git(b.root, "config", "--remove-section", "merge.gitmem-memory")   # a clone nobody ran gitmem init in
    assert not b.doctor(online=False).ok
    a.remember(SHARED, now=LATER)
    a.sync(now=LATER)
    b.remember(SHARED, now=LATER + timedelta(minutes=5))
    pulled = subprocess.run(["git", "pull", "-q", "--no-rebase", "origin", "main"], cwd=b.root, capture_output=True)
    assert pulled.returncode != 0                                  # git's text merge: conflict markers
    (path,) = [p for p in git(b.root, "diff", "--name-only", "--diff-filter=U").splitlines()]
    assert "<<<<<<<" in (b.root / path).read_text()
    git(b.root, "add", path)                                       # a person takes the text merge as it is
    refused = subprocess.run(["git", "commit", "--no-edit"], cwd=b.root, capture_output=True, text=True)
    assert refused.returncode != 0 and "gitmem repair" in refused.stderr + refused.stdout
    found = {f.name: f for f in b.doctor(online=False).findings}
    assert not found["documents"].ok and found["documents"].fix == "gitmem repair"
    assert not found["merge"].ok
    fixed = b.repair()
    assert fixed.paths == (path,) and not fixed.left
    git(b.root, "commit", "--no-edit")
    assert b.install_merge_driver()
    b.sync(now=LATER)
    a.sync(now=LATER)
    for m in (a, b):
        assert shared(m)[1] == 2                                   # both reinforcements kept
    assert a.head == b.head and b.doctor(online=True).ok


def test_a_clone_with_autocrlf_writes_no_crlf_memory(tmp_path: Path, remote_url: str) -> None:
    a = first_machine(tmp_path, remote_url)
    target = tmp_path / "windows"
    subprocess.run(["git", "-c", "core.autocrlf=true", "clone", "-q", remote_url, str(target)], check=True)
    git(target, "config", "core.autocrlf", "true")
    docs = [p for p in (target / "memory").rglob("*.md")] + [target / "CLAUDE.md"]
    assert docs and all(b"\r\n" not in p.read_bytes() for p in docs)
    w = MemoryRepo.init(target, T)
    w.remember("Line ends stay LF on a machine that converts them", now=LATER)
    w.sync(now=LATER)
    a.sync(now=LATER)
    assert all(b"\r\n" not in p.read_bytes() for p in (a.root / "memory").rglob("*.md"))


V1_BUNDLE = Path(__file__).parent / "fixtures" / "repo-v1.bundle"


def test_a_repository_of_format_1_syncs_after_doctor_says_what_to_run(tmp_path: Path, remote_url: str) -> None:
    seed = tmp_path / "seed"
    subprocess.run(["git", "clone", "-q", "-b", "main", str(V1_BUNDLE), str(seed)], check=True)
    git(seed, "push", "-q", remote_url, "main:main")
    old = clone(tmp_path, remote_url, "old")
    found = {f.name: f for f in old.doctor(online=True).findings}
    assert not found["format"].ok and found["format"].fix == "gitmem upgrade"
    assert not found["attributes"].ok and found["attributes"].fix == "gitmem install merge-driver"
    new = clone(tmp_path, remote_url, "new")
    assert new.upgrade(now=LATER).after == 2
    new.install_merge_driver()                                   # adds the .gitattributes lines
    assert {f.name: f for f in new.doctor(online=True).findings}["attributes"].ok
    new.remember("The upgraded clone writes this", now=LATER)
    new.sync(now=LATER)
    old.remember("The old clone writes that", now=LATER)          # still format 1 here, and read as such
    old.sync(now=LATER)
    new.sync(now=LATER)
    for m in (old, new):
        texts = {x.content for x in m.list().memories}
        assert {"The upgraded clone writes this", "The old clone writes that"} <= texts
        assert m.doctor(online=True).ok, [f for f in m.doctor().findings if not f.ok]


def test_the_verbs_sync_doctor_repair_and_install(tmp_path: Path, remote_url: str,
                                                  capsys: pytest.CaptureFixture[str]) -> None:
    import json

    from tests.conftest import run_cli

    a = first_machine(tmp_path, remote_url)
    root = str(a.root)
    code, out, _ = run_cli(["--repo", root, "--now", "2026-11-20T12:00:00Z", "sync", "--json"], capsys)
    assert code == 0 and json.loads(out)["how"] == "up-to-date"
    code, out, _ = run_cli(["--repo", root, "doctor", "--json"], capsys)
    report = json.loads(out)
    assert code == 0 and report["ok"] and {c["check"] for c in report["checks"]} >= {
        "hooks", "merge-driver", "attributes", "remote", "reviews", "merge", "documents", "index"}
    git(a.root, "config", "--remove-section", "merge.gitmem-memory")
    code, out, _ = run_cli(["--repo", root, "doctor", "--offline"], capsys)
    assert code == 1 and "FAIL merge-driver" in out and "fix: gitmem install merge-driver" in out
    code, out, _ = run_cli(["--repo", root, "install", "merge-driver"], capsys)
    assert code == 0 and "merge-driver" in git(a.root, "config", "merge.gitmem-memory.driver")
    code, out, _ = run_cli(["--repo", root, "repair"], capsys)
    assert code == 0 and "no memory document needs repair" in out
    git(a.root, "remote", "remove", "origin")
    code, _, err = run_cli(["--repo", root, "sync"], capsys)
    assert code == 1 and "no git remote" in err and "hint:" in err


def test_a_clone_without_hooks_is_told_how_to_install_them(tmp_path: Path, remote_url: str,
                                                           capsys: pytest.CaptureFixture[str]) -> None:
    from tests.conftest import run_cli

    first_machine(tmp_path, remote_url)
    bare_clone = tmp_path / "plain"
    subprocess.run(["git", "clone", "-q", remote_url, str(bare_clone)], check=True)
    code, _, err = run_cli(["--repo", str(bare_clone), "list"], capsys)
    assert code == 0 and "no gitmem hooks" in err and "gitmem init" in err
    MemoryRepo.init(bare_clone, T)
    code, _, err = run_cli(["--repo", str(bare_clone), "list"], capsys)
    assert code == 0 and "no gitmem hooks" not in err


def test_a_review_merged_on_the_remote_is_recorded_as_accepted_by_sync(tmp_path: Path, remote_url: str) -> None:
    a = first_machine(tmp_path, remote_url)
    add_sessions(a.root, ["the backoff again"], START, first=0)
    proposed = a.propose_weights(now=LATER)
    assert proposed.branch and proposed.branch in a.sync(now=LATER).reviews
    reviewer = tmp_path / "reviewer"                      # a pull request merged on the server's side
    subprocess.run(["git", "clone", "-q", remote_url, str(reviewer)], check=True)
    git(reviewer, "merge", "--no-ff", "-q", "-m", "Merge the weights review", f"origin/{proposed.branch}")
    git(reviewer, "push", "-q", "origin", "main")
    done = a.sync(now=LATER)
    assert done.accepted == (proposed.branch,) and proposed.branch not in done.reviews
    assert proposed.branch not in a.git.branches()
