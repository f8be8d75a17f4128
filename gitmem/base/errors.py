"""Errors raised by gitmem.

Every error a user can cause is a ``GitmemError``; its message says what
happened and its ``hint`` says what to do next. The CLI maps them to exit
code 1 and prints ``gitmem: error: …`` then ``hint: …``.

    GitmemError
    ├── UsageError            bad arguments or input the user can fix
    │   ├── ArgumentError     command-line arguments that do not fit together (exit 2, as argparse's)
    │   ├── ValidationError   a value out of range, a bad id, content too big
    │   └── DocumentError     a memory file that cannot be parsed (names file and line)
    ├── ConfigError           gitmem.yaml is invalid
    ├── NotARepoError         no memory repository found
    ├── NotFoundError         no memory, pattern or ref with that name
    ├── SecurityError         a path outside the sandbox, a symlink leading out
    ├── SecretError           a secret was found; the write is aborted
    ├── ConflictError         uncommitted edits in the way, or a lost race after retries
    │   ├── CasFailed         the branch moved while a commit was built (retried by the write path)
    │   ├── IndexLocked       another program holds a work tree's index.lock (waited for, never deleted)
    │   └── CommitInProgress  a person's `git commit` is running in the work tree (waited for)
    ├── CheckFailed           a check (layers, amplitude, pii config) found problems
    ├── GitError              a git command failed or git could not be run
    ├── IndexCorrupt          the derived recall index is unusable (callers rebuild it from git)
    └── YamlProblem           a YAML text that does not load (line within that text)
"""

from __future__ import annotations


class GitmemError(Exception):
    """Base of every error gitmem reports to a user."""

    def __init__(self, message: str, hint: str | None = None) -> None:
        super().__init__(message)
        self.message = message
        self.hint = hint

    def __str__(self) -> str:
        return self.message


class UsageError(GitmemError):
    """Arguments or input the user can correct."""


class ArgumentError(UsageError):
    """Command-line arguments that do not fit (a count out of range, options that exclude each other):
    the command exits 2, as for the errors argparse finds itself."""


class ValidationError(UsageError):
    """A value that the guard refuses: size, id, range, encoding."""


class DocumentError(UsageError):
    """A document that cannot be parsed; the message names the file and line."""

    def __init__(self, path: str, line: int | None, problem: str, hint: str | None = None) -> None:
        where = f"{path}:{line}" if line else path
        super().__init__(f"{where}: {problem}", hint)
        self.path = path
        self.line = line
        self.problem = problem


class ConfigError(GitmemError):
    """gitmem.yaml does not parse or holds values out of range."""


class NotARepoError(GitmemError):
    """No memory repository at the given place."""


class NotFoundError(GitmemError):
    """No memory, pattern, branch or tag of that name."""


class SecurityError(GitmemError):
    """A write that would leave the sandbox."""


class SecretError(GitmemError):
    """A secret in content about to be written; nothing was written.

    ``findings`` holds (kind, location) pairs, never the secret itself.
    """

    def __init__(self, message: str, findings: list[tuple[str, str]], hint: str | None = None) -> None:
        super().__init__(message, hint)
        self.findings = findings


class ConflictError(GitmemError):
    """A person's uncommitted edits are in the way, or a write lost every retry."""


class CheckFailed(GitmemError):
    """A check found problems; ``problems`` lists them one per line."""

    def __init__(self, message: str, problems: list[str], hint: str | None = None) -> None:
        super().__init__(message, hint)
        self.problems = problems


class CasFailed(ConflictError):
    """The branch moved while we built the commit; rebuild and retry.

    Raised by the compare-and-swap of a ref; the write path retries, and only
    a writer that loses every retry reports a ConflictError to the user.
    """

    def __init__(self, ref: str) -> None:
        super().__init__(f"{ref} moved while a commit was being built", hint="run the command again")
        self.ref = ref


class IndexLocked(ConflictError):
    """Another program holds a work tree's ``index.lock`` (a ``git commit`` in progress, or one
    that crashed); gitmem waits for it and never deletes it. ``path`` is the lock file."""

    def __init__(self, path: str) -> None:
        super().__init__(f"{path} is held by another program (a git command still running, "
                         "or one that crashed), so the work tree cannot follow a write; nothing was written",
                         hint=f"finish or close that git command; if none is running, remove the lock: rm '{path}'")
        self.path = path


class CommitInProgress(ConflictError):
    """A person's ``git commit`` (process ``pid``) runs in the work tree a write would move."""

    def __init__(self, pid: int) -> None:
        super().__init__(f"a `git commit` (process {pid}) is still running in this work tree; nothing was written",
                         hint="finish that commit (is its editor open?), then run the command again")
        self.pid = pid


class GitError(GitmemError):
    """A git command failed (the message quotes git) or git could not be started."""


class IndexCorrupt(GitmemError):
    """The recall index file is not a valid index; rebuild it from git.

    The index is derived data, so its callers answer this by deleting the
    file and rebuilding it; ``path`` and ``problem`` say what was found.
    """

    def __init__(self, path: str, problem: str) -> None:
        super().__init__(f"recall index {path} is unusable: {problem}", hint="gitmem index rebuild")
        self.path = path
        self.problem = problem


class YamlProblem(GitmemError):
    """A YAML text that does not load; ``line`` is 1-based within that text.

    Readers of documents turn it into a ``DocumentError`` naming the file.
    """

    def __init__(self, problem: str, line: int | None, hint: str | None = None) -> None:
        super().__init__(problem, hint or "fix the YAML syntax")
        self.problem = problem
        self.line = line
