"""Entry points of gitmem's pre-commit hooks: ``gitmem hook NAME [FILE...]``.

These run on every ``git commit`` in a memory repository, so this module and
what it imports on the way stay light: no pygit2, ruamel.yaml or markdown-it,
and gitmem.base.config only when its JSON cache cannot answer (``_cached_settings``).
Each check is imported when a file it cares about is staged. The commit-msg
stage's checks are ``gitmem.faces.hookmessage``.

Hooks (``NAME``):

- ``pii``        strip PII in the staged files, like a formatter: rewrite, report, fail
- ``secrets``    report every secret by file, line, column and kind; fail
- ``layers``     validate the four layers of each CLAUDE.md
- ``layers-msg`` at the commit-msg stage: an automated commit (``Gitmem-Auto: true``)
                 without ``Gitmem-Approved-By`` may not change Layers 1 and 4
                 (and, in ``all``: a commit made under an agent's environment,
                 ``gitmem.guards.reviewer``, may not itself change them either)
- ``secrets-msg`` at the commit-msg stage: no secret in the message git will store
- ``msg``        both commit-msg checks in one process
- ``amplitude``  an existing file may not grow past ``sediment.amplitude_max``
- ``config``     validate gitmem.yaml
- ``drift``      Layers 1+2 of the staged CLAUDE.md stay within ``drift.min_cosine`` of the baseline
- ``documents``  memory and pattern files every gitmem reader can use (sizes, numbers, times, nesting)
- ``all``        the pre-commit checks above in one process, routing files by name
- ``staged``     ``all`` over every staged file, read from the index (gitmem's own
                 pre-commit script in a repository made by ``gitmem init``)
- ``merge``      at pre-merge-commit (a merge git commits by itself runs no pre-commit):
                 ``layers`` and the agent's layer rule over the merged CLAUDE.md files
- ``reference-transaction STATE`` git's hook on every ref update, ``--no-verify`` or not: under an agent,
                 no local branch or HEAD moves to a commit made here that changes Layers 1 or 4
                 (cherry-pick, rebase, ``commit --no-verify``…; ``gitmem.faces.hookrefs``)

Output: ``gitmem-<hook>: <file>:<line>: <problem>`` lines, then ``hint:`` lines.
Exit 0 when every check passes, 1 when one fails, 2 on bad usage.
"""

from __future__ import annotations

import os
import re
import sys

# typing itself costs an import on every commit; annotations need it only for mypy
TYPE_CHECKING = False
if TYPE_CHECKING:
    from collections.abc import Callable, Sequence

# the run's report, settings and staged texts; HINTS, Settings and the settings readers are part of this
# module's face (tests and callers use them here)
from gitmem.faces.hookrun import HINTS, Report, Run, Settings, _cached_settings, _loaded_settings  # noqa: F401
from gitmem.faces.hooklayers import check_agent_layers
# the commit-msg stage's checks
from gitmem.faces.hookmessage import check_layers_msg, check_message, check_secrets_msg

_DOCUMENT = re.compile(r"\.(?:md|markdown|ya?ml)$", re.IGNORECASE)
_MEMORY_DOC = re.compile(r"^(?:memory|archive)/.+\.md$")
_PATTERN_DOC = re.compile(r"^patterns/[^/]+\.md$")
# what git's text merge leaves where both sides changed the same lines (a clone without gitmem's merge driver)
_MARKERS = re.compile(rb"^<<<<<<<(?: .*)?\r?\n(?:.*\n)*?^=======\r?\n(?:.*\n)*?^>>>>>>>(?: |\r?$)", re.M)
# --- checks -----------------------------------------------------------------

def check_secrets(run: Run, files: Sequence[str]) -> None:
    """Report each secret by place and kind, never its value."""
    from gitmem.guards.pii import position

    for path in files:
        text = run.read(path)
        if text is None:
            continue
        for f in run.findings(path, text):
            if f.secret:
                line, col = position(text, f.start)
                run.report.problem("secrets", path, line, f.kind, col=col)


