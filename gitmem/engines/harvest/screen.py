"""The screens of a transcript: a secret anywhere rejects the whole session; a file
that is not a transcript of the format asked for is refused; a session with
no conversation writes nothing.

Every string of every complete record is scanned (user text, tool input,
tool output, attachments, any field of any record), not only the text that
becomes events, so nothing the reader leaves out can hide a key. Two kinds
of string carry no typed text and are skipped: a thinking block's
``signature`` and the base64 ``data`` of an image or other binary payload.
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any, Callable, Mapping, MutableMapping, NamedTuple, Sequence

from gitmem.base.errors import UsageError
from gitmem.engines.harvest.content import UNBOUNDED, strings
from gitmem.engines.harvest.sources import Transcript, detect_format

if TYPE_CHECKING:
    from gitmem.guards.pii import Allowlist, Finding

# A session's scans: each distinct string's findings (under the session's allowlist), scanned once;
# a record repeats its session id, folder and version, and the redaction reuses the screen's scans.
Scans = MutableMapping[str, "list[Finding]"]

__all__ = ["ALLOWABLE_KINDS", "Flagged", "Found", "Scans", "Screened", "allowable", "check_transcript", "find_secrets",
           "has_conversation", "scanned_strings", "screen_session", "secrets_in", "secrets_of"]

# Shorter strings cannot hold a secret of any kind the scanner knows.
_MIN_LEN = 8


def _is_media(record: Mapping[str, Any]) -> bool:
    """An image or other binary payload block: its base64 ``data`` holds no typed text."""
    return record.get("type") in ("image", "base64", "document") or "mimeType" in record or "media_type" in record


def _no_text(owner: Mapping[str, Any], key: str) -> bool:
    return key == "signature" or (key == "data" and _is_media(owner))


def scanned_strings(record: Any) -> list[str]:
    """The strings of one JSON record that the secret scan reads, in document order."""
    return [s for s in strings(record, _no_text, UNBOUNDED) if len(s) >= _MIN_LEN]


def find_secrets(path: Path, allow: Allowlist | None = None) -> list[str]:
    """``"<kind> at line N"`` for each secret kind in each complete record of the file.

    A line that is not JSON is not scanned: the reader skips it too, so
    nothing of it can reach memory.
    """
    return [f"{kind} at line {n}" for n, kind in dict.fromkeys((f.line, f.kind) for f in secrets_in(path, allow))]


class Found(NamedTuple):
    """One secret in a transcript file: its record's line, its kind and the text found (kept in memory only)."""

    part: int     # 0: the session's main file; n: its n-th sub-agent file
    line: int
    kind: str
    value: str


def secrets_in(path: Path, allow: Allowlist | None = None, part: int = 0) -> list[Found]:
    """Every distinct secret of every complete record of the file, by line and kind."""
    found: list[Found] = []
    memo: Scans = {}
    with path.open("rb") as fh:
        for n, raw in enumerate(fh, 1):
            try:
                record = json.loads(raw)
            except (ValueError, RecursionError):
                continue
            found += _secrets_of_record(record, allow, part, n, memo)
    return found


def secrets_of(records: Sequence[tuple[int, Any]], allow: Allowlist | None = None, part: int = 0,
               scans: Scans | None = None) -> list[Found]:
    """``secrets_in`` over records already read (``reader.load``): the file is not read again. ``scans``
    keeps each distinct string's findings, for the next file of the session and for its redaction."""
    found: list[Found] = []
    memo: Scans = {} if scans is None else scans
    for n, record in records:
        found += _secrets_of_record(record, allow, part, n, memo)
    return found


def _secrets_of_record(record: Any, allow: Allowlist | None, part: int, line: int,
                       scans: Scans | None = None) -> list[Found]:
    from gitmem.guards import pii

    memo: Scans = {} if scans is None else scans
    seen: set[tuple[str, str]] = set()
    for t in scanned_strings(record):
        got = memo.get(t)
        if got is None:
            got = memo[t] = pii.scan(t, allow)
        seen.update((f.kind, t[f.start : f.end]) for f in got if f.secret)
    return [Found(part, line, kind, value) for kind, value in sorted(seen)]


# The kinds a person may settle as "not a secret": those found by the words
# around a value. A vendor-format key (AWS, GitHub, OpenAI, Stripe test keys
# included, private keys, JWTs) is a secret whatever anyone says.
ALLOWABLE_KINDS = frozenset({"env_secret", "generic_api_key", "url_credentials"})


def allowable(kind: str, value: str) -> bool:
    """Whether a finding may be settled as a false alarm: a keyword finding whose value holds no vendor token."""
    if kind not in ALLOWABLE_KINDS:
        return False
    from gitmem.guards.pii.vendors import vendor_token

    import re

    return not any(vendor_token(part) for part in re.split(r"[\s:@/=\"',;]+", value) if len(part) >= 8)


