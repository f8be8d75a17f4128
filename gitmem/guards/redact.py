"""The one replacer: PII becomes typed placeholders, secrets are refused.

:mod:`gitmem.guards.pii` finds, this module replaces. It serves step 3 of the
write path (:func:`redact_document`), the ``gitmem-pii`` hook
(:func:`replace` with :func:`yaml_end`) and ``gitmem pii strip``
(:func:`strip`). In a YAML region a plain scalar that would begin with a
placeholder is quoted whole, because ``email: [EMAIL]`` would turn a string
into a list. For Markdown with front matter the write path goes value by value
instead, and lets the YAML writer quote.

The hook imports this module on every commit: only ``re`` and the pii package
at import time; the front-matter reader when a document has front matter.
"""

from __future__ import annotations

import re
from collections import namedtuple

from gitmem.guards import pii

TYPE_CHECKING = False  # typing costs an import; annotations only need it for checkers
if TYPE_CHECKING:
    from collections.abc import Sequence
    from typing import Any

    from gitmem.base.config import Config
    from gitmem.guards.cleanbodies import CleanBodies

__all__ = ["Redacted", "allowlist", "finding_id", "for_log", "name_findings", "nameable", "placeholder_for",
           "redact_document", "redact_text", "replace", "strip", "yaml_end"]


class Redacted(namedtuple("Redacted", "text kinds secrets")):
    """What redaction made of a text.

    Fields: ``text`` (str, PII replaced; unchanged when a secret was found),
    ``kinds`` (tuple of the PII kinds replaced), ``secrets`` (tuple of
    ``"kind at line L, column C"``, never the secret itself).
    """

    __slots__ = ()


def replace(text: str, findings: Sequence[pii.Finding], yaml_end: int = 0) -> str:
    """``text`` with each finding replaced by its typed placeholder (``[EMAIL]``,
    ``[HOME]``, ``[SECRET:<kind>]``).

    Before ``yaml_end`` the text is YAML: a plain scalar that would begin with a
    placeholder is single-quoted whole. A finding that overlaps an earlier one
    is dropped.
    """
    spans = _disjoint(findings)
    out, pos, i = [], 0, 0
    while i < len(spans):
        f = spans[i]
        out.append(text[pos : f.start])
        prefix = text[text.rfind("\n", 0, f.start) + 1 : f.start]
        if f.start >= yaml_end or not _SCALAR_START.search(prefix):
            out.append(pii.placeholder(f.kind))
            pos, i = f.end, i + 1
            continue
        end = _scalar_end(text, f.end, flow=_in_flow(prefix))
        inner = [g for g in spans[i:] if g.start < end]
        end = max(end, inner[-1].end)
        scalar = _replace_plain(text, inner, f.start, end)
        body = scalar.rstrip(" \t")
        out.append("'" + body.replace("'", "''") + "'" + scalar[len(body) :])
        pos, i = end, i + len(inner)
    out.append(text[pos:])
    return "".join(out)


def strip(text: str, allowlist: pii.Allowlist | None = None) -> str:
    """``text`` with every finding of :func:`gitmem.guards.pii.scan`, secrets
    included, replaced by its placeholder (``gitmem pii strip``).

    A home path keeps its tail: ``/home/alice/src`` becomes ``[HOME]/src``.
    """
    return replace(text, pii.scan(text, allowlist))


def yaml_end(path: str, text: str) -> int:
    """Where YAML ends in a file: all of a .yaml file, the front matter of a
    Markdown file, else 0."""
    if re.search(r"\.ya?ml$", path, re.IGNORECASE):
        return len(text)
    if not (text.startswith("---\n") or text.startswith("---\r\n")):
        return 0
    fence = re.compile(r"^(?:---|\.\.\.)[ \t]*\r?$", re.MULTILINE).search(text, 4)
    return fence.start() if fence else 0


# Where a YAML plain scalar begins: start of line, after `- `, `key: `, `[`, `{` or `,`.
_SCALAR_START = re.compile(r"(?:^|[-:[{,])[ \t]*$")


def _disjoint(findings: Sequence[pii.Finding]) -> list[pii.Finding]:
    """Findings by position, dropping any that overlaps an earlier one."""
    spans: list[pii.Finding] = []
    for f in sorted(findings, key=lambda f: (f.start, -f.end)):
        if not spans or f.start >= spans[-1].end:
            spans.append(f)
    return spans


def _replace_plain(text: str, spans: Sequence[pii.Finding], start: int, end: int) -> str:
    out, pos = [], start
    for f in spans:
        out += [text[pos : f.start], pii.placeholder(f.kind)]
        pos = f.end
    return "".join(out) + text[pos:end]


def _in_flow(prefix: str) -> bool:
    """Is a scalar after ``prefix`` (its line so far) inside a flow ``[…]`` or ``{…}``?"""
    opened = prefix.count("[") + prefix.count("{")
    return opened > prefix.count("]") + prefix.count("}")


