"""The encoder command: a person's own model proposes a session's memories.

Optional. Set only per clone or per user, never in the committed gitmem.yaml
(a shared repository must not run code on whoever pulls it)::

    git config gitmem.encoder-command "my-model-cli --task memories"        # this clone
    git config --global gitmem.encoder-command "my-model-cli --task memories"  # this user

The command reads one JSON object on stdin (``payload``: the session's id,
format, times, summary and signals, every text redacted) and writes candidate
memories on stdout, one JSON object a line::

    {"text": "Reply in Chinese.", "kind": "preference", "importance": 0.8, "line": 12}

``text`` is required (1 to ``MAX_TEXT`` characters); ``kind`` is one of the
signal kinds (default ``fact``); ``importance`` a number from 0 to 1;
``line`` the transcript line it comes from (default: the session's last);
``inbox`` true when the model is unsure a person would keep it (it then waits
in the harvest inbox for a person instead of going to the branch). A
session holding a secret is never sent. A run that fails, times out, writes
more than ``MAX_OUTPUT`` bytes or breaks the schema is discarded whole: the
caller falls back to the default encoder and warns. Candidates become
``Signal`` values, so they pass the same guards, redaction and dedupe
(``memorize.Batch``) as the default encoder's.
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any, Sequence, get_args

from gitmem.engines.harvest import durability
from gitmem.engines.harvest.signals import MAX_SIGNALS, Signal, SignalKind

if TYPE_CHECKING:
    from gitmem.base.config import Config
    from gitmem.engines.harvest.episodes import Episode

__all__ = ["KEY", "MAX_OUTPUT", "MAX_TEXT", "TIMEOUT", "Encoded", "committed_setting", "parse", "payload", "propose"]

KEY = "gitmem.encoder-command"
TIMEOUT = 120.0  # seconds: a local or hosted model answers one session well within it
MAX_OUTPUT = 1 << 20
MAX_TEXT = 2000
_KINDS: tuple[str, ...] = get_args(SignalKind)
_FIELDS = frozenset({"text", "kind", "importance", "line", "inbox"})
# Keys under which a committed gitmem.yaml might try to name a command.
_COMMITTED_KEYS = ("encoder-command", "encoder_command", "encoder")


class SchemaError(ValueError):
    """The command's output is not the JSONL of candidate memories."""


@dataclass(frozen=True)
class Encoded:
    """What the encoder command gave: its candidates, or None and the warning saying why the default encoder is used."""

    signals: tuple[Signal, ...] | None
    warning: str = ""


def payload(ep: Episode, signals: Sequence[Signal], cfg: Config) -> bytes | None:
    """The JSON the command reads, every text redacted; None when a text holds a secret (never sent)."""
    from gitmem.guards.redact import redact_text

    def clean(text: str) -> str | None:
        done = redact_text(text, cfg)
        return None if done.secrets else str(done.text)

    summary = clean(ep.summary)
    items = [(s, clean(s.text)) for s in signals]
    if summary is None or any(text is None for _, text in items):
        return None
    record = {"version": 1, "session": ep.session_id, "format": ep.format, "started": ep.started, "ended": ep.ended,
              "summary": summary, "signals": [{"text": text, "kind": s.kind, "line": s.line, "durable": s.durable}
                                              for s, text in items]}
    return json.dumps(record, ensure_ascii=False).encode("utf-8")


def _candidate(n: int, value: Any, last_line: int) -> Signal:
    if not isinstance(value, dict):
        raise SchemaError(f"line {n}: not a JSON object")
    extra = set(value) - _FIELDS
    if extra:
        raise SchemaError(f"line {n}: unknown field {sorted(extra)[0]!r}")
    text, kind = value.get("text"), value.get("kind", "fact")
    if not isinstance(text, str) or not text.strip() or len(text) > MAX_TEXT:
        raise SchemaError(f"line {n}: text must be a string of 1 to {MAX_TEXT} characters")
    if kind not in _KINDS:
        raise SchemaError(f"line {n}: kind must be one of {', '.join(_KINDS)}")
    importance = value.get("importance")
    if importance is not None and (isinstance(importance, bool) or not isinstance(importance, (int, float))
                                   or not 0 <= importance <= 1):
        raise SchemaError(f"line {n}: importance must be a number from 0 to 1")
    line = value.get("line", last_line)
    if isinstance(line, bool) or not isinstance(line, int) or line < 0:
        raise SchemaError(f"line {n}: line must be a whole number of 0 or more")
    unsure = value.get("inbox", False)
    if not isinstance(unsure, bool):
        raise SchemaError(f"line {n}: inbox must be true or false")
    text = " ".join(text.split())
    floor = float(importance) if importance is not None else durability.floor(text, kind)
    return Signal(text, kind, line, True, floor, unsure)


def parse(output: bytes, last_line: int) -> tuple[Signal, ...]:
    """Candidates from the command's JSONL output (blank lines skipped); ``SchemaError`` on any bad line."""
    try:
        text = output.decode("utf-8")
    except UnicodeDecodeError as exc:
        raise SchemaError(f"output is not UTF-8 ({exc.reason})") from None
    found: list[Signal] = []
    for n, raw in enumerate(text.splitlines(), 1):
        if not raw.strip():
            continue
        try:
            value = json.loads(raw)
        except (ValueError, RecursionError):
            raise SchemaError(f"line {n}: not JSON") from None
        found.append(_candidate(n, value, last_line))
        if len(found) > MAX_SIGNALS:
            raise SchemaError(f"more than {MAX_SIGNALS} candidates")
    return tuple(found)


def propose(command: str, ep: Episode, signals: Sequence[Signal], last_line: int, cfg: Config,
            timeout: float = TIMEOUT) -> Encoded:
    """Run the encoder command over one session: its candidates, or None and a warning (the default encoder then serves)."""
    from gitmem.base.gitio.tool import run_tool

    data = payload(ep, signals, cfg)
    if data is None:
        return Encoded(None, "encoder command not run: the session holds a secret; default encoder used")
    done = run_tool(command, data, timeout, MAX_OUTPUT)
    if not done.ok:
        return Encoded(None, f"encoder command failed ({done.problem}); default encoder used")
    try:
        return Encoded(parse(done.stdout, last_line))
    except SchemaError as exc:
        return Encoded(None, f"encoder command output refused ({exc}); default encoder used")


def committed_setting(data: Any) -> str | None:
    """The warning for a committed gitmem.yaml that names an encoder command (ignored: it would run on whoever pulls)."""
    if not isinstance(data, dict):
        return None
    sections = [data, *(v for v in data.values() if isinstance(v, dict))]
    if any(key in section for section in sections for key in _COMMITTED_KEYS):
        return (f"gitmem.yaml names an encoder command: ignored (a shared repository must not run code on whoever "
                f"pulls it); set it for this clone with `git config {KEY} COMMAND`")
    return None
