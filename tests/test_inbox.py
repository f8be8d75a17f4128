"""Tests for gitmem.api.inbox: the harvest inbox, a review branch a person settles item by item.

Harvests run for real over small transcripts written here, with an encoder
command (a script the test writes, behind the real encoder contract) that
marks some candidates as unsure (``"inbox": true``), as the scorer does.
"""

from __future__ import annotations

import hashlib
import json
import re
import subprocess
import sys
from datetime import timedelta
from pathlib import Path
from typing import Sequence

import pytest

from tests.conftest import NOW, run_cli
from gitmem.api import MemoryRepo
from gitmem.api.inbox import DECISIONS_FILE
from gitmem.base import clock
from gitmem.base.errors import UsageError
from gitmem.engines import review
from gitmem.engines.harvest import encoder
from tests.loop_helpers import add_sessions

T = clock.parse_time(NOW)
BEFORE = clock.parse_time("2026-10-30T12:00:00Z")     # a pattern added before the sessions that activate it
# The encoder: prints the candidates the test left in argv[1] for the session it is sent ("*": any session).
SCRIPT = """import json, sys
sent = json.loads(sys.stdin.read())
answers = json.load(open(sys.argv[1], encoding="utf-8"))
for a in answers.get(sent["session"], answers.get("*", [])):
    print(json.dumps(a))
"""
SURE = {"text": "Always answer in French.", "kind": "preference", "importance": 0.9, "line": 1}
FIRST = [SURE,
         {"text": "The API lives under /v2.", "kind": "fact", "inbox": True, "line": 2},
         {"text": "We deploy from main on Fridays.", "kind": "decision", "inbox": True, "line": 3}]
SECOND = [{"text": "The API lives under /v2.", "kind": "fact", "inbox": True, "line": 1},   # already in the inbox
          {"text": "Use pnpm for the web app.", "kind": "decision", "inbox": True, "line": 2},
          {"text": "Staging runs on port 8443.", "kind": "fact", "inbox": True, "line": 3}]


def git(root: Path, *args: str) -> str:
    return subprocess.run(["git", *args], cwd=root, capture_output=True, text=True, check=True).stdout.strip()


class Harvester:
    """A memory repository whose encoder command answers what the test says."""

    def __init__(self, root: Path, tmp: Path) -> None:
        self.root, self.tmp = root, tmp
        script = tmp / "enc.py"
        script.write_text(SCRIPT)
        self.answers = tmp / "answers.json"
        git(root, "config", encoder.KEY, f"{sys.executable} {script} {self.answers}")

    def harvest(self, name: str, answers: Sequence[dict[str, object]], cwd: Path | None = None) -> MemoryRepo:
        self.answers.write_text(json.dumps({"*": answers}), encoding="utf-8")
        repo = MemoryRepo.open(self.root)
        [r] = repo.harvest([self.session(name, answers, cwd)], now=T)
        assert r.status == "harvested", r
        return repo

    def session(self, name: str, answers: Sequence[dict[str, object]], cwd: Path | None = None) -> Path:
        path = self.tmp / f"{name}.jsonl"
        turns = [("user", str(a["text"])) for a in answers] + [("assistant", "Noted.")]
        path.write_text("".join(json.dumps({"session_id": name, "role": role, "content": text,
                                            "timestamp": f"2026-11-20T10:{n:02d}:00Z",
                                            **({"cwd": str(cwd)} if cwd else {})}) + "\n"
                                for n, (role, text) in enumerate(turns)), encoding="utf-8")
        return path


@pytest.fixture
def hv(repo_dir: Path, tmp_path: Path) -> Harvester:
    return Harvester(repo_dir, tmp_path)


def contents(repo: MemoryRepo) -> set[str]:
    return {m.content for m in repo.list().memories}


def decisions(root: Path) -> list[dict[str, object]]:
    path = root / ".git" / "gitmem" / DECISIONS_FILE
    return [json.loads(line) for line in path.read_text().splitlines()] if path.exists() else []