def _scalar_end(text: str, pos: int, flow: bool) -> int:
    """End of the YAML plain scalar running at ``pos``: before a comment, or `,]}` in a flow."""
    stop = re.compile(r"\r?\n|[ \t]#|[,\]}]" if flow else r"\r?\n|[ \t]#").search(text, pos)
    return stop.start() if stop else len(text)


# --------------------------------------------------------------------------
# The write path: secrets refused, PII replaced, per the configuration


def allowlist(cfg: Config) -> pii.Allowlist:
    """The scanner's allowlist from gitmem.yaml."""
    return pii.Allowlist(values=frozenset(cfg.pii.allowlist.values), patterns=tuple(cfg.pii.allowlist.patterns))


def _active(findings: list[pii.Finding], cfg: Config) -> list[pii.Finding]:
    disabled = set(cfg.pii.disabled_kinds)
    return [f for f in findings if f.secret or f.kind not in disabled]


def redact_text(text: str, cfg: Config, line_offset: int = 0, names: pii.Names | None = None,
                found: Sequence[pii.Finding] | None = None) -> Redacted:
    """Scan plain text: secrets reported with their location, PII replaced.

    ``line_offset`` is added to reported lines (the text is the body of a file).
    ``names`` are user names (salted hashes) replaced where they stand alone.
    ``found`` is ``pii.scan(text, allowlist(cfg))`` when the caller already has it.
    """
    findings = _active(list(found) if found is not None else pii.scan(text, allowlist(cfg)), cfg)
    if names is not None and names.hashes:
        findings += pii.find_names(text, names)
    if not findings:
        return Redacted(text, (), ())
    secrets = tuple(pii.describe(text, f, line_offset) for f in findings if f.secret)
    if secrets:
        return Redacted(text, (), secrets)
    return Redacted(replace(text, findings), tuple(sorted({f.kind for f in findings})), ())


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


def redact_document(path: str, text: str, cfg: Config, clean: CleanBodies | None = None) -> Redacted:
    """Redact a whole file; Markdown with front matter is handled part by part:
    front matter value by value (the YAML writer quotes), the body as text.

    ``clean``: bodies known to be scanned clean with these settings, skipped
    (the front matter is scanned all the same); a body scanned clean is noted there.
    """
    if not path.endswith(".md"):
        return redact_text(text, cfg)
    from gitmem.base.errors import DocumentError
    from gitmem.store import documents

    try:
        fm, body, body_line = documents.split_front_matter(text, path)
    except DocumentError:
        return redact_text(text, cfg)
    if fm is None:
        return redact_text(text, cfg)
    body_r = _redact_body(body, cfg, body_line, clean)
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


def _redact_body(body: str, cfg: Config, line: int, clean: CleanBodies | None) -> Redacted:
    if clean is None:
        return redact_text(body, cfg, line_offset=line)
    from gitmem.guards.cleanbodies import body_id

    key = body_id(body)
    if clean.is_clean(key):
        return Redacted(body, (), ())
    found = redact_text(body, cfg, line_offset=line)
    if not found.kinds and not found.secrets:
        clean.note(key)
    return found


def placeholder_for(value: str, allowlist: pii.Allowlist | None = None) -> str:
    """What a leaked ``value`` becomes when it is purged: what :func:`strip`
    makes of it (``[EMAIL]``, ``[HOME]/src``, ``[SECRET:<kind>]``), or
    ``[SECRET:purged]`` for a value the scanner does not recognise."""
    stripped = strip(value, allowlist)
    for candidate in (stripped, pii.placeholder("purged"), "[PURGED]", "[REDACTED]"):
        if candidate != value and value not in candidate and candidate.strip():
            return candidate
    return "[X]"  # a value inside every placeholder is shorter than any purge accepts


def finding_id(kind: str, value: str) -> str:
    """A stable id of a finding, safe to print: its kind and a hash of the found text
    (``email-3f2a9c41d0b7``). The same value has the same id in every file and clone."""
    import hashlib

    return f"{kind}-{hashlib.sha256(value.encode('utf-8')).hexdigest()[:12]}"


# --------------------------------------------------------------------------
# Derived names: what reaches a file name, a commit subject, a ref or a log


def nameable(text: str) -> str:
    """``text`` made safe to derive a name from (a pattern's slug, a file name):
    every secret and every piece of PII replaced by its placeholder first, so
    ``mail alice@corp.de`` names a file ``mail-email`` and never the address."""
    return strip(text)


def name_findings(value: str) -> list[str]:
    """The kinds of secret or PII in a name a person gave (an ``--id``), [] when clean.

    A name is lower case: the upper-case form is scanned too, since a key
    folded to lower case (``akiaq3eg…``) still gives most of itself away.
    """
    kinds = [f.kind for f in pii.scan(value)]
    upper = value.upper()
    if upper != value:
        kinds += [f.kind for f in pii.scan(upper) if f.secret]
    return sorted(set(kinds))


def for_log(value: str) -> str:
    """A name from outside (a branch, a ref) as the event log may record it:
    secrets and PII replaced by their placeholders."""
    return strip(value) if value else value
