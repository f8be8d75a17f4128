"""``gitmem sync [REMOTE]``: one memory on many machines through any git server (DESIGN.md section 8).

Sync fetches the remote's branch and its snapshot tags, merges with git and
gitmem's merge driver (``engines.merge``), commits the merge through the
clone's hooks, regenerates the generated files from the merged sources, and
pushes the branch and the open review branches. It never forces: a push the
remote refuses because it moved meanwhile is fetched and merged again; a
remote whose history no longer holds what this clone fetched before was
rewritten, and sync refuses. Per-clone state (index, access log, event log)
lives under ``.git/gitmem`` and never travels.

With a remote, only sync makes the monthly snapshot: after a successful push,
each closed month of the merged history without a tag gets one on its last
commit, pushed without force; a tag the remote already has is taken.
"""

from __future__ import annotations

import json
from dataclasses import dataclass, field
from datetime import datetime
from pathlib import Path
from typing import TYPE_CHECKING

from gitmem.api.context import Context
from gitmem.base import clock
from gitmem.base.errors import ConflictError, GitError, UsageError

if TYPE_CHECKING:
    from gitmem.engines.merge import Merged

INCOMING = "refs/gitmem/sync/incoming"        # the remote's tip, fetched before it is merged
REPORT = "merge-report.jsonl"                 # what the merge driver settled by rule, per clone
REVIEW_PREFIXES = ("gitmem/review/", "gitmem/atrophy/")
ATTEMPTS = 5                                  # fetch-merge-push rounds when the remote keeps moving


@dataclass(frozen=True)
class Synced:
    """One sync: how the remote's work came in, what was pushed, the rules that settled conflicts."""

    remote: str
    branch: str
    incoming: str | None                      # the remote's tip that was merged (None: the remote is empty)
    how: str                                  # up-to-date | fast-forward | merged | pushed
    commit: str | None                        # the branch's tip after the sync
    pushed: bool
    reviews: tuple[str, ...] = ()             # review branches pushed
    snapshots: tuple[str, ...] = ()           # snapshot tags made (and pushed) by this sync
    settled: tuple[str, ...] = ()             # conflicts the merge rules settled, as reported
    warnings: tuple[str, ...] = field(default=())
    accepted: tuple[str, ...] = ()            # reviews merged on the remote, recorded as accepted

    def to_json(self) -> dict[str, object]:
        """What ``sync --json`` prints."""
        return {"remote": self.remote, "branch": self.branch, "incoming": self.incoming, "how": self.how,
                "commit": self.commit, "pushed": self.pushed, "reviews": list(self.reviews),
                "snapshots": list(self.snapshots), "settled": list(self.settled), "warnings": list(self.warnings),
                "accepted": list(self.accepted)}


def remotes(root: Path) -> list[str]:
    """The clone's remotes, by name."""
    from gitmem.base.gitio import attempt

    out = attempt(root, "remote")
    return [line.strip() for line in (out or b"").decode("utf-8", "replace").splitlines() if line.strip()]


def default_remote(root: Path) -> str:
    """The remote sync uses when none is named: ``origin``, or the only one."""
    names = remotes(root)
    if "origin" in names or not names:
        if not names:
            raise UsageError("this memory repository has no git remote to sync with",
                             hint="add one: git remote add origin URL (any git server: ssh, https, git://)")
        return "origin"
    if len(names) == 1:
        return names[0]
    raise UsageError(f"this clone has several remotes ({', '.join(names)}) and none is called origin",
                     hint="name one: gitmem sync REMOTE")


def warn_if_unhooked(git_dir: Path) -> None:
    """A clone of a remote whose git hooks are not gitmem's (``git clone`` without ``gitmem init``) is
    told so: its person's commits would go unchecked and its merges would lack the driver. Two small
    reads, no git process: every command pays it."""
    from gitmem.base.notice import warn

    try:
        config = (git_dir / "config").read_text(encoding="utf-8", errors="replace").lower()
    except OSError:
        return
    if '[remote "' not in config or "hookspath" in config:
        return
    try:
        hook = (git_dir / "hooks" / "pre-commit").read_bytes()
    except OSError:
        hook = b""
    if b"gitmem" not in hook:
        warn("this clone has no gitmem hooks (cloned without `gitmem init`?): commits go unchecked and merges "
             "lack gitmem's merge driver; run `gitmem init` here to install them")


def merging(root: Path) -> bool:
    """True while a merge waits to be concluded in this clone."""
    from gitmem.base.gitio import read_git_dirs

    dirs = read_git_dirs(root)
    return dirs is not None and (Path(dirs[0]) / "MERGE_HEAD").exists()


