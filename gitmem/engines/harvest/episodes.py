"""A transcript becomes an episode (what happened) and its document.

Pure functions over ``sources.Transcript``: no git, no files. The summary
comes from the session's title, first real request and last reply; files,
commands and errors come from every tool call, sub-agents included, because
a sub-agent's edits are the session's edits; signals (what to remember) are
the candidates of the whole exchange that the learned ``scorer`` keeps, with
the rule signals of the user's own words (``signals.find_signals``). The document is bounded
whatever the session's size, and its text can forge no heading or marker.
"""

from __future__ import annotations

import json
import re
import unicodedata
from dataclasses import dataclass
from typing import Iterable

from gitmem.base import mdio
from gitmem.engines.harvest import scorer
from gitmem.engines.harvest.content import FILE_TOOLS, SHELL_TOOLS
from gitmem.engines.harvest.signals import CJK, MAX_ITEM, MAX_SIGNALS, Signal, clip, find_signals, is_own_words, unique
from gitmem.engines.harvest.topics import MAX_TAGS, tags_of
from gitmem.engines.harvest.sources import Event, Transcript

__all__ = ["Episode", "extract", "merge", "render", "section_items", "slugify", "title"]


@dataclass(frozen=True)
class Episode:
    """A harvested session: its summary, what it touched, and its signals."""

    session_id: str
    slug: str
    format: str
    source_path: str
    cwd: str | None
    started: str | None
    ended: str | None
    summary: str
    tags: tuple[str, ...]
    files_touched: tuple[str, ...]
    commands_run: tuple[str, ...]
    errors: tuple[str, ...]
    decisions: tuple[str, ...]
    corrections: tuple[str, ...]
    signals: tuple[Signal, ...]
    user_turns: int
    assistant_turns: int
    tool_calls: int
    stems: str = ""      # the redacted stems of the user's and assistant's own words (Hebbian activation)
    cited: str = ""      # slug-like words those turns use (a pattern cited by its id)


# Bounds: an episode document stays small whatever the session's size.
MAX_SUMMARY = 1200
MAX_TITLE = 100
MAX_ERRORS = 60
_RENDER_CAPS = {"decisions": 20, "corrections": 20, "files_touched": 50, "commands_run": 40, "errors": 20}

_ASKED = "Asked: "
_OUTCOME = "Outcome: "


# --------------------------------------------------------------------------- small text helpers

def slugify(session_id: str) -> str:
    """A file-name-safe ``[a-z0-9-]`` slug of a session id."""
    ascii_id = unicodedata.normalize("NFKD", session_id).encode("ascii", "ignore").decode()
    slug = re.sub(r"[^a-z0-9]+", "-", ascii_id.lower()).strip("-")[:80].strip("-")
    return slug or "session"


# --------------------------------------------------------------------------- tools, files, errors

_PATCH_FILE = re.compile(r"^\*\*\* (?:Add|Update|Delete) File: (.+)$", re.M)
_ERROR_LINE = re.compile(
    r"^[ \t]*(?:E[ \t]+)?(?:[A-Za-z_][\w.]*(?:Error|Exception)\b(?::.*|$)|Error:.*|error(?:\[\w+\])?:.*"
    r"|fatal:.*|FATAL:?.*|ERROR[: ].*|npm ERR!.*|panic:.*)", re.M)
_ERROR_HINT = re.compile(r"rror|xception|atal|ERR|panic")
_EXIT_ONLY = re.compile(r"^(?:Error: )?Exit code \d+$")
_TOOL_ERROR_TAG = re.compile(r"</?tool_use_error>")


def _files(e: Event) -> list[str]:
    tool = (e.tool or "").lower()
    if tool in FILE_TOOLS:
        first = e.text.split("\n", 1)[0].strip()
        if first.startswith("{") and _is_json_object(e.text):
            return []  # the call named no path (its input is rendered as JSON)
        return [first] if first else []
    if tool == "apply_patch":
        return [m.strip() for m in _PATCH_FILE.findall(e.text)]
    return []


def _command(e: Event) -> str | None:
    if (e.tool or "").lower() not in SHELL_TOOLS or not e.text.strip():
        return None
    if e.text.startswith("{") and _is_json_object(e.text):
        return None  # the call carried no command (its input is rendered as JSON)
    lines = [ln for ln in e.text.strip().splitlines() if ln.strip()]
    text = lines[0].strip() + (" …" if len(lines) > 1 else "")
    return clip(text)


