"""store: what a tree holds, read from real commits."""

from __future__ import annotations

import subprocess
from pathlib import Path

import pytest

from gitmem.api import MemoryRepo
from gitmem.base import clock
from gitmem.base.errors import NotFoundError, ValidationError
from gitmem.base.model import Memory, legacy_path, memory_path
from gitmem.store import documents, store
from tests.conftest import NOW

T = clock.parse_time(NOW)


def commit(repo_dir: Path, files: dict[str, str], message: str = "a person's edit") -> str:
    for path, text in files.items():
        (repo_dir / path).parent.mkdir(parents=True, exist_ok=True)
        (repo_dir / path).write_text(text)
    subprocess.run(["git", "add", "-A"], cwd=repo_dir, check=True)
    subprocess.run(["git", "commit", "-qm", message], cwd=repo_dir, check=True)
    return subprocess.run(["git", "rev-parse", "HEAD"], cwd=repo_dir, capture_output=True, text=True,
                          check=True).stdout.strip()


def memory_text(mid: str, created: str = "2026-11-29T12:00:00Z", body: str = "body") -> str:
    return documents.render_memory(Memory(id=mid, content=body, created=created, last_accessed=created))


def test_locate_finds_canonical_legacy_archived_and_hand_filed_paths(repo: MemoryRepo, repo_dir: Path) -> None:
    rev = commit(repo_dir, {
        memory_path("user", "m-canon"): memory_text("m-canon"),
        legacy_path("world", "m-legacy"): memory_text("m-legacy"),
        memory_path("project", "m-old", archived=True): memory_text("m-old"),
        "memory/my-notes/deep/m-hand.md": memory_text("m-hand"),
    })
    assert store.locate(repo.git, rev, "m-canon") == memory_path("user", "m-canon")
    assert store.locate(repo.git, rev, "m-legacy") == legacy_path("world", "m-legacy")
    assert store.locate(repo.git, rev, "m-old") == memory_path("project", "m-old", archived=True)
    assert store.locate(repo.git, rev, "m-old", include_archive=False) is None
    assert store.locate(repo.git, rev, "m-hand") == "memory/my-notes/deep/m-hand.md"
    assert store.locate(repo.git, rev, "m-hand", anywhere=False) is None
    assert store.locate(repo.git, rev, "m-none") is None
    assert store.locate(repo.git, None, "m-canon") is None


def test_locate_refuses_an_id_that_could_leave_the_folder(repo: MemoryRepo) -> None:
    with pytest.raises(ValidationError):
        store.locate(repo.git, repo.head, "../../etc/passwd")


def test_load_reads_the_memory_or_says_how_to_find_ids(repo: MemoryRepo, repo_dir: Path) -> None:
    rev = commit(repo_dir, {memory_path("user", "m-1"): memory_text("m-1", body="the body")})
    assert store.load(repo.git, rev, "m-1").content == "the body"
    with pytest.raises(NotFoundError) as info:
        store.load(repo.git, rev, "m-2")
    assert "gitmem list" in (info.value.hint or "")
    with pytest.raises(NotFoundError):
        store.load(repo.git, None, "m-1")


def test_listing_sorts_by_creation_and_reports_unreadable_files(repo: MemoryRepo, repo_dir: Path) -> None:
    rev = commit(repo_dir, {
        memory_path("user", "m-late"): memory_text("m-late", "2026-11-30T00:00:00Z"),
        memory_path("user", "m-early"): memory_text("m-early", "2026-11-01T00:00:00Z"),
        memory_path("user", "m-bad"): "---\nid: [unclosed\n---\nx\n",
        memory_path("user", "m-gone", archived=True): memory_text("m-gone"),
        "memory/user/README.txt": "not a memory",
    })
    found = store.listing(repo.git, rev)
    assert [m.id for m in found.memories] == ["m-early", "m-late"]
    assert len(found.problems) == 1 and "m-bad.md:2" in found.problems[0]
    with_archive = store.listing(repo.git, rev, include_archive=True)
    assert [m.id for m in with_archive.memories] == ["m-early", "m-gone", "m-late"]
    assert store.listing(repo.git, None) == store.Listing((), ())


def test_iter_files_yields_markdown_files_only(repo: MemoryRepo, repo_dir: Path) -> None:
    rev = commit(repo_dir, {memory_path("self", "m-1"): memory_text("m-1"), "memory/self/notes.txt": "x",
                            memory_path("self", "m-2", archived=True): memory_text("m-2")})
    live = dict(store.iter_files(repo.git, rev))
    assert list(live) == [memory_path("self", "m-1")]
    assert live[memory_path("self", "m-1")] == memory_text("m-1").encode()
    assert len(dict(store.iter_files(repo.git, rev, include_archive=True))) == 2
    assert list(store.iter_files(repo.git, None)) == []


