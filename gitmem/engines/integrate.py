"""Wiring gitmem into an agent's own files: Claude Code's settings, a project's CLAUDE.md, a crontab.

Pure text and value work: each function takes what a file holds and returns what it should hold
(or raises a ``UsageError`` saying why it cannot), so ``install`` and ``cron`` can show, compare and
write atomically, and nothing of the person's own is lost: other keys, other hooks, their order,
other crontab lines. gitmem recognises its own entries by their command (``gitmem ... hook NAME``),
so installing twice is installing once and removing takes out only what gitmem added.
"""

from __future__ import annotations

import copy
import json
import re
import shlex
from collections.abc import Mapping, Sequence

from gitmem.base.errors import UsageError

SESSION_START = "SessionStart"
SESSION_END = "SessionEnd"
ACTIONS = {SESSION_START: "session-start", SESSION_END: "session-end"}
"""The Claude Code events gitmem hooks, and the ``gitmem hook`` action each runs."""

START_MATCHER = "startup|resume|clear|compact|fork"   # fork: Claude Code 2.1.214+ (older ones say resume)
END_TIMEOUT = 10   # seconds: enough to hand the harvest to a background process on a slow, loaded machine

CRON_MARK = "# gitmem: harvest new agent sessions (gitmem cron install; remove with gitmem cron remove)"

_SETTINGS_HINT = "fix the file by hand (Claude Code reads it as JSON); gitmem does not overwrite it"


# --- Claude Code settings ---------------------------------------------------------------------

def hook_command(python: str, repo: str, action: str) -> str:
    """The shell command of a hook: this interpreter runs gitmem on this memory repository."""
    return f"{shlex.quote(python)} -m gitmem hook {action} --repo {shlex.quote(repo)}"


def is_ours(command: object, action: str) -> bool:
    """Whether a hook command runs ``gitmem ... hook ACTION`` (whatever interpreter or repository it names)."""
    if not isinstance(command, str):
        return False
    try:
        words = shlex.split(command)
    except ValueError:
        return False
    names_gitmem = any(w == "gitmem" or w.endswith("/gitmem") for w in words)
    return names_gitmem and any(words[i:i + 2] == ["hook", action] for i in range(len(words) - 1))


def parse_settings(text: str, name: str = "settings") -> dict[str, object]:
    """A Claude Code settings file as a dict; empty text is ``{}``. Invalid JSON, a duplicated key
    (which a rewrite would silently drop) or a top level that is not an object raise ``UsageError``."""
    if not text.strip():
        return {}

    def pairs(items: list[tuple[str, object]]) -> dict[str, object]:
        seen: dict[str, object] = {}
        for key, value in items:
            if key in seen:
                raise UsageError(f"{name}: the key {key!r} appears twice in one object", hint=_SETTINGS_HINT)
            seen[key] = value
        return seen

    try:
        data = json.loads(text, object_pairs_hook=pairs)
    except json.JSONDecodeError as exc:
        raise UsageError(f"{name} is not valid JSON: {exc.msg} at line {exc.lineno}, column {exc.colno}",
                         hint=_SETTINGS_HINT) from None
    except RecursionError:
        raise UsageError(f"{name} nests too deeply to be read", hint=_SETTINGS_HINT) from None
    if not isinstance(data, dict):
        raise UsageError(f"{name} does not hold a JSON object at its top", hint=_SETTINGS_HINT)
    return data


def dump_settings(data: Mapping[str, object], like: str = "") -> str:
    """``data`` as JSON text, indented as ``like`` (the file's former text) was, with a final newline."""
    match = re.match(r"\s*[{\[][ \t]*\r?\n([ \t]+)\S", like)
    indent: int | str = 2
    if match:
        indent = match[1] if "\t" in match[1] else len(match[1])
    return json.dumps(data, indent=indent, ensure_ascii=False) + "\n"


def _events(data: dict[str, object], name: str) -> dict[str, object] | None:
    hooks = data.get("hooks")
    if hooks is None:
        return None
    if not isinstance(hooks, dict):
        raise UsageError(f"{name}: \"hooks\" is not an object", hint=_SETTINGS_HINT)
    return hooks


def _groups(hooks: dict[str, object], event: str, name: str) -> list[object] | None:
    groups = hooks.get(event)
    if groups is None:
        return None
    if not isinstance(groups, list):
        raise UsageError(f"{name}: \"hooks\".{event} is not a list", hint=_SETTINGS_HINT)
    return groups


def _handlers(group: object) -> list[object]:
    if isinstance(group, dict) and isinstance(group.get("hooks"), list):
        handlers: list[object] = group["hooks"]
        return handlers
    return []