def sync(ctx: Context, remote: str | None = None, now: datetime | None = None) -> Synced:
    """Fetch, merge, regenerate, push (see the module docstring)."""
    from gitmem.base.gitio import uncommitted
    from gitmem.api import initrepo

    root = ctx.root
    remote = remote or default_remote(root)
    if remote not in remotes(root):
        raise UsageError(f"no remote called {remote!r} in this clone", hint="list them with `git remote -v`")
    if merging(root):
        raise ConflictError("a merge is already in progress in this clone",
                            hint="run `gitmem repair`, then `git commit` (or `git merge --abort`), then sync again")
    branch = ctx.writer.default_branch()
    dirty = uncommitted(root)
    if dirty:
        raise ConflictError(f"uncommitted edits in {', '.join(dirty[:5])}{' …' if len(dirty) > 5 else ''}",
                            hint="commit or stash them (git stash), then sync")
    if initrepo.driver_missing(root):
        initrepo.install_merge_driver(root)
    from gitmem.api import purge_remote

    purge_remote.refuse_if_held(root, remote)   # before any fetch: the purged value must not come back
    now = now or clock.now()
    settled: list[str] = []
    warnings: list[str] = []
    accepted: tuple[str, ...] = ()
    for _ in range(ATTEMPTS):
        incoming = _fetch(root, remote, branch)
        how = _merge(ctx, remote, branch, incoming, settled, now)
        accepted += after_reviews_merged(ctx, now, remote)   # recorded before the push: it travels with it
        try:
            _push(root, remote, [f"refs/heads/{branch}:refs/heads/{branch}"])
        except GitError as exc:
            if "rejected" in str(exc) or "fetch first" in str(exc):
                continue   # the remote moved since the fetch: fetch and merge again
            raise
        _git(root, "update-ref", f"refs/remotes/{remote}/{branch}", f"refs/heads/{branch}")
        reviews = _push_reviews(ctx, remote, warnings)
        snaps = team_snapshots(ctx, remote, now, warnings)
        return Synced(remote, branch, incoming, how, ctx.git.tip(branch), True, reviews, snaps,
                      tuple(settled), tuple(warnings), accepted)
    raise ConflictError(f"{remote} kept moving: gave up after {ATTEMPTS} rounds of fetch, merge and push",
                        hint="run `gitmem sync` again in a moment")


def install_merge_driver(ctx: Context) -> str:
    """``gitmem install merge-driver``: the driver registered in the clone's git config, and the lines
    ``.gitattributes`` lacks (a repository made before them) added in a commit of the person's; the
    driver's command."""
    from gitmem.api import initrepo
    from gitmem.store import formats

    if not initrepo.install_merge_driver(ctx.root):
        raise GitError("git config could not be written", hint="check that .git/config is writable")
    path = ctx.root / formats.ATTRIBUTES
    completed = formats.completed_attributes(path.read_bytes() if path.exists() else None,
                                             "gitmem install merge-driver")
    if completed is not None:
        path.write_bytes(completed)
        _git(ctx.root, "add", "--", formats.ATTRIBUTES)
        _git(ctx.root, "commit", "--quiet", "-m", "gitmem: .gitattributes names the merge driver and LF line ends",
             "--", formats.ATTRIBUTES)
    return initrepo.driver_command()


def after_reviews_merged(ctx: Context, now: datetime, remote: str | None = None) -> tuple[str, ...]:
    """Reviews merged on the remote (a pull request accepted there: merge, squash or rebase), recognised by
    the review use case and recorded as accepted; they are no longer open, so they are not pushed again.
    ``remote``: asked which review branches it still has (one deleted there is a sign of its squash)."""
    from gitmem.api import review_merges

    present = None
    if remote is not None and any(ctx.git.branches(p) for p in REVIEW_PREFIXES):   # asked only when one is open
        listed = _git(ctx.root, "ls-remote", "--heads", remote, *(f"refs/heads/{p}*" for p in REVIEW_PREFIXES))
        present = {remote: {line.split("refs/heads/", 1)[1] for line in listed.splitlines() if "refs/heads/" in line}}
    return tuple(r.name for r in review_merges.recognise(ctx, now, present) if r.outcome == "accepted")


def _git(root: Path, *args: str) -> str:
    from gitmem.base.gitio import run

    return run(root, *args).decode("utf-8", "replace").strip()


def _rev(root: Path, ref: str) -> str | None:
    from gitmem.base.gitio import attempt

    out = attempt(root, "rev-parse", "--verify", "--quiet", f"{ref}^{{commit}}")
    return out.decode().strip() if out else None