def check_pii(run: Run, files: Sequence[str]) -> None:
    """Replace PII by typed placeholders in the work tree, like a formatter."""
    for path in files:
        text = run.read(path)
        if text is None:
            continue
        found = [f for f in run.findings(path, text) if not f.secret]
        if not found:
            continue
        from gitmem.guards import redact  # the one replacer; imported when there is PII to replace
        from gitmem.guards.pii import position

        kinds = ", ".join(sorted({f.kind for f in found}))
        if run.write(path, redact.replace(text, found, redact.yaml_end(path, text))):
            what = f"replaced {len(found)} PII value(s) ({kinds}) by placeholders; re-stage the file"
        else:
            what = f"{len(found)} PII value(s) ({kinds}) staged; not replaced, the file has unstaged edits"
        run.report.problem("pii", path, position(text, found[0].start)[0], what)


def check_layers(run: Run, files: Sequence[str]) -> None:
    """Structure of every CLAUDE.md given."""
    if not files:
        return
    from gitmem.guards import layers

    for path in files:
        text = run.read(path)
        if text is not None:
            for line, message in layers.find_problems(text):
                run.report.problem("layers", path, line, message)



def check_amplitude(run: Run, files: Sequence[str]) -> None:
    """Existing files may not grow past sediment.amplitude_max in one commit (a merge commit's files
    grew in the commits it brings, each checked where it was made)."""
    if not files or _merging(run.root):
        return
    from gitmem.guards import amplitude

    settings = run.settings()
    for problem in amplitude.check_staged(run.root, files, settings.amplitude_max, settings.amplitude_floor_lines):
        run.report.problem("amplitude", None, None, problem)


def _merging(root: str) -> bool:
    from gitmem.base.gitio.heads import read_git_dirs

    dirs = read_git_dirs(root)
    return dirs is not None and os.path.exists(os.path.join(dirs[0], "MERGE_HEAD"))


def check_drift(run: Run, files: Sequence[str]) -> None:
    """The staged CLAUDE.md's Layers 1+2 against the baseline: the pinned commit, else the last snapshot.
    No baseline (the usual case before a first snapshot) costs no git process."""
    if "CLAUDE.md" not in files:
        return
    from gitmem.base import gitio
    from gitmem.store import enginestate

    try:
        with open(os.path.join(run.root, enginestate.STATE_FILE), encoding="utf-8", errors="replace") as fh:
            state: str | None = fh.read()
    except OSError:
        state = None
    dirs = gitio.read_git_dirs(run.root)   # tags read from files: no git process
    # no state file and no tag at all (the usual case): neither drift nor snapshots is imported
    if state is None and not (dirs and gitio.ref_names(dirs[1], "refs/tags/")):
        return
    from gitmem.engines import drift
    from gitmem.store import snapshots

    pinned = enginestate.pinned_baseline(state)
    tags = gitio.ref_names(dirs[1], "refs/tags/" + snapshots.PREFIX) if dirs and pinned is None else []
    chosen = drift.baseline(pinned, [t.removeprefix("refs/tags/") for t in tags])
    if chosen is None:
        return
    baseline, name = chosen[0], "the pinned baseline" if pinned else chosen[0]
    (old,) = gitio.read_blobs(run.root, [f"{baseline}:CLAUDE.md"])
    min_cosine = run.settings().min_cosine
    found = drift.measure(run.read("CLAUDE.md"), old.decode("utf-8", "replace") if old else None, baseline, name,
                          min_cosine)
    if not found.ok:
        run.report.problem("drift", "CLAUDE.md", None,
                           f"Layers 1+2 have cosine {found.cosine:.3f} to {name}, below drift.min_cosine {min_cosine}")


def check_config(run: Run, files: Sequence[str]) -> None:
    """Validate each gitmem.yaml: field, value and allowed range; unknown keys warn."""
    if not files:
        return
    from gitmem.base import config
    from gitmem.base.errors import ConfigError

    for path in files:
        text = run.read(path)
        if text is None:
            continue
        try:
            checked = config.check_text(text, path)
        except ConfigError as exc:
            run.report.problem("config", None, None, exc.message)
            continue
        for problem in checked.problems:
            run.report.problem("config", path, _key_line(text, problem.field), str(problem))
        for warning in checked.warnings:
            run.report.note("config", path, warning)


