"""Rebuild the corpus transcripts from the public repositories the manifest names.

Run by hand from the repository root:

    python bench/harvest-corpus/rebuild.py OUT [--mirrors DIR] [--clone] [--manifest FILE]

OUT is a folder outside this repository; each session is written there as
``<id>.jsonl`` (the manifest's ``id``). Every file is taken from its git blob and
checked: ``git hash-object`` of what was written must equal the manifest's
``blob``. A file already in OUT with the right hash is left as it is.

Where the repositories come from:

- ``--mirrors DIR``: a folder of existing clones or bare mirrors, found as
  ``DIR/<owner>+<name>``, ``DIR/<owner>__<name>`` or ``DIR/<owner>/<name>``
  (each may hold the git directory itself, a ``repo`` or ``.git`` inside it);
- ``--clone``: a repository found nowhere is cloned from GitHub into
  ``OUT/.clones/<owner>+<name>`` (blobless; the blobs are fetched on demand).

The report lists every session that is missing (no clone, no commit, no blob)
or mismatched (its bytes hash to another blob). Exit code 0 when every session
was rebuilt and checked, 1 otherwise, 2 for a usage error.
"""

from __future__ import annotations

import argparse
import json
import subprocess
import sys
from collections import Counter
from dataclasses import dataclass
from pathlib import Path

HERE = Path(__file__).resolve().parent
PROJECT = HERE.parents[1]


@dataclass(frozen=True)
class Entry:
    id: str
    repo: str
    path: str
    commit: str
    blob: str


def load_manifest(path: Path) -> list[Entry]:
    """The manifest's sessions, in file order."""
    entries = []
    for line in path.read_text(encoding="utf-8").splitlines():
        if line.strip():
            rec = json.loads(line)
            entries.append(Entry(rec["id"], rec["repo"], rec["path"], rec["commit"], rec["blob"]))
    return entries


def git(gitdir: Path, *args: str, data: bytes | None = None) -> subprocess.CompletedProcess[bytes]:
    return subprocess.run(["git", "--git-dir", str(gitdir), *args], input=data, capture_output=True)


def as_gitdir(folder: Path) -> Path | None:
    """The git directory of a clone or bare mirror at ``folder``, if it is one."""
    for cand in (folder, folder / "repo", folder / ".git"):
        if cand.is_dir() and git(cand, "rev-parse", "--git-dir").returncode == 0 and (cand / "objects").is_dir():
            return cand
    return None


def find_mirror(repo: str, mirrors: list[Path]) -> Path | None:
    owner, name = repo.split("/", 1)
    for base in mirrors:
        for folder in (base / f"{owner}+{name}", base / f"{owner}__{name}", base / owner / name):
            found = as_gitdir(folder) if folder.exists() else None
            if found is not None:
                return found
    return None


def clone(repo: str, clones: Path) -> Path | None:
    """A blobless bare clone of ``repo`` from GitHub, or None when it cannot be had."""
    target = clones / repo.replace("/", "+", 1)
    if as_gitdir(target) is not None:
        return target
    clones.mkdir(parents=True, exist_ok=True)
    url = f"https://github.com/{repo}.git"
    done = subprocess.run(["git", "clone", "--quiet", "--bare", "--filter=blob:none", url, str(target)], capture_output=True)
    return target if done.returncode == 0 else None


def blob_bytes(gitdir: Path, entry: Entry) -> tuple[bytes | None, str]:
    """The session's bytes: at its commit and path, else by its blob id alone; with why not."""
    at = git(gitdir, "rev-parse", "--verify", "--quiet", f"{entry.commit}:{entry.path}")
    if at.returncode == 0:
        found = at.stdout.decode().strip()
        if found != entry.blob:
            return None, f"mismatched: {entry.commit[:10]}:{entry.path} is blob {found}, manifest says {entry.blob}"
    got = git(gitdir, "cat-file", "blob", entry.blob)
    if got.returncode != 0:
        why = "commit not in clone" if git(gitdir, "cat-file", "-e", entry.commit).returncode else "path not at commit"
        return None, f"missing: blob {entry.blob} ({why})"
    return got.stdout, ""


def hash_object(path: Path) -> str:
    done = subprocess.run(["git", "hash-object", "--no-filters", str(path)], capture_output=True, text=True, check=True)
    return done.stdout.strip()


def rebuild_one(entry: Entry, gitdir: Path | None, out: Path) -> str:
    """``""`` when the session is in ``out`` and checked, else what went wrong."""
    target = out / f"{entry.id}.jsonl"
    if target.exists() and hash_object(target) == entry.blob:
        return ""
    if gitdir is None:
        return f"missing: no clone of {entry.repo}"
    data, why = blob_bytes(gitdir, entry)
    if data is None:
        return why
    target.write_bytes(data)
    got = hash_object(target)
    if got != entry.blob:
        target.unlink()
        return f"mismatched: written bytes hash to {got}, manifest says {entry.blob}"
    return ""


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("out", type=Path, help="folder to write <id>.jsonl into (outside this repository)")
    ap.add_argument("--mirrors", type=Path, action="append", default=[], help="folder of existing clones (repeatable)")
    ap.add_argument("--clone", action="store_true", help="clone from GitHub what no mirror folder holds")
    ap.add_argument("--manifest", type=Path, default=HERE / "manifest.jsonl")
    args = ap.parse_args(argv)
    out = args.out.resolve()
    if out == PROJECT or PROJECT in out.parents:
        print(f"error: {out} is inside the repository; transcripts must stay outside it", file=sys.stderr)
        return 2
    out.mkdir(parents=True, exist_ok=True)
    entries = load_manifest(args.manifest)
    gitdirs: dict[str, Path | None] = {}
    problems: list[tuple[Entry, str]] = []
    for entry in entries:
        if entry.repo not in gitdirs:
            found = find_mirror(entry.repo, args.mirrors)
            if found is None and args.clone:
                found = clone(entry.repo, out / ".clones")
            gitdirs[entry.repo] = found
        why = rebuild_one(entry, gitdirs[entry.repo], out)
        if why:
            problems.append((entry, why))
    for entry, why in problems:
        print(f"{entry.id}  {entry.repo}  {entry.path}: {why}")
    kinds = Counter(why.split(":", 1)[0] for _, why in problems)
    print(f"{len(entries) - len(problems)} of {len(entries)} sessions rebuilt and checked in {out}; "
          f"{kinds['missing']} missing, {kinds['mismatched']} mismatched; "
          f"{sum(1 for g in gitdirs.values() if g is None)} of {len(gitdirs)} repositories not found")
    return 1 if problems else 0


if __name__ == "__main__":
    sys.exit(main())
