"""Reading HEAD without pygit2 (importing it costs ~80 ms; recall must not pay it).

Only what a fresh index check needs: the git dir of a work tree and the commit
its checked-out branch points at (loose or packed ref). Anything unusual
returns None and the caller falls back to pygit2.
"""

from __future__ import annotations

from pathlib import Path


def git_dir(root: Path) -> Path | None:
    """The .git folder of a work tree (following a ``gitdir:`` file)."""
    dot = root / ".git"
    if dot.is_dir():
        return dot
    try:
        text = dot.read_text().strip()
    except OSError:
        return None
    if text.startswith("gitdir:"):
        path = Path(text[len("gitdir:"):].strip())
        return path if path.is_absolute() else (root / path).resolve()
    return None


def head_commit(gdir: Path) -> str | None:
    """The commit id HEAD resolves to, or None (unborn, detached oddities, reftable…)."""
    try:
        head = (gdir / "HEAD").read_text().strip()
    except OSError:
        return None
    if not head.startswith("ref: "):
        return head if len(head) == 40 else None
    ref = head[5:].strip()
    common = gdir
    try:
        common_text = (gdir / "commondir").read_text().strip()
        common = (gdir / common_text).resolve()
    except OSError:
        pass
    for base in (gdir, common):
        try:
            value = (base / ref).read_text().strip()
            return value if len(value) == 40 else None
        except OSError:
            continue
    try:
        for line in (common / "packed-refs").read_text().splitlines():
            if line.endswith(" " + ref) and not line.startswith("#"):
                return line.split(" ", 1)[0]
    except OSError:
        pass
    return None