def _is_ancestor(root: Path, a: str, b: str) -> bool:
    from gitmem.base.gitio import attempt

    return attempt(root, "merge-base", "--is-ancestor", a, b) is not None


def _fetch(root: Path, remote: str, branch: str) -> str | None:
    """The remote's tip of ``branch`` (None: the remote has no such branch yet), fetched with the
    snapshot tags; refuses a remote whose history no longer holds what this clone fetched before."""
    before = _rev(root, f"refs/remotes/{remote}/{branch}")   # read first: a fetch updates it too
    listed = _git(root, "ls-remote", remote, f"refs/heads/{branch}")
    specs = ["+refs/tags/gitmem/snapshot/*:refs/tags/gitmem/snapshot/*"]   # the remote's tags are taken
    if listed:
        specs.insert(0, f"+refs/heads/{branch}:{INCOMING}")
    _git(root, "fetch", "--no-tags", "--quiet", remote, *specs)
    if not listed:
        return None
    incoming = _rev(root, INCOMING)
    if incoming and before and not _is_ancestor(root, before, incoming):
        _git(root, "update-ref", f"refs/remotes/{remote}/{branch}", before)   # the next sync refuses too
        raise ConflictError(f"the history of {remote}/{branch} was rewritten: it no longer holds {before[:12]}, "
                            "which this clone fetched before; gitmem never merges over a rewrite",
                            hint=f"find out who rewrote it; if it was a purge, run `gitmem purge --remote {remote}` "
                                 f"here too, or re-clone the memory repository")
    if incoming:
        _git(root, "update-ref", f"refs/remotes/{remote}/{branch}", incoming)
    return incoming


def _merge(ctx: Context, remote: str, branch: str, incoming: str | None, settled: list[str],
           now: datetime) -> str:
    """Bring ``incoming`` into the checked-out branch: nothing, a fast-forward, or a merge commit
    (the driver merges documents; generated files are regenerated after it)."""
    root = ctx.root
    head = ctx.git.tip(branch)
    if incoming is None or (head is not None and _is_ancestor(root, incoming, head)):
        return "pushed" if incoming is None or incoming != head else "up-to-date"
    if head is None or _is_ancestor(root, head, incoming):
        _git(root, "merge", "--ff-only", "--quiet", incoming)
        return "fast-forward"
    report = _report_path(ctx)
    report.unlink(missing_ok=True)
    try:
        _git(root, "merge", "--no-ff", "--no-commit", "--quiet", incoming)
    except GitError:
        pass   # conflicts: read from the index below
    settled.extend(_read_report(report))
    unmerged = [p for p in _git(root, "diff", "--name-only", "--diff-filter=U").splitlines() if p]
    if unmerged:
        raise ConflictError(f"the merge with {remote}/{branch} left {len(unmerged)} file(s) for a person: "
                            f"{', '.join(unmerged[:5])}{' …' if len(unmerged) > 5 else ''}",
                            hint="run `gitmem repair` (memory documents), edit the rest, `git add` them and "
                                 "`git commit`; then `gitmem sync` again (or `git merge --abort`)")
    if not merging(root):
        raise ConflictError(f"git did not start a merge with {remote}/{branch}",
                            hint="see `git status`, then run `gitmem sync` again")
    message = (f"gitmem: sync with {remote} (merge {remote}/{branch})\n\nGitmem-Event: sync.merge\n"
               f"Gitmem-Remote: {remote}\n")
    from gitmem.base.gitio import run
    from gitmem.base.model import iso

    stamp = iso(now)   # the merge commit is dated by the sync's clock, as gitmem's own commits are
    run(root, "commit", "--quiet", "-m", message, env={"GIT_AUTHOR_DATE": stamp, "GIT_COMMITTER_DATE": stamp})
    regenerate(ctx, now)
    return "merged"


def regenerate(ctx: Context, now: datetime | None = None) -> str | None:
    """Rewrite the generated files (CLAUDE.md Layers 2 and 3, patterns.md, HIPPOCAMPUS_CORE.md) from the
    sources at the tip, as one commit (None when they were current)."""
    from gitmem.api import patterns, recall
    from gitmem.engines import render
    from gitmem.store import store
    from gitmem.writer.plan import Plan

    head = ctx.head
    # the core file comes from the index (brought to the tip first): only where the repository has one
    core = recall.load_core(ctx, personal=False) if head and ctx.git.read("HIPPOCAMPUS_CORE.md", head) is not None else None

    def plan(parent: str | None) -> Plan[None] | None:
        if parent is None:
            return None
        pats = store.all_patterns(ctx.git, parent)
        changes: dict[str, bytes | None] = {}
        _, claude = patterns.claude_md(ctx, parent, pats)
        if claude is not None:
            changes["CLAUDE.md"] = claude
        if pats or ctx.git.read("patterns.md", parent) is not None:
            changes["patterns.md"] = render.patterns_md(render.pattern_lines(pats, with_core=True)).encode("utf-8")
        if core is not None and ctx.git.read("HIPPOCAMPUS_CORE.md", parent) is not None:
            changes["HIPPOCAMPUS_CORE.md"] = core.text.encode("utf-8")
        return Plan(changes, "gitmem: regenerate the generated files after a merge", "sync.regenerate", auto=True)

    return ctx.writer.write(plan, now or clock.now()).commit


