"""Step 3 of the write path: PII stripped to placeholders, secrets refused.

Front matter is handled value by value (a placeholder such as ``[EMAIL]``
pasted into YAML as-is would turn a string into a list), the body as text.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from gitmem.base.errors import DocumentError
from gitmem.store import documents
from gitmem.guards import pii
from gitmem.base.config import Config


@dataclass(frozen=True)
class Redacted:
    text: str
    kinds: tuple[str, ...]          # PII kinds replaced by placeholders
    secrets: tuple[str, ...]        # "kind at line L, column C" — never the secret itself


def allowlist(cfg: Config) -> pii.Allowlist:
    """The scanner's allowlist from gitmem.yaml."""
    return pii.Allowlist(values=frozenset(cfg.pii.allowlist.values), patterns=tuple(cfg.pii.allowlist.patterns))


def _active(findings: list[pii.Finding], cfg: Config) -> list[pii.Finding]:
    disabled = set(cfg.pii.disabled_kinds)
    return [f for f in findings if f.secret or f.kind not in disabled]


def redact_text(text: str, cfg: Config, line_offset: int = 0) -> Redacted:
    """Scan plain text: secrets reported with their location, PII replaced."""
    allow = allowlist(cfg)
    findings = _active(pii.scan(text, allow), cfg)
    if not findings:
        return Redacted(text, (), ())
    secrets = tuple(_where(text, f, line_offset) for f in findings if f.secret)
    if secrets:
        return Redacted(text, (), secrets)
    out, pos = [], 0
    for f in findings:
        out.append(text[pos:f.start])
        out.append(pii.placeholder(f.kind))
        pos = f.end
    out.append(text[pos:])
    return Redacted("".join(out), tuple(sorted({f.kind for f in findings})), ())


def _where(text: str, f: pii.Finding, line_offset: int) -> str:
    line = text.count("\n", 0, f.start) + 1 + line_offset
    col = f.start - (text.rfind("\n", 0, f.start) + 1) + 1
    return f"{f.kind} at line {line}, column {col}"


def _strip_values(value: Any, cfg: Config, kinds: set[str], secrets: list[str], key: str) -> Any:
    if isinstance(value, str):
        r = redact_text(value, cfg)
        kinds.update(r.kinds)
        secrets.extend(f"{s} of front matter key {key!r}" for s in r.secrets)
        return r.text
    if isinstance(value, list):
        return [_strip_values(v, cfg, kinds, secrets, key) for v in value]
    if isinstance(value, dict):
        return {k: _strip_values(v, cfg, kinds, secrets, key) for k, v in value.items()}
    return value


def redact_document(path: str, text: str, cfg: Config) -> Redacted:
    """Redact a whole file; Markdown with front matter is handled part by part."""
    if not path.endswith(".md"):
        return redact_text(text, cfg)
    try:
        fm, body, body_line = documents.split_front_matter(text, path)
    except DocumentError:
        return redact_text(text, cfg)
    if fm is None:
        return redact_text(text, cfg)
    body_r = redact_text(body, cfg, line_offset=body_line)
    quick = _active(pii.scan(fm, allowlist(cfg)), cfg)
    if not quick:
        if body_r.secrets:
            return Redacted(text, (), body_r.secrets)
        return Redacted(documents.render_document(fm, body_r.text), body_r.kinds, ())
    data = documents.parse_front_matter(fm, path)
    kinds: set[str] = set(body_r.kinds)
    secrets: list[str] = list(body_r.secrets)
    changes = {}
    for key, value in data.items():
        new = _strip_values(value, cfg, kinds, secrets, key)
        if new != value:
            changes[key] = new
    if secrets:
        return Redacted(text, (), tuple(secrets))
    new_fm = documents.update_front_matter(fm, changes, path) if changes else fm
    return Redacted(documents.render_document(new_fm, body_r.text), tuple(sorted(kinds)), ())
