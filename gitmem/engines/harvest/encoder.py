"""The encoder command: a person's own model proposes a session's memories.

Optional. Set only per clone or per user, never in the committed gitmem.yaml
(a shared repository must not run code on whoever pulls it, nor choose where a
session is sent); the first of three set wins, the command, ``claude`` or a URL::

    git config gitmem.encoder-command "my-model-cli --task memories"        # this clone
    git config --global gitmem.encoder-command "my-model-cli --task memories"  # this user
    git config gitmem.encoder-claude claude                  # Claude Code's print mode (encoders.claude)
    git config gitmem.encoder-url http://127.0.0.1:11434/v1  # an OpenAI-compatible endpoint on loopback
    git config gitmem.encoder-model llama3.2                 # its model (for claude: an optional --model)
    git config gitmem.encoder-timeout 300                    # seconds (default 120)
    git config gitmem.encoder-chars 30000                    # of the session's turns sent (TURNS_CHARS)

The command reads one JSON object on stdin (``payload``: the session's id,
format, times, summary, signals and turns, every text redacted) and writes candidate
memories on stdout, one JSON object a line::

    {"text": "Reply in Chinese.", "kind": "preference", "importance": 0.8, "line": 12}

``text`` is required (1 to ``MAX_TEXT`` characters); ``kind`` is one of the
signal kinds (default ``fact``); ``importance`` a number from 0 to 1;
``line`` the transcript line it comes from (default: the session's last). A
session holding a secret is never sent. A run that fails, times out, writes
more than ``MAX_OUTPUT`` bytes or breaks the schema is discarded whole: the
caller falls back to the default encoder and warns. Candidates become
``Signal`` values, so they pass the same guards, redaction and dedupe
(``memorize.Batch``) as the default encoder's.

The two built-in encoders (``encoders.claude``, ``encoders.endpoint``) send
gitmem's own versioned prompt (``encoders/prompt.md``) with the same payload,
and read the same lines from the model's answer; a candidate holding a secret
is dropped with a warning.
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any, Literal, Mapping, Sequence, get_args

from gitmem.engines.harvest import durability
from gitmem.engines.harvest.signals import MAX_SIGNALS, Signal, SignalKind

if TYPE_CHECKING:
    from pathlib import Path

    from gitmem.base.config import Config
    from gitmem.base.gitio.tool import ToolRun
    from gitmem.engines.harvest.episodes import Episode
    from gitmem.engines.harvest.sources import Event

__all__ = ["CHARS_KEY", "CLAUDE_KEY", "ENDPOINT_CHARS", "KEY", "KEYS", "MAX_OUTPUT", "MAX_TEXT", "MODEL_KEY", "TIMEOUT",
           "TIMEOUT_KEY", "TOOL_ERROR_CHARS", "TURNS_CHARS", "URL_KEY", "Choice", "Encoded", "SchemaError", "choose",
           "committed_setting", "configured", "parse", "payload", "prompt", "propose"]

KEY = "gitmem.encoder-command"
TIMEOUT = 120.0  # seconds: a local or hosted model answers one session well within it
MAX_OUTPUT = 1 << 20
MAX_TEXT = 2000
_KINDS: tuple[str, ...] = get_args(SignalKind)
_FIELDS = frozenset({"text", "kind", "importance", "line"})
# Keys under which a committed gitmem.yaml might try to name a command.
_COMMITTED_KEYS = ("encoder-command", "encoder_command", "encoder")

# The built-in encoders' keys, and keys a committed gitmem.yaml might try to name one under.
CLAUDE_KEY = "gitmem.encoder-claude"
URL_KEY = "gitmem.encoder-url"
MODEL_KEY = "gitmem.encoder-model"
TIMEOUT_KEY = "gitmem.encoder-timeout"
CHARS_KEY = "gitmem.encoder-chars"
KEYS = (KEY, CLAUDE_KEY, URL_KEY)   # the encoder each names; the first one set wins
_COMMITTED_OTHER = ("encoder-url", "encoder_url", "encoder-claude", "encoder_claude", "encoder-model", "encoder_model")
MAX_TIMEOUT = 3600.0
TURN_CHARS = 2000        # of one turn sent
TOOL_ERROR_CHARS = 300   # of one tool error sent: raw tool output never becomes a memory
TURNS_CHARS = 60_000     # of all turns sent; a longer session keeps its start and its end
ENDPOINT_CHARS = 8_000   # the same for a local endpoint: its model's context may be 4,096 tokens (Ollama's default)
MAX_CHARS = 1_000_000

EncoderKind = Literal["command", "claude", "endpoint"]
_NAMES: dict[EncoderKind, str] = {"command": "encoder command", "claude": "Claude Code encoder",
                                  "endpoint": "encoder endpoint"}


class SchemaError(ValueError):
    """The encoder's output is not the JSONL of candidate memories."""