def _is_json_object(text: str) -> bool:
    try:
        return isinstance(json.loads(text), dict)
    except ValueError:
        return False


def _error_lines(text: str) -> list[str]:
    """Obvious error lines in an output: exception lines, ``Error:``, ``fatal:``, …"""
    head = text[:100_000]
    if not _ERROR_HINT.search(head):  # cheap literal screen before the line regex
        return []
    return [m.group(0).strip() for m in _ERROR_LINE.finditer(head)][:3]


def _tool_error(e: Event) -> str:
    """One short line for a failed tool call: its most telling line."""
    text = _TOOL_ERROR_TAG.sub("", e.text)
    lines = [ln.strip() for ln in text.splitlines() if ln.strip()]
    telling = [ln for ln in _error_lines(text) if not _EXIT_ONLY.match(ln)]
    if telling:
        line = telling[-1]
    elif lines and _EXIT_ONLY.match(lines[0]) and len(lines) > 1:
        line = f"{lines[0]}: {lines[-1]}"
    else:
        line = lines[0] if lines else "failed"
    return clip(f"{e.tool}: {line}" if e.tool else line)


def _errors(events: Iterable[Event]) -> tuple[str, ...]:
    found: list[str] = []
    for e in events:
        if e.role == "tool_result" and e.is_error:
            found.append(_tool_error(e))
        elif e.role == "system" and e.is_error:
            found.append(clip(e.text.splitlines()[0] if e.text.strip() else "error"))
        elif e.role == "tool_result" and ((e.tool or "").lower() in SHELL_TOOLS or e.tool is None):
            found.extend(clip(f"{e.tool}: {ln}" if e.tool else ln) for ln in _error_lines(e.text))
        elif is_own_words(e):
            # An error the user pasted is what the session was about.
            found.extend(clip(ln) for ln in _error_lines(e.text)[:1])
        if len(found) >= MAX_ERRORS * 2:
            break
    return unique(found)[:MAX_ERRORS]


# --------------------------------------------------------------------------- summary

def _substantial(text: str) -> bool:
    return len(CJK.findall(text)) >= 4 or len(text.split()) >= 3


def _first_request(events: list[Event]) -> str:
    prompts = [e.text for e in events if is_own_words(e) and e.text.strip()]
    request = next((t for t in prompts if _substantial(t)), prompts[0] if prompts else None)
    if request is None:
        # No typed prompt: a slash command with arguments, a sub-agent's task,
        # then a prompt the tool wrote (an expanded command, a cron job).
        users = [e for e in events if e.role == "user" and e.text.strip()]
        request = next((e.text for e in users if e.meta and e.text.startswith("/") and " " in e.text.strip()), None) \
            or next((e.text for e in users if e.sidechain and not e.meta), None) \
            or next((e.text for e in users if e.meta and not e.text.lstrip().startswith(_NOT_A_REQUEST)), "")
    return clip(_plain(request), 240)


_NOT_A_REQUEST = ("<", "/", "[Request interrupted", "Caveat:", "Continue where you left off")
_MARKDOWN_NOISE = re.compile(r"```\w*|\*\*|__|^#{1,6}\s+|^\s*\|?(?:\s*:?-{3,}:?\s*\|)+\s*$", re.M)


def _plain(text: str) -> str:
    """Text without the Markdown markup that makes no sense on one line."""
    return _MARKDOWN_NOISE.sub(" ", text)


def _summary(events: list[Event]) -> str:
    titles = [e.text for e in events if e.role == "summary" and not e.meta and e.text.strip()]
    replies = [e.text for e in events if e.role == "assistant" and not e.meta and not e.sidechain and e.text.strip()]
    if not replies:
        replies = [e.text for e in events if e.role == "assistant" and not e.meta and e.text.strip()]
    parts: list[str] = []
    if titles:
        parts.append(clip(titles[-1], 400).rstrip(".") + ".")
    if request := _first_request(events):
        parts.append(_ASKED + request)
    if replies:
        parts.append(_OUTCOME + clip(_plain(replies[-1]), 300))
    return clip(" ".join(parts), MAX_SUMMARY) if parts else "No conversation recorded."


