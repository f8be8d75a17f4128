"""The verbs that check: check, hook, pii."""

from __future__ import annotations

TYPE_CHECKING = False
if TYPE_CHECKING:
    from typing import Any

from gitmem.faces.console import command, emit_json, err, json_flag, out, repo_of, root_of

# --- checks ------------------------------------------------------------------------

def _check_args(p: Any) -> None:
    p.add_argument("what", choices=("config", "pii", "layers", "amplitude", "drift", "pre-commit"))
    p.add_argument("--range", dest="rev_range", metavar="A..B", help="layers: also check the commits in this range")
    p.add_argument("--pin", action="store_true", help="drift: pin HEAD as the new baseline (one commit)")
    json_flag(p)


@command("check", "validate config, PII settings, CLAUDE.md layers, the staged amplitude, drift or the "
                  "pre-commit config", _check_args)
def cmd_check(args: Any) -> int:
    from gitmem.api import checks

    if args.what == "drift":
        return _check_drift(args)
    if args.what == "config":   # the configuration may be what is broken: checked before it is loaded
        report = checks.check_config(root_of(args))
    elif args.what == "pre-commit":
        from gitmem.api import precommit

        report = precommit.check(root_of(args))
    else:
        report = repo_of(args).check(args.what, args.rev_range)
    if args.json:
        emit_json(report.to_json())
    else:
        for w in report.warnings:
            err(f"warning: {w}")
        for p in report.problems:
            out(f"{args.what}: {p}")
        if report.ok:
            out(f"{args.what}: ok")
    return 0 if report.ok else 1


def _check_drift(args: Any) -> int:
    from gitmem.api.checks import pin_command
    from gitmem.faces.console import now_of

    repo = repo_of(args)
    if args.pin:
        commit = repo.pin_drift_baseline(now_of(args))
        out(f"drift: baseline pinned in commit {commit[:12]}" if commit else "drift: HEAD is the baseline already")
        return 0
    found = repo.drift()
    if args.json:
        emit_json(found.to_json())
    else:
        out(f"drift: {found.describe()}")
        if not found.ok:
            err(f"hint: if the change is intended, pin the new baseline: `{pin_command()}`")
    return 0 if found.ok else 1


def _hook_args(p: Any) -> None:
    from gitmem.faces.githooks import AGENT_HOOKS

    p.add_argument("name", choices=("pii", "secrets", "layers", "layers-msg", "secrets-msg", "msg", "amplitude",
                                   "drift", "config", "all", "staged", *AGENT_HOOKS))
    p.add_argument("files", nargs="*")


@command("hook", "run a pre-commit hook (used by .pre-commit-config.yaml)", _hook_args)
def cmd_hook(args: Any) -> int:
    from gitmem.faces.githooks import main as hook_main

    return hook_main([args.name, *args.files], getattr(args, "repo", None))


@command("recover", "finish a write an interrupted gitmem left half done (a person's commit refuses until then)")
def cmd_recover(args: Any) -> int:
    repo = repo_of(args)
    if repo.recover():
        out("recovered: the work tree and index now match the branch; commit again")
    else:
        out("nothing to recover")
    return 0



# --- PII ---------------------------------------------------------------------------

def _pii_args(p: Any) -> None:
    # one sub-parser per action: argparse cannot place an optional FILE after
    # options when a required positional comes before it
    actions = p.add_subparsers(dest="action", metavar="ACTION", required=True)
    scan = actions.add_parser("scan", help="print findings (kind, offsets, secret or not)")
    strip = actions.add_parser("strip", help="print the text with PII replaced by typed placeholders")
    for sub in (scan, strip):
        sub.add_argument("file", nargs="?", default="-", metavar="FILE", help="a file, or - for standard input (default)")
    fmt = scan.add_mutually_exclusive_group()
    fmt.add_argument("--json", action="store_true", help="one JSON object per finding")
    fmt.add_argument("--jsonl", action="store_true", help='read {"id","text"} lines, print {"id","findings"} lines')
    show = actions.add_parser("show", help="where a refused session's finding is, its value masked")
    allow = actions.add_parser("allow", help="record a refused session's finding as not a secret (a false alarm)")
    for sub in (show, allow):
        sub.add_argument("finding", metavar="FINDING-ID", help="a finding id as `gitmem status` or harvest prints it")
        sub.add_argument("--file", metavar="PATH", help="the refused transcript, when it lies outside the session folders")
        json_flag(sub)
    allow.add_argument("--reason", default="", metavar="TEXT", help="why it is not a secret (kept with the record)")
    allow.add_argument("--shared", action="store_true",
                       help="commit the record in .gitmem/ for every clone (default: this clone only)")


def _read_input(name: str) -> str:
    import sys

    from gitmem.base.errors import UsageError

    if name == "-":
        return sys.stdin.buffer.read().decode("utf-8", errors="replace")
    from pathlib import Path

    try:
        with open(Path(name), "rb") as stream:
            _regular_only(stream, name)
            return stream.read().decode("utf-8", errors="replace")
    except (OSError, ValueError) as exc:
        raise UsageError(f"cannot read {name[:200]}: {getattr(exc, 'strerror', None) or 'not a file name'}") from None


