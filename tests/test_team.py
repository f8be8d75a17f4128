"""Personal and shared memory in a team repository (``sharing: team``): three clones of one bare
repository served by ``git daemon`` and by smart HTTP, each person with their own ``user.email``."""

from __future__ import annotations

import subprocess
from collections.abc import Iterator
from pathlib import Path

import pytest

from gitmem.api import MemoryRepo
from gitmem.base import people
from gitmem.base.clock import parse_time
from gitmem.base.errors import UsageError
from tests import servers
from tests.conftest import run_cli
from tests.loop_helpers import git

T = parse_time("2026-11-20T12:00:00Z")
ALICE, BOB, CAROL = "alice@example.org", "bob@example.org", "carol@example.org"
SHARED_FACT = "The staging database listens on port 5433"


@pytest.fixture(params=["git-daemon", "smart-http"])
def remote_url(request: pytest.FixtureRequest, tmp_path: Path) -> Iterator[str]:
    with servers.served(tmp_path, request.param) as (_, url):
        yield url


def share(root: Path) -> None:
    path = root / "gitmem.yaml"
    text = path.read_text(encoding="utf-8")
    assert "\nsharing: personal" in text
    path.write_text(text.replace("\nsharing: personal", "\nsharing: team"), encoding="utf-8")


def team_repo(tmp_path: Path, url: str) -> MemoryRepo:
    first = MemoryRepo.init(tmp_path / "alice", T)
    git(first.root, "config", "user.email", ALICE)
    share(first.root)
    git(first.root, "commit", "-qam", "share this memory with the team")
    git(first.root, "remote", "add", "origin", url)
    repo = MemoryRepo.open(first.root)
    assert repo.sync(now=T).pushed
    return repo


@pytest.fixture
def daemon_url(tmp_path: Path) -> Iterator[str]:
    with servers.served(tmp_path) as (_, url):
        yield url


def join(tmp_path: Path, url: str, name: str, email: str) -> MemoryRepo:
    target = tmp_path / name
    subprocess.run(["git", "clone", "-q", url, str(target)], check=True, capture_output=True)
    git(target, "config", "user.email", email)
    MemoryRepo.init(target, T)
    return MemoryRepo.open(target)


def path_of(repo: MemoryRepo, text: str) -> str:
    (m,) = [m for m in repo.list().memories if m.content == text]
    return m.path


@pytest.mark.slow
def test_each_person_gets_their_own_and_the_shared_memories(tmp_path: Path, remote_url: str) -> None:
    alice = team_repo(tmp_path, remote_url)
    bob = join(tmp_path, remote_url, "bob", BOB)
    carol = join(tmp_path, remote_url, "carol", CAROL)
    salt = (alice.root / people.SALT_FILE).read_text().strip()
    assert salt and (bob.root / people.SALT_FILE).read_text().strip() == salt   # one salt, committed

    alice.remember("I prefer tabs over spaces in every file", domain="user", importance=0.95, now=T)
    alice.remember(SHARED_FACT, domain="project", importance=0.95, now=T)
    bob.remember("I review code in the morning before standup", domain="user", importance=0.95, now=T)
    bob.remember("Bob trusts the agent with refactors", domain="relationship", importance=0.95, now=T)
    carol.remember("Deploys need the on-call engineer", domain="world", importance=0.95, now=T)
    for repo in (alice, bob, carol, alice, bob):
        repo.sync(now=T)

    mine = people.folder_of(salt, ALICE)
    assert path_of(alice, "I prefer tabs over spaces in every file").startswith(f"memory/user/{mine}/")
    assert path_of(alice, "Bob trusts the agent with refactors").startswith(
        f"memory/relationship/{people.folder_of(salt, BOB)}/")
    assert path_of(alice, SHARED_FACT).split("/")[2] != mine            # a shared domain stays shared
    assert ALICE not in mine and "alice" not in git(alice.root, "ls-files")

    def core(repo: MemoryRepo) -> str:
        return repo.load_core().text

    assert "tabs over spaces" in core(alice) and "morning" not in core(alice) and "refactors" not in core(alice)
    assert "morning" in core(bob) and "refactors" in core(bob) and "tabs over spaces" not in core(bob)
    for repo in (alice, bob, carol):
        assert SHARED_FACT in core(repo) and "on-call" in core(repo)
    assert "tabs" not in core(carol) and "morning" not in core(carol)

    assert [r.content for r in bob.recall("morning standup review")][:1] == \
        ["I review code in the morning before standup"]
    assert all("morning" not in r.content for r in alice.recall("morning standup review"))
    assert all("tabs" not in r.content for r in carol.recall("tabs spaces"))

    # the committed core is everyone's: no person's own memories in it, without a review
    alice.sync_core(now=T)
    committed = (alice.root / "HIPPOCAMPUS_CORE.md").read_text(encoding="utf-8")
    assert SHARED_FACT in committed and "tabs" not in committed and "morning" not in committed

    # the same words from another person are their own memory, not a reinforcement of someone else's
    again = carol.remember("I prefer tabs over spaces in every file", domain="user", importance=0.95, now=T)
    assert again.action == "created" and f"/{people.folder_of(salt, CAROL)}/" in again.memory.path

    # forgetting keeps a personal memory in its person's folder, archived
    (tabs,) = [m for m in alice.list().memories if m.content.startswith("I prefer tabs")]
    alice.forget(tabs.id, now=T)
    (gone,) = [m for m in alice.list(include_archive=True).memories if m.id == tabs.id]
    assert gone.path.startswith(f"archive/user/{mine}/")


