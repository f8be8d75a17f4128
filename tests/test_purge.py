"""purge: a leak rewritten out of a memory repository's history, through the API and the CLI."""

from __future__ import annotations

import json
import subprocess
from pathlib import Path

import pytest

from gitmem.api import MemoryRepo
from gitmem.base import state
from gitmem.base.errors import ConflictError, NotFoundError, UsageError
from gitmem.base.gitio.rewrite import RefUpdate
from gitmem.engines import purge
from gitmem.guards import redact
from tests.conftest import run_cli

EMAIL = "jane.roe.4471@fastmail.com"
TOKEN = "leaked-value-Hx81Qa"


def git(root: Path, *args: str) -> str:
    return subprocess.run(["git", *args], cwd=root, capture_output=True, check=True).stdout.decode()


def leak(root: Path, text: str, name: str = "memory/fact/leak.md", message: str = "a leak that got through") -> None:
    """A commit made by hand, past gitmem's write path (hooks are not installed here)."""
    path = root / name
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(f"---\nid: leak\ntype: fact\ndomain: user\n---\n{text}\n")
    git(root, "add", "-A")
    git(root, "commit", "-q", "-m", message)


def history_holds(root: Path, value: str) -> bool:
    log = git(root, "log", "--all", "--reflog", "-p", "--format=%H %an %ae %s%n%b")
    revs = git(root, "rev-list", "--all").split()
    grep = subprocess.run(["git", "grep", "-q", value, *revs], cwd=root).returncode == 0
    return value in log or grep or value in git(root, "for-each-ref", "--format=%(contents)")


def test_purge_value_rewrites_history_rebuilds_index_and_records_an_event(repo_dir: Path,
                                                                        capsys: pytest.CaptureFixture[str]) -> None:
    leak(repo_dir, f"reach me at {TOKEN}", message=f"note {TOKEN}")
    git(repo_dir, "tag", "-a", "v1", "-m", "with the leak")
    assert history_holds(repo_dir, TOKEN)
    code, out, err = run_cli(["--repo", str(repo_dir), "purge", "--value", TOKEN, "--confirm"], capsys)
    assert code == 0, err
    assert not history_holds(repo_dir, TOKEN)
    assert "rewrote" in out and "refs/heads/main" in out and "re-clone" in out and TOKEN not in out
    assert "[SECRET:purged]" in (repo_dir / "memory" / "fact" / "leak.md").read_text()
    events = [e for e in state.read(state.events_path(repo_dir)) if e["event"] == "purge"]
    assert len(events) == 1 and events[0]["commits"] and TOKEN not in json.dumps(events)
    for path in [*state.shared_dir(repo_dir).rglob("*"), *state.worktree_dir(repo_dir).rglob("*")]:
        if path.is_file():
            assert TOKEN.encode() not in path.read_bytes(), path     # index rebuilt, nothing per-clone holds it


def test_without_confirm_purge_is_a_dry_run_that_refuses(repo_dir: Path, capsys: pytest.CaptureFixture[str]) -> None:
    leak(repo_dir, TOKEN)
    before = git(repo_dir, "for-each-ref", "--format=%(refname) %(objectname)")
    code, out, err = run_cli(["--repo", str(repo_dir), "purge", "--value", TOKEN], capsys)
    assert code == 1 and "would rewrite" in out and "--confirm" in err
    assert git(repo_dir, "for-each-ref", "--format=%(refname) %(objectname)") == before
    assert history_holds(repo_dir, TOKEN)


@pytest.mark.parametrize("staged", [False, True])
def test_purge_refuses_uncommitted_edits(repo_dir: Path, capsys: pytest.CaptureFixture[str], staged: bool) -> None:
    leak(repo_dir, TOKEN)
    (repo_dir / "memory" / "fact" / "leak.md").write_text("edited by a person\n")
    if staged:
        git(repo_dir, "add", "-A")
    code, _, err = run_cli(["--repo", str(repo_dir), "purge", "--value", TOKEN, "--confirm"], capsys)
    assert code == 1 and "uncommitted" in err and "hint:" in err
    assert history_holds(repo_dir, TOKEN)
    with pytest.raises(ConflictError):
        MemoryRepo.open(repo_dir).purge(TOKEN, confirm=True)


