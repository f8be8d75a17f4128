"""The harvest corpus: its manifest and labels keep their format, and its scripts rebuild and dump real git blobs."""

from __future__ import annotations

import hashlib
import json
import os
import re
import subprocess
import sys
from collections import Counter, defaultdict
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
CORPUS = ROOT / "bench" / "harvest-corpus"
FIXTURE = ROOT / "tests" / "fixtures" / "sessions" / "claude-code" / "v2_session.jsonl"
KEY = re.compile(r"^\d+:\d+:[0-9a-f]{12}$")


def rows(path: Path) -> list[dict[str, object]]:
    return [json.loads(line) for line in path.read_text(encoding="utf-8").splitlines() if line.strip()]


def run(script: str, *args: str, cwd: Path) -> subprocess.CompletedProcess[str]:
    return subprocess.run([sys.executable, str(CORPUS / script), *args], cwd=cwd, capture_output=True, text=True,
                          env={**os.environ, "PYTHONPATH": os.pathsep.join(filter(None, [str(ROOT), os.environ.get("PYTHONPATH")]))})


def git(repo: Path, *args: str) -> str:
    return subprocess.run(["git", "-C", str(repo), *args], capture_output=True, text=True, check=True).stdout.strip()


def test_manifest_spans_repositories_formats_and_languages_and_splits_by_repository() -> None:
    entries = rows(CORPUS / "manifest.jsonl")
    assert len(entries) >= 200
    per_repo = Counter(str(e["repo"]) for e in entries)
    assert len(per_repo) >= 30 and max(per_repo.values()) <= 15
    assert {e["format"] for e in entries} == {"claude-code", "openclaw"}
    assert len({e["language"] for e in entries}) >= 3
    splits: dict[str, set[object]] = defaultdict(set)
    for e in entries:
        assert e["id"] == hashlib.sha1(f"{e['repo']}:{e['path']}".encode()).hexdigest()[:12]
        assert re.fullmatch(r"[0-9a-f]{40}", str(e["commit"])) and re.fullmatch(r"[0-9a-f]{40}", str(e["blob"]))
        assert e["split"] in ("train", "fresh", "holdout")
        splits[str(e["repo"])].add(e["split"])
    assert all(len(s) == 1 for s in splits.values()), "a repository's sessions are all in one split"
    held = sum(1 for s in splits.values() if s == {"holdout"})
    assert held == round(len(splits) * 0.2)
    assert sum(1 for s in splits.values() if s == {"fresh"}) == 6   # a second hold-out, drawn from the training repositories
    assert len({e["id"] for e in entries}) == len(entries)


def test_labels_name_manifest_sessions_by_key_and_hold_no_text() -> None:
    ids = {e["id"] for e in rows(CORPUS / "manifest.jsonl")}
    labels = rows(CORPUS / "labels.jsonl")
    assert labels
    for lab in labels:
        assert set(lab) <= {"session", "key", "label", "kind", "labeller"}
        assert lab["session"] in ids and KEY.match(str(lab["key"]))
        assert lab["labeller"] in ("a", "b", "c")
        if lab["label"] == "keep":
            assert lab["kind"] in ("preference", "decision", "fact", "lesson", "remember")
        else:
            assert lab["label"] == "drop" and "kind" not in lab
    assert len({(lab["session"], lab["key"], lab["labeller"]) for lab in labels}) == len(labels)


@pytest.fixture
def mirrors(tmp_path: Path) -> tuple[Path, str, str]:
    """A folder of clones holding one repository ``alice/notes`` with one committed session; its commit and blob."""
    repo = tmp_path / "mirrors" / "alice+notes"
    (repo / "projects" / "p").mkdir(parents=True)
    (repo / "projects" / "p" / "s.jsonl").write_bytes(FIXTURE.read_bytes())
    git(repo, "init", "-q")
    git(repo, "add", ".")
    git(repo, "-c", "user.name=t", "-c", "user.email=t@example.invalid", "commit", "-qm", "session")
    return tmp_path / "mirrors", git(repo, "rev-parse", "HEAD"), git(repo, "rev-parse", "HEAD:projects/p/s.jsonl")


