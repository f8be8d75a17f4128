"""Entry points of gitmem's pre-commit hooks: ``gitmem hook NAME [FILE...]``.

These run on every ``git commit`` in a memory repository, so this module and
what it imports on the way stay light: no pygit2, ruamel.yaml or markdown-it,
and gitmem.base.config only when its JSON cache cannot answer (``_cached_settings``).
Each check is imported when a file it cares about is staged.

Hooks (``NAME``):

- ``pii``        strip PII in the staged files, like a formatter: rewrite, report, fail
- ``secrets``    report every secret by file, line, column and kind; fail
- ``layers``     validate the four layers of each CLAUDE.md
- ``layers-msg`` at the commit-msg stage: an automated commit (``Gitmem-Auto: true``)
                 without ``Gitmem-Approved-By`` may not change Layers 1 and 4
- ``secrets-msg`` at the commit-msg stage: no secret in the message git will store
- ``msg``        both commit-msg checks in one process
- ``amplitude``  an existing file may not grow past ``sediment.amplitude_max``
- ``config``     validate gitmem.yaml
- ``documents``  memory and pattern files every gitmem reader can use (sizes, numbers, times, nesting)
- ``all``        the pre-commit checks above in one process, routing files by name

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

    from gitmem.guards.pii import Finding

HINTS = {
    "pii": "PII was replaced by placeholders in the working tree: review with `git diff`, "
           "then `git add` and commit again",
    "secrets": "remove the secret and rotate it if it was real; "
               "a known-safe value goes in pii.allowlist in gitmem.yaml",
    "layers": "each `<!-- gitmem:layer N name -->` marker once, in order 1-4, closed by `<!-- /gitmem:layer -->`; "
              "text placed in layers 2 and 3 must be escaped (gitmem.guards.layers.escape)",
    "layers-msg": "Layers 1 and 4 change by a person's commit, or add a `Gitmem-Approved-By: NAME` trailer",
    "secrets-msg": "nothing was committed: write the message again without the secret (`git commit` reopens "
                   "the editor), and rotate the secret if it was real",
    "amplitude": "the limit is sediment.amplitude_max in gitmem.yaml; for a deliberate larger edit: "
                 "GITMEM_ALLOW_GROWTH=1 git commit …",
    "documents": "every gitmem command would skip such a file: correct the value the line names, "
                 "or let gitmem write the memory (`gitmem remember`)",
    "config": "each field's meaning and range is commented in a fresh gitmem.yaml (`gitmem init`); "
              "`gitmem check config` lists every problem",
}
_DOCUMENT = re.compile(r"\.(?:md|markdown|ya?ml)$", re.IGNORECASE)
_MEMORY_DOC = re.compile(r"^(?:memory|archive)/.+\.md$")
_PATTERN_DOC = re.compile(r"^patterns/[^/]+\.md$")
_BINARY_SNIFF = 8000  # bytes git itself looks at to call a file binary


class Report:
    """Problems and hints collected by the checks, printed once at the end."""

    def __init__(self) -> None:
        self.lines: list[str] = []
        self.failed: list[str] = []  # hooks that found problems, in order

    def problem(self, hook: str, path: str | None, line: int | None, message: str, col: int | None = None) -> None:
        where = ":".join(str(part) for part in (path, line, col) if part is not None)
        self.lines.append(f"gitmem-{hook}: {where + ': ' if where else ''}{message}")
        if hook not in self.failed:
            self.failed.append(hook)

    def note(self, hook: str, path: str | None, message: str) -> None:
        """A warning: printed, but the check still passes."""
        self.lines.append(f"gitmem-{hook}: {path + ': ' if path else ''}warning: {message}")

    def finish(self, extra_hints: dict[str, str] | None = None) -> int:
        hints = {**HINTS, **(extra_hints or {})}
        out = self.lines + [f"hint: {hints[hook]}" for hook in self.failed if hook in hints]
        if out:
            print("\n".join(out))
        return 1 if self.failed else 0


class Settings:
    """The few config values the hooks need, from gitmem.yaml.

    A plain class, not a frozen dataclass: importing dataclasses (it pulls in
    inspect) is one of the largest costs of a hook run.
    """

    __slots__ = ("allow_values", "allow_patterns", "disabled_kinds", "amplitude_max", "amplitude_floor_lines")

    def __init__(self, allow_values: Sequence[str], allow_patterns: Sequence[str],
                 disabled_kinds: Sequence[str], amplitude_max: float, amplitude_floor_lines: int) -> None:
        self.allow_values = frozenset(allow_values)
        self.allow_patterns = tuple(allow_patterns)
        self.disabled_kinds = frozenset(disabled_kinds)
        self.amplitude_max = float(amplitude_max)
        self.amplitude_floor_lines = int(amplitude_floor_lines)


class Run:
    """One hook invocation: the repository root, its settings (loaded once) and the report."""

    def __init__(self, root: str, report: Report) -> None:
        self.root = root
        self.report = report
        self._settings: Settings | None = None
        self.scans: dict[str, tuple[str, list[Finding]]] = {}
        self._texts: dict[str, str | None] = {}

    def settings(self) -> Settings:
        if self._settings is None:
            self._settings = _cached_settings(self.root) or _loaded_settings(self.root)
        return self._settings

    def read(self, path: str) -> str | None:
        """A staged text file as pre-commit leaves it in the work tree; None if binary or gone."""
        if path not in self._texts:
            self._texts[path] = self._read(path)
        return self._texts[path]

    def _read(self, path: str) -> str | None:
        try:
            with open(os.path.join(self.root, path), "rb") as fh:
                data = fh.read()
        except (FileNotFoundError, IsADirectoryError):
            return None
        if b"\0" in data[:_BINARY_SNIFF]:
            return None
        # surrogateescape: a stray non-UTF-8 byte survives a rewrite unchanged.
        return data.decode("utf-8", "surrogateescape")

    def write(self, path: str, text: str) -> None:
        with open(os.path.join(self.root, path), "wb") as fh:
            fh.write(text.encode("utf-8", "surrogateescape"))
        self._texts[path] = text


# --- config -----------------------------------------------------------------

def _cached_settings(root: str) -> Settings | None:
    """Settings from the JSON cache gitmem.base.config.load keeps (gitmem.base.state.config_cache_path).

    Loading the schema (gitmem.base.config: hashlib, pathlib, a dozen dataclasses)
    costs more than every check of a typical commit together, so the hooks
    read the cache config.load wrote when it is present and matches gitmem.yaml
    byte for byte.
    Anything unexpected returns None and the caller goes through config.load.
    """
    from gitmem.base.errors import GitmemError
    from gitmem.base.state import config_cache_path

    try:
        with open(os.path.join(root, "gitmem.yaml"), "rb") as fh:
            raw = fh.read()
        with open(config_cache_path(root), encoding="utf-8") as fh:
            import json

            cached = json.load(fh)
        # schema 1 is gitmem.base.config.SCHEMA_VERSION as of this writing; after a bump
        # this reads None and config.load (slower, always right) takes over.
        if cached.get("schema") != 1 or cached.get("sha256") != _sha256(raw):
            return None
        pii, sediment = cached["data"]["pii"], cached["data"]["sediment"]
        return Settings(pii["allowlist"]["values"], pii["allowlist"]["patterns"],
                        pii["disabled_kinds"], sediment["amplitude_max"], sediment["amplitude_floor_lines"])
    except (OSError, ValueError, KeyError, TypeError, AttributeError, GitmemError):
        return None


def _sha256(data: bytes) -> str:
    try:  # CPython 3.11's builtin module: hashlib would load OpenSSL first
        from _sha256 import sha256  # type: ignore[import-not-found]  # CPython's private module has no stub
    except ImportError:
        from hashlib import sha256
    return str(sha256(data).hexdigest())


def _loaded_settings(root: str) -> Settings:
    from pathlib import Path

    from gitmem.base import config

    cfg = config.load(Path(root))  # ConfigError propagates: the hooks fail closed
    return Settings(cfg.pii.allowlist.values, cfg.pii.allowlist.patterns,
                    cfg.pii.disabled_kinds, cfg.sediment.amplitude_max, cfg.sediment.amplitude_floor_lines)


# --- checks -----------------------------------------------------------------

def _findings(run: Run, path: str, text: str) -> list[Finding]:
    """Secrets and enabled PII kinds in ``text``; one scan per file even when two checks ask."""
    cached = run.scans.get(path)
    if cached is not None and cached[0] == text:
        return cached[1]
    from gitmem.guards import pii

    s = run.settings()
    allow = pii.Allowlist(values=s.allow_values, patterns=s.allow_patterns)
    found = [f for f in pii.scan(text, allow) if f.secret or f.kind not in s.disabled_kinds]
    run.scans[path] = (text, found)
    return found


def check_secrets(run: Run, files: Sequence[str]) -> None:
    """Report each secret by place and kind, never its value."""
    from gitmem.guards.pii import position

    for path in files:
        text = run.read(path)
        if text is None:
            continue
        for f in _findings(run, path, text):
            if f.secret:
                line, col = position(text, f.start)
                run.report.problem("secrets", path, line, f.kind, col=col)


SCISSORS = "# ------------------------ >8 ------------------------"


def check_secrets_msg(run: Run, files: Sequence[str]) -> None:
    """At commit-msg: the message git will store holds no secret (comments and the part
    under the scissors line, which git drops, are not scanned)."""
    message = _message(run, "secrets-msg", files)
    if message is None:
        return
    from gitmem.guards.pii import position

    kept = "\n".join("" if line.startswith("#") else line for line in message.split(SCISSORS, 1)[0].split("\n"))
    for f in _findings(run, "(commit message)", kept):
        if f.secret:
            line, col = position(kept, f.start)
            run.report.problem("secrets-msg", "commit message", line, f.kind, col=col)


def check_message(run: Run, files: Sequence[str]) -> None:
    """Both commit-msg checks in one process: no secret in the message, and the layer rule."""
    check_secrets_msg(run, files)
    check_layers_msg(run, files)


def _message(run: Run, hook: str, files: Sequence[str]) -> str | None:
    """The commit message file's text (the one argument of a commit-msg hook), or None after a problem."""
    if len(files) != 1:
        run.report.problem(hook, None, None, "expected the commit message file as the only argument")
        return None
    try:
        with open(files[0], encoding="utf-8", errors="replace") as fh:
            return fh.read()
    except OSError as exc:
        run.report.problem(hook, files[0], None, f"cannot read the commit message ({exc.strerror})")
        return None


