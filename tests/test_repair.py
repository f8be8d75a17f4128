"""``gitmem repair`` outside a merge: a memory document committed with a text merge's conflict markers is
merged field by field from the sides its markers hold, in one commit; what it cannot merge is left for a
person, and a path that needs no repair is neither merged nor reported as a conflict."""

from __future__ import annotations

import subprocess
from pathlib import Path

import pytest

from gitmem.api import MemoryRepo
from gitmem.api.doctor import sides
from gitmem.base.clock import parse_time
from gitmem.base.errors import UsageError
from tests.conftest import NOW, head_of, run_cli

T = parse_time(NOW)


def committed(root: Path, path: str, text: str) -> None:
    """``text`` at ``path``, committed by a person with plain git (no hooks in these repositories)."""
    (root / path).write_text(text, encoding="utf-8")
    subprocess.run(["git", "add", "--", path], cwd=root, check=True, capture_output=True)
    subprocess.run(["git", "commit", "-q", "-m", "a text merge taken as it was"], cwd=root, check=True,
                   capture_output=True)


def remembered(repo: MemoryRepo, text: str = "The staging database is rebuilt every night") -> tuple[str, str]:
    """A memory's path and its committed text."""
    done = repo.remember(text, now=T)
    path = done.memory.path
    return path, (repo.root / path).read_text(encoding="utf-8")


def marked(text: str, ours: str, theirs: str, base: str | None = None) -> str:
    """``text`` with its line ``ours`` replaced by git's conflict block of ``ours`` and ``theirs``."""
    middle = f"||||||| base\n{base}\n" if base is not None else ""
    assert ours + "\n" in text, ours
    return text.replace(ours + "\n", f"<<<<<<< HEAD\n{ours}\n{middle}=======\n{theirs}\n>>>>>>> origin/main\n", 1)


def test_a_document_committed_with_markers_is_merged_field_by_field_in_one_commit(repo: MemoryRepo) -> None:
    path, text = remembered(repo)
    committed(repo.root, path, marked(text, "reinforced: 0", "reinforced: 2", base="reinforced: 0"))
    before = head_of(repo)
    done = repo.repair()
    assert done.paths == (path,) and done.left == () and done.commit is not None
    fixed = (repo.root / path).read_text(encoding="utf-8")
    assert "<<<<<<<" not in fixed and "=======" not in fixed and "reinforced: 2" in fixed
    parents = subprocess.run(["git", "rev-list", "--parents", "-n", "1", done.commit], cwd=repo.root,
                             capture_output=True, text=True, check=True).stdout.split()
    assert parents[1:] == [before]                                     # one commit on the marked one
    assert MemoryRepo.open(repo.root).show(repo.list().memories[0].id).reinforced == 2


def test_a_repaired_document_is_found_no_more(repo: MemoryRepo, capsys: pytest.CaptureFixture[str]) -> None:
    path, text = remembered(repo)
    committed(repo.root, path, marked(text, "source: user", "source: import", base="source: user")
              .replace("HEAD\nsource: user", "HEAD\nsource: agent"))
    code, out, err = run_cli(["--repo", str(repo.root), "repair"], capsys)
    assert code == 0 and f"merged {path}" in out and "committed " in out and err == ""
    assert "settled by rule:" in out and "'source'" in out          # both sides changed it: the rule chose
    code, out, _ = run_cli(["--repo", str(repo.root), "repair"], capsys)
    assert code == 0 and out == "no memory document needs repair\n"


def test_a_clean_document_named_is_neither_merged_nor_left(repo: MemoryRepo,
                                                           capsys: pytest.CaptureFixture[str]) -> None:
    path, text = remembered(repo)
    before = head_of(repo)
    done = repo.repair([path])
    assert (done.paths, done.left, done.commit) == ((), (), None)
    code, out, err = run_cli(["--repo", str(repo.root), "repair", path], capsys)
    assert code == 0 and out == "no memory document needs repair\n" and "staged" not in out + err
    assert head_of(repo) == before and (repo.root / path).read_text(encoding="utf-8") == text


def test_a_path_that_is_not_there_is_a_usage_error_not_a_conflict(repo: MemoryRepo,
                                                                  capsys: pytest.CaptureFixture[str]) -> None:
    with pytest.raises(UsageError, match="no such document in the work tree") as info:
        repo.repair(["memory/world/ab/m-nothing-here.md"])
    assert info.value.hint is not None and "gitmem repair" in info.value.hint
    code, out, err = run_cli(["--repo", str(repo.root), "repair", "memory/world/ab/m-nothing-here.md"], capsys)
    assert code == 1 and out == "" and "no such document" in err and "both sides" not in err


@pytest.mark.parametrize("path", ["gitmem.yaml", "CLAUDE.md", "../outside.md", "/etc/passwd", "--x"])
def test_only_memory_documents_are_repaired(repo: MemoryRepo, path: str) -> None:
    with pytest.raises(UsageError, match="is not a memory document"):
        repo.repair([path])


def test_markers_cut_short_are_left_for_a_person_untouched(repo: MemoryRepo,
                                                           capsys: pytest.CaptureFixture[str]) -> None:
    path, text = remembered(repo)
    broken = text.replace("reinforced: 0\n", "<<<<<<< HEAD\nreinforced: 0\n")   # no ======= and no >>>>>>>
    committed(repo.root, path, broken)
    before = head_of(repo)
    assert repo.repair().left == (path,)
    code, _, err = run_cli(["--repo", str(repo.root), "repair"], capsys)
    assert code == 1 and f"left for a person: {path}" in err
    assert head_of(repo) == before and (repo.root / path).read_text(encoding="utf-8") == broken


