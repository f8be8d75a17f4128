"""gitio.rewrite: a value rewritten out of every ref, tag, reflog and file name of a real repository."""

from __future__ import annotations

import subprocess
from pathlib import Path

import pytest

from gitmem.base.errors import CasFailed
from gitmem.base.gitio import history, rewrite

VALUE = "leak-7Q2vX9kPz"
PLACEHOLDER = "[SECRET:purged]"


def git(root: Path, *args: str, stdin: bytes | None = None) -> str:
    done = subprocess.run(["git", *args], cwd=root, input=stdin, capture_output=True, check=True)
    return done.stdout.decode("utf-8", "replace")


def commit_file(root: Path, name: str, text: str, message: str) -> None:
    path = root / name
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(text)
    git(root, "add", "-A")
    git(root, "commit", "-q", "-m", message)


def every_trace(root: Path, value: str = VALUE) -> list[str]:
    """Where ``value`` still shows: any reachable object (refs and reflogs), the log, the files, the head files."""
    found = []
    objects = git(root, "rev-list", "--all", "--reflog", "--objects")
    ids = "\n".join(line.split(" ", 1)[0] for line in objects.splitlines()) + "\n"
    if value in git(root, "cat-file", "--batch", stdin=ids.encode()):
        found.append("an object")
    if value in git(root, "log", "--all", "--reflog", "-p", "--format=%H %an %ae %s%n%b"):
        found.append("the log")
    if value in git(root, "for-each-ref", "--format=%(refname) %(contents)"):
        found.append("a ref or tag message")
    revs = git(root, "rev-list", "--all").split()
    if subprocess.run(["git", "grep", "-q", value, *revs], cwd=root).returncode == 0:
        found.append("git grep")
    for path in root.rglob("*"):
        if ".git" in path.parts and path.name not in ("ORIG_HEAD", "FETCH_HEAD") and "logs" not in path.parts:
            continue
        if value in path.name or (path.is_file() and value.encode() in path.read_bytes()):
            found.append(str(path.relative_to(root)))
    return found


@pytest.fixture
def leaky(plain_git_repo: Path) -> Path:
    """The value in a blob on main, a branch, a tag's tree, a commit message, a file name,
    an annotated tag's message, an author e-mail, a reflog-only commit, ORIG_HEAD and a stash."""
    root = plain_git_repo
    commit_file(root, "notes/a.md", f"token {VALUE} here\n", "add notes")
    commit_file(root, "notes/b.md", "clean\n", f"message mentions {VALUE}")
    git(root, "checkout", "-q", "-b", "side")
    commit_file(root, f"dir-{VALUE}/x.md", "x\n", "a file name")
    git(root, "checkout", "-q", "-b", "only-tagged")
    commit_file(root, "tagged.md", f"{VALUE}\n", "tagged only")
    git(root, "tag", "-a", "v1", "-m", f"release with {VALUE}")
    git(root, "tag", "light")
    git(root, "checkout", "-q", "main")
    git(root, "branch", "-q", "-D", "only-tagged")
    git(root, "-c", f"user.email={VALUE}@example.com", "commit", "-q", "--allow-empty", "-m", "by a leaky author")
    commit_file(root, "c.md", f"{VALUE} before amend\n", "to amend")
    (root / "c.md").write_text("clean after amend\n")
    git(root, "add", "-A")
    git(root, "commit", "-q", "--amend", "-m", "amended")
    git(root, "reset", "-q", "--soft", "HEAD~1")
    git(root, "commit", "-q", "-m", "again")
    (root / "a.txt").write_text(f"stashed {VALUE}\n")
    git(root, "stash", "-q")
    return root


def test_rewrite_leaves_no_trace_in_any_reachable_object(leaky: Path) -> None:
    assert every_trace(leaky)           # the fixture holds it everywhere
    done = rewrite.rewrite(leaky, VALUE, PLACEHOLDER, apply=True)
    assert done.applied and done.commits
    assert every_trace(leaky) == []
    names = {u.name for u in done.refs}
    assert {"refs/heads/main", "refs/heads/side", "refs/tags/v1", "refs/tags/light", "refs/stash"} <= names
    assert f"dir-{PLACEHOLDER}" in git(leaky, "ls-tree", "-r", "--name-only", "side")
    assert PLACEHOLDER in git(leaky, "cat-file", "-p", "v1")
    assert PLACEHOLDER in (leaky / "notes" / "a.md").read_text()   # the work tree follows the new HEAD
    assert git(leaky, "status", "--porcelain") == ""
    git(leaky, "fsck", "--strict")
    gone = [old for old, _ in done.commits
            if subprocess.run(["git", "cat-file", "-e", old], cwd=leaky, capture_output=True).returncode == 0]
    assert gone == []                   # the old objects are pruned, not only unreachable


def test_rewrite_keeps_commits_without_the_value(leaky: Path) -> None:
    first = git(leaky, "rev-list", "--max-parents=0", "main").strip()
    done = rewrite.rewrite(leaky, VALUE, PLACEHOLDER, apply=True)
    assert first not in dict(done.commits)
    assert git(leaky, "rev-list", "--max-parents=0", "main").strip() == first


def test_a_dry_run_moves_nothing(leaky: Path) -> None:
    before = git(leaky, "for-each-ref", "--format=%(refname) %(objectname)")
    done = rewrite.rewrite(leaky, VALUE, PLACEHOLDER, apply=False)
    assert not done.applied and done.commits and done.refs
    assert git(leaky, "for-each-ref", "--format=%(refname) %(objectname)") == before
    assert every_trace(leaky)