def check_documents(run: Run, files: Sequence[str]) -> None:
    """Memory and pattern files must be usable by every reader: a file the readers would skip is refused."""
    docs = [p for p in files if _MEMORY_DOC.match(p) or _PATTERN_DOC.match(p)]
    if not docs:
        return
    from gitmem.base.errors import DocumentError
    from gitmem.store import documents

    for path in docs:
        try:
            with open(os.path.join(run.root, path), "rb") as fh:
                data = fh.read(documents.MAX_FILE_BYTES + 1)
        except (FileNotFoundError, IsADirectoryError):
            continue   # deleted: nothing to read
        found = _MARKERS.search(data)
        if found:
            run.report.problem("documents", path, data.count(b"\n", 0, found.start()) + 1,
                               "conflict markers from a text merge (this clone merged without gitmem's merge "
                               f"driver): run `gitmem repair {path}`, and `gitmem install merge-driver`")
            continue
        try:
            (documents.read_pattern if _PATTERN_DOC.match(path) else documents.read_memory)(path, data)
        except DocumentError as exc:
            run.report.problem("documents", exc.path, exc.line, exc.problem)


def check_all(run: Run, files: Sequence[str]) -> None:
    """Every pre-commit check over the files it concerns, in one process."""
    configs = [p for p in files if p == "gitmem.yaml"]
    check_config(run, configs)
    if run.report.failed:
        return  # the other checks would run with a config the person is fixing
    texts = [p for p in files if run.read(p) is not None]
    check_secrets(run, texts)
    check_pii(run, [p for p in texts if _DOCUMENT.search(p)])
    check_layers(run, [p for p in files if _is_claude_md(p)])
    check_agent_layers(run, [p for p in files if _is_claude_md(p)])
    check_drift(run, files)
    check_documents(run, files)
    from gitmem.guards.amplitude import in_scope

    check_amplitude(run, [p for p in files if in_scope(p)])


def check_staged(run: Run, files: Sequence[str]) -> None:
    """Every pre-commit check over every staged file, read from the index git commits
    (gitmem's own pre-commit script: no framework to pass the files or stash the rest)."""
    from gitmem.base.gitio.command import blob_id, read_blobs, staged_blobs

    staged: dict[str, bytes | None] = {}
    for path, blob in staged_blobs(run.root):
        if files and path not in files:
            continue
        data = run._worktree(path) if blob is not None else None
        # the work tree file is the staged one (the usual case): no git process to read it
        staged[path] = data if data is not None and blob_id(data) == blob else None
    unread = [p for p, data in staged.items() if data is None]
    for path, data in zip(unread, read_blobs(run.root, [f":{p}" for p in unread]) if unread else []):
        staged[path] = data
    run.staged = staged
    check_all(run, [p for p, data in staged.items() if data is not None])


def check_merge(run: Run, files: Sequence[str]) -> None:
    """At pre-merge-commit: the merged CLAUDE.md files, read from the index, checked as pre-commit checks
    their layers (a merge with conflicts is committed by `git commit`, whose pre-commit runs ``staged``)."""
    from gitmem.base.gitio.command import read_blobs, staged_blobs

    paths = [p for p, blob in staged_blobs(run.root) if blob is not None and _is_claude_md(p)]
    if files:
        paths = [p for p in paths if p in files]
    run.staged = dict(zip(paths, read_blobs(run.root, [f":{p}" for p in paths]) if paths else []))
    check_layers(run, paths)
    check_agent_layers(run, paths)


AGENT_HOOKS = ("session-start", "session-end", "post-session", "cron")   # not checks: see agenthooks
MESSAGE_CHECKS = ("layers-msg", "secrets-msg", "msg")   # their one argument is the message file, not a staged path

CHECKS: dict[str, Callable[[Run, Sequence[str]], None]] = {
    "pii": check_pii,
    "secrets": check_secrets,
    "layers": lambda run, files: check_layers(run, [p for p in files if _is_claude_md(p)]),
    "layers-msg": check_layers_msg,
    "secrets-msg": check_secrets_msg,
    "msg": check_message,
    "amplitude": check_amplitude,
    "drift": check_drift,
    "documents": check_documents,
    "config": lambda run, files: check_config(run, [p for p in files if os.path.basename(p) == "gitmem.yaml"]),
    "all": check_all,
    "staged": check_staged,
    "merge": check_merge,
}


