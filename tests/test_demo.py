"""Tests for gitmem.faces.demo: `gitmem demo` builds a real repository from the built-in sample and narrates."""

from __future__ import annotations

import re
import subprocess
import tempfile
from pathlib import Path

import pytest

from gitmem.api import MemoryRepo
from gitmem.base.errors import GitmemError
from gitmem.base.model import name_key
from gitmem.api.initrepo import template_dir
from gitmem.faces import demo
from tests.conftest import NOW, run_cli

SAMPLE = template_dir() / "demo"
SECRET = "q8Rk2VtY7pLm3Zx9Wc4Nb6Hs1Jd5Fg0AeTu2Io8P"   # the fabricated key planted in the sample session
SECTIONS = ["1. init", "2. import", "3. remember", "4. recall", "5. harvest", "6. link and why",
            "7. reflect and sync-core", "8. decay", "9. the review loop", "10. sedimentation",
            "11. git is the audit log", "12. dashboard", "13. no silent mass change", "14. wire it into your agent",
            "next"]


def git(root: Path, *args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(["git", *args], cwd=root, capture_output=True, text=True)


@pytest.fixture
def built(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> tuple[Path, list[str]]:
    """The demo built once in a temporary folder at the fixed clock, with what it said."""
    monkeypatch.setenv("GITMEM_NOW", NOW)
    said: list[str] = []
    root = tmp_path / "demo"
    assert demo.run(str(root), said.append) == 0
    return root, said


def test_the_sample_is_shipped_and_not_empty() -> None:
    for name in ("memories.jsonl", "session-billing.jsonl", "session-with-secret.jsonl"):
        lines = (SAMPLE / name).read_text(encoding="utf-8").splitlines()
        assert lines, name
    assert SECRET in (SAMPLE / "session-with-secret.jsonl").read_text(encoding="utf-8")


def test_demo_narrates_every_section_in_order(built: tuple[Path, list[str]]) -> None:
    _, said = built
    headings = [line for line in said if line.startswith("== ")]
    assert [h[3:].split(":")[0].rstrip(" =") for h in headings] == SECTIONS
    for h in headings:
        assert len(h) >= 63 or h.endswith("=")
    assert said.count("") == len(SECTIONS)   # a blank line before each section


def test_demo_shows_the_review_loop(built: tuple[Path, list[str]]) -> None:
    root, said = built
    text = "\n".join(said)
    assert re.search(r"weights \(dry run\): retry-flaky-network-calls-with-exponential: 0\.30 -> 0\.38 over 3 sessions", text)
    assert re.search(r"weights --propose: one commit on gitmem/review/weights-\d{8}T\d{6}Z", text)
    assert re.search(r"review accept: merge commit [0-9a-f]{12} with Gitmem-Approved-By", text)
    assert re.search(r"snapshot: gitmem/snapshot/\d{4}-\d{2} on [0-9a-f]{12}", text)
    assert re.search(r"rollback gitmem/snapshot/\d{4}-\d{2}: a new commit [0-9a-f]{12}", text)
    tags = git(root, "tag", "-l", "gitmem/snapshot/*").stdout.split()
    rolled = git(root, "log", "-1", "--format=%H", "--grep", "^gitmem: rollback to").stdout.strip()   # sedimentation follows it
    assert tags and git(root, "rev-parse", f"{rolled}^{{tree}}").stdout == git(root, "rev-parse", f"{tags[-1]}^{{tree}}").stdout


def test_demo_shows_a_reflection_becoming_a_promoted_rule(built: tuple[Path, list[str]]) -> None:
    root, said = built
    text = "\n".join(said)
    assert re.search(r"sediment reflect: written r-[0-9a-f]{10} in bank/reflections.md", text)
    assert re.search(r"sediment promote: priority 4 x 2 \(error_fix\) \+ 1 like\(s\) x 10 \+ 0 \(repeat failure\) = 18 "
                     r">= threshold 15: review gitmem/review/sediment-r-[0-9a-f]{10}", text)
    assert "review accept: the rule is in bank/TABOOS.md" in text
    assert "- Rule: stream large exports; never load every row at once" in (root / "bank" / "TABOOS.md").read_text()


def test_demo_shows_a_mass_archive_going_to_review(built: tuple[Path, list[str]]) -> None:
    root, said = built
    text = "\n".join(said)
    assert "import warns: 160 short-term memories, over max_short_term (100); the next decay would archive 60" in text
    found = re.search(r"nothing archived on main; the review (gitmem/review/archive-\d{8}T\d{6}Z) lists", text)
    assert found and "decay: 60 archives at once is more than 50" in text
    bulk = next(root.parent.glob("demo-bulk-*")) / "memory"
    assert git(bulk, "rev-parse", "--verify", "-q", found.group(1)).returncode == 0
    assert git(bulk, "ls-tree", "-r", "--name-only", "HEAD", "archive").stdout.count(".md") == 0


def test_demo_says_what_each_step_shows(built: tuple[Path, list[str]]) -> None:
    root, said = built
    text = "\n".join(said)
    assert f"created memory repository {root}" in text
    assert "pre-commit hooks installed: " in text
    assert re.search(r"^12 memories created in commit [0-9a-f]{12}$", text, re.M)
    assert "memories.jsonl:13: skipped: not valid JSON" in text and "memories.jsonl:14: skipped: no 'content' text" in text
    assert re.search(r"^reinforced demo-1 ", text, re.M)
    assert re.search(r'^created +m-\S+ .*port 5433\."$', text, re.M)          # the near miss stays apart
    assert "(PII replaced: email)" in text and "sam@billing-corp.io" not in text
    assert re.search(r"^harvested: episodes/\S+\.md \(\d+ new memories, \d+ reinforced\)$", text, re.M)
    assert "harvested again: unchanged (no new commit)" in text
    assert re.search(r"^rejected: session-with-secret.jsonl: secret in session .*nothing written; findings: "
                     r"f\w{10}: .*`gitmem pii show f\w{10}", text, re.M)
    assert "linked demo-8 -related-> demo-5" in text and f"demo-8: source import:{name_key('memories.jsonl', 'f')}#L8" in text
    assert re.search(r"^reflect: \d+ patterns from \d+ memories", text, re.M)
    assert "# Core memories (gitmem)" in text
    assert re.search(r"^decay as of 2027-01-28: \d+ changes, \d+ archived in commit [0-9a-f]{12}$", text, re.M)
    assert said[-10:] == [f"cd {root}", "  gitmem list", "  gitmem recall --all 'export timeout'", "  gitmem why demo-8",
                          "  gitmem consolidate", "  gitmem status", "  gitmem sediment status", "  gitmem log --events",
                          "  git log --graph --oneline -8", "  cat CLAUDE.md"]


def test_demo_writes_the_dashboard_beside_the_repository_and_names_the_wiring(built: tuple[Path, list[str]]) -> None:
    root, said = built
    page = root.parent / f"{root.name}-dashboard.html"
    assert f"wrote {page} (open it in a browser; `gitmem dashboard --open` does)" in said
    html = page.read_text(encoding="utf-8")
    assert html.startswith("<!DOCTYPE html>") and "retry-flaky-network-calls-with-exponential" in html
    assert "http://" not in html.replace("http://www.w3.org/2000/svg", "") and "https://" not in html
    assert git(root, "status", "--porcelain").stdout == ""          # nothing written inside the work tree
    assert f"  gitmem install claude-code --repo {root}" in said


def test_demo_never_shows_or_stores_the_planted_secret(built: tuple[Path, list[str]]) -> None:
    root, said = built
    assert not any(SECRET in line for line in said)
    history = git(root, "log", "-p", "--all").stdout
    assert history and SECRET not in history
    assert not any(SECRET in p.read_text(errors="replace") for p in root.rglob("*.md"))


def test_demo_leaves_a_valid_clean_repository(built: tuple[Path, list[str]], capsys: pytest.CaptureFixture[str]) -> None:
    root, _ = built
    fsck = git(root, "fsck", "--full", "--strict")
    assert fsck.returncode == 0 and "error" not in fsck.stderr.lower(), fsck.stderr
    assert git(root, "status", "--porcelain").stdout == ""
    for what in ("config", "pii", "layers"):
        assert run_cli(["--repo", str(root), "check", what], capsys)[0] == 0, what
    repo = MemoryRepo.open(root)
    listing = repo.list(include_archive=True)
    assert not listing.problems
    ids = {m.id for m in listing.memories}
    assert {"demo-1", "demo-5", "demo-8"} <= ids
    assert any(p.suffix == ".md" for p in (root / "patterns").iterdir())
    assert (root / "HIPPOCAMPUS_CORE.md").is_file()


def test_demo_makes_one_commit_per_change(built: tuple[Path, list[str]]) -> None:
    root, said = built
    subjects = git(root, "log", "--format=%s").stdout.splitlines()
    assert subjects[-1] == "gitmem: init memory repository"
    assert subjects[-2] == f"gitmem: import 12 memories from {name_key('memories.jsonl', 'f')}"
    assert subjects[0].startswith("gitmem: accept review gitmem/review/sediment-")   # the last step: a person's accept
    assert any(s.startswith("gitmem: rollback to gitmem/snapshot/") for s in subjects)
    assert any(s.startswith("gitmem: decay as of 2027-01-28") for s in subjects)
    assert all(s.startswith("gitmem: ") for s in subjects)
    # the sample session once (again: no commit; secret: none), then the review loop's three
    assert sum(s.startswith("gitmem: harvest session") for s in subjects) == 4
    audit = said[said.index(next(h for h in said if h.startswith("== 11."))) + 1].splitlines()
    assert [line.split(" ", 1)[1] for line in audit] == subjects   # the log the demo shows is the whole log


def test_demo_refuses_a_folder_that_is_already_a_repository(built: tuple[Path, list[str]]) -> None:
    root, _ = built
    head = git(root, "rev-parse", "HEAD").stdout
    said: list[str] = []
    assert demo.run(str(root), said.append) == 1
    assert said[-1].endswith("(pick an empty folder to run the demo again)")
    assert git(root, "rev-parse", "HEAD").stdout == head


def test_demo_in_a_folder_that_is_not_empty_is_an_error(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    busy = tmp_path / "busy"
    busy.mkdir()
    (busy / "notes.txt").write_text("mine")
    with pytest.raises(GitmemError, match="not empty"):
        demo.run(str(busy), lambda line: None)
    code, _, err = run_cli(["demo", str(busy)], capsys)
    assert code == 1 and "gitmem: error:" in err and (busy / "notes.txt").read_text() == "mine"


def test_demo_without_a_folder_builds_in_a_new_temporary_one(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("GITMEM_NOW", NOW)
    monkeypatch.setattr(tempfile, "tempdir", str(tmp_path))
    said: list[str] = []
    assert demo.run(None, said.append) == 0
    (made,) = [p for p in tmp_path.iterdir() if p.name.startswith("gitmem-demo-")]
    assert (made / "memory" / "gitmem.yaml").is_file()
    assert f"cd {made / 'memory'}" in said


def test_demo_verb_prints_the_narration(tmp_path: Path, capsys: pytest.CaptureFixture[str],
                                        monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("GITMEM_NOW", NOW)
    code, out, _ = run_cli(["demo", str(tmp_path / "d")], capsys)
    assert code == 0 and out.startswith("\n== 1. init: ")
    assert out.rstrip("\n").endswith("cat CLAUDE.md")