def check_pii(run: Run, files: Sequence[str]) -> None:
    """Replace PII by typed placeholders in the work tree, like a formatter."""
    for path in files:
        text = run.read(path)
        if text is None:
            continue
        found = [f for f in _findings(run, path, text) if not f.secret]
        if not found:
            continue
        from gitmem.guards import redact  # the one replacer; imported when there is PII to replace
        from gitmem.guards.pii import position

        run.write(path, redact.replace(text, found, redact.yaml_end(path, text)))
        kinds = ", ".join(sorted({f.kind for f in found}))
        run.report.problem("pii", path, position(text, found[0].start)[0],
                           f"replaced {len(found)} PII value(s) ({kinds}) by placeholders; re-stage the file")


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


def check_layers_msg(run: Run, files: Sequence[str]) -> None:
    """At commit-msg: an automated commit may change Layers 1 and 4 only with an approval."""
    message = _message(run, "layers-msg", files)
    if message is None or "gitmem-auto" not in message.lower():
        return  # a person's commit: no trailer can say otherwise, and git's parser is not started
    from gitmem.base import gitio

    found = gitio.read_message(run.root, message)
    if not found.flag("Gitmem-Auto") or found.has("Gitmem-Approved-By"):
        return
    from gitmem.guards import layers

    paths = gitio.staged_names(run.root, "CLAUDE.md", "*/CLAUDE.md")
    blobs = gitio.read_blobs(run.root, [rev for p in paths for rev in (f"HEAD:{p}", f":{p}")])
    for i, path in enumerate(paths):
        old, new = blobs[2 * i], blobs[2 * i + 1]
        if old is None:
            continue  # a new CLAUDE.md has no person's layers to protect yet
        if new is None:
            run.report.problem("layers-msg", path, None, "deleted by an automated commit without Gitmem-Approved-By")
            continue
        for line, message in layers.protected_changes(old.decode("utf-8", "replace"), new.decode("utf-8", "replace")):
            run.report.problem("layers-msg", path, line, message)


