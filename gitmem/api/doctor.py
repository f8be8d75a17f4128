"""``gitmem doctor`` checks a clone; ``gitmem repair`` merges the documents a text merge broke.

A clone without gitmem's merge driver falls back to git's text merge, which
leaves conflict markers in a memory document or front matter that no longer
parses. The commit hook refuses such a document, ``doctor`` finds it, and
``repair`` merges it properly: from the index's three stages while the merge
is unresolved, else from the two sides the markers hold.
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path
from typing import Sequence

from gitmem.api.context import Context
from gitmem.base.errors import UsageError

DOC_DIRS = ("memory", "archive", "patterns", "episodes")


@dataclass(frozen=True)
class Finding:
    """One check: its name, whether it passed, what was seen and the command that fixes it."""

    name: str
    ok: bool
    detail: str
    fix: str | None = None

    def to_json(self) -> dict[str, object]:
        """One entry of ``doctor --json``."""
        return {"check": self.name, "ok": self.ok, "detail": self.detail, "fix": self.fix}


@dataclass(frozen=True)
class Diagnosis:
    """Every check of ``doctor``, in order."""

    findings: tuple[Finding, ...]

    @property
    def ok(self) -> bool:
        """True when every check passed."""
        return all(f.ok for f in self.findings)

    def to_json(self) -> dict[str, object]:
        """What ``doctor --json`` prints."""
        return {"ok": self.ok, "checks": [f.to_json() for f in self.findings]}


def doctor(ctx: Context, online: bool = True) -> Diagnosis:
    """Hooks, merge driver, line endings, format, remotes, unpushed reviews, merges and markers, the index."""
    checks = [_hooks(ctx), _driver(ctx), _attributes(ctx), _format(ctx), *_sharing(ctx)]
    if online:
        checks.extend(_remotes(ctx))
    checks.extend([_reviews(ctx), _merge(ctx), _markers(ctx), _index(ctx)])
    return Diagnosis(tuple(checks))


def _hooks(ctx: Context) -> Finding:
    from gitmem.api import initrepo

    todo = initrepo.hooks_to_write(ctx.root)
    if todo:
        return Finding("hooks", False, f"git hooks missing or stale: {', '.join(todo)}", "gitmem init")
    return Finding("hooks", True, "gitmem's pre-commit, commit-msg, post-merge, pre-merge-commit and "
                   "reference-transaction hooks are installed")


def _driver(ctx: Context) -> Finding:
    from gitmem.api import initrepo

    if initrepo.driver_missing(ctx.root):
        return Finding("merge-driver", False, "the merge driver gitmem-memory is not registered in this clone: a "
                       "merge falls back to a text merge of memory documents", "gitmem install merge-driver")
    return Finding("merge-driver", True, "the merge driver gitmem-memory is registered")


def _attributes(ctx: Context) -> Finding:
    from gitmem.base.gitio import attempt
    from gitmem.store.enginestate import STATE_FILE

    probe = ["memory/user/00/m-probe.md", "patterns/probe.md", STATE_FILE]
    out = attempt(ctx.root, "check-attr", "eol", "merge", "--", *probe)
    text = (out or b"").decode("utf-8", "replace")
    lacking = [p for p in probe if f"{p}: eol: lf" not in text or f"{p}: merge: gitmem-memory" not in text]
    if lacking:
        return Finding("attributes", False, ".gitattributes does not pin eol=lf and merge=gitmem-memory for "
                       f"{', '.join(lacking)}", "gitmem install merge-driver")
    return Finding("attributes", True, "memory documents have eol=lf and merge=gitmem-memory")


def _format(ctx: Context) -> Finding:
    from gitmem.api import upgrade

    pending = upgrade.upgrade_pending(ctx)
    if pending.paths and pending.before < pending.after:
        return Finding("format", False, f"format {pending.before} is older than this gitmem's "
                       f"({len(pending.paths)} file(s) to migrate)", "gitmem upgrade")
    if pending.paths:
        return Finding("format", False, f"format {pending.before} is current but the repository lacks "
                       f"{', '.join(pending.paths)}", "gitmem upgrade")
    return Finding("format", True, f"format {pending.before} is current")


def _sharing(ctx: Context) -> list[Finding]:
    """In a team repository: this clone can name its person's folder (the salt and a user.email)."""
    from gitmem.base import people

    if ctx.cfg.sharing != people.TEAM:
        return []
    if people.salt_of(ctx.root) is None:
        return [Finding("sharing", False, "a team repository without its salt (.gitmem/salt): personal "
                        "memories have no folder", "gitmem upgrade")]
    if people.email_of(ctx.root) is None:
        return [Finding("sharing", False, "a team repository and no git user.email in this clone: personal "
                        "memories have no folder", "git config user.email you@example.org")]
    return [Finding("sharing", True, "sharing: team; this clone's personal memories go to "
                    f"{people.whoami(ctx.root, ctx.cfg.sharing)}")]


