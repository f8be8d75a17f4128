"""The commit-msg stage of gitmem's hooks: ``secrets-msg``, ``layers-msg`` and both in one (``msg``).

Their one argument is the file holding the message git will store. Kept as light
as ``gitmem.faces.githooks``: git's trailer parser starts only for a message
that says it is automated.
"""

from __future__ import annotations

TYPE_CHECKING = False
if TYPE_CHECKING:
    from collections.abc import Sequence

    from gitmem.faces.hookrun import Run

SCISSORS = "# ------------------------ >8 ------------------------"


def check_secrets_msg(run: Run, files: Sequence[str]) -> None:
    """At commit-msg: the message git will store holds no secret (comments and the part
    under the scissors line, which git drops, are not scanned)."""
    message = message_of(run, "secrets-msg", files)
    if message is None:
        return
    from gitmem.guards.pii import position

    kept = "\n".join("" if line.startswith("#") else line for line in message.split(SCISSORS, 1)[0].split("\n"))
    for f in run.findings("(commit message)", kept):
        if f.secret:
            line, col = position(kept, f.start)
            run.report.problem("secrets-msg", "commit message", line, f.kind, col=col)


def check_message(run: Run, files: Sequence[str]) -> None:
    """Both commit-msg checks in one process: no secret in the message, and the layer rule."""
    check_secrets_msg(run, files)
    check_layers_msg(run, files)


def message_of(run: Run, hook: str, files: Sequence[str]) -> str | None:
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


def check_layers_msg(run: Run, files: Sequence[str]) -> None:
    """At commit-msg: an automated commit may change Layers 1 and 4 only with an approval."""
    message = message_of(run, "layers-msg", files)
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