@dataclass(frozen=True)
class Choice:
    """The encoder a clone or user chose: a command, the ``claude`` executable, or a loopback URL; its model,
    timeout and budget of turns."""

    kind: EncoderKind
    value: str
    model: str = ""
    timeout: float = TIMEOUT
    chars: int = TURNS_CHARS   # of the session's turns sent at most

    @property
    def name(self) -> str:
        """What warnings call it."""
        return _NAMES[self.kind]


@dataclass(frozen=True)
class Encoded:
    """What the encoder gave: its candidates, or None and the warning saying why the default encoder is used
    (with candidates, a warning says what was dropped)."""

    signals: tuple[Signal, ...] | None
    warning: str = ""


def choose(settings: Mapping[str, str]) -> tuple[Choice | None, tuple[str, ...]]:
    """The encoder the git config of this clone or user names (``settings``: key to value), and warnings.

    ``ConfigError`` for an endpoint that is not on loopback (a session must not
    leave the machine), one without a model, or a timeout out of range.
    """
    from gitmem.base.errors import ConfigError
    from gitmem.engines.harvest.encoders import endpoint

    named = [k for k in KEYS if settings.get(k, "").strip()]
    if not named:
        return None, ()
    key, value = named[0], settings[named[0]].strip()
    warnings = tuple(f"{k} is ignored: {key} is set and wins" for k in named[1:])
    model = settings.get(MODEL_KEY, "").strip()
    kind: EncoderKind = "command" if key == KEY else "claude" if key == CLAUDE_KEY else "endpoint"
    timeout = _number(settings, TIMEOUT_KEY, TIMEOUT, 1, MAX_TIMEOUT, "a number of seconds")
    chars = int(_number(settings, CHARS_KEY, ENDPOINT_CHARS if kind == "endpoint" else TURNS_CHARS, 0, MAX_CHARS,
                        "a number of characters"))
    if kind == "endpoint":
        endpoint.target(value)
        if not model:
            raise ConfigError(f"{URL_KEY} is set but {MODEL_KEY} is not: the endpoint needs a model name",
                              hint=f"git config {MODEL_KEY} MODEL (the name the server lists, e.g. `ollama list`)")
    return Choice(kind, value, model, timeout, chars), warnings


def configured(root: Path) -> tuple[Choice | None, tuple[str, ...]]:
    """The encoder the git config of the clone at ``root`` or of its user names (``choose``), and the warnings,
    a committed gitmem.yaml naming one among them."""
    from gitmem.base import yamlio
    from gitmem.base.config import CONFIG_FILE
    from gitmem.base.errors import YamlProblem
    from gitmem.base.gitio import attempt

    try:
        warning = committed_setting(yamlio.load_safe((root / CONFIG_FILE).read_text("utf-8")))
    except (OSError, UnicodeDecodeError, YamlProblem):
        warning = None
    out = attempt(root, "config", "--get-regexp", r"^gitmem\.encoder-")
    settings = dict(line.partition(" ")[::2] for line in (out or b"").decode("utf-8", "replace").splitlines())
    choice, warned = choose(settings)
    return choice, ((warning,) if warning else ()) + warned


def _number(settings: Mapping[str, str], key: str, default: float, low: float, high: float, what: str) -> float:
    from gitmem.base.errors import ConfigError

    given = settings.get(key, "").strip()
    if not given:
        return default
    try:
        value = float(given)
    except ValueError:
        value = low - 1
    if not low <= value <= high:
        raise ConfigError(f"{key} must be {what} from {low:g} to {high:g}, not {given[:40]!r}",
                          hint=f"git config {key} {default:g}")
    return value


def prompt() -> tuple[int, str]:
    """gitmem's own prompt for the built-in encoders (``encoders/prompt.md``) and its version."""
    import re
    from importlib import resources

    text = (resources.files("gitmem.engines.harvest.encoders") / "prompt.md").read_text("utf-8")
    found = re.match(r"gitmem encoder prompt, version (\d+)\n", text)
    if found is None:
        raise ValueError("prompt.md does not start with its version line")
    return int(found.group(1)), text


def _turns(events: Sequence[Event], budget: int) -> list[tuple[Event, str, str]]:
    """(event, role sent, text) of the session's own words and its tool errors, clipped, within ``budget`` characters."""
    picked: list[tuple[Event, str, str]] = []
    for e in events:
        if e.meta or e.sidechain or not e.text.strip():
            continue
        if e.role in ("user", "assistant"):
            picked.append((e, e.role, e.text[:TURN_CHARS]))
        elif e.role == "tool_result" and e.is_error:
            picked.append((e, "tool_error", e.text[:TOOL_ERROR_CHARS]))
    total = sum(len(t) for _, _, t in picked)
    if total <= budget:
        return picked
    head: list[tuple[Event, str, str]] = []
    used = 0
    for item in picked:   # a third from the start (the request, the rules stated first), the rest from the end
        if used + len(item[2]) > budget // 3:
            break
        head.append(item)
        used += len(item[2])
    tail: list[tuple[Event, str, str]] = []
    for item in reversed(picked[len(head):]):
        if used + len(item[2]) > budget:
            break
        tail.append(item)
        used += len(item[2])
    return head + tail[::-1]


