"""This repository as a pre-commit hook repository for other repositories.

The manifest's shape (``language: python``, stages, default files), the README snippet's
``rev`` (a commit of this history whose manifest has the same hooks), and the snippet run
for real by pre-commit from a clean clone in an ordinary repository: a key blocked, trailer
emails and a package's author email left alone.
"""

from __future__ import annotations

import json
import os
import re
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from gitmem.base import yamlio
from gitmem.faces import githooks

ROOT = Path(__file__).resolve().parent.parent
PRE_COMMIT = shutil.which("pre-commit") or shutil.which("pre-commit", path=os.path.dirname(sys.executable))
# fabricated keys, assembled so that this file holds no key-shaped string
FAKE_AWS_KEY = "AKIA" + "Q3EGRMX7T2LBN5VW"
FAKE_GITHUB_TOKEN = "ghp_" + "Zq8Lw2Rt5Yx9Kc3Vb7Nm1Pd4Hs6Jf0Ga2Ue8"
MESSAGE_HOOKS = {"gitmem-layers-msg", "gitmem-secrets-msg"}


def manifest() -> list[dict[str, object]]:
    return list(yamlio.load_safe(ROOT.joinpath(".pre-commit-hooks.yaml").read_text()))


def readme_snippet() -> dict[str, object]:
    """The YAML block of the README's pre-commit section, parsed."""
    readme = ROOT.joinpath("README.md").read_text()
    section = readme[readme.index("## Pre-commit hooks"):]
    block = re.search(r"```yaml\n(.*?)```", section, re.S)
    assert block, "the README's pre-commit section has no yaml block"
    loaded = yamlio.load_safe(block.group(1))
    assert isinstance(loaded, dict)
    return loaded


def git(cwd: Path, *args: str, check: bool = True) -> subprocess.CompletedProcess[str]:
    done = subprocess.run(["git", *args], cwd=cwd, capture_output=True, text=True)
    if check:
        assert done.returncode == 0, done.stderr
    return done


# --- the manifest ------------------------------------------------------------------

def test_every_hook_is_a_python_hook_running_a_known_check() -> None:
    hooks = manifest()
    assert len(hooks) >= 9
    for hook in hooks:
        assert hook["language"] == "python", hook["id"]
        entry = str(hook["entry"]).split()
        assert entry[:2] == ["gitmem", "hook"] and entry[2] in githooks.CHECKS, hook["id"]


def test_file_checks_never_run_on_a_commit_message() -> None:
    """Without ``stages`` a hook runs at every installed stage: at commit-msg pre-commit passes the
    message file, and the PII hook rewrote the emails of Signed-off-by into placeholders."""
    for hook in manifest():
        stages = hook.get("stages")
        assert isinstance(stages, list), f"{hook['id']} names no stages"
        if hook["id"] in MESSAGE_HOOKS:
            assert stages == ["commit-msg"]
        else:
            assert "commit-msg" not in stages and "prepare-commit-msg" not in stages, hook["id"]


def test_pii_hook_strips_only_memory_documents_by_default() -> None:
    pii = next(h for h in manifest() if h["id"] == "gitmem-pii")
    files = re.compile(str(pii["files"]))
    for path in ("memory/user/ab/m-1.md", "notes/memory/world/3f/m-2.md", "episodes/2026/11/s.md"):
        assert files.search(path), path
    for path in ("pyproject.toml", "README.md", "LICENSE", "docs/authors.md", "setup.cfg"):
        assert not files.search(path), path


# --- the README snippet's rev --------------------------------------------------------