def check_amplitude(run: Run, files: Sequence[str]) -> None:
    """Existing files may not grow past sediment.amplitude_max in one commit."""
    if not files:
        return
    from gitmem.guards import amplitude

    settings = run.settings()
    for problem in amplitude.check_staged(run.root, files, settings.amplitude_max, settings.amplitude_floor_lines):
        run.report.problem("amplitude", None, None, problem)


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
    check_documents(run, files)
    from gitmem.guards.amplitude import in_scope

    check_amplitude(run, [p for p in files if in_scope(p)])


MESSAGE_CHECKS = ("layers-msg", "secrets-msg", "msg")   # their one argument is the message file, not a staged path

CHECKS: dict[str, Callable[[Run, Sequence[str]], None]] = {
    "pii": check_pii,
    "secrets": check_secrets,
    "layers": lambda run, files: check_layers(run, [p for p in files if _is_claude_md(p)]),
    "layers-msg": check_layers_msg,
    "secrets-msg": check_secrets_msg,
    "msg": check_message,
    "amplitude": check_amplitude,
    "documents": check_documents,
    "config": lambda run, files: check_config(run, [p for p in files if os.path.basename(p) == "gitmem.yaml"]),
    "all": check_all,
}


def main(argv: list[str], repo: str | None = None) -> int:
    """Run hook ``argv[0]`` over the files ``argv[1:]``; returns the exit code.

    Files are relative to the current folder, or to ``repo`` (``gitmem --repo R hook``) when given.
    """
    if not argv or argv[0] not in CHECKS:
        print(f"usage: gitmem hook {{{','.join(CHECKS)}}} [FILE...]", file=sys.stderr)
        return 2
    name, files = argv[0], argv[1:]
    root, prefix = (os.path.abspath(repo), "") if repo else _repo_root()
    report = Report()
    run = Run(root, report)
    if name not in MESSAGE_CHECKS:
        files = [os.path.normpath(os.path.join(prefix, p)).replace(os.sep, "/") for p in files]
    from gitmem.base.errors import GitmemError

    try:
        CHECKS[name](run, files)
    except GitmemError as exc:  # e.g. an invalid gitmem.yaml: fail closed, say why
        report.problem("all" if name == "all" else name, None, None, exc.message)
        return report.finish({name: exc.hint} if exc.hint else None)
    return report.finish()


# --- helpers ----------------------------------------------------------------

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