def claude_handlers(python: str, repo: str) -> dict[str, dict[str, object]]:
    """gitmem's handler for each event: session-start prints the core, session-end hands the harvest off."""
    return {SESSION_START: {"type": "command", "command": hook_command(python, repo, ACTIONS[SESSION_START])},
            SESSION_END: {"type": "command", "command": hook_command(python, repo, ACTIONS[SESSION_END]),
                          "timeout": END_TIMEOUT}}


def add_hooks(data: Mapping[str, object], handlers: Mapping[str, dict[str, object]],
              name: str = "settings") -> dict[str, object]:
    """``data`` with gitmem's ``handlers`` (by event): an entry of gitmem's already there is replaced where it
    stands (so a second install changes nothing), else a new matcher group is appended to the event."""
    out = copy.deepcopy(dict(data))
    hooks = _events(out, name)
    if hooks is None:
        hooks = out["hooks"] = {}
    for event, handler in handlers.items():
        action = ACTIONS[event]
        groups = _groups(hooks, event, name)
        if groups is None:
            groups = hooks[event] = []
        placed = False
        for group in groups:
            items = _handlers(group)
            for i, item in enumerate(items):
                if isinstance(item, dict) and is_ours(item.get("command"), action):
                    if placed:
                        items[i] = None   # a duplicate of ours: dropped below
                    else:
                        items[i] = dict(handler)
                        placed = True
            items[:] = [item for item in items if item is not None]
        groups[:] = [g for g in groups if not (isinstance(g, dict) and g.get("hooks") == [])]
        if not placed:
            fresh: dict[str, object] = {"matcher": START_MATCHER} if event == SESSION_START else {}
            fresh["hooks"] = [dict(handler)]
            groups.append(fresh)
    return out


def remove_hooks(data: Mapping[str, object], name: str = "settings") -> dict[str, object]:
    """``data`` without gitmem's handlers; a group, an event or ``hooks`` left empty by that goes too."""
    out = copy.deepcopy(dict(data))
    hooks = _events(out, name)
    if hooks is None:
        return out
    for event, action in ACTIONS.items():
        groups = _groups(hooks, event, name)
        if not groups:
            continue
        emptied: list[object] = []
        for group in groups:
            items = _handlers(group)
            kept = [h for h in items if not (isinstance(h, dict) and is_ours(h.get("command"), action))]
            if len(kept) != len(items):
                items[:] = kept
                if not kept:
                    emptied.append(group)
        groups[:] = [g for g in groups if not any(g is e for e in emptied)]
        if not groups and emptied:
            del hooks[event]
    if not hooks and data.get("hooks"):
        del out["hooks"]
    return out


def installed(data: Mapping[str, object]) -> dict[str, list[str]]:
    """The commands of gitmem's handlers found in ``data``, by event (for a report)."""
    found: dict[str, list[str]] = {}
    hooks = data.get("hooks")
    if not isinstance(hooks, dict):
        return found
    for event, action in ACTIONS.items():
        groups = hooks.get(event)
        for group in groups if isinstance(groups, list) else []:
            for h in _handlers(group):
                if isinstance(h, dict) and is_ours(h.get("command"), action):
                    found.setdefault(event, []).append(str(h["command"]))
    return found


# --- CLAUDE.md import -------------------------------------------------------------------------

def import_line(relative_to_home: str) -> str:
    """The ``@~/...`` line importing a file given by its path under the home folder."""
    path = relative_to_home.replace("\\", "/")
    if not path or path.startswith("/") or any(part == ".." for part in path.split("/")):
        raise UsageError(f"not a path under the home folder: {relative_to_home!r}")
    if re.search(r"\s", path):
        raise UsageError(f"an @ import cannot name a path with spaces: ~/{path}",
                         hint="move the memory repository to a folder without spaces in its path")
    return f"@~/{path}"


def add_import(text: str, line: str) -> str:
    """``text`` (a CLAUDE.md) with ``line`` as a line of its own at its end, unless it is there already."""
    if line in text.splitlines():
        return text
    if text and not text.endswith("\n"):
        text += "\n"
    return text + ("\n" if text.strip() and not text.endswith("\n\n") else "") + line + "\n"


def remove_import(text: str, line: str) -> str:
    """``text`` without the lines that are exactly ``line`` (and the blank line ``add_import`` put before it)."""
    lines = text.split("\n")
    out: list[str] = []
    for current in lines:
        if current.rstrip("\r") == line:
            if out and out[-1] == "" and len(out) > 1:
                out.pop()
            continue
        out.append(current)
    result = "\n".join(out)
    return result if result.strip() else ""


# --- crontab ----------------------------------------------------------------------------------