# --------------------------------------------------------------------------- extract

def _turns(events: list[Event]) -> tuple[int, int]:
    """(user turns, assistant turns): a user turn is one real prompt (one line);
    an assistant turn is one stretch of replies and tool calls between prompts."""
    user_lines: set[int] = set()
    assistant = 0
    in_reply = False
    for e in events:
        if e.sidechain:
            continue
        if is_own_words(e):
            user_lines.add(e.line)
            in_reply = False
        elif e.role in {"assistant", "tool_call"} and not e.meta:
            if not in_reply:
                assistant += 1
            in_reply = True
    return len(user_lines), assistant


def extract(t: Transcript) -> Episode:
    """Summarize a transcript into an episode with its signals."""
    events = list(t.events)
    files = unique(f for e in events if e.role == "tool_call" for f in _files(e))
    commands = unique(c for e in events if e.role == "tool_call" and (c := _command(e)))
    signals = scorer.find_signals(t, find_signals(events))
    user_turns, assistant_turns = _turns(events)
    return Episode(
        session_id=t.session_id, slug=slugify(t.session_id), format=t.format, source_path=t.path, cwd=t.cwd,
        started=t.started, ended=t.ended, summary=_summary(events), tags=tags_of(events, files, commands),
        files_touched=files, commands_run=commands, errors=_errors(events),
        decisions=unique(s.text for s in signals if s.kind == "decision" and not s.inbox),
        corrections=unique(s.text for s in signals if s.kind == "correction" and not s.inbox),
        signals=signals, user_turns=user_turns, assistant_turns=assistant_turns,
        tool_calls=sum(1 for e in events if e.role == "tool_call"), **_activation(events),
    )


def _activation(events: list[Event]) -> dict[str, str]:
    """What Hebbian activation keeps of the conversation: stems and cited slugs of the user's and the
    assistant's own words (never tool output), taken from the redacted text."""
    from gitmem.engines.hebbian import session_terms
    from gitmem.guards.redact import strip

    own = [strip(e.text) for e in events if e.role in ("user", "assistant") and not e.meta and e.text]
    stems, cited = session_terms(own)
    return {"stems": stems, "cited": cited}


# --------------------------------------------------------------------------- render

def _md_text(text: str, limit: int = MAX_ITEM) -> str:
    """Text for one line of the body that cannot open a comment (a layer marker) or a heading."""
    return mdio.escape_item(clip(text, limit))


def _code(text: str) -> str:
    text = clip(text)
    run = max((len(m) for m in re.findall(r"`+", text)), default=0)
    fence = "`" * (run + 1)
    pad = " " if text.startswith("`") or text.endswith("`") or run else ""
    return f"{fence}{pad}{text}{pad}{fence}"


def _section(title: str, items: tuple[str, ...], cap: int, code: bool) -> str:
    lines = [f"## {title}", ""]
    if not items:
        lines.append("_None._")
    for item in items[:cap]:
        lines.append(f"- {_code(item) if code else _md_text(item)}")
    if len(items) > cap:
        lines.append(f"- … and {len(items) - cap} more")
    return "\n".join(lines)


def section_items(body: str, title: str) -> list[str]:
    """The items of the ``## title`` section of an episode body, as plain text (the line escape undone)."""
    items: list[str] = []
    inside = False
    for line in body.splitlines():
        if line.startswith("## "):
            inside = line[3:].strip() == title
        elif inside and line.startswith("- ") and not line.startswith("- … and "):
            item = line[2:]
            items.append(item[1:] if item.startswith("\\") else item)
    return items