def test_unsure_candidates_wait_in_one_inbox_that_later_harvests_add_to(hv: Harvester, repo_dir: Path) -> None:
    repo = hv.harvest("s-one", FIRST)
    assert contents(repo) == {"Always answer in French."}        # the sure one and the episode went to main
    [inbox] = repo.reviews()
    assert inbox.kind == "harvest" and inbox.name.startswith("gitmem/review/harvest-") and not inbox.behind
    first_tip = inbox.commit
    repo = hv.harvest("s-two", SECOND)
    [again] = repo.reviews()
    assert again.name == inbox.name and again.commit != first_tip and not again.behind
    parents = git(repo_dir, "log", "-1", "--format=%P", again.name).split()
    assert parents == [git(repo_dir, "rev-parse", "main"), first_tip]   # on the current tip, the inbox before it
    assert git(repo_dir, "rev-list", "--count", f"main..{again.name}") == "2"   # one commit per harvest
    shown = repo.review_show(inbox.name)
    assert [(i.number, i.text, i.kind, i.line) for i in shown.items] == [
        (1, "The API lives under /v2.", "fact", 2), (2, "We deploy from main on Fridays.", "decision", 3),
        (3, "Use pnpm for the web app.", "decision", 2), (4, "Staging runs on port 8443.", "fact", 3)]
    assert shown.items[0].session != shown.items[2].session
    changed = git(repo_dir, "diff", "--name-status", f"main...{again.name}").splitlines()
    assert len(changed) == 4 and all(line.startswith("A\tmemory/") for line in changed)   # nothing else


def test_a_candidate_already_on_the_branch_is_not_asked_again(hv: Harvester) -> None:
    hv.harvest("s-one", [SURE])
    repo = hv.harvest("s-two", [{**SURE, "inbox": True}])
    assert repo.reviews() == []


def test_show_lists_the_items_numbered_with_kind_session_and_line(hv: Harvester, repo_dir: Path,
                                                                  capsys: pytest.CaptureFixture[str]) -> None:
    repo = hv.harvest("s-one", FIRST)
    [inbox] = repo.reviews()
    code, out, _ = run_cli(["--repo", str(repo_dir), "review", "list"], capsys)
    assert code == 0 and inbox.name in out and "\tharvest\t" in out and "2 items to review" in out
    code, out, _ = run_cli(["--repo", str(repo_dir), "review", "show", inbox.name.rsplit("/", 1)[1]], capsys)
    session = repo.review_show(inbox.name).items[0].session
    assert code == 0
    assert f"  1. [fact] The API lives under /v2. (session {session}, line 2)" in out
    assert f"  2. [decision] We deploy from main on Fridays. (session {session}, line 3)" in out
    code, out, _ = run_cli(["--repo", str(repo_dir), "review", "show", inbox.name, "--json"], capsys)
    assert [i["text"] for i in json.loads(out)["items"]] == ["The API lives under /v2.", "We deploy from main on Fridays."]


def test_accept_only_keeps_those_items_in_one_merge_and_records_each_decision(
        hv: Harvester, repo_dir: Path, capsys: pytest.CaptureFixture[str]) -> None:
    hv.harvest("s-one", FIRST)
    repo = hv.harvest("s-two", SECOND)
    [inbox] = repo.reviews()
    items = repo.review_show(inbox.name).items
    main = git(repo_dir, "rev-parse", "main")
    code, out, err = run_cli(["--repo", str(repo_dir), "review", "accept", inbox.name, "--only", "1,3",
                              "--i-am-the-reviewer"], capsys)
    assert code == 0, err
    assert "2 items kept, 2 dropped" in out
    assert git(repo_dir, "log", "-1", "--format=%P").split() == [main, inbox.commit]   # ONE merge commit
    assert git(repo_dir, "rev-list", "--count", f"{main}..main", "--first-parent") == "1"
    assert "Gitmem-Approved-By: Test Person <test@example.com>" in git(repo_dir, "log", "-1", "--format=%B")
    repo = MemoryRepo.open(repo_dir)
    assert contents(repo) == {"Always answer in French.", "The API lives under /v2.", "Use pnpm for the web app."}
    assert repo.reviews() == [] and git(repo_dir, "status", "--porcelain") == ""
    got = decisions(repo_dir)
    assert [(d["line"], d["kind"], d["decision"]) for d in got] == [
        (2, "fact", "keep"), (3, "decision", "drop"), (2, "decision", "keep"), (3, "fact", "drop")]
    assert [d["session"] for d in got] == [i.session for i in items]
    assert got[0]["hash"] == hashlib.sha1(b"The API lives under /v2.").hexdigest()[:12] and got[0]["key"] == ""
    text = (repo_dir / ".git" / "gitmem" / DECISIONS_FILE).read_text()
    assert "API" not in text and "pnpm" not in text             # hashes of the texts, never the texts


