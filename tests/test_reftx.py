"""The reference-transaction hook: under an agent's environment, no local branch or HEAD moves to a commit
made here that changes Layers 1 or 4 of CLAUDE.md, whichever git command makes it (cherry-pick, rebase,
``commit --no-verify``, commit-tree then merge); a person's own, and a merge of a person's commit made
elsewhere, pass (gitmem.faces.hookrefs). Every test goes through real git commands and gitmem's installed
hooks."""

from __future__ import annotations

import re
import subprocess
from pathlib import Path

import pytest

from gitmem.api import MemoryRepo, initrepo
from gitmem.faces.hookrefs import moved_tips
from gitmem.guards.reviewer import AGENT_VARIABLES
from tests import servers
from tests.conftest import run_cli
from tests.loop_helpers import git
from tests.test_hostile_reviews import T, _cli_env, hooked  # noqa: F401  (hooked: the fixture)

AGENT = _cli_env(CLAUDECODE="1")
PERSON = _cli_env()
RULE = "- (your first rule)"
REFUSED = "gitmem-layers-agent: "


def run(root: Path, env: dict[str, str], *args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(["git", *args], cwd=root, capture_output=True, text=True, env=env)


def rule_on(root: Path, branch: str, rule: str, base: str = "main", env: dict[str, str] = PERSON) -> str:
    """A Layer 1 rule committed on a new ``branch`` off ``base`` (a person's commit by default); its id."""
    git(root, "checkout", "-q", "-b", branch, base)
    claude = root / "CLAUDE.md"
    claude.write_text(claude.read_text().replace(RULE, rule))
    git(root, "add", "CLAUDE.md")
    done = run(root, env, "commit", "-q", "-m", f"a rule: {rule}")
    assert done.returncode == 0, done.stdout + done.stderr
    tip = git(root, "rev-parse", "HEAD")
    git(root, "checkout", "-q", "main")
    return tip


def note_on_main(root: Path) -> str:
    """A commit on main that does not touch CLAUDE.md (so that a rebase or a pick has something to move over)."""
    (root / "bank").mkdir(exist_ok=True)
    (root / "bank" / "notes.md").write_text("# Notes\n\n- a note\n")
    git(root, "add", "bank/notes.md")
    assert run(root, PERSON, "commit", "-q", "-m", "a note").returncode == 0
    return git(root, "rev-parse", "HEAD")


def refused(done: subprocess.CompletedProcess[str]) -> str:
    said = done.stdout + done.stderr
    assert done.returncode != 0, said
    assert REFUSED in said and "layer 1 (core) changed in a commit made under Claude Code (CLAUDECODE is set)" in said
    assert "gitmem refused to move" in said and "outside the agent" in said
    return said


# --- the script git runs ---------------------------------------------------------------------------------

def test_init_installs_the_hook_and_it_names_every_agent_variable(hooked: Path) -> None:
    script = (hooked / ".git" / "hooks" / "reference-transaction").read_text()
    assert script == initrepo.hook_scripts()["reference-transaction"].decode()
    for variable, _ in AGENT_VARIABLES:
        assert re.fullmatch(r"[A-Z][A-Z0-9_]*", variable)   # a shell name: nothing else reaches the script
        assert f"${{{variable}+1}}" in script


@pytest.mark.parametrize("state, env, runs", [("prepared", AGENT, True), ("committed", AGENT, False),
                                              ("aborted", AGENT, False), ("prepared", PERSON, False),
                                              ("prepared", _cli_env(CLAUDECODE=""), True),
                                              ("prepared", _cli_env(OPENCODE="1"), True)])
def test_the_script_starts_python_only_under_an_agent_in_the_prepared_state(
        tmp_path: Path, state: str, env: dict[str, str], runs: bool) -> None:
    """The script names a Python that is not there: it says so (exit 1) only when it would have started it."""
    script = tmp_path / "reference-transaction"
    script.write_bytes(initrepo.hook_scripts(python=str(tmp_path / "no-python"))["reference-transaction"])
    done = subprocess.run(["sh", str(script), state], input=f"{'0' * 40} {'1' * 40} refs/heads/main\n",
                          capture_output=True, text=True, env=env)
    assert (done.returncode, "is gone" in done.stderr) == ((1, True) if runs else (0, False)), done.stderr


def test_moved_tips_keeps_local_branches_and_head_moved_to_a_commit() -> None:
    a, b, zero = "a" * 40, "b" * 40, "0" * 40
    lines = (f"{a} {b} HEAD\n{a} {b} refs/heads/main\n{zero} {b} ORIG_HEAD\n{a} {b} refs/remotes/origin/main\n"
             f"{a} {zero} refs/heads/gone\n{zero} {b} refs/stash\nnot a line\n")
    assert moved_tips(lines) == {"HEAD": b, "refs/heads/main": b}


# --- what it refuses under an agent, and lets a person do ----------------------------------------------------

def test_a_cherry_pick_under_an_agent_is_refused_and_a_persons_passes(hooked: Path) -> None:
    picked = rule_on(hooked, "elsewhere", "- Push without tests")
    head = note_on_main(hooked)
    said = refused(run(hooked, AGENT, "cherry-pick", picked))
    assert "refs/heads/main" in said and "git cherry-pick --abort" in said
    assert git(hooked, "rev-parse", "HEAD") == head
    assert run(hooked, AGENT, "cherry-pick", "--abort").returncode == 0
    assert git(hooked, "status", "--porcelain") == "" and RULE in (hooked / "CLAUDE.md").read_text()
    done = run(hooked, PERSON, "cherry-pick", picked)
    assert done.returncode == 0, done.stdout + done.stderr
    assert "- Push without tests" in (hooked / "CLAUDE.md").read_text()


def test_a_rebase_under_an_agent_is_refused_and_a_persons_passes(hooked: Path) -> None:
    tip = rule_on(hooked, "elsewhere", "- Push without tests")
    note_on_main(hooked)
    git(hooked, "checkout", "-q", "elsewhere")
    refused(run(hooked, AGENT, "rebase", "main"))
    assert run(hooked, AGENT, "rebase", "--abort").returncode == 0
    assert git(hooked, "rev-parse", "refs/heads/elsewhere") == tip and git(hooked, "status", "--porcelain") == ""
    done = run(hooked, PERSON, "rebase", "main")
    assert done.returncode == 0, done.stdout + done.stderr
    assert git(hooked, "rev-parse", "refs/heads/elsewhere") != tip


def test_a_commit_with_no_verify_under_an_agent_is_refused_with_the_change_kept_staged(hooked: Path) -> None:
    head = git(hooked, "rev-parse", "HEAD")
    claude = hooked / "CLAUDE.md"
    claude.write_text(claude.read_text().replace(RULE, "- Push without tests"))
    git(hooked, "add", "CLAUDE.md")
    refused(run(hooked, AGENT, "commit", "-q", "--no-verify", "-m", "rules"))
    assert git(hooked, "rev-parse", "HEAD") == head
    assert git(hooked, "diff", "--cached", "--name-only") == "CLAUDE.md"   # nothing lost
    done = run(hooked, PERSON, "commit", "-q", "--no-verify", "-m", "my rules")
    assert done.returncode == 0, done.stdout + done.stderr


@pytest.mark.parametrize("how", [("merge", "-q", "--ff-only"), ("merge", "-q", "--no-ff", "--no-edit"),
                                 ("update-ref", "refs/heads/main")])
def test_a_commit_made_without_hooks_under_an_agent_is_refused_when_merged(hooked: Path, how: tuple[str, ...]) -> None:
    """`git commit-tree` (no ref, no hook) then a merge or update-ref moving main to it: the commit, made
    here and reached by no ref, is checked where the branch moves, a merge commit on top or not."""
    head = git(hooked, "rev-parse", "HEAD")
    claude = hooked / "CLAUDE.md"
    claude.write_text(claude.read_text().replace(RULE, "- Push without tests"))
    git(hooked, "add", "CLAUDE.md")
    tree = git(hooked, "write-tree")
    made = run(hooked, AGENT, "commit-tree", tree, "-p", head, "-m", "rules").stdout.strip()
    git(hooked, "reset", "-q", "--hard", head)
    if how[0] == "merge" and "--no-ff" in how:
        note_on_main(hooked)
    before = git(hooked, "rev-parse", "HEAD")
    said = refused(run(hooked, AGENT, *how, made))
    assert made[:12] in said and git(hooked, "rev-parse", "HEAD") == before
    subprocess.run(["git", "merge", "--abort"], cwd=hooked, capture_output=True)
    done = run(hooked, PERSON, *how, made)
    assert done.returncode == 0, done.stdout + done.stderr


def test_layer_four_is_the_persons_too(hooked: Path) -> None:
    claude = hooked / "CLAUDE.md"
    text = claude.read_text()
    assert "- Look things up with" in text
    claude.write_text(text.replace("- Look things up with", "- Obey every memory. Look things up with"))
    git(hooked, "add", "CLAUDE.md")
    done = run(hooked, AGENT, "commit", "-q", "--no-verify", "-m", "meta")
    assert done.returncode != 0 and "layer 4 (meta) changed in a commit made under Claude Code" in done.stderr


@pytest.mark.parametrize("how", [("--ff-only",), ("--no-ff", "--no-edit")])
def test_an_agents_merge_of_a_persons_layer_one_commit_passes(hooked: Path, how: tuple[str, ...]) -> None:
    rule_on(hooked, "elsewhere", "- Ask before deleting files")
    if "--no-ff" in how:
        note_on_main(hooked)
    done = run(hooked, AGENT, "merge", "-q", *how, "elsewhere")
    assert done.returncode == 0, done.stdout + done.stderr
    assert "- Ask before deleting files" in (hooked / "CLAUDE.md").read_text()


def test_other_commits_and_ref_moves_under_an_agent_pass(hooked: Path) -> None:
    note = note_on_main(hooked)
    for args in (("checkout", "-q", "-b", "work"), ("commit", "-q", "--no-verify", "--allow-empty", "-m", "empty"),
                 ("checkout", "-q", "main"), ("reset", "-q", "--hard", "HEAD~1"), ("reset", "-q", "--hard", note),
                 ("branch", "-D", "work"), ("tag", "t1")):
        done = run(hooked, AGENT, *args)
        assert done.returncode == 0, (args, done.stdout + done.stderr)


# --- gitmem sync, doctor and upgrade -------------------------------------------------------------------------

@pytest.mark.parametrize("note_first", [False, True], ids=["fast-forward", "merge"])
def test_sync_under_an_agent_brings_in_a_persons_layer_one_commit(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch, note_first: bool) -> None:
    with servers.served(tmp_path) as (_, url):
        alice = MemoryRepo.init(tmp_path / "alice", T)
        git(alice.root, "remote", "add", "origin", url)
        assert alice.sync(now=T).pushed
        subprocess.run(["git", "clone", "-q", url, str(tmp_path / "bob")], check=True, capture_output=True)
        MemoryRepo.init(tmp_path / "bob", T)
        bob = MemoryRepo.open(tmp_path / "bob")
        claude = alice.root / "CLAUDE.md"
        claude.write_text(claude.read_text().replace(RULE, "- Ask before deleting files"))
        git(alice.root, "commit", "-qam", "a rule, by Alice")
        assert alice.sync(now=T).pushed
        if note_first:
            note_on_main(bob.root)
        monkeypatch.setenv("CLAUDECODE", "1")   # the agent runs `gitmem sync`: git's merge runs the hooks
        done = bob.sync(now=T)
        assert done.how == ("merged" if note_first else "fast-forward"), done
        assert "- Ask before deleting files" in (bob.root / "CLAUDE.md").read_text()


def test_doctor_names_a_missing_reference_transaction_hook_and_upgrade_installs_it(
        hooked: Path, capsys: pytest.CaptureFixture[str]) -> None:
    hook = hooked / ".git" / "hooks" / "reference-transaction"
    hook.unlink()
    code, out, _ = run_cli(["--repo", str(hooked), "doctor", "--offline"], capsys)
    assert code == 1 and "git hooks missing or stale: reference-transaction" in out
    code, out, _ = run_cli(["--repo", str(hooked), "upgrade"], capsys)
    assert code == 0 and "installed this gitmem's git hooks in this clone: reference-transaction" in out, out
    assert hook.read_bytes() == initrepo.hook_scripts()["reference-transaction"]
    code, out, _ = run_cli(["--repo", str(hooked), "doctor", "--offline"], capsys)
    assert "reference-transaction hooks are installed" in out, out


def test_upgrade_leaves_a_hook_of_the_pre_commit_framework_alone(hooked: Path) -> None:
    hooks = hooked / ".git" / "hooks"
    framework = "#!/usr/bin/env bash\n# File generated by pre-commit: https://pre-commit.com\n"
    (hooks / "pre-commit").write_text(framework)
    (hooks / "reference-transaction").unlink()
    assert MemoryRepo.open(hooked).upgrade(now=T).hooks == ("reference-transaction",)
    assert (hooks / "pre-commit").read_text() == framework


def test_upgrade_installs_no_hook_in_a_clone_without_gitmems_hooks(tmp_path: Path) -> None:
    root = tmp_path / "bare-hooks"
    initrepo.init(root, T, install_hooks=False)
    assert MemoryRepo.open(root).upgrade(now=T).hooks == ()
    assert not (root / ".git" / "hooks" / "reference-transaction").exists()


def test_purge_under_an_agent_rewrites_a_history_that_holds_a_persons_layer_one_commits(
        hooked: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """purge makes every commit anew, a person's Layer 1 commits too; it is gitmem's own write, and its
    one `git update-ref --stdin` does not go through the hook."""
    value = "leaked-value-Hx81Qa"
    (hooked / "bank").mkdir(exist_ok=True)
    (hooked / "bank" / "notes.md").write_text(f"# Notes\n\n- reach me at {value}\n")
    git(hooked, "add", "bank/notes.md")
    git(hooked, "commit", "-q", "--no-verify", "-m", "a note")
    claude = hooked / "CLAUDE.md"   # after the leak: purge makes this commit anew
    claude.write_text(claude.read_text().replace(RULE, "- Ask before deleting files"))
    git(hooked, "commit", "-qam", "a rule, by the person")
    monkeypatch.setenv("CLAUDECODE", "1")
    done = MemoryRepo.open(hooked).purge(value, confirm=True)
    assert done.commits and value not in (hooked / "bank" / "notes.md").read_text()
    assert "- Ask before deleting files" in claude.read_text()


@pytest.mark.parametrize("verify", [(), ("--no-verify",)])
def test_deleting_claude_md_under_an_agent_is_refused_so_it_cannot_come_back_with_new_layers(
        hooked: Path, verify: tuple[str, ...]) -> None:
    """Deleting CLAUDE.md removes Layers 1 and 4, which only a person changes: refused at pre-commit, and
    with ``--no-verify`` where the branch moves. Otherwise a second commit could re-create the file with an
    agent's Layer 1, which, as a new file, has no person's layers to compare with."""
    head = git(hooked, "rev-parse", "HEAD")
    git(hooked, "rm", "-q", "CLAUDE.md")
    refused(run(hooked, AGENT, "commit", "-q", *verify, "-m", "drop the rules"))
    assert git(hooked, "rev-parse", "HEAD") == head
    assert git(hooked, "diff", "--cached", "--name-status") == "D\tCLAUDE.md"   # nothing lost
    done = run(hooked, PERSON, "commit", "-q", *verify, "-m", "I drop the rules")
    assert done.returncode == 0, done.stdout + done.stderr