def _remotes(ctx: Context) -> list[Finding]:
    from gitmem.api import syncing
    from gitmem.base.gitio import attempt

    names = syncing.remotes(ctx.root)
    if not names:
        return [Finding("remote", True, "no remote: this memory lives in this clone only")]
    out = []
    for name in names:
        ok = attempt(ctx.root, "ls-remote", "--heads", name) is not None
        out.append(Finding("remote", ok, f"{name} is {'reachable' if ok else 'not reachable'}",
                           None if ok else f"git remote -v (check the address of {name}, then `gitmem sync {name}`)"))
    return out


def _reviews(ctx: Context) -> Finding:
    from gitmem.api import syncing

    names = syncing.remotes(ctx.root)
    if not names:
        return Finding("reviews", True, "no remote to push review branches to")
    remote = "origin" if "origin" in names else names[0]
    unpushed = [b for b in ctx.git.branches() if b.startswith(syncing.REVIEW_PREFIXES)
                and ctx.git.tip(b) != _remote_tip(ctx, remote, b)]
    if unpushed:
        return Finding("reviews", False, f"{len(unpushed)} review branch(es) not on {remote}: "
                       f"{', '.join(unpushed[:5])}", f"gitmem sync {remote}")
    return Finding("reviews", True, f"every review branch is on {remote}")


def _remote_tip(ctx: Context, remote: str, branch: str) -> str | None:
    from gitmem.base.gitio import attempt

    out = attempt(ctx.root, "rev-parse", "--verify", "--quiet", f"refs/remotes/{remote}/{branch}")
    return out.decode().strip() if out else None


def _merge(ctx: Context) -> Finding:
    from gitmem.api import syncing

    if syncing.merging(ctx.root):
        return Finding("merge", False, "a merge is in progress and not concluded: gitmem commits nothing until it is",
                       "gitmem repair && git commit (or git merge --abort)")
    return Finding("merge", True, "no merge in progress")


def _markers(ctx: Context) -> Finding:
    broken = broken_documents(ctx)
    if broken:
        return Finding("documents", False, f"{len(broken)} memory document(s) hold text-merge conflict markers: "
                       f"{', '.join(broken[:5])}", "gitmem repair")
    return Finding("documents", True, "no memory document holds conflict markers")


def _index(ctx: Context) -> Finding:
    from gitmem.store import refresh
    from gitmem.store.index import Index

    path = refresh.index_file(ctx.git)
    if not path.exists():
        return Finding("index", True, "no index yet: the next recall builds it")
    index = Index(path)
    try:
        indexed = index.get_meta(refresh.META_COMMIT)
    finally:
        index.close()
    head = ctx.head or ""
    if indexed != head:
        return Finding("index", True, f"the index is at {str(indexed)[:12] or 'nothing'}, behind HEAD: the next "
                       "recall brings it up to date (or run `gitmem index`)")
    return Finding("index", True, "the index is at HEAD")


def broken_documents(ctx: Context) -> list[str]:
    """Memory documents in the work tree that hold conflict markers (a text merge's)."""
    from gitmem.base.gitio import attempt

    out = attempt(ctx.root, "grep", "-l", "-I", "-e", "^<<<<<<< ", "--", *DOC_DIRS)
    found = [p for p in (out or b"").decode("utf-8", "surrogateescape").splitlines() if p.endswith(".md")]
    unmerged = attempt(ctx.root, "diff", "--name-only", "--diff-filter=U")
    found += [p for p in (unmerged or b"").decode("utf-8", "surrogateescape").splitlines()
              if p.endswith(".md") and p.startswith(DOC_DIRS) and p not in found]
    return sorted(found)


# -- repair ----------------------------------------------------------------------------------------

@dataclass(frozen=True)
class Repaired:
    """The documents repair merged, what the rules settled, what still needs a person, its commit."""

    paths: tuple[str, ...]
    settled: tuple[str, ...]
    left: tuple[str, ...]
    commit: str | None

    def to_json(self) -> dict[str, object]:
        """What ``repair --json`` prints."""
        return {"paths": list(self.paths), "settled": list(self.settled), "left": list(self.left),
                "commit": self.commit}


def repair(ctx: Context, paths: Sequence[str] = ()) -> Repaired:
    """Merge each broken memory document properly. During a merge: from the index's stages, staged
    for the person's ``git commit``; else from the sides its markers hold, as one commit."""
    from gitmem.api import syncing

    todo = list(paths) or broken_documents(ctx)
    if not todo:
        return Repaired((), (), (), None)
    if syncing.merging(ctx.root):
        return _repair_staged(ctx, todo)
    return _repair_committed(ctx, todo)


def _stage(ctx: Context, n: int, path: str) -> str | None:
    from gitmem.base.gitio import attempt

    out = attempt(ctx.root, "show", f":{n}:{path}")
    return out.decode("utf-8", "replace").replace("\r\n", "\n") if out is not None else None