def schedule(every: str) -> str:
    """The cron schedule of ``every``: ``Nm`` (N in 1..59) runs every N minutes, ``Nh`` (N in 1..24) every N hours."""
    hint = "give minutes as Nm (1m to 59m) or hours as Nh (1h to 24h), e.g. --every 30m"
    match = re.fullmatch(r"([0-9]{1,3})([mh])", every.strip())
    if not match:
        raise UsageError(f"--every {every!r} is not an interval", hint=hint)
    n, unit = int(match[1]), match[2]
    if unit == "m" and 1 <= n <= 59:
        return "* * * * *" if n == 1 else f"*/{n} * * * *"
    if unit == "h" and 1 <= n <= 24:
        return "0 * * * *" if n == 1 else "0 0 * * *" if n == 24 else f"0 */{n} * * *"
    raise UsageError(f"--every {every!r} is out of range", hint=hint)


def cron_command(argv: Sequence[str], log: str) -> str:
    """A crontab command running ``argv``, its output appended to ``log``; ``%`` escaped (cron reads it as a newline).
    A word holding a line break or another control character is refused: quoted or not, cron would end the
    entry there and read the rest as a line of its own."""
    for word in (*argv, log):
        if any(ord(c) < 32 or c == "\x7f" for c in word):
            raise UsageError(f"cannot put {word.encode('unicode_escape').decode('ascii')[:120]!r} in a crontab line: "
                             "it holds a line break or another control character",
                             hint="move the repository to a path without control characters, or run "
                                  "`gitmem hook cron` from a scheduler of your own")
    command = " ".join(shlex.quote(a) for a in argv) + f" >> {shlex.quote(log)} 2>&1"
    return command.replace("%", "\\%")


def is_our_cron_line(line: str) -> bool:
    """Whether a crontab line is gitmem's mark or gitmem's own entry."""
    return line.strip() == CRON_MARK or (" -m gitmem " in line and " hook cron" in line)


def add_cron(text: str, when: str, command: str) -> str:
    """``text`` (a crontab) with gitmem's one entry (its mark comment, then ``when command``), replacing an older one."""
    kept = remove_cron(text)
    if kept and not kept.endswith("\n"):
        kept += "\n"
    return kept + CRON_MARK + "\n" + f"{when} {command}\n"


def remove_cron(text: str) -> str:
    """``text`` without gitmem's entry and its mark; every other line as it was."""
    lines = text.splitlines(keepends=True)
    return "".join(line for line in lines if not is_our_cron_line(line))


# --- OpenClaw -----------------------------------------------------------------------------------

CORE_FILE = "HIPPOCAMPUS_CORE.md"
_OPENCLAW_HINT = "fix openclaw.json by hand (gitmem reads plain JSON and never overwrites a file it cannot read)"


def _openclaw_search(data: dict[str, object], name: str, make: bool) -> dict[str, object] | None:
    """``agents.defaults.memorySearch`` of an openclaw.json (made on the way when ``make``)."""
    node: dict[str, object] = data
    for key in ("agents", "defaults", "memorySearch"):
        child = node.get(key)
        if child is None:
            if not make:
                return None
            child = {}
            node[key] = child
        if not isinstance(child, dict):
            raise UsageError(f"{name}: {key!r} is not an object", hint=_OPENCLAW_HINT)
        node = child
    return node


def add_openclaw(data: Mapping[str, object], core: str, name: str = "openclaw.json") -> dict[str, object]:
    """``data`` (an openclaw.json) with ``core`` in ``agents.defaults.memorySearch.extraPaths``, once:
    OpenClaw's memory_search then reads the memory's core file (what seed 003 wires)."""
    out = copy.deepcopy(dict(data))
    search = _openclaw_search(out, name, make=True)
    assert search is not None
    paths = search.get("extraPaths", [])
    if not isinstance(paths, list):
        raise UsageError(f"{name}: memorySearch.extraPaths is not a list", hint=_OPENCLAW_HINT)
    if core not in paths:
        search["extraPaths"] = [*paths, core]
    return out


def remove_openclaw(data: Mapping[str, object], core: str, name: str = "openclaw.json") -> dict[str, object]:
    """``data`` without ``core`` in ``memorySearch.extraPaths`` (and without the objects only it needed)."""
    out = copy.deepcopy(dict(data))
    search = _openclaw_search(out, name, make=False)
    paths = search.get("extraPaths") if search is not None else None
    if search is None or not isinstance(paths, list) or core not in paths:
        return out
    kept = [p for p in paths if p != core]
    if kept:
        search["extraPaths"] = kept
    else:
        del search["extraPaths"]
    for chain in (("agents", "defaults", "memorySearch"), ("agents", "defaults"), ("agents",)):
        node: object = out
        for key in chain[:-1]:
            node = node.get(key) if isinstance(node, dict) else None
        if isinstance(node, dict) and node.get(chain[-1]) == {}:
            del node[chain[-1]]
    return out