def _allowlist(args: Any) -> Any:
    """The repository's allowlist when run inside one; none otherwise."""
    from gitmem.base.errors import NotARepoError

    try:
        repo = repo_of(args)
    except NotARepoError:
        return None
    from gitmem.api.scanning import allowlist

    return allowlist(repo.cfg)


@command("pii", "scan text for PII and secrets, or strip PII to typed placeholders", _pii_args)
def cmd_pii(args: Any) -> int:
    if args.action in ("show", "allow"):
        return _settle(args)
    allow = _allowlist(args)
    if args.action == "scan":
        with _open_input(args.file) as stream:
            return _scan(stream, args, allow)
    import sys

    from gitmem.api import scanning

    sys.stdout.write(scanning.strip(_read_input(args.file), allow))
    return 0


def _settle(args: Any) -> int:
    """``pii show`` and ``pii allow``: a person looks at a false alarm and settles it."""
    from gitmem.faces.console import now_of

    repo = repo_of(args)
    if args.action == "show":
        shown = repo.pii_show(args.finding, args.file)
        if args.json:
            emit_json(shown.to_json())
            return 0
        out(f"{shown.id}: {shown.kind} in {shown.file}, line {shown.line}")
        out(f"  {shown.context}")
        if shown.allowable:
            out(f"not a secret? gitmem pii allow {shown.id} --reason TEXT   (add --shared for every clone)")
        else:
            out("a key in a vendor's format: revoke it, delete it from the transcript, then harvest again")
        return 0
    done = repo.pii_allow(args.finding, args.reason, args.shared, now_of(args), args.file)
    if args.json:
        emit_json(done.to_json())
    else:
        where = f"committed {done.commit[:12]}" if done.commit else ("already committed" if done.shared else "this clone")
        out(f"allowed {done.id} ({done.kind} is not a secret; {where}); the next harvest of the session accepts it")
    return 0


def _open_input(name: str) -> Any:
    """The input as a binary stream (standard input left open), or a UsageError naming it."""
    import contextlib
    import sys

    from gitmem.base.errors import UsageError

    if name == "-":
        return contextlib.nullcontext(sys.stdin.buffer)
    try:
        stream = open(name, "rb")
    except (OSError, ValueError) as exc:   # ValueError: a name no file system can hold (a NUL, a lone surrogate)
        raise UsageError(f"cannot read {name[:200]}: {getattr(exc, 'strerror', None) or 'not a file name'}") from None
    _regular_only(stream, name)
    return stream


def _regular_only(stream: Any, name: str) -> None:
    """Close ``stream`` and raise a UsageError unless it is a regular file: a device such as /dev/zero never ends."""
    import os
    import stat

    from gitmem.base.errors import UsageError

    if not stat.S_ISREG(os.fstat(stream.fileno()).st_mode):
        stream.close()
        raise UsageError(f"{name[:200]} is not a regular file (a device, a pipe or a folder)",
                         hint=f"to scan a stream, pipe it in with a bound: head -c 10M {name[:200]} | gitmem pii scan -")


def _scan(stream: Any, args: Any, allow: Any) -> int:
    """Scan a stream a window at a time (or a JSONL stream a line at a time): never read whole."""
    import json

    from gitmem.api import scanning

    if getattr(args, "jsonl", False):
        bad = secrets = 0
        for n, raw in scanning.lines(stream, LINE_CAP, f"{args.file}"):
            line = raw.decode("utf-8", errors="replace")
            if not line.strip():
                continue
            try:
                rec = json.loads(line)
                item_id, body = rec["id"], rec["text"]
                text = body if isinstance(body, str) else json.dumps(body)
            except (ValueError, KeyError, TypeError, RecursionError):
                err(f"gitmem: error: line {n}: expected a JSON object with \"id\" and \"text\"; skipped")
                bad += 1
                continue
            found = scanning.scan(text, allow)
            secrets += any(f.secret for f in found)
            out(json.dumps({"id": item_id, "findings": [scanning.finding_json(f, text[f.start:f.end]) for f in found]},
                           ensure_ascii=False))
        return 1 if bad or secrets else 0
    count = secret = 0
    for f in scanning.scan_stream(stream, allow):
        count += 1
        secret |= f.secret
        if getattr(args, "json", False):
            out(json.dumps(scanning.finding_json(f, f.value)))
        else:   # the id names the finding for `gitmem purge --finding ID`
            out(f"{f.kind} at line {f.line}, column {f.column}\t{'secret' if f.secret else 'pii'}\t"
                f"{scanning.finding_id(f.kind, f.value)}")
    if not getattr(args, "json", False):
        out(f"{count} findings")
    return 1 if secret else 0   # like a linter: a secret fails the run


LINE_CAP = 8 << 20   # one {"id", "text"} record of `pii scan --jsonl`