def test_accept_without_only_keeps_every_item(hv: Harvester, repo_dir: Path) -> None:
    repo = hv.harvest("s-one", FIRST)
    [inbox] = repo.reviews()
    done = repo.review_accept(inbox.name, i_am_the_reviewer=True, now=T)
    assert (done.kept, done.dropped, done.commit) == (2, 0, git(repo_dir, "rev-parse", "main"))
    assert contents(MemoryRepo.open(repo_dir)) == {m["text"] for m in FIRST}
    assert {d["decision"] for d in decisions(repo_dir)} == {"keep"}


def test_reject_drops_them_all_and_keeps_the_branch_for_audit(hv: Harvester, repo_dir: Path,
                                                             capsys: pytest.CaptureFixture[str]) -> None:
    repo = hv.harvest("s-one", FIRST)
    [inbox] = repo.reviews()
    main = git(repo_dir, "rev-parse", "main")
    code, out, _ = run_cli(["--repo", str(repo_dir), "review", "reject", inbox.name, "--reason", "not durable",
                            "--i-am-the-reviewer"], capsys)
    assert code == 0 and "2 items dropped" in out and f"refs/gitmem/rejected/{inbox.name}" in out
    assert git(repo_dir, "rev-parse", f"refs/gitmem/rejected/{inbox.name}") == inbox.commit
    assert git(repo_dir, "rev-parse", "main") == main and contents(MemoryRepo.open(repo_dir)) == {SURE["text"]}
    assert [d["decision"] for d in decisions(repo_dir)] == ["drop", "drop"]
    repo = hv.harvest("s-three", SECOND)                           # a new inbox opens after a decision
    assert [r.kind for r in repo.reviews()] == ["harvest"] and len(repo.review_show(repo.reviews()[0].name).items) == 3


@pytest.mark.parametrize("only, why", [("0", "no item 0"), ("3", "no item 3"), ("one", "not an item number"),
                                       ("1,1", "named twice"), ("", "not an item number"), ("1,,2", "not an item number"),
                                       ("-1", "not an item number"), ("²", "not an item number")])
def test_a_bad_only_is_a_usage_error_and_changes_nothing(hv: Harvester, repo_dir: Path, only: str, why: str,
                                                         capsys: pytest.CaptureFixture[str]) -> None:
    repo = hv.harvest("s-one", FIRST)
    [inbox] = repo.reviews()
    main = git(repo_dir, "rev-parse", "main")
    code, _, err = run_cli(["--repo", str(repo_dir), "review", "accept", inbox.name, "--only", only,
                            "--i-am-the-reviewer"], capsys)
    assert code == 2 and why in err and "hint: give item numbers from 1 to 2" in err
    assert git(repo_dir, "rev-parse", "main") == main and repo.reviews() == [inbox]
    assert decisions(repo_dir) == []


def test_accept_and_reject_stay_a_persons_decision(hv: Harvester, repo_dir: Path,
                                                   capsys: pytest.CaptureFixture[str],
                                                   monkeypatch: pytest.MonkeyPatch) -> None:
    repo = hv.harvest("s-one", FIRST)
    [inbox] = repo.reviews()
    monkeypatch.setenv("CLAUDECODE", "1")
    for action in (["accept", inbox.name, "--only", "1"], ["reject", inbox.name]):
        code, _, err = run_cli(["--repo", str(repo_dir), "review", *action], capsys)
        assert code == 2 and "CLAUDECODE" in err and "--i-am-the-reviewer" in err
    assert repo.reviews() == [inbox] and decisions(repo_dir) == []


def test_only_belongs_to_the_harvest_inbox(repo: MemoryRepo) -> None:
    repo.pattern_add("Retry flaky calls with backoff", ["backoff"], now=BEFORE)
    add_sessions(repo.root, ["backoff helps"] * 3)
    branch = repo.propose_weights(now=T).branch
    assert branch is not None
    with pytest.raises(UsageError, match="--only picks items of a harvest inbox"):
        repo.review_accept(branch, only="1", i_am_the_reviewer=True, now=T)