def payload(ep: Episode, signals: Sequence[Signal], cfg: Config, turns: Sequence[Event] = (),
            chars: int = TURNS_CHARS) -> bytes | None:
    """The JSON the encoder reads, every text redacted (of ``turns``, ``chars`` characters at most); None when
    a text holds a secret (never sent)."""
    from gitmem.guards.redact import redact_text

    def clean(text: str) -> str | None:
        done = redact_text(text, cfg)
        return None if done.secrets else str(done.text)

    summary = clean(ep.summary)
    items = [(s, clean(s.text)) for s in signals]
    said = [(e, role, clean(text)) for e, role, text in _turns(turns, chars)]
    if summary is None or any(text is None for _, text in items) or any(text is None for _, _, text in said):
        return None
    record = {"version": 1, "session": ep.session_id, "format": ep.format, "started": ep.started, "ended": ep.ended,
              "summary": summary, "signals": [{"text": text, "kind": s.kind, "line": s.line, "durable": s.durable}
                                              for s, text in items],
              "turns": [{"line": e.line, "role": role, "text": text} for e, role, text in said]}
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
    text = " ".join(text.split())
    floor = float(importance) if importance is not None else durability.floor(text, kind)
    return Signal(text, kind, line, True, floor)


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


def propose(choice: Choice | str, ep: Episode, signals: Sequence[Signal], last_line: int, cfg: Config,
            timeout: float | None = None, turns: Sequence[Event] = ()) -> Encoded:
    """Run the encoder over one session (``choice``, or a command line): its candidates, or None and a warning
    (the default encoder then serves). ``timeout`` overrides the choice's."""
    if isinstance(choice, str):
        choice = Choice("command", choice)
    data = payload(ep, signals, cfg, turns, choice.chars)
    if data is None:
        return Encoded(None, f"{choice.name} not run: the session holds a secret; default encoder used")
    done = _run(choice, data, choice.timeout if timeout is None else timeout)
    if not done.ok:
        return Encoded(None, f"{choice.name} failed ({done.problem}); default encoder used")
    try:
        found = parse(done.stdout if choice.kind == "command" else _unfenced(done.stdout), last_line)
    except SchemaError as exc:
        return Encoded(None, f"{choice.name} output refused ({exc}); default encoder used")
    kept = _without_secrets(found, cfg)   # a secret the model made up would refuse the whole session's commit
    dropped = len(found) - len(kept)
    return Encoded(kept, f"{choice.name}: {dropped} candidate{'s' * (dropped > 1)} holding a secret dropped"
                   if dropped else "")


def _without_secrets(found: Sequence[Signal], cfg: Config) -> tuple[Signal, ...]:
    from gitmem.guards.redact import redact_text

    return tuple(s for s in found if not redact_text(s.text, cfg).secrets)


def _run(choice: Choice, data: bytes, timeout: float) -> ToolRun:
    from gitmem.base.gitio.tool import run_tool
    from gitmem.engines.harvest.encoders import claude, endpoint

    if choice.kind == "command":
        return run_tool(choice.value, data, timeout, MAX_OUTPUT)
    _, text = prompt()
    if choice.kind == "claude":
        return claude.answer(choice.value, choice.model, f"{text}\nThe session:\n".encode("utf-8") + data,
                             timeout, MAX_OUTPUT)
    return endpoint.answer(choice.value, choice.model, text, data.decode("utf-8"), timeout, MAX_OUTPUT)


def _unfenced(answer: bytes) -> bytes:
    """A model's answer without the code fence it may wrap its lines in (```json ... ```)."""
    lines = answer.strip().splitlines()
    if len(lines) >= 2 and lines[0].startswith(b"```") and lines[-1].strip() == b"```":
        return b"\n".join(lines[1:-1])
    return answer


def committed_setting(data: Any) -> str | None:
    """The warning for a committed gitmem.yaml that names an encoder (ignored: it would run on whoever pulls,
    or send their sessions where the repository says)."""
    if not isinstance(data, dict):
        return None
    sections = [data, *(v for v in data.values() if isinstance(v, dict))]

    def names(keys: tuple[str, ...]) -> bool:
        return any(key in section for section in sections for key in keys)

    if names(_COMMITTED_KEYS):
        return (f"gitmem.yaml names an encoder command: ignored (a shared repository must not run code on whoever "
                f"pulls it); set it for this clone with `git config {KEY} COMMAND`")
    if names(_COMMITTED_OTHER):
        return (f"gitmem.yaml names an encoder: ignored (a shared repository must not choose where whoever pulls it "
                f"sends a session); set it for this clone with `git config {URL_KEY} URL` or "
                f"`gitmem install claude-code --encoder`")
    return None