def _repair_staged(ctx: Context, paths: Sequence[str]) -> Repaired:
    from gitmem.base.gitio import merge_text, run
    from gitmem.engines import merge

    done: list[str] = []
    settled: list[str] = []
    left: list[str] = []
    for path in paths:
        ours, theirs, base = _stage(ctx, 2, path), _stage(ctx, 3, path), _stage(ctx, 1, path)
        if ours is None or theirs is None:   # already added as git's text merge left it: its markers' sides
            text = _marked_text(ctx, path)
            if text is None:
                left.append(path)
                continue
            base, ours, theirs = sides(text)
            if base is None:
                base = _merge_base_version(ctx, path)
        result = merge.merge_file(path, base, ours, theirs, merge_text, ctx.cfg.hebbian)
        if result.markers:
            left.append(path)
            continue
        (ctx.root / path).write_bytes(result.text.encode("utf-8"))
        run(ctx.root, "add", "--", path)
        done.append(path)
        settled.extend(result.conflicts)
    return Repaired(tuple(done), tuple(settled), tuple(left), None)


def _merge_base_version(ctx: Context, path: str) -> str | None:
    """``path`` at the merge base of HEAD and MERGE_HEAD (the base git's text merge had)."""
    from gitmem.base.gitio import attempt

    found = attempt(ctx.root, "merge-base", "HEAD", "MERGE_HEAD")
    if not found:
        return None
    data = ctx.git.read(path, found.decode().strip())
    return data.decode("utf-8", "replace") if data is not None else None


def sides(text: str) -> tuple[str | None, str, str]:
    """(base, ours, theirs) of a text git's merge left with conflict markers (base None without diff3's)."""
    base: list[str] = []
    ours: list[str] = []
    theirs: list[str] = []
    seen_base = False
    where = "all"
    for line in text.splitlines(keepends=True):
        if line.startswith("<<<<<<< ") or line.rstrip("\r\n") == "<<<<<<<":
            where = "ours"
        elif where in ("ours",) and (line.startswith("||||||| ") or line.rstrip("\r\n") == "|||||||"):
            where, seen_base = "base", True
        elif where in ("ours", "base") and line.rstrip("\r\n") == "=======":
            where = "theirs"
        elif where == "theirs" and (line.startswith(">>>>>>> ") or line.rstrip("\r\n") == ">>>>>>>"):
            where = "all"
        else:
            for side, name in ((ours, "ours"), (base, "base"), (theirs, "theirs")):
                if where in ("all", name):
                    side.append(line)
    return ("".join(base) if seen_base else None), "".join(ours), "".join(theirs)


def _repair_committed(ctx: Context, paths: Sequence[str]) -> Repaired:
    from gitmem.base import clock
    from gitmem.base.errors import GitmemError
    from gitmem.base.gitio import merge_text
    from gitmem.engines import merge
    from gitmem.writer.plan import Plan

    changes: dict[str, bytes | None] = {}
    settled: list[str] = []
    left: list[str] = []
    for path in paths:
        if not path.startswith(DOC_DIRS):
            raise UsageError(f"{path} is not a memory document", hint="repair merges memory/, archive/, patterns/ "
                             "and episodes/ documents; edit other files by hand")
        if not (ctx.root / path).is_file():
            raise UsageError(f"{path}: no such document in the work tree",
                             hint="`gitmem repair` with no path finds the documents that hold conflict markers")
        text = _marked_text(ctx, path)
        if text is None:
            left.append(path)
            continue
        if not merge.has_markers(text):
            if "\n" + merge.MARKERS[0] in "\n" + text:   # markers cut short: their sides cannot be told apart
                left.append(path)
            continue   # no markers: nothing to repair, neither merged nor left for a person
        base, ours, theirs = sides(text)
        try:
            result = merge.merge_file(path, base, ours, theirs, merge_text, ctx.cfg.hebbian)
        except GitmemError:
            left.append(path)
            continue
        if result.markers:
            left.append(path)
            continue
        changes[path] = result.text.encode("utf-8")
        settled.extend(result.conflicts)
    if not changes:
        return Repaired((), tuple(settled), tuple(left), None)

    def plan(parent: str | None) -> Plan[None]:
        return Plan(changes, f"gitmem: repair {len(changes)} memory document(s) a text merge left with markers",
                    "repair.merge")

    written = ctx.writer.write(plan, clock.now())
    return Repaired(tuple(sorted(changes)), tuple(settled), tuple(left), written.commit)


def _marked_text(ctx: Context, path: str) -> str | None:
    """The work tree's text of ``path`` as git's text merge left it (LF line ends), or None when it cannot be
    read as UTF-8 text (then it is left for a person)."""
    try:
        return (ctx.root / path).read_text(encoding="utf-8").replace("\r\n", "\n")
    except (OSError, UnicodeDecodeError):
        return None