def main(argv: list[str], repo: str | None = None) -> int:
    """Run hook ``argv[0]`` over the files ``argv[1:]``; returns the exit code.

    Files are relative to the current folder, or to ``repo`` (``gitmem --repo R hook``) when given.
    """
    if argv and argv[0] in AGENT_HOOKS:   # Claude Code's and cron's actions, in agenthooks
        from gitmem.faces.agenthooks import hook_action

        return hook_action(argv[0], argv[1:], repo)
    if argv and argv[0] == "post-merge":   # git's, after a merge: the generated files marked (postmerge)
        from gitmem.faces.postmerge import main as post_merge

        return post_merge(argv[1:], repo)
    if argv and argv[0] == "reference-transaction":   # git's, on every ref update: the agent's layer rule (hookrefs)
        from gitmem.faces.hookrefs import main as reference_transaction

        return reference_transaction(argv[1:], repo)
    if not argv or argv[0] not in CHECKS:
        print(f"usage: gitmem hook {{{','.join((*CHECKS, *AGENT_HOOKS, 'post-merge', 'reference-transaction'))}}} "
              "[FILE...]", file=sys.stderr)
        return 2
    name, files = argv[0], argv[1:]
    root, prefix = (os.path.abspath(repo), "") if repo else _repo_root()
    report = Report()
    run = Run(root, report)
    if name not in MESSAGE_CHECKS:
        files = [os.path.normpath(os.path.join(prefix, p)).replace(os.sep, "/") for p in files]
    from gitmem.base.errors import GitmemError
    from gitmem.base.state import pending_write, write_lock_path
    from gitmem.guards.lock import exclusive

    try:
        if name in MESSAGE_CHECKS:   # under the lock the pre-commit stage keeps (hold_until_exit)
            CHECKS[name](run, files)
            return report.finish()
        # gitmem's write lock while the checks run: automated writers wait for this commit
        with exclusive(write_lock_path(root)) as fd:
            if pending_write(root):
                report.problem(name, None, None, "a gitmem write was interrupted before the work tree and "
                               "index followed its commit; committing now could delete what it wrote")
                return report.finish({name: "run `gitmem recover`, then commit again"})
            _free_dead_writers_refs(root)
            CHECKS[name](run, files)
            if name == "staged" and not report.failed:
                from gitmem.base.gitio.reflocks import is_git_commit
                from gitmem.guards.lock import hold_until_exit

                if is_git_commit(os.getppid()):
                    # git moves HEAD after its commit-msg hook, and fails with "cannot lock ref 'HEAD'"
                    # if the branch moved meanwhile: the lock stays held until git (our parent) exits
                    hold_until_exit(fd, os.getppid())
    except GitmemError as exc:  # e.g. an invalid gitmem.yaml: fail closed, say why
        report.problem("all" if name == "all" else name, None, None, exc.message)
        return report.finish({name: exc.hint} if exc.hint else None)
    return report.finish()


# --- helpers ----------------------------------------------------------------

def _free_dead_writers_refs(root: str) -> None:
    """A ref lock left by a killed gitmem writer (its own record shows it dead) would fail this commit
    at its very end ("cannot lock ref 'HEAD'"): remove it now, and say so."""
    from gitmem.base.gitio.heads import read_git_dirs
    from gitmem.base.gitio.reflocks import clear_dead_writers

    dirs = read_git_dirs(root)
    if dirs is None:
        return
    for ref in clear_dead_writers(dirs[1]):
        print(f"gitmem: removed {ref}.lock, left by a gitmem writer that was killed", file=sys.stderr)


def _repo_root() -> tuple[str, str]:
    """The work tree's top and the current directory relative to it.

    pre-commit runs hooks from the top, where ``.git`` is: no git process needed.
    """
    cwd = os.getcwd()
    if os.path.exists(os.path.join(cwd, ".git")):
        return cwd, ""
    from gitmem.base.gitio import toplevel

    top = toplevel(cwd)
    if top is None:
        return cwd, ""
    return top, os.path.relpath(cwd, top)


def _is_claude_md(path: str) -> bool:
    return os.path.basename(path) == "CLAUDE.md"


def _key_line(text: str, dotted: str) -> int | None:
    """Line of a dotted key in YAML text: each part searched below the previous, deeper indented."""
    lines = text.split("\n")
    start, indent = 0, -1
    found = None
    for part in dotted.split("."):
        key = re.compile(rf"^([ \t]*)(?:{re.escape(part)}|['\"]{re.escape(part)}['\"])[ \t]*:")
        for i in range(start, len(lines)):
            m = key.match(lines[i])
            if m and len(m[1]) > indent:
                found, start, indent = i, i + 1, len(m[1])
                break
        else:
            return found + 1 if found is not None else None
    return found + 1 if found is not None else None