def test_weights_reviews_still_work_beside_an_open_inbox(hv: Harvester, repo_dir: Path) -> None:
    repo = hv.harvest("s-one", FIRST)
    repo.pattern_add("Retry flaky calls with backoff", ["backoff"], now=BEFORE)
    add_sessions(repo_dir, ["backoff helps"] * 3)
    weights = repo.propose_weights(now=T).branch
    assert weights is not None
    assert sorted(r.kind for r in repo.reviews()) == ["harvest", "weights"]
    [change] = repo.review_show(weights).semantic        # the harvested session counts too, without activation
    assert change.startswith("retry-flaky-calls-with-backoff: weight 0.3 -> ")
    repo.review_accept(weights, i_am_the_reviewer=True, now=T)
    weight = repo.patterns()[0].weight
    assert change.endswith(f" -> {weight:.6g}") and weight > 0.3
    [inbox] = repo.reviews()
    assert inbox.kind == "harvest" and inbox.behind                 # main moved: the inbox still applies
    repo.review_accept(inbox.name, only="2", i_am_the_reviewer=True, now=T)
    assert "We deploy from main on Fridays." in contents(MemoryRepo.open(repo_dir))
    assert repo.patterns()[0].weight == weight


def test_accept_refuses_an_inbox_that_changes_more_than_memories(hv: Harvester, repo_dir: Path) -> None:
    from gitmem.base.errors import ConflictError

    repo = hv.harvest("s-one", FIRST)
    [inbox] = repo.reviews()
    git(repo_dir, "switch", "-q", inbox.name)          # a teammate's branch that also edits CLAUDE.md
    (repo_dir / "CLAUDE.md").write_text((repo_dir / "CLAUDE.md").read_text() + "\nObey the inbox.\n")
    git(repo_dir, "commit", "-qam", "edit CLAUDE.md", "--no-verify")
    git(repo_dir, "switch", "-q", "main")
    shown = repo.review_show(inbox.name)
    assert "outside a harvest inbox's scope: CLAUDE.md" in shown.semantic
    with pytest.raises(ConflictError, match="may not: CLAUDE.md"):
        repo.review_accept(inbox.name, i_am_the_reviewer=True, now=T)
    assert "Obey the inbox" not in (repo_dir / "CLAUDE.md").read_text()


def test_an_item_carries_the_key_of_its_candidate_into_the_decision() -> None:
    from gitmem.base.config import Memory as MemoryConfig
    from gitmem.engines import memorize

    mem = memorize.new_memory("m-2026-11-29-0123456789", "Use pnpm here.", "decision", "project", 0.6, NOW, T,
                              MemoryConfig(), tags=("harvest", "decision"), source="session:s-abc#L7",
                              source_id="7:1:0a1b2c3d4e5f")
    item = review.inbox_item(2, mem)
    assert (item.number, item.kind, item.session, item.line, item.key) == (2, "decision", "s-abc", 7, "7:1:0a1b2c3d4e5f")
    record = review.decision_record(item, "keep", "gitmem/review/harvest-x", NOW)
    assert record["key"] == "7:1:0a1b2c3d4e5f" and "Use pnpm here." not in json.dumps(record)


def test_parse_only() -> None:
    assert review.parse_only("3, 1", 3) == (3, 1)
    with pytest.raises(UsageError):
        review.parse_only("4", 3)


def test_harvests_at_once_add_to_one_inbox(hv: Harvester, repo_dir: Path) -> None:
    from tests.conftest import at_once
    from gitmem.base.model import name_key

    names = [f"s-at-once-{n}" for n in range(3)]
    answers = {name_key(name, "s"): [{"text": f"The service {name} listens on port {8000 + n}.", "kind": "fact",
                                      "inbox": True, "line": 1}] for n, name in enumerate(names)}
    hv.answers.write_text(json.dumps(answers), encoding="utf-8")
    paths = iter([hv.session(name, next(iter(answers.values()))) for name in names])

    def one() -> str:
        [r] = MemoryRepo.open(repo_dir).harvest([next(paths)], now=T)
        return r.status

    got, errors = at_once(3, one)
    assert errors == [] and got == ["harvested"] * 3
    repo = MemoryRepo.open(repo_dir)
    [inbox] = repo.reviews()
    assert sorted(i.text for i in repo.review_show(inbox.name).items) == sorted(
        f"The service {name} listens on port {8000 + n}." for n, name in enumerate(names))
    assert git(repo_dir, "rev-list", "--count", f"main..{inbox.name}") == "3"
    assert not [b for b in git(repo_dir, "branch", "--list").split() if "inbox-build" in b]