def manifest(path: Path, *entries: tuple[str, str, str, str]) -> Path:
    lines = [json.dumps({"id": hashlib.sha1(f"{r}:{p}".encode()).hexdigest()[:12], "repo": r, "path": p, "commit": c,
                         "blob": b, "format": "claude-code", "language": "en", "split": "train"}) for r, p, c, b in entries]
    path.write_text("\n".join(lines) + "\n", encoding="utf-8")
    return path


def test_rebuild_writes_each_blob_and_reports_the_missing_and_the_mismatched(tmp_path: Path,
                                                                              mirrors: tuple[Path, str, str]) -> None:
    folder, commit, blob = mirrors
    path = "projects/p/s.jsonl"
    m = manifest(tmp_path / "m.jsonl", ("alice/notes", path, commit, blob), ("alice/notes", path, commit, "0" * 40),
                 ("bob/gone", path, commit, blob))
    out = tmp_path / "out"
    done = run("rebuild.py", str(out), "--mirrors", str(folder), "--manifest", str(m), cwd=tmp_path)
    assert done.returncode == 1, done.stderr
    good = out / f"{hashlib.sha1(f'alice/notes:{path}'.encode()).hexdigest()[:12]}.jsonl"
    assert good.read_bytes() == FIXTURE.read_bytes()
    assert git(tmp_path, "hash-object", str(good)) == blob
    assert "1 of 3 sessions rebuilt" in done.stdout and "1 missing, 1 mismatched" in done.stdout
    assert "no clone of bob/gone" in done.stdout and f"manifest says {'0' * 40}" in done.stdout
    again = run("rebuild.py", str(out), "--mirrors", str(folder), "--manifest",
                str(manifest(tmp_path / "ok.jsonl", ("alice/notes", path, commit, blob))), cwd=tmp_path)
    assert again.returncode == 0 and "1 of 1 sessions rebuilt" in again.stdout


def test_rebuild_and_dump_refuse_a_folder_inside_the_project(tmp_path: Path) -> None:
    inside = str(ROOT / "bench" / "corpus-out")
    assert run("rebuild.py", inside, cwd=tmp_path).returncode == 2
    assert run("dump.py", str(tmp_path), inside, cwd=tmp_path).returncode == 2
    assert not Path(inside).exists()


def test_dump_samples_candidates_with_counts_and_the_same_draw_twice(tmp_path: Path,
                                                                      mirrors: tuple[Path, str, str]) -> None:
    folder, commit, blob = mirrors
    m = manifest(tmp_path / "m.jsonl", ("alice/notes", "projects/p/s.jsonl", commit, blob))
    sessions = tmp_path / "sessions"
    assert run("rebuild.py", str(sessions), "--mirrors", str(folder), "--manifest", str(m), cwd=tmp_path).returncode == 0
    firsts = []
    for n in (1, 2):
        out = tmp_path / f"dump{n}"
        done = run("dump.py", str(sessions), str(out), "--manifest", str(m), "--per-speaker", "1", cwd=tmp_path)
        assert done.returncode == 0, done.stderr
        (index,) = rows(out / "index.jsonl")
        dumped = rows(out / f"{index['session']}.jsonl")
        assert isinstance(index["candidates"], dict) and isinstance(index["sampled"], dict)
        for speaker in ("user", "assistant"):
            assert index["sampled"][speaker] == min(1, index["candidates"][speaker])
            assert sum(1 for c in dumped if c["speaker"] == speaker) == index["sampled"][speaker]
        assert dumped and all(KEY.match(str(c["key"])) for c in dumped)
        assert index["refused"] == [] and (out / "refused.jsonl").read_text() == ""
        firsts.append((out / f"{index['session']}.jsonl").read_text())
    assert firsts[0] == firsts[1]