def test_readme_rev_is_a_commit_whose_manifest_has_these_hooks() -> None:
    repo = readme_snippet()["repos"][0]   # type: ignore[index]
    rev = str(repo["rev"])
    assert re.fullmatch(r"[0-9a-f]{40}", rev), f"rev {rev!r} is not a full commit id (no release is tagged)"
    if git(ROOT, "rev-parse", "--git-dir", check=False).returncode != 0:
        pytest.skip("not a git checkout (an sdist): the history that holds the rev is not here")
    if git(ROOT, "cat-file", "-e", f"{rev}^{{commit}}", check=False).returncode != 0:
        shallow = git(ROOT, "rev-parse", "--is-shallow-repository").stdout.strip() == "true"
        if shallow:   # a shallow checkout (CI's, often) lacks the history; said, never passed silently
            pytest.skip(f"this clone is shallow, so the README's rev {rev} cannot be checked here: "
                        "run it in a clone with full history (git fetch --unshallow)")
        pytest.fail(f"the README's rev {rev} is not a commit of this repository")
    assert git(ROOT, "merge-base", "--is-ancestor", rev, "HEAD", check=False).returncode == 0, \
        f"the README's rev {rev} is not in HEAD's history"
    then = list(yamlio.load_safe(git(ROOT, "show", f"{rev}:.pre-commit-hooks.yaml").stdout))
    assert {h["id"] for h in then} == {h["id"] for h in manifest()}
    assert {h["language"] for h in then} == {"python"}
    snippet_ids = {h["id"] for h in repo["hooks"]}
    assert snippet_ids <= {h["id"] for h in then}
    assert {"gitmem-secrets", "gitmem-secrets-msg", "gitmem-pii"} <= snippet_ids


# --- the commit message check, in process -----------------------------------------------

def message_check(tmp_path: Path, text: str) -> tuple[int, str]:
    msg = tmp_path / "COMMIT_EDITMSG"
    msg.write_text(text)
    done = subprocess.run([sys.executable, "-m", "gitmem", "hook", "secrets-msg", str(msg)], cwd=tmp_path,
                          capture_output=True, text=True, env={**os.environ, "PYTHONPATH": str(ROOT)})
    return done.returncode, done.stdout + done.stderr


def test_trailer_emails_are_never_a_finding(tmp_path: Path) -> None:
    git(tmp_path, "init", "-q")
    code, out = message_check(tmp_path, (
        "Fix the retry loop\n\nCo-authored-by: Bob Jones <bob.jones@corp-mail.net>\n"
        "Co-authored-by: dependabot[bot] <49699333+dependabot[bot]@users.noreply.github.com>\n"
        "Signed-off-by: Carol Smith <carol.smith@corp-mail.net>\nReviewed-by: Dan <dan@corp-mail.net>\n"))
    assert (code, out) == (0, "")


def test_a_secret_in_a_message_is_still_a_finding(tmp_path: Path) -> None:
    git(tmp_path, "init", "-q")
    code, out = message_check(tmp_path, f"Deploy\n\nuse {FAKE_GITHUB_TOKEN}\n"
                                         "Signed-off-by: Carol Smith <carol.smith@corp-mail.net>\n")
    assert code == 1
    assert "gitmem-secrets-msg: commit message:3:5: github_token" in out
    assert FAKE_GITHUB_TOKEN not in out


# --- the snippet, run by pre-commit in an ordinary repository ---------------------------------