def render(ep: Episode) -> tuple[dict[str, object], str]:
    """Front matter (plain JSON-able values) and a bounded Markdown body for an episode document."""
    front: dict[str, object] = {
        "id": ep.slug,
        "type": "episode",
        "title": title(ep.summary),
        "session": ep.session_id,
        "format": ep.format,
        "source_file": ep.source_path.replace("\\", "/").rsplit("/", 1)[-1],
        "cwd": ep.cwd,
        "date": ep.started[:10] if ep.started else None,
        "started": ep.started,
        "ended": ep.ended,
        "tags": list(ep.tags),
        "user_turns": ep.user_turns,
        "assistant_turns": ep.assistant_turns,
        "tool_calls": ep.tool_calls,
        # counts only: the lists themselves are in the body, capped
        "files_count": len(ep.files_touched),
        "errors_count": len(ep.errors),
        "signals_count": len(ep.signals),
    }
    if ep.stems:
        front["stems"] = ep.stems
    if ep.cited:
        front["cited"] = ep.cited
    summary = _md_text(ep.summary, MAX_SUMMARY)
    sections = [
        "## Summary\n\n" + summary,
        _section("Decisions", ep.decisions, _RENDER_CAPS["decisions"], code=False),
        _section("Corrections", ep.corrections, _RENDER_CAPS["corrections"], code=False),
        _section("Files touched", ep.files_touched, _RENDER_CAPS["files_touched"], code=True),
        _section("Commands", ep.commands_run, _RENDER_CAPS["commands_run"], code=True),
        _section("Errors", ep.errors, _RENDER_CAPS["errors"], code=True),
    ]
    return front, "\n\n".join(sections) + "\n"


# --------------------------------------------------------------------------- merge

def _summary_parts(summary: str) -> tuple[str, str, str]:
    """(title, request, outcome) of a summary written by ``_summary``."""
    rest, _, outcome = summary.rpartition(_OUTCOME) if _OUTCOME in summary else (summary, "", "")
    title, _, request = rest.partition(_ASKED) if _ASKED in rest else (rest, "", "")
    return title.strip(), request.strip(), outcome.strip()


def title(summary: str) -> str:
    """A one-line title for an episode: the session's own title, else its first request, else its outcome."""
    name, request, outcome = _summary_parts(summary)
    return clip(" ".join((name or request or outcome or summary).split()).rstrip("."), MAX_TITLE)


def _merge_summary(old: str, new: str) -> str:
    if old == "No conversation recorded.":
        return new
    if new == "No conversation recorded.":
        return old
    o_title, o_request, o_outcome = _summary_parts(old)
    n_title, n_request, n_outcome = _summary_parts(new)
    parts = [n_title or o_title]
    if o_request or n_request:
        parts.append(_ASKED + (o_request or n_request))
    if n_outcome or o_outcome:
        parts.append(_OUTCOME + (n_outcome or o_outcome))
    return clip(" ".join(p for p in parts if p), MAX_SUMMARY)


def merge(old: Episode, new: Episode) -> Episode:
    """Combine the episode of a session's earlier part with that of the lines added since.

    Counts add up, lists are united (order kept, duplicates dropped), the start
    and first request stay the old ones, the title and outcome become the new ones.
    """
    if old.session_id != new.session_id:
        raise ValueError(f"cannot merge episodes of different sessions: {old.session_id} and {new.session_id}")
    seen: set[tuple[str, str]] = set()
    signals: list[Signal] = []
    for s in (*old.signals, *new.signals):
        key = (s.kind, s.text.casefold())
        if key not in seen:
            seen.add(key)
            signals.append(s)
    ends = [x for x in (old.ended, new.ended) if x]
    return Episode(
        session_id=old.session_id, slug=old.slug, format=new.format or old.format,
        source_path=new.source_path or old.source_path, cwd=old.cwd or new.cwd,
        started=old.started or new.started, ended=max(ends) if ends else None,
        summary=_merge_summary(old.summary, new.summary),
        tags=unique((*old.tags, *new.tags))[:MAX_TAGS],
        files_touched=unique((*old.files_touched, *new.files_touched)),
        commands_run=unique((*old.commands_run, *new.commands_run)),
        errors=unique((*old.errors, *new.errors))[:MAX_ERRORS],
        decisions=unique((*old.decisions, *new.decisions)),
        corrections=unique((*old.corrections, *new.corrections)),
        signals=tuple(signals[:MAX_SIGNALS]),
        user_turns=old.user_turns + new.user_turns,
        assistant_turns=old.assistant_turns + new.assistant_turns,
        tool_calls=old.tool_calls + new.tool_calls,
        stems=" ".join(sorted(set(old.stems.split()) | set(new.stems.split()))),
        cited=" ".join(sorted(set(old.cited.split()) | set(new.cited.split()))),
    )