def test_purge_by_finding_id_from_pii_scan(repo_dir: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    leak(repo_dir, f"write to {EMAIL} about it", name=f"bank/{EMAIL}.md")
    sample = tmp_path / "found.txt"
    sample.write_text(f"contact: {EMAIL}\n")
    code, out, _ = run_cli(["pii", "scan", str(sample)], capsys)
    finding = out.splitlines()[0].split("\t")[-1]
    assert finding.startswith("email-") and EMAIL not in out
    assert run_cli(["pii", "scan", str(sample)], capsys)[1] == out           # stable ids
    code, out, err = run_cli(["--repo", str(repo_dir), "purge", "--finding", finding, "--confirm"], capsys)
    assert code == 0, err
    assert not history_holds(repo_dir, EMAIL)
    assert "bank/[EMAIL].md" in git(repo_dir, "ls-tree", "-r", "--name-only", "HEAD")


def test_an_unknown_finding_id_is_not_found(repo: MemoryRepo) -> None:
    with pytest.raises(NotFoundError):
        repo.purge(finding="email-000000000000", confirm=True)
    with pytest.raises(UsageError):
        repo.purge(value="  ")


def test_purge_lists_the_remotes_and_refs_to_force_update(repo_dir: Path, tmp_path: Path,
                                                          capsys: pytest.CaptureFixture[str]) -> None:
    leak(repo_dir, TOKEN)
    git(repo_dir, "tag", "-a", "v1", "-m", "tagged")
    far = tmp_path / "far.git"
    git(tmp_path, "init", "-q", "--bare", str(far))
    git(repo_dir, "remote", "add", "origin", str(far))
    git(repo_dir, "push", "-q", "-u", "origin", "main", "v1")
    far_before = git(far, "for-each-ref", "--format=%(refname) %(objectname)")
    code, out, err = run_cli(["--repo", str(repo_dir), "purge", "--value", TOKEN, "--confirm", "--json"], capsys)
    assert code == 0, err
    result = json.loads(out)
    [remote] = result["remotes"]
    assert remote["remote"] == "origin" and remote["refs"] == ["refs/heads/main", "refs/tags/v1"]
    assert remote["command"].startswith("git push --force origin ")
    assert git(far, "for-each-ref", "--format=%(refname) %(objectname)") == far_before   # gitmem never pushes
    subprocess.run(remote["command"].split(), cwd=repo_dir, check=True, capture_output=True)
    assert TOKEN not in git(far, "log", "--all", "-p")


def test_remote_updates_by_tracking_upstream_and_unknown_remote() -> None:
    refs = [RefUpdate("refs/heads/main", "a" * 40, "b" * 40), RefUpdate("refs/remotes/up/dev", "c" * 40, "d" * 40),
            RefUpdate("refs/tags/v1", "e" * 40, "f" * 40)]
    remotes = [("up", (("refs/heads/main", "refs/heads/trunk"),), ("refs/remotes/up/dev",)),
               ("clean", (), ("refs/remotes/clean/main",)), ("unknown", (), ())]
    got = {r.remote: r.refs for r in purge.remote_updates(refs, remotes)}
    assert got["up"] == (("refs/heads/dev", "d" * 40), ("refs/heads/trunk", "b" * 40), ("refs/tags/v1", "f" * 40))
    assert got["clean"] == (("refs/tags/v1", "f" * 40),)
    assert got["unknown"] == (("refs/heads/main", "b" * 40), ("refs/tags/v1", "f" * 40))


@pytest.mark.parametrize(("value", "placeholder"), [
    (EMAIL, "[EMAIL]"), ("/home/alice/projects", "[HOME]/projects"), (TOKEN, "[SECRET:purged]")])
def test_the_placeholder_comes_from_the_one_replacer(value: str, placeholder: str) -> None:
    assert redact.placeholder_for(value) == placeholder
    assert purge.target(value, None, []).placeholder == placeholder


def test_a_remote_branch_named_after_the_value_is_deleted_there_and_pushed_renamed() -> None:
    refs = [RefUpdate("refs/remotes/origin/fix-SECRET-purged", "a" * 40, "b" * 40, f"refs/remotes/origin/fix-{TOKEN}")]
    [update] = purge.remote_updates(refs, [("origin", (), ("refs/remotes/origin/fix-SECRET-purged",))])
    assert set(update.refs) == {(f"refs/heads/fix-{TOKEN}", ""), ("refs/heads/fix-SECRET-purged", "b" * 40)}
    assert f" :refs/heads/fix-{TOKEN}" in update.command()
    assert f" {'b' * 40}:refs/heads/fix-SECRET-purged" in update.command()


def test_a_value_too_short_to_purge_safely_is_refused(repo: MemoryRepo) -> None:
    with pytest.raises(UsageError, match="shorter"):
        repo.purge(value="abc", confirm=True)
    assert redact.placeholder_for("SECRET") not in ("", "SECRET") and "SECRET" not in redact.placeholder_for("SECRET")


def test_purge_cleans_the_clones_own_files_too(repo_dir: Path, capsys: pytest.CaptureFixture[str]) -> None:
    leak(repo_dir, TOKEN, message=f"last message {TOKEN}")
    assert TOKEN in (repo_dir / ".git" / "COMMIT_EDITMSG").read_text()
    working = state.shared_dir(repo_dir) / "notes-of-this-clone.jsonl"
    working.write_text(json.dumps({"text": f"kept {TOKEN}"}) + "\n")
    assert run_cli(["--repo", str(repo_dir), "purge", "--value", TOKEN, "--confirm"], capsys)[0] == 0
    assert TOKEN not in (repo_dir / ".git" / "COMMIT_EDITMSG").read_text()
    assert json.loads(working.read_text())["text"] == "kept [SECRET:purged]"


def test_purge_drops_every_cached_index_of_the_clone(repo: MemoryRepo, repo_dir: Path) -> None:
    leak(repo_dir, f"the code is {TOKEN}")
    old = git(repo_dir, "rev-parse", "HEAD").strip()
    assert any(TOKEN in h.content for h in repo.recall(TOKEN, at=old))    # a per-commit cache now holds it
    repo.purge(TOKEN, confirm=True)
    for path in [*state.shared_dir(repo_dir).rglob("*"), *state.worktree_dir(repo_dir).rglob("*")]:
        if path.is_file():
            assert TOKEN.encode() not in path.read_bytes(), path
    assert not any(TOKEN in h.content for h in MemoryRepo.open(repo_dir).recall("code"))