def test_a_value_nowhere_rewrites_nothing(leaky: Path) -> None:
    before = git(leaky, "for-each-ref", "--format=%(refname) %(objectname)")
    done = rewrite.rewrite(leaky, "absent-value", PLACEHOLDER, apply=True)
    assert done.commits == () and done.refs == ()
    assert git(leaky, "for-each-ref", "--format=%(refname) %(objectname)") == before


def test_texts_reach_blobs_names_messages_tags_and_reflogs(leaky: Path) -> None:
    texts = list(history.texts(leaky))
    assert any(f"dir-{VALUE}" == t for t in texts)
    assert any(f"release with {VALUE}" in t for t in texts)
    assert any(f"{VALUE} before amend" in t for t in texts)   # only a reflog reaches it


def test_uncommitted_sees_staged_and_unstaged_edits_not_untracked_files(plain_git_repo: Path) -> None:
    root = plain_git_repo
    (root / "new.txt").write_text("untracked\n")
    assert rewrite.uncommitted(root) == []
    (root / "a.txt").write_text("edited\n")
    assert rewrite.uncommitted(root) == ["a.txt"]
    git(root, "add", "a.txt")
    assert rewrite.uncommitted(root) == ["a.txt"]


def test_remotes_name_their_tracking_refs_and_upstreams(leaky: Path, tmp_path: Path) -> None:
    far = tmp_path / "far.git"
    git(tmp_path, "init", "-q", "--bare", str(far))
    git(leaky, "remote", "add", "origin", str(far))
    git(leaky, "push", "-q", "-u", "origin", "main")
    git(leaky, "remote", "add", "never-fetched", str(far))
    found = {name: (tracked, tracking) for name, tracked, tracking in rewrite.remotes(leaky)}
    assert found["origin"] == ((("refs/heads/main", "refs/heads/main"),), ("refs/remotes/origin/main",))
    assert found["never-fetched"] == ((), ())


def test_a_ref_that_moved_fails_the_whole_update(leaky: Path) -> None:
    planned = rewrite.rewrite(leaky, VALUE, PLACEHOLDER, apply=False)
    commit_file(leaky, "late.md", "late\n", "a commit that lands meanwhile")
    before = git(leaky, "for-each-ref", "--format=%(refname) %(objectname)")
    with pytest.raises(CasFailed):
        rewrite._move_refs(leaky, list(planned.refs))     # the compare-and-swap the rewrite ends with
    assert git(leaky, "for-each-ref", "--format=%(refname) %(objectname)") == before   # all or nothing


def test_a_value_in_branch_and_tag_names_renames_the_refs(plain_git_repo: Path) -> None:
    root = plain_git_repo
    git(root, "checkout", "-q", "-b", f"feature/{VALUE}")
    commit_file(root, "f.md", "clean\n", "clean commit")
    git(root, "tag", "-a", f"v-{VALUE}", "-m", "a tag named after it")
    git(root, "config", f"branch.feature/{VALUE}.description", "kept")
    done = rewrite.rewrite(root, VALUE, PLACEHOLDER, apply=True)
    names = git(root, "for-each-ref", "--format=%(refname)").split()
    assert "refs/heads/feature/SECRET-purged" in names and "refs/tags/v-SECRET-purged" in names
    assert not any(VALUE in n for n in names)
    assert git(root, "symbolic-ref", "HEAD").strip() == "refs/heads/feature/SECRET-purged"   # HEAD follows
    assert VALUE not in (root / ".git" / "config").read_text()
    assert {u.source for u in done.refs if u.source} == {f"refs/heads/feature/{VALUE}", f"refs/tags/v-{VALUE}"}
    assert every_trace(root) == []
    git(root, "fsck", "--strict")


def test_names_that_collide_after_replacement_are_both_kept(plain_git_repo: Path) -> None:
    root = plain_git_repo
    (root / f"{VALUE}.md").write_text("one\n")
    (root / f"{PLACEHOLDER}.md").write_text("two\n")
    git(root, "add", "-A")
    git(root, "commit", "-q", "-m", "two names")
    rewrite.rewrite(root, VALUE, PLACEHOLDER, apply=True)
    files = git(root, "ls-tree", "--name-only", "HEAD").split("\n")
    assert f"{PLACEHOLDER}.md" in files and f"{PLACEHOLDER}.md~2" in files


def test_a_hex_looking_value_never_breaks_an_id_in_a_reflog(plain_git_repo: Path) -> None:
    root = plain_git_repo
    head = git(root, "rev-parse", "HEAD").strip()
    value = head[10:22]     # a piece of a real commit id, also written in a file
    commit_file(root, "h.md", f"id piece {value}\n", "hex")
    rewrite.rewrite(root, value, PLACEHOLDER, apply=True)
    git(root, "fsck", "--strict")
    git(root, "reflog", "show", "--all")                   # every reflog line still names real commits
    assert PLACEHOLDER in (root / "h.md").read_text()


def test_a_detached_linked_worktree_head_is_mapped(plain_git_repo: Path, tmp_path: Path) -> None:
    root = plain_git_repo
    commit_file(root, "w.md", f"{VALUE}\n", "value for the worktree")
    git(root, "worktree", "add", "-q", "--detach", str(tmp_path / "wt"), "HEAD")
    commit_file(root, "later.md", "later\n", "later")
    rewrite.rewrite(root, VALUE, PLACEHOLDER, apply=True)
    detached = git(tmp_path / "wt", "rev-parse", "HEAD").strip()
    assert VALUE not in git(root, "show", detached + ":w.md")
    assert every_trace(root) == []