@pytest.fixture(scope="module")
def clean_clone(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A clone of this repository's HEAD: what pre-commit fetches, without the work tree's edits."""
    if git(ROOT, "rev-parse", "--verify", "-q", "HEAD", check=False).returncode != 0:
        pytest.skip("not a git checkout with a commit")
    clone = tmp_path_factory.mktemp("gitmem-clone") / "gitmem"
    subprocess.run(["git", "clone", "-q", "--no-hardlinks", str(ROOT), str(clone)], check=True, capture_output=True)
    return clone


@pytest.fixture
def ordinary(tmp_path: Path, clean_clone: Path) -> tuple[Path, dict[str, str]]:
    """A repository that is no memory repository, using the README snippet (repo and rev: the clone)."""
    root = tmp_path / "project"
    root.mkdir()
    git(root, "init", "-q", "-b", "main")
    snippet = readme_snippet()
    repo = snippet["repos"][0]   # type: ignore[index]
    repo["repo"] = str(clean_clone)
    repo["rev"] = git(clean_clone, "rev-parse", "HEAD").stdout.strip()
    (root / ".pre-commit-config.yaml").write_text(json.dumps(snippet))
    env = {**os.environ, "PATH": os.pathsep.join([os.path.dirname(sys.executable), os.environ["PATH"]]),
           "GIT_AUTHOR_DATE": "2026-11-29T12:00:00Z", "GIT_COMMITTER_DATE": "2026-11-29T12:00:00Z"}
    env.pop("PYTHONPATH", None)   # the hooks run the gitmem pre-commit installed, not this checkout
    done = subprocess.run([PRE_COMMIT, "install"], cwd=root, env=env, capture_output=True, text=True)  # type: ignore[list-item]
    assert done.returncode == 0, done.stdout + done.stderr
    assert (root / ".git/hooks/commit-msg").is_file()
    return root, env


def commit(root: Path, env: dict[str, str], *args: str) -> subprocess.CompletedProcess[str]:
    subprocess.run(["git", "add", "-A"], cwd=root, env=env, check=True)
    return subprocess.run(["git", "commit", "-q", *args], cwd=root, env=env, capture_output=True, text=True)


needs_pre_commit = pytest.mark.skipif(PRE_COMMIT is None, reason="pre-commit is not installed")


@pytest.mark.slow
@needs_pre_commit
def test_try_repo_from_a_clean_clone_blocks_a_fake_key(tmp_path: Path, clean_clone: Path) -> None:
    root = tmp_path / "plain"
    root.mkdir()
    git(root, "init", "-q", "-b", "main")
    (root / "deploy.sh").write_text(f"export AWS_ACCESS_KEY_ID={FAKE_AWS_KEY}\n")
    git(root, "add", "-A")
    env = {k: v for k, v in os.environ.items() if k != "PYTHONPATH"}
    done = subprocess.run([PRE_COMMIT, "try-repo", str(clean_clone), "gitmem-secrets", "--verbose",  # type: ignore[list-item]
                           "--files", "deploy.sh"], cwd=root, env=env, capture_output=True, text=True)
    said = done.stdout + done.stderr
    assert done.returncode == 1, said
    assert "gitmem-secrets: deploy.sh:1:" in said and "aws_access_key" in said
    assert FAKE_AWS_KEY not in said.split("Using config")[-1].split("=====")[-1]


@pytest.mark.slow
@needs_pre_commit
def test_readme_snippet_in_an_ordinary_repository(ordinary: tuple[Path, dict[str, str]]) -> None:
    root, env = ordinary
    pyproject = '[project]\nname = "tool"\nauthors = [{name = "Carol Smith", email = "carol.smith@corp-mail.net"}]\n'
    (root / "pyproject.toml").write_text(pyproject)
    (root / "README.md").write_text("Mail carol.smith@corp-mail.net with questions.\n")

    signed = commit(root, env, "-s", "-m", "Add the package\n\nCo-authored-by: Bob Jones <bob.jones@corp-mail.net>")
    assert signed.returncode == 0, signed.stdout + signed.stderr
    message = git(root, "log", "-1", "--format=%B").stdout
    assert "Co-authored-by: Bob Jones <bob.jones@corp-mail.net>" in message
    assert "Signed-off-by: Test Person <test@example.com>" in message
    assert (root / "pyproject.toml").read_text() == pyproject          # a package's author email: untouched
    assert git(root, "show", "HEAD:pyproject.toml").stdout == pyproject

    (root / "notes").mkdir()
    (root / "notes/people.md").write_text("Ask carol.smith@corp-mail.net about billing.\n")
    opted_in = commit(root, env, "-m", "Notes")
    assert opted_in.returncode == 1                                       # like a formatter: stripped, then fails
    assert (root / "notes/people.md").read_text() == "Ask [EMAIL] about billing.\n"
    assert commit(root, env, "-m", "Notes").returncode == 0

    (root / "deploy.sh").write_text(f"export AWS_ACCESS_KEY_ID={FAKE_AWS_KEY}\n")
    blocked = commit(root, env, "-m", "Deploy")
    assert blocked.returncode == 1
    assert "gitmem-secrets: deploy.sh:1:" in blocked.stdout + blocked.stderr
    assert git(root, "log", "-1", "--format=%s").stdout.strip() == "Notes"

    (root / "deploy.sh").write_text("./deploy --env prod\n")
    in_message = commit(root, env, "-m", f"Deploy\n\ntoken {FAKE_GITHUB_TOKEN}")
    assert in_message.returncode == 1
    assert "gitmem-secrets-msg: commit message:3:" in in_message.stdout + in_message.stderr
    assert commit(root, env, "-m", "Deploy").returncode == 0