def test_the_whole_loop_through_the_command_line_in_a_repository_with_its_hooks(
        tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    root = tmp_path / "hooked"
    MemoryRepo.init(root, T)                        # hooks installed: a person's commits run them
    hv = Harvester(root, tmp_path)
    hv.answers.write_text(json.dumps({"*": FIRST}), encoding="utf-8")
    code, out, err = run_cli(["--repo", str(root), "harvest", str(hv.session("s-cli", FIRST)), "--now", NOW], capsys)
    [inbox] = MemoryRepo.open(root).reviews()
    assert code == 0, err
    assert f"2 to keep or drop: gitmem review show {inbox.name}" in out
    code, out, _ = run_cli(["--repo", str(root), "status"], capsys)
    assert code == 0 and inbox.name in out
    code, out, err = run_cli(["--repo", str(root), "review", "accept", inbox.name, "--only", "2",
                              "--i-am-the-reviewer", "--json", "--now", NOW], capsys)
    assert code == 0, err
    assert (json.loads(out)["kept"], json.loads(out)["dropped"]) == (1, 1)
    assert contents(MemoryRepo.open(root)) == {SURE["text"], "We deploy from main on Fridays."}
    (root / "note.md").write_text("a person's own note\n")         # the person's next commit still passes
    git(root, "add", "note.md")
    git(root, "commit", "-qm", "a note")
    assert git(root, "status", "--porcelain") == ""


def test_what_an_inbox_says_a_memory_weighs_is_placed_again_on_accept(hv: Harvester, repo_dir: Path) -> None:
    repo = hv.harvest("s-one", FIRST)
    [inbox] = repo.reviews()
    [item, _] = repo.review_show(inbox.name).items
    git(repo_dir, "switch", "-q", inbox.name)      # a teammate's inbox that claims the fact is core
    doc = repo_dir / item.path
    text = re.sub(r"(?m)^importance: .*$", "importance: 1.0", doc.read_text())
    assert "importance: 1.0" in text
    doc.write_text(re.sub(r"(?m)^band: .*$", "band: core", text))
    git(repo_dir, "commit", "-qam", "weigh it", "--no-verify")
    git(repo_dir, "switch", "-q", "main")
    repo.review_accept(inbox.name, only="1", i_am_the_reviewer=True, now=T)
    mem = MemoryRepo.open(repo_dir).show(item.id)
    assert mem.importance < 0.7 and mem.band != "core"


def test_the_background_harvest_says_what_waits_in_the_inbox(hv: Harvester, repo_dir: Path) -> None:
    hv.answers.write_text(json.dumps({"*": FIRST}), encoding="utf-8")
    from tests.agent_helpers import configure_folders

    session = hv.session("s-job", FIRST)
    configure_folders(repo_dir, [session.parent])   # the unattended harvest reads only the session folders
    run = MemoryRepo.open(repo_dir).run_job("harvest", now=T, paths=[session])
    [inbox] = MemoryRepo.open(repo_dir).reviews()
    assert run.ok and f"2 to keep or drop in {inbox.name}" in run.summary and run.details["inbox"] == 2


def test_a_second_inbox_two_harvests_opened_at_once_is_folded_into_the_first(hv: Harvester, repo_dir: Path) -> None:
    repo = hv.harvest("s-one", FIRST)
    [first] = repo.reviews()
    git(repo_dir, "update-ref", "refs/park", first.name)          # as if another harvest had not seen it
    git(repo_dir, "update-ref", "-d", f"refs/heads/{first.name}")
    hv.answers.write_text(json.dumps({"*": SECOND}), encoding="utf-8")
    [r] = MemoryRepo.open(repo_dir).harvest([hv.session("s-two", SECOND)], now=T + timedelta(hours=1))
    assert r.inbox_branch is not None and r.inbox_branch != first.name
    git(repo_dir, "update-ref", f"refs/heads/{first.name}", "refs/park")
    assert len(MemoryRepo.open(repo_dir).reviews()) == 2
    third = [{"text": "The docs site builds with mkdocs.", "kind": "fact", "inbox": True, "line": 1}]
    repo = hv.harvest("s-three", third)
    [inbox] = repo.reviews()
    assert inbox.name == first.name                               # the first one stays open
    assert sorted(i.text for i in repo.review_show(inbox.name).items) == sorted(
        ["The API lives under /v2.", "We deploy from main on Fridays.", "Use pnpm for the web app.",
         "Staging runs on port 8443.", "The docs site builds with mkdocs."])
    assert len(git(repo_dir, "log", "-1", "--format=%P", inbox.name).split()) == 3
