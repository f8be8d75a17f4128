"""The scan: every detector over a text, allowlist applied, overlaps resolved.

Candidates overlap (a JSON ``"token": "ghp_…"`` is both a keyword secret and a
GitHub token); the most specific kind wins: private keys, vendor formats, AWS
secret keys, connection-URL credentials, env-style assignments, keyword and
prose secrets, then PII.
"""

from __future__ import annotations

import re
from collections.abc import Callable

from gitmem.guards.pii.disguise import hidden, visible
from gitmem.guards.pii.encoded import find_base64, find_percent_encoded
from gitmem.guards.pii.keywords import find_secrets
from gitmem.guards.pii.kinds import SECRET_SET, Allowlist, Cand, Finding
from gitmem.guards.pii.network import find_ipv4, find_ipv6
from gitmem.guards.pii.numbers import find_numbers
from gitmem.guards.pii.personal import find_emails, find_home_paths
from gitmem.guards.pii.vendors import find_private_keys, find_vendor
from gitmem.guards.pii.view import View, position

MAX_DEPTH = 2  # decoded blobs are rescanned, and blobs inside those once more


def scan(text: str, allowlist: Allowlist | None = None) -> list[Finding]:
    """Return the secrets and PII in ``text``, sorted by start, never overlapping.

    Offsets are character offsets into ``text`` itself. A finding whose text is
    allowlisted is dropped before overlaps are resolved, so an allowlisted value
    does not resurface as a weaker kind.
    """
    if not text:
        return []
    cands = collect(text, 0, secrets_only=False)
    for a, b in hidden(text):  # what hides behind invisible characters and look-alikes
        seen = visible(text[a:b])
        if seen is not None:
            shown, original = seen
            cands += [(rank, a + original(s), a + original(e - 1) + 1, kind)
                      for rank, s, e, kind in collect(shown, 0, True) if kind in SECRET_SET]
    if allowlist is not None and (allowlist.values or allowlist.patterns):
        allowed = _allow_predicate(allowlist)
        cands = [c for c in cands if not allowed(text[c[1] : c[2]])]
    return [Finding(kind, s, e, kind in SECRET_SET) for s, e, kind in _resolve(cands)]



def describe(text: str, finding: Finding, line_offset: int = 0) -> str:
    """Say what was found and where, e.g. ``aws_access_key at line 3, column 14``.

    Lines and columns count from 1; ``line_offset`` is added to the line (the
    text is part of a larger file). The found text itself is never included,
    so the message is safe to print, log and put in an error.
    """
    line, column = position(text, finding.start)
    return f"{finding.kind} at line {line + line_offset}, column {column}"


def collect(text: str, depth: int, secrets_only: bool) -> list[Cand]:
    """Every candidate finding in ``text``, overlapping; encoded forms are
    decoded and rescanned while ``depth`` is below ``MAX_DEPTH``."""
    v = View(text)
    out: list[Cand] = []
    find_secrets(v, out)
    if not secrets_only:
        find_emails(v, out)
        find_numbers(v, out)
        find_ipv4(v, out)
        find_ipv6(v, out)
        find_home_paths(v, out)
    if depth < MAX_DEPTH:
        find_percent_encoded(v, out, depth, secrets_only, collect)
        find_base64(v, out, depth, collect)
    return out


def _allow_predicate(allowlist: Allowlist) -> Callable[[str], bool]:
    values = allowlist.values
    compiled = []
    for p in allowlist.patterns:
        try:
            compiled.append(re.compile(p))
        except (re.error, RecursionError, OverflowError):
            continue  # reported by audit(); an unusable pattern allows nothing

    def allowed(found: str) -> bool:
        if found in values:
            return True
        # a vendor-format key is never allowed by a pattern, only by its exact value
        return any(rx.fullmatch(found) for rx in compiled) and not _vendor_shaped(found)

    return allowed


def _vendor_shaped(found: str) -> bool:
    """Whether ``found`` holds a token of a known vendor format (an AWS key id, ``ghp_…``, ``sk_test_…``)."""
    if len(found) < 16:
        return False
    out: list[Cand] = []
    find_vendor(View(found), out)
    find_private_keys(View(found), out) if "-----BEGIN" in found else None
    return bool(out)


def _resolve(cands: list[Cand]) -> list[tuple[int, int, str]]:
    """Keep the best non-overlapping candidates; return (start, end, kind) by start.

    Candidates are grouped into clusters that overlap transitively; only inside
    a cluster (rarely more than two or three) does the rank decide.
    """
    ordered = sorted({c for c in cands if c[2] > c[1]}, key=lambda c: (c[1], c[2]))
    picked: list[tuple[int, int, str]] = []
    cluster: list[Cand] = []
    cluster_end = -1
    for c in ordered:
        if c[1] >= cluster_end and cluster:
            picked.extend(_pick(cluster))
            cluster = []
        cluster.append(c)
        cluster_end = max(cluster_end, c[2]) if len(cluster) > 1 else c[2]
    if cluster:
        picked.extend(_pick(cluster))
    return picked


def _pick(cluster: list[Cand]) -> list[tuple[int, int, str]]:
    if len(cluster) == 1:
        _, s, e, kind = cluster[0]
        return [(s, e, kind)]
    chosen: list[tuple[int, int, str]] = []
    for _, s, e, kind in sorted(cluster, key=lambda c: (c[0], c[1] - c[2], c[1])):
        if all(e <= cs or s >= ce for cs, ce, _ in chosen):
            chosen.append((s, e, kind))
    return sorted(chosen)