def test_reflect_folds_no_personal_memory_into_a_shared_pattern(tmp_path: Path, daemon_url: str) -> None:
    alice = team_repo(tmp_path, daemon_url)
    for n in range(4):
        alice.remember(f"I always run the linter before pushing, rule {n}", domain="user", now=T)
        alice.remember(f"The team runs the linter before pushing, rule {n}", domain="project", now=T)
    alice.reflect(now=T)
    personal = {m.id for m in alice.list().memories if people.person_of(m.path)}
    assert len(personal) == 4
    assert not any(personal & set(p.sources) for p in alice.patterns())


def test_without_an_email_a_personal_memory_is_refused_with_what_to_run(tmp_path: Path, daemon_url: str,
                                                                         monkeypatch: pytest.MonkeyPatch) -> None:
    alice = team_repo(tmp_path, daemon_url)
    git(alice.root, "config", "--unset", "user.email")
    nobody = tmp_path / "nobody.gitconfig"
    nobody.write_text("[user]\n\tname = Nobody Known\n")
    monkeypatch.setenv("GIT_CONFIG_GLOBAL", str(nobody))
    with pytest.raises(UsageError, match="user.email") as refused:
        alice.remember("I like dark themes", domain="user", now=T)
    assert "git config user.email" in (refused.value.hint or "")
    assert alice.remember(SHARED_FACT, domain="project", now=T).action == "created"   # shared ones still go


def test_a_repository_without_sharing_keeps_the_canonical_paths(tmp_path: Path) -> None:
    repo = MemoryRepo.init(tmp_path / "solo", T)
    done = repo.remember("I prefer tabs over spaces in every file", domain="user", now=T)
    assert people.person_of(done.memory.path) is None and done.memory.path.count("/") == 3


def test_upgrade_commits_the_salt_a_team_repository_lacks(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    repo = MemoryRepo.init(tmp_path / "old", T)
    git(repo.root, "rm", "-q", people.SALT_FILE)
    git(repo.root, "commit", "-qm", "as a repository made before the salt", "--no-verify")
    share(repo.root)
    git(repo.root, "commit", "-qam", "share it")
    repo = MemoryRepo.open(repo.root)
    with pytest.raises(UsageError, match="salt") as refused:
        repo.remember("I like dark themes", domain="user", now=T)
    assert "gitmem upgrade" in (refused.value.hint or "")
    found = {f.name: f for f in repo.doctor(online=False).findings}
    assert not found["sharing"].ok and found["sharing"].fix == "gitmem upgrade"
    assert not found["format"].ok and people.SALT_FILE in found["format"].detail
    assert people.SALT_FILE in repo.upgrade(now=T).paths
    found = {f.name: f for f in repo.doctor(online=False).findings}
    assert found["sharing"].ok and found["format"].ok
    assert repo.remember("I like dark themes", domain="user", now=T).memory.path.split("/")[2].startswith("p-")
    code, out, _ = run_cli(["--repo", str(repo.root), "check", "config"], capsys)
    assert code == 0
    (repo.root / "gitmem.yaml").write_text((repo.root / "gitmem.yaml").read_text().replace("sharing: team", "sharing: teams"))
    code, out, _ = run_cli(["--repo", str(repo.root), "check", "config"], capsys)
    assert code == 1 and "sharing" in out and "personal or team" in out


def test_an_import_places_each_personal_memory_in_the_importers_folder(tmp_path: Path, daemon_url: str) -> None:
    # import, like harvest and remember, writes through the one writer: the placement holds for every writer
    alice = team_repo(tmp_path, daemon_url)
    rows = tmp_path / "rows.jsonl"
    rows.write_text('{"content": "I like my coffee black", "domain": "user"}\n'
                    '{"content": "The agent should explain its diffs", "domain": "self"}\n'
                    '{"content": "Releases are cut on Thursdays", "domain": "project"}\n', encoding="utf-8")
    alice.import_file(rows, now=T)
    mine = people.folder_of((alice.root / people.SALT_FILE).read_text(), ALICE)
    found = {m.content: people.person_of(m.path) for m in alice.list().memories}
    assert found == {"I like my coffee black": mine, "The agent should explain its diffs": mine,
                     "Releases are cut on Thursdays": None}
    assert {r.content for r in alice.recall("coffee black")} >= {"I like my coffee black"}
