"""``gitmem dashboard``: the memory and its review loop in one self-contained HTML file (issue 12 item 5)."""

from __future__ import annotations

TYPE_CHECKING = False
if TYPE_CHECKING:
    from typing import Any

from gitmem.faces.console import command, emit_json, now_of, out, repo_of

DEFAULT_FILE = "gitmem-dashboard.html"


def _args(p: Any) -> None:
    p.add_argument("-o", "--output", metavar="FILE", default=None,
                   help=f"where to write the page (default: {DEFAULT_FILE} in the clone's state folder, .git/gitmem/)")
    p.add_argument("--open", action="store_true", help="open the page in the system's web browser")
    p.add_argument("--json", action="store_true",
                   help="print the dashboard's figures as JSON instead of writing the page (with -o: write them to FILE)")


def default_path(root: Any) -> Any:
    """Where the page goes unless ``-o`` says: the clone's state folder, out of the work tree and never committed."""
    from gitmem.api.clone import state_dir

    return state_dir(root) / DEFAULT_FILE


def write_page(path: Any, page: str) -> None:
    """Write ``page`` to ``path`` whole or not at all (a temporary file renamed over it)."""
    from pathlib import Path

    from gitmem.api.clone import write_file
    from gitmem.base.errors import UsageError

    target = Path(path)
    if target.is_dir():
        raise UsageError(f"{target} is a folder", hint=f"name a file: gitmem dashboard -o {target / DEFAULT_FILE}")
    try:
        write_file(target, page.encode("utf-8"))   # as is: the policy hashes these exact bytes
    except OSError as exc:
        raise UsageError(f"cannot write {target}: {exc.strerror or exc}",
                         hint="pick a folder you can write to with -o FILE") from None


@command("dashboard", "write the memory's dashboard: one HTML file, no network", _args)
def cmd_dashboard(args: Any) -> int:
    from pathlib import Path

    from gitmem.faces import dashboard

    repo = repo_of(args)
    data = repo.dashboard_data(now_of(args))
    if args.json:   # the figures alone, for scripts: no page is written
        if not args.output:
            emit_json(data)
            return 0
        import json

        text = json.dumps(data, ensure_ascii=False, sort_keys=True, allow_nan=False) + "\n"
        path = Path(args.output).expanduser().absolute()
        write_page(path, text)
        emit_json({"path": str(path), "bytes": len(text.encode("utf-8"))})
        return 0
    page = dashboard.render(data)
    path = Path(args.output).expanduser().absolute() if args.output else default_path(repo.root)
    write_page(path, page)
    out(f"wrote {path} ({len(page.encode('utf-8')) // 1024 + 1} KiB)")
    if args.open:
        import webbrowser

        if not webbrowser.open(path.as_uri()):
            out(f"no browser could be started: open {path.as_uri()} yourself")
    return 0
