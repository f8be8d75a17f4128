"""The kinds the scanner reports, their placeholders and ranks, and its two values."""

from __future__ import annotations

from collections import namedtuple
from collections.abc import Iterable

SECRET_KINDS: tuple[str, ...] = (
    "aws_access_key",
    "aws_secret_key",
    "github_token",
    "openai_key",
    "anthropic_key",
    "slack_token",
    "stripe_key",
    "google_api_key",
    "jwt",
    "private_key",
    "url_credentials",
    "env_secret",
    "generic_api_key",
)
PII_KINDS: tuple[str, ...] = ("email", "phone", "ipv4", "ipv6", "ssn", "home_path", "credit_card")

# Secrets cannot be switched off; of the PII kinds only these three can't either
# (addresses, SSNs and card numbers may be legitimate content in some repos).
MANDATORY_KINDS: frozenset[str] = frozenset(SECRET_KINDS) | {"email", "phone", "home_path"}

SECRET_SET: frozenset[str] = frozenset(SECRET_KINDS)
PLACEHOLDERS: dict[str, str] = {
    "email": "[EMAIL]",
    "phone": "[PHONE]",
    "ipv4": "[IPV4]",
    "ipv6": "[IPV6]",
    "ssn": "[SSN]",
    "credit_card": "[CREDIT_CARD]",
    "home_path": "[HOME]",
}

# Lower rank wins an overlap: the most specific explanation of a span.
RANK: dict[str, int] = {
    "private_key": 0,
    "aws_access_key": 1,
    "github_token": 1,
    "openai_key": 1,
    "anthropic_key": 1,
    "slack_token": 1,
    "stripe_key": 1,
    "google_api_key": 1,
    "jwt": 1,
    "aws_secret_key": 2,
    "url_credentials": 3,
    "env_secret": 4,
    "generic_api_key": 5,
    "credit_card": 6,
    "ssn": 6,
    "email": 7,
    "phone": 7,
    "ipv6": 7,
    "ipv4": 8,
    "home_path": 8,
}


# The two values are namedtuples, not dataclasses: this package runs inside the
# pre-commit hook, where importing dataclasses (and typing) costs more than
# scanning ten memory files.
class Finding(namedtuple("Finding", "kind start end secret")):
    """One secret or piece of PII: ``text[start:end]`` is what was found.

    Fields: ``kind`` (str), ``start`` and ``end`` (character offsets), ``secret`` (bool).
    """

    __slots__ = ()


class Allowlist(namedtuple("Allowlist", "values patterns", defaults=(frozenset(), ()))):
    """Known-safe values: a finding whose text equals a value or fully matches a
    pattern is not reported.

    Fields: ``values`` (frozenset of str), ``patterns`` (tuple of regex str).
    """

    __slots__ = ()


# A candidate before overlap resolution: (rank, start, end, kind).

# A candidate before overlap resolution: (rank, start, end, kind).
Cand = tuple[int, int, int, str]


def add(out: list[Cand], start: int, end: int, kind: str) -> None:
    """Append a candidate of ``kind`` over ``start:end`` to ``out``."""
    out.append((RANK[kind], start, end, kind))


def placeholder(kind: str) -> str:
    """The typed placeholder that replaces a finding: ``[EMAIL]``, ``[HOME]``, ``[SECRET:<kind>]``."""
    return PLACEHOLDERS.get(kind) or f"[SECRET:{kind}]"


def has_secret(findings: Iterable[Finding]) -> bool:
    """True when any finding is a secret (a write holding one must be refused)."""
    return any(f.secret for f in findings)