def _push(root: Path, remote: str, specs: list[str]) -> str:
    from gitmem.base.gitio import push

    return push(root, remote, specs)


def _push_reviews(ctx: Context, remote: str, warnings: list[str]) -> tuple[str, ...]:
    """Push every open review branch (each on its own: one the remote refuses does not stop the rest)."""
    done = []
    for name in ctx.git.branches():
        if not name.startswith(REVIEW_PREFIXES):
            continue
        try:
            _push(ctx.root, remote, [f"refs/heads/{name}:refs/heads/{name}"])
            done.append(name)
        except GitError as exc:
            warnings.append(f"review branch {name} not pushed: {str(exc)[:200]}")
    return tuple(done)


def team_snapshots(ctx: Context, remote: str, now: datetime, warnings: list[str]) -> tuple[str, ...]:
    """The monthly snapshot tags of the team: each closed month of the merged history without a tag is
    tagged on its last commit and pushed; a tag the remote got meanwhile is fetched and taken."""
    from gitmem.store import snapshots

    head = ctx.head
    if head is None:
        return ()
    made = []
    for month, commit in snapshots.untagged_months(ctx.git, head, now):
        name = snapshots.tag_name(month)
        counts = snapshots.stats(ctx.git, commit)
        try:
            ctx.git.create_tag(name, commit, snapshots.message(month, commit, counts), now)
        except ConflictError:
            continue
        try:
            _push(ctx.root, remote, [f"refs/tags/{name}:refs/tags/{name}"])
            made.append(name)
        except GitError:
            # another clone pushed this month's tag first: theirs is the team's, ours goes
            _git(ctx.root, "tag", "-d", name)
            from gitmem.base.gitio import attempt

            if attempt(ctx.root, "fetch", "--no-tags", "--quiet", remote, f"+refs/tags/{name}:refs/tags/{name}") is None:
                warnings.append(f"snapshot {name} could not be pushed or fetched; the next sync tries again")
    return tuple(made)


# -- the merge driver ------------------------------------------------------------------------------

def _report_path(ctx: Context) -> Path:
    from gitmem.base import state

    return state.shared_dir(ctx.root) / REPORT


def _read_report(path: Path) -> list[str]:
    try:
        lines = path.read_text(encoding="utf-8").splitlines()
    except OSError:
        return []
    out: list[str] = []
    for line in lines:
        try:
            out.extend(str(c) for c in json.loads(line).get("conflicts", []))
        except (ValueError, AttributeError):
            continue
    return out


def merge_driver(root: Path, base: Path, ours: Path, theirs: Path, path: str) -> Merged:
    """git's merge driver (``%O %A %B %P``): the merge of ``path`` written over ``ours``; what the rules
    settled is appended to the clone's merge report (``sync`` reads it)."""
    from gitmem.base import config as config_mod
    from gitmem.base import state
    from gitmem.base.errors import GitmemError
    from gitmem.base.gitio import merge_text
    from gitmem.engines import merge

    def text(p: Path) -> str:
        return p.read_bytes().decode("utf-8", "replace").replace("\r\n", "\n")

    try:
        hebbian = config_mod.load(root).hebbian
    except GitmemError:
        hebbian = None
    base_text = text(base) if base.exists() and base.stat().st_size else None
    try:
        done = merge.merge_file(path, base_text, text(ours), text(theirs), merge_text, hebbian)
    except GitmemError as exc:   # a side that does not parse: git's text merge, reported
        merged, clean = merge_text(base_text or "", text(ours), text(theirs))
        done = merge.Merged(merged, (f"{path}: {exc}; merged as text",), markers=not clean)
    ours.write_bytes(done.text.encode("utf-8"))
    if done.conflicts:
        try:
            report = state.shared_dir(root) / REPORT
            report.parent.mkdir(parents=True, exist_ok=True)
            with report.open("a", encoding="utf-8") as fh:
                fh.write(json.dumps({"path": path, "conflicts": list(done.conflicts)}) + "\n")
        except OSError:
            pass
    return done