@dataclass(frozen=True)
class Flagged:
    """A secret that refused a session, as a person sees it: a short stable id, where it is, never the value.

    ``file`` is the transcript as this run knows it ("" when the clone did not
    keep its path: a path that names its user is kept as a salted hash only);
    ``with_file`` when ``pii show`` / ``pii allow`` need ``--file`` to find it
    (it lies outside the configured session folders).
    """

    id: str
    kind: str
    file: str
    line: int
    allowable: bool
    with_file: bool = False

    def commands(self) -> tuple[str, ...]:
        """The exact commands that show the finding and, when it may be one, settle it as a false alarm."""
        import shlex

        where = f" --file {shlex.quote(self.file) if self.file else 'PATH'}" if self.with_file else ""
        show = f"gitmem pii show {self.id}{where}"
        return (show, f"gitmem pii allow {self.id}{where} --reason TEXT") if self.allowable else (show,)

    def to_json(self) -> dict[str, object]:
        """The finding as ``--json`` prints it."""
        return {"id": self.id, "kind": self.kind, "file": self.file, "line": self.line, "allowable": self.allowable,
                "with_file": self.with_file, "commands": list(self.commands())}


@dataclass(frozen=True)
class Screened:
    """What screening a session's files found: the secrets that refuse it, and the settled values to mask."""

    found: tuple[Found, ...]
    masked: tuple[tuple[str, str], ...] = ()   # (kind, value) settled as not secret: replaced before anything is derived

    @property
    def secrets(self) -> list[str]:
        """``"<kind> at line N"`` (``… of sub-agent file n``) for each secret that refuses the session."""
        out = dict.fromkeys((f.part, f.line, f.kind) for f in self.found)
        return [f"{kind} at line {n}" + (f" of sub-agent file {part}" if part else "") for part, n, kind in out]

    def mask(self, text: str) -> str:
        """``text`` with every settled value replaced by its kind's placeholder."""
        from gitmem.guards import pii

        for kind, value in self.masked:
            if value in text:
                text = text.replace(value, pii.placeholder(kind))
        return text


Judge = Callable[[str, str], bool]   # (kind, value): settled by a person as not a secret


def screen_session(path: Path, parts: Sequence[Path], allow: Allowlist | None, settled: Judge | None = None,
                   loaded: Mapping[Path, Sequence[tuple[int, Any]]] | None = None,
                   scans: Scans | None = None) -> Screened:
    """Screen a session's main file and its sub-agent files; a finding ``settled`` allows is masked, not refused.

    A file whose records ``loaded`` holds (read once by ``reader.load``) is
    screened from them; any other file is read here. ``scans`` collects each
    distinct string's findings (see ``Scans``). Only an allowable finding
    can be settled: a vendor-format key refuses the session even when someone
    recorded it as allowed.
    """
    have = loaded or {}

    def of(p: Path, n: int) -> list[Found]:
        return secrets_of(have[p], allow, n, scans) if p in have else secrets_in(p, allow, n)

    found = of(path, 0)
    for n, part in enumerate(parts, 1):
        found += of(part, n)
    if settled is None:
        return Screened(tuple(found))
    keep: list[Found] = []
    masked: dict[tuple[str, str], None] = {}
    for f in found:
        if allowable(f.kind, f.value) and settled(f.kind, f.value):
            masked[(f.kind, f.value)] = None
        else:
            keep.append(f)
    return Screened(tuple(keep), tuple(sorted(masked, key=lambda kv: -len(kv[1]))))


# The roles of a conversation: what a person and an agent said and did.
_TURNS = frozenset({"user", "assistant", "tool_call", "tool_result"})


def has_conversation(t: Transcript) -> bool:
    """Whether the session holds anything said or done (not only summaries, snapshots or injected text)."""
    return any(e.role in _TURNS and not e.meta for e in t.events)


def check_transcript(path: Path, fmt: str, t: Transcript, detected: str | None = None) -> None:
    """Refuse a file that is not a transcript of the format asked for (``UsageError``; the caller names the file).

    A file another format's reader should read (``--format openclaw`` on a
    Claude Code session), or one whose records none of the readers knows (any
    JSONL that is not a transcript), is refused before anything is written,
    so nothing marks it as harvested. ``detected``: the file's ``detect_format``
    when the caller has it (``reader.Loaded``), so its head is not read again.
    """
    detected = detected or detect_format(path)
    if fmt != "auto" and detected != fmt and (detected != "jsonl" or not t.events):
        raise UsageError(f"not a transcript of format {fmt} (it reads as {detected}); nothing written; "
                         f"harvest it with --format {detected if detected != 'jsonl' else 'auto'}")
    if detected == "jsonl" and not t.events and t.end_line > 0:
        raise UsageError("not a transcript (none of its records is a message of a known format); nothing written; "
                         "pass a Claude Code or OpenClaw session .jsonl file, or a JSONL file of {\"role\", \"content\"} lines")