def test_a_text_changed_on_both_sides_is_left_and_the_rest_is_merged(repo: MemoryRepo) -> None:
    one, one_text = remembered(repo, "The staging database is rebuilt every night")
    two, two_text = remembered(repo, "Release branches are cut on Thursdays after the freeze")
    committed(repo.root, one, marked(one_text, "reinforced: 0", "reinforced: 1", base="reinforced: 0"))
    body = two_text.rstrip("\n").rsplit("\n", 1)[1]
    committed(repo.root, two, marked(two_text, body, "Release branches are cut on Fridays", base=body + " now"))
    done = repo.repair()
    assert done.paths == (one,) and done.left == (two,) and done.commit is not None
    assert "<<<<<<<" in (repo.root / two).read_text(encoding="utf-8")
    assert "<<<<<<<" not in (repo.root / one).read_text(encoding="utf-8")


def test_a_document_that_is_not_utf8_is_left_for_a_person(repo: MemoryRepo) -> None:
    path, text = remembered(repo)
    (repo.root / path).write_bytes(marked(text, "reinforced: 0", "reinforced: 3").encode("utf-8") + b"\xff\xfe\n")
    subprocess.run(["git", "commit", "-qam", "binary junk"], cwd=repo.root, check=True, capture_output=True)
    assert repo.repair([path]).left == (path,)


@pytest.mark.parametrize("text, expected", [
    ("a\n<<<<<<< ours\nb\n=======\nc\n>>>>>>> theirs\nd\n", (None, "a\nb\nd\n", "a\nc\nd\n")),
    ("a\n<<<<<<< ours\nb\n||||||| base\nx\n=======\nc\n>>>>>>> theirs\nd\n", ("a\nx\nd\n", "a\nb\nd\n", "a\nc\nd\n")),
    ("<<<<<<<\nb\n=======\n>>>>>>>\n", (None, "b\n", "")),                   # bare markers, one side empty
    ("a\r\n<<<<<<< ours\r\nb\r\n=======\r\nc\r\n>>>>>>> t\r\n", (None, "a\r\nb\r\n", "a\r\nc\r\n")),
    ("1\n<<<<<<< o\n2\n=======\n3\n>>>>>>> t\n4\n<<<<<<< o\n5\n=======\n6\n>>>>>>> t\n",
     (None, "1\n2\n4\n5\n", "1\n3\n4\n6\n")),                                # two blocks
    ("no markers\nat all\n", (None, "no markers\nat all\n", "no markers\nat all\n")),
    ("a\n=======\nb\n", (None, "a\n=======\nb\n", "a\n=======\nb\n")),       # a rule line outside a block stays
])
def test_the_sides_of_a_marked_text(text: str, expected: tuple[str | None, str, str]) -> None:
    assert sides(text) == expected


# --- the merge driver's command (git runs ``gitmem merge-driver %O %A %B %P``) ----------------------------

def driver_files(tmp_path: Path, base: str, ours: str, theirs: str) -> list[str]:
    names = []
    for name, text in (("base", base), ("ours", ours), ("theirs", theirs)):
        (tmp_path / name).write_text(text, encoding="utf-8")
        names.append(str(tmp_path / name))
    return names


def test_the_driver_writes_the_field_merge_over_ours(repo: MemoryRepo, tmp_path: Path,
                                                     capsys: pytest.CaptureFixture[str],
                                                     monkeypatch: pytest.MonkeyPatch) -> None:
    path, text = remembered(repo)
    files = driver_files(tmp_path, text, text.replace("reinforced: 0", "reinforced: 1"),
                         text.replace("reinforced: 0", "reinforced: 2"))
    monkeypatch.chdir(repo.root)                                       # git runs the driver in the clone
    code, out, err = run_cli(["merge-driver", *files, path], capsys)
    assert (code, out, err) == (0, "", "")
    merged = Path(files[1]).read_text(encoding="utf-8")
    assert "reinforced: 3" in merged and merged.replace("reinforced: 3", "reinforced: 0") == text


def test_the_driver_exits_1_with_markers_when_both_sides_changed_the_text(repo: MemoryRepo, tmp_path: Path,
                                                                         capsys: pytest.CaptureFixture[str],
                                                                         monkeypatch: pytest.MonkeyPatch) -> None:
    path, text = remembered(repo)
    body = "The staging database is rebuilt every night"
    files = driver_files(tmp_path, text, text.replace(body, body + " at two"), text.replace(body, body + " at four"))
    monkeypatch.chdir(repo.root)
    code, out, err = run_cli(["merge-driver", *files, path], capsys)
    assert code == 1 and out == "" and f"gitmem merge: {path}: the text changed differently" in err
    merged = Path(files[1]).read_text(encoding="utf-8")
    assert "<<<<<<<" in merged and "at two" in merged and "at four" in merged


def test_the_driver_merges_a_side_that_does_not_parse_as_text_and_says_so(repo: MemoryRepo, tmp_path: Path,
                                                                        capsys: pytest.CaptureFixture[str],
                                                                        monkeypatch: pytest.MonkeyPatch) -> None:
    path, text = remembered(repo)
    broken = "---\nid: [unclosed\n---\nbody\n"
    files = driver_files(tmp_path, text, broken, text)
    monkeypatch.chdir(repo.root)
    code, _, err = run_cli(["merge-driver", *files, path], capsys)
    assert code == 0 and "merged as text" in err and Path(files[1]).read_text(encoding="utf-8") == broken
    files = driver_files(tmp_path, text, broken, text.replace("reinforced: 0", "reinforced: 5"))
    code, _, err = run_cli(["merge-driver", *files, path], capsys)
    assert code == 1 and "merged as text" in err and "<<<<<<<" in Path(files[1]).read_text(encoding="utf-8")