def test_rewrite_keeps_a_persons_comments_and_changes_only_what_differs(repo: MemoryRepo, repo_dir: Path) -> None:
    path = memory_path("user", "m-1")
    text = "---\n# my words\nid: m-1\nimportance: 0.5  # why\ncreated: 2026-11-29T12:00:00Z\n---\nbody\n"
    rev = commit(repo_dir, {path: text})
    old = store.load(repo.git, rev, "m-1")
    data = store.rewrite(repo.git, rev, old, old.with_(importance=0.75))
    out = data.decode()
    assert "# my words" in out and "# why" in out and "importance: 0.75" in out and out.endswith("---\nbody\n")
    with_body = store.rewrite(repo.git, rev, old, old.with_(content="new body"), text.encode()).decode()
    assert with_body.endswith("---\nnew body\n") and "# my words" in with_body


def test_render_is_the_document_bytes(repo: MemoryRepo) -> None:
    m = Memory(id="m-1", content="x", created=NOW, last_accessed=NOW, path=memory_path("user", "m-1"))
    assert store.render(m) == documents.render_memory(m).encode()


def test_written_memories_are_found_where_the_write_path_put_them(repo: MemoryRepo) -> None:
    r = repo.remember("the staging database runs on port 5432", now=T)
    assert store.locate(repo.git, repo.head, r.id) == r.memory.path
    assert store.load(repo.git, repo.head, r.id) == r.memory


def test_all_patterns_strongest_first_skipping_unreadable_and_nested(repo: MemoryRepo, repo_dir: Path) -> None:
    weak = documents.Pattern("weak", "Weak", 0.2, "episodic", (), ("a",), ("m-1",), 1, NOW, NOW, "patterns/weak.md")
    strong = documents.Pattern("strong", "Strong", 0.9, "semantic", (), ("b",), ("m-2",), 3, NOW, NOW,
                               "patterns/strong.md")
    rev = commit(repo_dir, {
        weak.path: documents.render_pattern(weak).decode(), strong.path: documents.render_pattern(strong).decode(),
        "patterns/broken.md": "---\nweight: [\n---\n", "patterns/sub/nested.md": "---\ntitle: N\n---\n",
        "patterns/readme.txt": "not a pattern",
    })
    found = store.all_patterns(repo.git, rev)
    assert [p.slug for p in found] == ["strong", "weak"]
    assert found[0] == strong
    assert store.all_patterns(repo.git, None) == []


# --- a bad file is reported and skipped by every reader (issue 9 item 4) ---------

BAD_FILES = {
    "inf": "importance: .inf",
    "digits": "reinforced: 1" + "0" * 5000,
    "year9999": "last_accessed: 9999-12-31T23:59:59Z",
    "offset": "created: 0001-01-01T00:10:00+02:00",
    "deep": "tags: " + "[" * 3000 + "]" * 3000,
    "slash-id": "id: ../../outside",
}
READERS = (["list"], ["list", "--archived", "--json"], ["recall", "staging"], ["recall", "staging", "--all"],
           ["remember", "the staging database moved to port 6543"], ["decay"], ["reflect"], ["sync-core"],
           ["index", "rebuild"], ["load-core"], ["export"], ["graph", "--json"])


@pytest.mark.parametrize("kind", sorted(BAD_FILES))
def test_every_reader_reports_and_skips_a_bad_file(repo: MemoryRepo, repo_dir: Path, kind: str,
                                                   capsys: pytest.CaptureFixture[str]) -> None:
    from tests.conftest import run_cli

    good = repo.remember("the staging database listens on port 5432", now=T).id
    bad_path = memory_path("project", f"m-bad-{kind}")
    line = BAD_FILES[kind]
    head = "" if line.startswith("id:") else f"id: m-bad-{kind}\n"
    commit(repo_dir, {bad_path: f"---\n{head}type: fact\ndomain: project\n{line}\n---\nstaging bad file\n"})
    for args in READERS:
        for derived in (repo_dir / ".git").rglob("*.sqlite*"):   # each reader reads the files itself
            derived.unlink()
        code, out, err = run_cli(["--repo", str(repo_dir), "--now", NOW, *args], capsys)
        assert code == 0, (args, err)
        assert f"warning: skipped unreadable file {bad_path}" in err, (args, err)
        assert err.count(bad_path) == 1, (args, err)   # once a run, however many readers met it
        assert "Traceback" not in err
    code, out, err = run_cli(["--repo", str(repo_dir), "--now", NOW, "show", good], capsys)
    assert code == 0 and "port 5432" in out
    code, out, err = run_cli(["--repo", str(repo_dir), "--now", NOW, "consolidate"], capsys)   # reads history only
    assert code == 0, err
    code, out, err = run_cli(["--repo", str(repo_dir), "--now", NOW, "list"], capsys)
    assert good in out
