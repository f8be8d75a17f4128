"""The format version of a memory repository, kept in ``.gitmem/state.yaml`` (``format: N``).

Readers accept every older format: a repository made before formats were
numbered (gitmem 0.1.0) has no ``format`` key and is format 0. A repository
of a newer format than this gitmem knows is refused with a hint to upgrade,
never misread.
"""

from __future__ import annotations

from gitmem.base.errors import UsageError

STATE_FILE = ".gitmem/state.yaml"
FORMAT = 1
FORMATS = {0: "gitmem 0.1.0 (no format key)", 1: "gitmem 0.2: folders by floor, format key"}


def format_of(state: bytes | None) -> int:
    """The format of a repository whose ``.gitmem/state.yaml`` holds ``state`` (None: no such file)."""
    from gitmem.base import yamlio

    if state is None:
        return 0
    try:
        data = yamlio.load_safe(state.decode("utf-8", errors="replace"))
    except yamlio.YamlProblem as exc:
        raise UsageError(f"{STATE_FILE} is not valid YAML: {exc.problem}",
                         hint=f"restore it with `git checkout HEAD -- {STATE_FILE}`") from None
    value = data.get("format", 0) if isinstance(data, dict) else 0
    if not isinstance(value, int) or isinstance(value, bool) or value < 0:
        raise UsageError(f"{STATE_FILE}: format {value!r} is not a format number",
                         hint=f"restore it with `git checkout HEAD -- {STATE_FILE}`")
    return value


def check(state: bytes | None) -> int:
    """The repository's format, refusing one newer than this gitmem reads."""
    version = format_of(state)
    if version > FORMAT:
        raise UsageError(f"this memory repository has format {version}; this gitmem reads formats up to {FORMAT}",
                         hint="upgrade gitmem (pip install --upgrade gitmem-agent)")
    return version


def read_state(state: bytes | str | None) -> dict[str, object]:
    """The mapping of ``.gitmem/state.yaml`` (empty when missing, unreadable or not a mapping)."""
    from gitmem.base import yamlio

    if state is None:
        return {}
    text = state.decode("utf-8", errors="replace") if isinstance(state, bytes) else state
    try:
        data = yamlio.load_safe(text)
    except yamlio.YamlProblem:
        return {}
    return dict(data) if isinstance(data, dict) else {}


def counter(state: dict[str, object], key: str) -> int:
    """A count kept in ``.gitmem/state.yaml`` (streaks, the forced-review counter); 0 when missing or not
    a whole number of 0 or more (a hand edit never breaks a count)."""
    value = state.get(key)
    if isinstance(value, bool) or not isinstance(value, int):
        return 0
    return max(0, value)


def update_state(state: bytes | str | None, changes: dict[str, object]) -> str:
    """``.gitmem/state.yaml`` with ``changes`` set, its comments and other keys kept."""
    from gitmem.base import yamlio

    text = state.decode("utf-8", errors="replace") if isinstance(state, bytes) else (state or "")
    data = yamlio.load_rt(text) if text.strip() else None
    if data is None:   # no file, or comments only: keep them and add the keys
        head = text.rstrip("\n")
        return (head + "\n" if head else "") + yamlio.dump_plain(changes)
    if not isinstance(data, dict):
        raise UsageError(f"{STATE_FILE} is not a mapping", hint=f"restore it with `git checkout HEAD -- {STATE_FILE}`")
    for key, value in changes.items():
        data[key] = value
    return yamlio.dump_rt(data)
