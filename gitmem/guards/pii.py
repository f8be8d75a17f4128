"""Find secrets and personal data in text, and strip them.

Every write into a memory repository passes through :func:`scan` (DESIGN.md
section 7): PII is replaced by typed placeholders (:func:`strip`), and any
secret aborts the write. The same functions back ``gitmem pii`` and the
``gitmem-pii`` / ``gitmem-secrets`` pre-commit hooks, so importing this module
must stay cheap: only ``re`` and ``collections`` at import time, every pattern
compiled on first use.

How a scan runs, and why it is shaped this way:

* The text is viewed as ASCII bytes of the same length (one byte per
  character, non-ASCII becomes ``?``) with JSON/shell escapes (``\\n``,
  ``\\r``, ``\\t``, ``\\u00XX``) blanked to spaces, so ``\\nAKIA…`` still has a
  word boundary and every offset still points into the original text.
* Each detector starts from a cheap anchor that ``re`` finds with its fast
  literal-prefix search (``://``, ``@``, ``-----BEGIN``, ``/home/``, a keyword
  such as ``pass`` or ``token``…), then an anchored pattern or a little Python
  confirms it. Vendor formats are tried only where a run of 16+ token
  characters starts. Numbers (phones, cards, SSNs, IPv4) are found in a
  "shape" of the text where every digit is ``0``, which turns their layouts
  into literals. Each kind thus costs a pass or two over the text instead of a
  pattern tried at every position: several times the speed of the plain
  patterns run one after the other (``bench/scan.py``).
* Percent-encoded tokens and base64 blobs (also wrapped over several lines)
  are decoded and rescanned; a finding inside them is reported over the encoded
  span (base64: the whole blob; percent-encoding: the encoded characters of the
  finding).
* Candidates overlap (a JSON ``"token": "ghp_…"`` is both a keyword secret and
  a GitHub token); the most specific kind wins: private keys, vendor formats,
  AWS secret keys, connection-URL credentials, env-style assignments, keyword
  and prose secrets, then PII.

Decisions where section 7 leaves room:

* ``env_secret`` is an assignment with ``=`` to an environment-style name
  (UPPER_SNAKE, ``process.env.X``, or after ``export``/``set``/``-e``/``ENV``), or
  with ``:`` to an unquoted UPPER_SNAKE name (a compose ``environment:`` map).
  The same value under a lowercase or camelCase name, a quoted JSON key, a CLI
  flag or a URL query parameter is a ``generic_api_key``. Tokens of vendors
  without a kind of their own (GitLab, npm, Hugging Face…) are
  ``generic_api_key`` alone and ``env_secret`` in an env assignment.
* Credentials in a URL are ``url_credentials`` unless the password has a vendor
  format, whose kind wins (``https://x:ghp_…@github.com`` is a github_token).
* Stripe publishable keys (``pk_live_…``) are public by design and not reported;
  secret, restricted and webhook keys are.
* ``/home/<name>``, ``/Users/<name>`` and ``C:\\Users\\<name>`` are home paths
  unless the name is a placeholder or a service account that identifies no
  person (``user``, ``username``, ``yourname``, ``runner``, ``ubuntu``,
  ``ec2-user``, ``vagrant``, ``Public``, ``Default`` …); ``/root``, ``~/`` and
  ``$HOME`` are never reported. ``~name`` counts when it is used as a path.
* Default credential pairs with the user equal to the password
  (``postgres:postgres``) and placeholder passwords are not secrets.
* A bare run of digits is a phone number only after a word such as ``phone`` or
  ``tel``, and an SSN only after ``ssn``; with separators no keyword is needed.
  A number right after ``order``, ``invoice``, ``tracking number``, ``#``… is an
  identifier, not PII.
* Four dotted numbers are a version, not an IPv4 address, when the first three
  are single digits, when all four are under 100 and the first under 10, when
  the last is 0, or after ``v`` / ``version``.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Iterable
from collections import namedtuple

TYPE_CHECKING = False  # typing costs an import; annotations only need it for checkers
if TYPE_CHECKING:
    from typing import Any

__all__ = [
    "PII_KINDS",
    "SECRET_KINDS",
    "Allowlist",
    "Finding",
    "audit",
    "describe",
    "has_secret",
    "placeholder",
    "scan",
    "strip",
]

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

_SECRET_SET = frozenset(SECRET_KINDS)
_PLACEHOLDER = {
    "email": "[EMAIL]",
    "phone": "[PHONE]",
    "ipv4": "[IPV4]",
    "ipv6": "[IPV6]",
    "ssn": "[SSN]",
    "credit_card": "[CREDIT_CARD]",
    "home_path": "[HOME]",
}

# Lower rank wins an overlap: the most specific explanation of a span.
_RANK = {
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
_MAX_DEPTH = 2  # decoded blobs are rescanned, and blobs inside those once more


# The two values are namedtuples, not dataclasses: this module runs inside the
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
_Cand = tuple[int, int, int, str]


# --------------------------------------------------------------------------
# Public functions


def scan(text: str, allowlist: Allowlist | None = None) -> list[Finding]:
    """Return the secrets and PII in ``text``, sorted by start, never overlapping.

    Offsets are character offsets into ``text`` itself. A finding whose text is
    allowlisted is dropped before overlaps are resolved, so an allowlisted value
    does not resurface as a weaker kind.
    """
    if not text:
        return []
    cands = _collect(text, 0, secrets_only=False)
    if allowlist is not None and (allowlist.values or allowlist.patterns):
        allowed = _allow_predicate(allowlist)
        cands = [c for c in cands if not allowed(text[c[1] : c[2]])]
    return [Finding(kind, s, e, kind in _SECRET_SET) for s, e, kind in _resolve(cands)]


def strip(text: str, allowlist: Allowlist | None = None) -> str:
    """Return ``text`` with every finding replaced by its typed placeholder.

    PII becomes ``[EMAIL]``, ``[PHONE]``, … (a home path keeps its tail:
    ``/home/alice/src`` becomes ``[HOME]/src``); a secret becomes
    ``[SECRET:<kind>]``.
    """
    parts: list[str] = []
    pos = 0
    for f in scan(text, allowlist):
        parts.append(text[pos : f.start])
        parts.append(placeholder(f.kind))
        pos = f.end
    parts.append(text[pos:])
    return "".join(parts)


def placeholder(kind: str) -> str:
    """The typed placeholder that replaces a finding: ``[EMAIL]``, ``[HOME]``, ``[SECRET:<kind>]``."""
    return _PLACEHOLDER.get(kind) or f"[SECRET:{kind}]"


def has_secret(findings: Iterable[Finding]) -> bool:
    """True when any finding is a secret (a write holding one must be refused)."""
    return any(f.secret for f in findings)


def describe(text: str, finding: Finding) -> str:
    """Say what was found and where, e.g. ``aws_access_key at line 3, column 14``.

    Lines and columns count from 1. The found text itself is never included, so
    the message is safe to print, log and put in an error.
    """
    line = text.count("\n", 0, finding.start) + 1
    column = finding.start - (text.rfind("\n", 0, finding.start) + 1) + 1
    return f"{finding.kind} at line {line}, column {column}"


def audit(allowlist: Allowlist, disabled_kinds: Iterable[str] = ()) -> list[str]:
    """Check a PII configuration; return one readable problem per line, [] when sound.

    Problems: an allowlist pattern that does not compile, a mandatory kind (every
    secret kind, ``email``, ``phone``, ``home_path``) or an unknown kind among the
    disabled ones, and an allowlist pattern or value broad enough to hide a whole
    category (it matches most of the representative samples of a kind).
    """
    problems: list[str] = []
    known = set(SECRET_KINDS) | set(PII_KINDS)
    for kind in sorted(set(disabled_kinds)):
        if kind not in known:
            problems.append(f"unknown kind {kind!r} in disabled kinds; known kinds: {', '.join(sorted(known))}")
        elif kind in MANDATORY_KINDS:
            problems.append(f"kind {kind!r} is mandatory and cannot be disabled")
    for value in sorted(allowlist.values):
        if not value.strip():
            problems.append("allowlist value is empty or blank")
    for pattern in allowlist.patterns:
        try:
            rx = re.compile(pattern)
        except (re.error, RecursionError, OverflowError) as exc:
            problems.append(f"allowlist pattern {pattern!r} does not compile: {exc}")
            continue
        if re.search(r"\([^()]*[+*][^()]*\)[+*{]", pattern):
            # Every finding's text is matched against the allowlist, inside
            # the pre-commit hook: (a+)+ can take exponential time there.
            problems.append(f"allowlist pattern {pattern!r} nests repetitions, which can take exponential time")
            continue
        hidden = [kind for kind, samples in _AUDIT_SAMPLES.items() if _hides(rx, samples)]
        if hidden:
            problems.append(
                f"allowlist pattern {pattern!r} would hide the whole category of {', '.join(hidden)}: "
                "it matches most sample values; allow exact values or a narrow pattern"
            )
    return problems


def _hides(rx: re.Pattern[str], samples: tuple[str, ...]) -> bool:
    hits = sum(1 for s in samples if rx.fullmatch(s))
    return hits >= min(2, len(samples)) and hits * 2 > len(samples)


# Fabricated, representative values of each kind as a finding's text: what an
# allowlist pattern would have to match to hide the category.
_AUDIT_SAMPLES: dict[str, tuple[str, ...]] = {
    "aws_access_key": ("AKIAQ3EGTZ7R2LWN5XHD", "ASIAV6PKJ4MB8YCXZT2Q", "AKIAZX9D7R4L2MN8QWEP"),
    "aws_secret_key": ("q7Rk2/VdLm9+Zp4XcT1bNw8Yh3Gf6Js0Ea5UoKiP", "Ht5mQ9zL/x2Vb7Nc+R4kW8pD1sJf6Gy3Ae0UoTiZ"),
    "github_token": (
        "ghp_R4nd0mT0k3nAbCdEfGh1JkLmNoPqRsTuV2wXy",
        "gho_9ZyXwVuTsRqPoNmLkJiHgFeDcBa876543210",
        "github_pat_11ABCDEFG0abcdefghijkl_mnopQRSTuvwx1234567890ABCDEFGHIJklmnopqrstuvWXYZ12",
    ),
    "openai_key": ("sk-proj-Zq8XnVb2Lk9Mw3Rt7Yp1Hc5Ds6Fg4Jh0Ka2Lq9Wz3", "sk-T7hQ2mZk9Lp4Xw8Rv3Nb6Yc1Df5Gs0Ha2Jk7Lm9Qw3Er8Ty1"),
    "anthropic_key": ("sk-ant-api03-Xq9Lm2Zp7Rt4Vw8Yb1Nc6Hd3Fg5Js0Ka2Qe9Wr4Ty7Ui1Op3As6Df8Gh0Jk-Lz5Xc2Vb7Nm4QwAA",),
    "slack_token": ("xoxb-2048617391-4096281735-Zq8XnVb2Lk9Mw3Rt7Yp1Hc5D", "xoxp-1234098765-5678123409-8765432109-a1b2c3d4e5f6a7b8c9d0e1f2a3b4c5d6"),
    "stripe_key": ("sk_live_4eC39HqLyjWDarjtT1zdp7dc9Zq8Xn", "rk_live_Zq8XnVb2Lk9Mw3Rt7Yp1Hc5Ds6Fg"),
    "google_api_key": ("AIzaSyD4x9Lq2Zm7Rt3Vw8Yb1Nc6Hd5Fg0Js2Ka", "AIzaSyB7Qw3Er5Ty8Ui1Op4As6Df9Gh2Jk0Lz5X"),
    "jwt": ("eyJhbGciOiJIUzI1NiJ9.eyJ1aWQiOiI4ZjNhIn0.Zq8XnVb2Lk9Mw3Rt7Yp1Hc5Ds6Fg4Jh0Ka2",),
    "url_credentials": ("admin:Zq8XnVb2Lk9M", "deploy:r7Yp1Hc5Ds6F", ":Tq4Wz8Xc2Vb6"),
    "env_secret": ("Zq8XnVb2Lk9Mw3Rt", "hunter2-Xq9!", "c0rrect-h0rse-battery"),
    "generic_api_key": ("Tr0ub4dor&3", "9f8e7d6c5b4a39281706f5e4d3c2b1a0Zz", "s3cr3t-Pa55w0rd"),
    "email": ("alice.martin@gmail.com", "bob@corp-mail.de", "carol+news@uni.edu"),
    "phone": ("+1 415 867 2309", "(312) 694-2210", "+44 20 7946 1234", "07700 912345"),
    "ipv4": ("10.20.30.40", "192.168.1.23", "8.34.217.14", "172.16.254.3"),
    "ipv6": ("2a00:1450:4009:81f::200e", "fe80::1ff:fe23:4567:890a", "2607:f8b0:4005:80a::2004"),
    "ssn": ("536-90-4421", "219-54-7783", "402-18-9036"),
    "home_path": ("/home/alice", "/Users/bob", "C:\\Users\\dave", "~carol"),
    "credit_card": ("4539 1488 0343 6467", "5425-2334-3010-9903", "371449635398432", "6011514433546201"),
}


# --------------------------------------------------------------------------
# Allowlist and overlaps


def _allow_predicate(allowlist: Allowlist) -> Callable[[str], bool]:
    values = allowlist.values
    compiled = []
    for p in allowlist.patterns:
        try:
            compiled.append(re.compile(p))
        except (re.error, RecursionError, OverflowError):
            continue  # reported by audit(); an unusable pattern allows nothing

    def allowed(found: str) -> bool:
        return found in values or any(rx.fullmatch(found) for rx in compiled)

    return allowed


def _resolve(cands: list[_Cand]) -> list[tuple[int, int, str]]:
    """Keep the best non-overlapping candidates; return (start, end, kind) by start.

    Candidates are grouped into clusters that overlap transitively; only inside
    a cluster (rarely more than two or three) does the rank decide.
    """
    ordered = sorted({c for c in cands if c[2] > c[1]}, key=lambda c: (c[1], c[2]))
    picked: list[tuple[int, int, str]] = []
    cluster: list[_Cand] = []
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


def _pick(cluster: list[_Cand]) -> list[tuple[int, int, str]]:
    if len(cluster) == 1:
        _, s, e, kind = cluster[0]
        return [(s, e, kind)]
    chosen: list[tuple[int, int, str]] = []
    for _, s, e, kind in sorted(cluster, key=lambda c: (c[0], c[1] - c[2], c[1])):
        if all(e <= cs or s >= ce for cs, ce, _ in chosen):
            chosen.append((s, e, kind))
    return sorted(chosen)


# --------------------------------------------------------------------------
# Compiled patterns (on first use)


class _Rx:
    """Compiled patterns, each compiled on first use from ``_SOURCES``.

    The pre-commit hook compiles afresh in every commit, and a short memory
    file reaches only a few detectors: it pays for those only.
    """

    def __getattr__(self, name: str) -> Any:  # only called for a missing attribute
        source = _SOURCES[name]
        compiled = re.compile(source)
        setattr(self, name, compiled)
        return compiled


_COMPILED: _Rx | None = None


def _rx() -> _Rx:
    global _COMPILED
    if _COMPILED is None:
        _COMPILED = _Rx()
    return _COMPILED


# Vendor formats, tried where a run of token characters starts (see
# _find_vendor), compiled by first byte on demand.
_VENDOR_SOURCES: tuple[tuple[bytes, str], ...] = (
    (rb"A(?:KIA|SIA|BIA|CCA)[A-Z0-9]{16}", "aws_access_key"),
    (rb"A3T[A-Z0-9][A-Z0-9]{16}", "aws_access_key"),
    (rb"gh[pousr]_[A-Za-z0-9]{30,255}", "github_token"),
    (rb"github_pat_[A-Za-z0-9_]{30,255}", "github_token"),
    (rb"sk-[A-Za-z0-9_-]{20,400}", "openai_key"),  # sk-ant-… becomes anthropic_key
    (rb"xox[abposre]-[A-Za-z0-9-]{10,250}", "slack_token"),
    (rb"xapp-[0-9]-[A-Za-z0-9-]{10,250}", "slack_token"),
    (rb"sk_(?:live|test|prod)_[A-Za-z0-9]{10,250}", "stripe_key"),
    (rb"rk_(?:live|test|prod)_[A-Za-z0-9]{10,250}", "stripe_key"),
    (rb"whsec_[A-Za-z0-9]{20,250}", "stripe_key"),
    (rb"AIza[A-Za-z0-9_-]{30,40}", "google_api_key"),
    (rb"GOCSPX-[A-Za-z0-9_-]{20,60}", "google_api_key"),
    (rb"ya29\.[A-Za-z0-9_-]{20,2000}", "google_api_key"),
    (rb"eyJ[A-Za-z0-9_-]{8,4000}\.[A-Za-z0-9_-]{8,8000}\.[A-Za-z0-9_-]{10,2000}", "jwt"),
    # Other vendors' tokens have no kind of their own: generic_api_key.
    (rb"glpat-[A-Za-z0-9_-]{20,60}", "generic_api_key"),
    (rb"gl(?:rt|dt|ptt|cbt|soat|imt)-[A-Za-z0-9_-]{20,60}", "generic_api_key"),
    (rb"npm_[A-Za-z0-9]{36}", "generic_api_key"),
    (rb"pypi-AgE[A-Za-z0-9_-]{50,300}", "generic_api_key"),
    (rb"hf_[A-Za-z0-9]{30,40}", "generic_api_key"),
    (rb"SG\.[A-Za-z0-9_-]{16,32}\.[A-Za-z0-9_-]{30,50}", "generic_api_key"),
    (rb"dop_v1_[a-f0-9]{64}", "generic_api_key"),
    (rb"shp(?:at|ss|ca|pa)_[a-fA-F0-9]{32}", "generic_api_key"),
    (rb"sq0(?:atp|csp)-[A-Za-z0-9_-]{22,60}", "generic_api_key"),
    (rb"AGE-SECRET-KEY-1[A-Z0-9]{58}", "generic_api_key"),
    (rb"hv[sb]\.[A-Za-z0-9_-]{24,200}", "generic_api_key"),
    (rb"dapi[a-f0-9]{32}", "generic_api_key"),
    (rb"lin_api_[A-Za-z0-9]{40}", "generic_api_key"),
    (rb"dckr_pat_[A-Za-z0-9_-]{20,60}", "generic_api_key"),
    (rb"figd_[A-Za-z0-9_-]{30,60}", "generic_api_key"),
    (rb"rubygems_[a-f0-9]{48}", "generic_api_key"),
    (rb"pscale_(?:pw|tkn)_[A-Za-z0-9_.-]{30,60}", "generic_api_key"),
    (rb"ATATT3[A-Za-z0-9_=-]{100,300}", "generic_api_key"),
    (rb"key-[a-f0-9]{32}", "generic_api_key"),
    (rb"SK[a-f0-9]{32}", "generic_api_key"),
)
# Prefixes holding a dot end a token run early: ya29.<run>, SG.<run>, hvs.<run>.
_DOTTED = ((b"ya29.", b"ya29\\."), (b"SG.", b"SG\\."), (b"hvs.", b"hv"), (b"hvb.", b"hv"))
_VENDOR_CACHE: dict[int, list[tuple[re.Pattern[bytes], str]]] = {}


def _vendor_patterns(first: int) -> list[tuple[re.Pattern[bytes], str]]:
    """The vendor patterns whose text starts with the byte ``first``."""
    found = _VENDOR_CACHE.get(first)
    if found is None:
        found = [(re.compile(src), kind) for src, kind in _VENDOR_SOURCES if src[0] == first]
        _VENDOR_CACHE[first] = found
    return found


_USERINFO = rb"([^\s/?#@:\"'<>\[\]{}\\]*):([^\s/\"'<>\\]+)@(?=[A-Za-z0-9\[])"
# Every other pattern, by the attribute name the detectors use (_rx().name).
_SOURCES: dict[str, str | bytes] = {
    "slack_hook": rb"hooks\.slack\.com/services/[A-Za-z0-9_/-]{20,120}",
    "telegram": rb":AA[A-Za-z0-9_-]{33}",
    "pk_begin": rb"-----BEGIN[A-Z0-9 ]{0,30}PRIVATE KEY(?: BLOCK)?-----",
    "pk_end": rb"-----END[A-Z0-9 ]{0,30}PRIVATE KEY(?: BLOCK)?-----",
    "pk_body": rb"[A-Za-z0-9+/=\s\\:,-]{0,12000}",
    "b64_chunk": rb"[A-Za-z0-9+/=]+",
    "putty": rb"PuTTY-User-Key-File-[0-9]: ",
    "putty_end": rb"Private-MAC: [0-9a-fA-F]+",
    "url_cred": rb"://" + _USERINFO,
    "url_cred_esc": rb":\\/\\/" + _USERINFO,
    "at": rb"@",
    "domain": rb"((?:[A-Za-z0-9](?:[A-Za-z0-9-]{0,61}[A-Za-z0-9])?\.)+[A-Za-z]{2,24})(?![A-Za-z0-9-])",
    "name_fwd": rb"[a-z0-9_.-]*",
    "assign_tail": (
        rb"(\\{0,3}[\"'])?\]?[ \t]*(:=|=>|=(?!=)|:(?![:/\\]))[ \t]*"
        rb"(?:\\{0,3}\"([^\"\\\r\n]*)|\\{0,3}'([^'\\\r\n]*)|([^\s\"'`,;|<>(){}\[\]\\]+))"
    ),
    "prose": (
        rb"\b(?:[a-z0-9]+_)*(?:password|passwd|passphrase|passcode|pass code|pw|pwd|pin code|key|secret|token|credentials?)\b"
        rb"(?:[ \t]+(?:for|to|of|on|at|in)(?:[ \t]+[^\s]+){1,4}?)?"
        rb"[ \t]+(?:is|was|are|=|->|is set to|set to|changed to|reset to):?[ \t]+"
        rb"(?:(?:now|still|currently|just|simply)[ \t]+)?"
    ),
    # "API key: …", "Access token = …": a two-word name, which the assignment
    # pattern (one token as name) cannot see.
    "prose_colon": (
        rb"\b(?:api|access|secret|private|auth|bearer|session|refresh|client|bot|app|personal access|master|admin|"
        rb"root|db|database|wifi|wi-fi|account|login|user|deploy|service|signing|encryption|license)[ \t]"
        rb"(?:key|token|secret|password|passphrase|pw)[ \t]*(?:[:=]|->)[ \t]*"
    ),
    "prose_set": (
        rb"\b(?:set|change|changed|reset|update|updated|rotate|rotated)[ \t]+(?:(?:the|my|our|your|its)[ \t]+)?"
        rb"(?:[a-z0-9_-]+[ \t]+)?(?:password|passwd|passphrase|token|key|secret)[ \t]+to[ \t]+"
    ),
    "xml_kv": rb"\b(?:key|name)[ \t]*=[ \t]*[\"']([^\"'\n]{1,80})[\"'][ \t]+value[ \t]*=[ \t]*[\"']([^\"'\n]*)[\"']",
    "bare_kw": rb"\b(?:[a-z0-9]+_)*(?:password|passwd|passphrase|pwd|api[ _-]?key|secret)[ \t]+",
    # Command lines whose password flag is a bare -p / -a, and SQL grants. Each
    # starts with a literal; the tool before "login" is checked afterwards.
    "cli_login": rb"login\b[^\n]{0,200}?[ \t](?:-p|--password)(?:[ \t]+|=)(?=[^-\s])",
    "login_tool": rb"\b(?:docker|podman|nerdctl|buildah|skopeo|oras|crane|helm(?: registry)?)[ \t]+\Z",
    "sshpass": rb"sshpass[ \t]+-p[ \t]*(?=[^-\s])",
    "redis_cli": rb"redis-cli\b[^\n]{0,200}?[ \t](?:-a|--pass)(?:[ \t]+|=)(?=[^-\s])",
    "identified_by": rb"identified[ \t]+(?:with[ \t]+\S+[ \t]+)?by[ \t]+(?:password[ \t]+)?",
    "discord_hook": rb"discord(?:app)?\.com/api/webhooks/[0-9]{5,30}/([A-Za-z0-9_-]{40,120})",
    "aws_spaced": rb"[ \t]+([A-Za-z0-9/+]{40})(?![A-Za-z0-9/+=])",
    "scheme": rb"\b(bearer|token)[ \t]+([A-Za-z0-9._~+/=-]{10,4000})",
    "basic": rb"\bbasic[ \t]+([A-Za-z0-9+/]{6,2000}={0,2})",
    "flag": rb"(?<![\w-])--?(?:password|passwd|pass|token|api-key|apikey|secret|client-secret|auth-token|access-token)[ \t]+",
    "mysql_p": rb"\bmysql(?:dump|admin|sh|import)?\b[^\n]{0,200}?[ \t]-p([^\s\"'-][^\s\"']*)",
    "curl_u": rb"(?<![\w-])(?:-u|--user)[ \t]+[\"']?([^\s:\"']+):([^\s\"']+)",
    "value_q": rb"\\{0,3}\"([^\"\\\r\n]*)|\\{0,3}'([^'\\\r\n]*)|`([^`\r\n]*)`|([^\s\"'`]+)",
    "env_prefix": rb"(?:\bexport|\bset|\bsetx|\benv|\bENV|\bARG|--env|--build-arg|(?:^|[\s\"'])-e)[ \t]+\Z",
    "aws_near": rb"(?<![A-Za-z0-9/+])[A-Za-z0-9/+]{40}(?![A-Za-z0-9/+=])",
    # Numbers, found in the digit shape of the text (every digit is b"0"), in
    # one pass: card layouts, SSN 000-00-0000 and NANP 000-000-0000, and bare
    # runs of 9+ digits. The lookbehind after the first literal keeps the fast
    # prefix search and drops, inside `re`, a run that does not start at a
    # digit boundary.
    "numbers": (
        rb"0(?<!00)00(?:(?P<card>0(?:[ -]?0000[ -]?0000[ -]?0{1,7}|[ -]000000[ -]0{4,5}))"
        rb"|(?P<sep>[ .-](?:00[ -]0000|000[ .-]0000))|(?P<run>000000+))"
    ),
    "nanp_paren": rb"\(000\)[ .-]?000[ .-]0000",
    "ipv4_mid": rb"\.0{1,3}\.0{1,3}\.",
    "ipv4": rb"([0-9]{1,3})\.([0-9]{1,3})\.([0-9]{1,3})\.([0-9]{1,3})",
    "intl": rb"\+[0-9][0-9 ().-]{7,24}[0-9]",
    "trunk": rb"0(?<![0-9]0)[1-9][0-9]{0,3}\)?(?:[ .-][0-9]{2,8}){1,4}(?![0-9])",
    # Words that make a bare run of digits a phone number or an SSN.
    "phone_ctx": (
        rb"\b(?:tel(?:ephone)?|phone|mobile|mob|cell(?:phone)?|fax|whatsapp|sms|gsm|call me(?: at| on)?|text me(?: at)?)"
        rb"(?:[ _-]?(?:no\.?|number|num|nr\.?))?[^a-z0-9\n]{0,4}\+?\Z"
    ),
    "ssn_ctx": rb"(?:\bssn|social security(?: number| no\.?)?)[^a-z0-9\n]{0,4}\Z",
    "num_context": (
        rb"(?:\b(?:order|invoice|tracking|ticket|ref|reference|case|sku|serial|sn|s/n|isbn|txn|transaction|"
        rb"confirmation|build|po|id|item|part|account|acct|pid|uid|job|run|issue|pr|bug|receipt|booking|shipment)\b"
        rb"(?:[ \t]*(?:number|no\.?|num|nr|id|code|#))?[^a-z0-9\n]{0,6}|#[ \t]?)\Z"
    ),
    "version_context": rb"(?:\b(?:v|ver|version|release|build|firmware|kernel|rev)[ .:=/_-]{0,3}|[=~<>!]=|[\^~])\Z",
    "ipv6_full": rb":[0-9A-Fa-f]{1,4}:[0-9A-Fa-f]{1,4}:[0-9A-Fa-f]{1,4}:",
    "ipv6_dc": rb"::",
    # Home paths, on the original text (names may be non-ASCII).
    "home": r"home\\{0,2}/",
    "users": r"Users(?:\\{0,4}/|\\{1,4})",
    "docs_settings": r"Documents and Settings(?:\\{0,4}/|\\{1,4})",
    "home_name": r"[^\W][\w.-]{0,31}",
    "tilde": r"~([A-Za-z_][\w.-]{0,31})",
    "drive": r"(?<![A-Za-z0-9])([A-Za-z]:(?:\\{1,4}|/))\Z",
    "shell_verb": r"(?:^|[\s;&|(])(?:cd|ls|cp|mv|rm|cat|chown|chmod|pushd|find|du|tar|rsync|scp)\s+(?:-\S+\s+)*\Z",
    # Decoding.
    "pct": rb"%[0-9A-Fa-f]{2}",
    "token_run": rb"BBBBBBBBBBBBBBBB+",
    "unicode_esc": rb"\\u00[0-9A-Fa-f]{2}",
    # Patterns applied to candidate values (str), not to the text.
    # References and templates, not values: ${VAR} $VAR $(cmd) %VAR% %(name)s
    # {name} [REDACTED] [SECRET:kind] (our own placeholders: strip() is idempotent)
    # !vault !!tag *alias &anchor @Microsoft.KeyVault(…)
    "reference_start": (
        r"\$[{(A-Za-z_]|%[A-Za-z_]\w*%|%\(|\{[A-Za-z_][\w.]*\}|\[[A-Za-z _:-]*\]\Z|!!|![A-Za-z]+(?:\s|\Z)"
        r"|[*&][a-z_][a-z0-9_-]*\Z|@[A-Za-z_][\w.]*(?:\(|\Z)"
    ),
    "reference": r"[A-Za-z_][A-Za-z0-9_]*(?:(?:\.|::)[A-Za-z_][A-Za-z0-9_]*)+|[a-z]+(?:_[a-z]+)+",
    "identifier_path": r"[a-z]+(?:[:./][a-z]+)+",
    "code": r"[A-Za-z_][\w.]*[(\[]",
    "pathlike": r"(?:~|\.{1,2})?/|[A-Za-z]:[\\/]|.*\.(?:pem|key|crt|txt|json|env|ya?ml|p12|pfx|jks|gpg|asc)\Z",
    "vendor_prefix": (
        r"(?:sk-ant-(?:api|admin|oat|sid)\d\d-|sk-ant-|sk-(?:proj|svcacct|admin|None)-|sk-|[sr]k_(?:live|test|prod)_|"
        r"gh[pousr]_|github_pat_|xox[a-z]-|xapp-|AIza|GOCSPX-|ya29\.|[A-Za-z]+[_-])"
    ),
    "name_part": r"[A-Z]+(?=[A-Z][a-z])|[A-Z]?[a-z]+|[A-Z]+|[0-9]+",
    "words": r"[A-Za-z]+(?:[._-][A-Za-z]+)*",
    "digit_re": r"[0-9]",
    "phone_shape": r"[ .()-]{3,}|\.\d{1,2}$|\d{5,}\.\d",
}


def _table(mapping: Callable[[int], int]) -> bytes:
    return bytes(mapping(i) for i in range(256))


_DIGIT_SHAPE = _table(lambda i: 0x30 if 0x30 <= i <= 0x39 else i)
# Token characters (alphanumerics and the base64/base64url extras) become B.
_TOKEN_SHAPE = _table(
    lambda i: 0x42 if (0x30 <= i <= 0x39 or 0x41 <= i <= 0x5A or 0x61 <= i <= 0x7A or i in b"+/-_") else 0x20
)


# --------------------------------------------------------------------------
# Views of one text


class _View:
    """The text and same-length byte views of it that the detectors search."""

    __slots__ = ("text", "ab", "low", "_shape", "_runs")

    def __init__(self, text: str) -> None:
        self.text = text
        ab = text.encode("ascii", "replace")
        if b"\\" in ab:
            # Same-length blanking of escapes keeps offsets and gives tokens
            # that follow an escaped newline a real boundary.
            ab = ab.replace(b"\\n", b"  ").replace(b"\\r", b"  ").replace(b"\\t", b"  ")
            if b"\\u00" in ab:
                ab = _rx().unicode_esc.sub(b"      ", ab)
        self.ab = ab
        self.low = ab.lower()
        self._shape: bytes | None = None
        self._runs: list[tuple[int, int]] | None = None

    @property
    def shape(self) -> bytes:
        if self._shape is None:
            self._shape = self.ab.translate(_DIGIT_SHAPE)
        return self._shape

    @property
    def runs(self) -> list[tuple[int, int]]:
        """Spans of 16+ token characters: where keys, tokens and base64 live."""
        if self._runs is None:
            shape = self.ab.translate(_TOKEN_SHAPE)
            self._runs = [m.span() for m in _rx().token_run.finditer(shape)]
        return self._runs

    def s(self, start: int, end: int) -> str:
        return self.text[start:end]


def _collect(text: str, depth: int, secrets_only: bool) -> list[_Cand]:
    v = _View(text)
    out: list[_Cand] = []
    _find_vendor(v, out)
    _find_private_keys(v, out)
    _find_url_credentials(v, out)
    _find_keyword_secrets(v, out)
    _find_cli_tools(v, out)
    if not secrets_only:
        _find_emails(v, out)
        _find_numbers(v, out)
        _find_ipv6(v, out)
        _find_home_paths(v, out)
    if depth < _MAX_DEPTH:
        _find_percent_encoded(v, out, depth, secrets_only)
        _find_base64(v, out, depth)
    return out


def _add(out: list[_Cand], start: int, end: int, kind: str) -> None:
    out.append((_RANK[kind], start, end, kind))


# --------------------------------------------------------------------------
# Placeholder and plausibility tests


_PLACEHOLDER_WORDS = (
    "example", "xxxx", "***", "\u2022\u2022", "...", "\u2026", "your", "changeme", "change_me", "change-me",
    "placeholder", "redacted", "dummy", "replace", "insert", "sample", "fake", "notreal", "not_real",
    "not-a-real", "todo", "123456", "abcdefgh", "password", "passwd", "{{", "}}",
)
_STOPWORDS = frozenset(
    """none null nil true false yes no on off undefined required optional string str int bool boolean number
    bytes text hidden masked redacted empty default changeit admin root test guest pass pwd value foo bar baz
    qux secret token apikey api_key bearer basic digest oauth oauth2 jwt env environ environment config settings
    unset invalid incorrect wrong missing expired valid correct same different blank secretstr secretbytes
    optional any object dict list type hunter letmein qwerty user username login auth private public
    credentials credential disabled enabled sensitive strong weak random generated provided""".split()
)


def _has_run(value: str, n: int) -> bool:
    run = 1
    for a, b in zip(value, value[1:]):
        run = run + 1 if a == b else 1
        if run >= n:
            return True
    return False


def _is_placeholder(value: str) -> bool:
    """A documentation placeholder, a mask or a reference rather than a secret."""
    if not value or _rx().reference_start.match(value):
        return True
    if "<" in value and ">" in value:
        return True  # <your-key>
    low = value.lower()
    if low in _STOPWORDS:
        return True
    if any(w in low for w in _PLACEHOLDER_WORDS):
        return True
    return len(value) >= 5 and _has_run(low, 5)


def _classes(value: str) -> int:
    return (
        any(ch.isdigit() for ch in value)
        + any(ch.isupper() for ch in value)
        + any(ch.islower() for ch in value)
        + any(not ch.isalnum() for ch in value)
    )


def _plausible(value: str, style: str, quoted: bool) -> bool:
    """Could ``value`` be a real secret, given how it was written?

    ``style`` is ``env`` (X=…), ``colon`` (JSON/YAML key), ``code`` (x = …),
    ``prose`` (typed in chat) or ``strict`` (a bare word after a keyword).
    """
    if len(value) < 6 or len(value) > 2000 or _is_placeholder(value):
        return False
    if not quoted and (value[0] == "#" and style != "env" or _rx().code.match(value) or "(" in value or "[" in value):
        return False  # a YAML comment; a call or subscript such as get_token(…), environ[…]
    if value.startswith(("ssh-", "ecdsa-sha2-", "sk-ssh-", "-----")):
        return False  # a public key or a PEM block (private keys have their own detector)
    if _rx().identifier_path.fullmatch(value):
        return False  # agent:main:main, config/default.yaml: names, not secrets
    if _rx().pathlike.match(value):
        return False
    if not quoted and _rx().reference.fullmatch(value):
        return False  # settings.SECRET_KEY, os.environ, request_password
    classes = _classes(value)
    if value.isalpha():
        if style == "strict" or style == "prose" and not quoted:
            return False
        if style == "code" and not quoted:
            return False
        if style == "colon" and not quoted:
            return len(value) >= 10 and not (value[0].isupper() and any(ch.isupper() for ch in value[1:]))
        return len(value) >= 8
    if value.isdigit():
        # "the passcode is 482913" in chat; elsewhere short numbers are counts.
        return len(value) >= (6 if style == "prose" else 8) and style != "strict" and "0123" not in value
    if style == "strict":
        return len(value) >= 8 and any(ch.isdigit() for ch in value) and any(ch.isalpha() for ch in value) and (
            not re.fullmatch(r"[0-9a-fA-F-]+", value)
        )
    return classes >= 2


# --------------------------------------------------------------------------
# Vendor formats and private keys


def _left_ok(ab: bytes, start: int) -> bool:
    return start == 0 or not (ab[start - 1 : start].isalnum())


def _find_vendor(v: _View, out: list[_Cand]) -> None:
    """Vendor formats, tried at the start of each token run (and after a / or +
    inside one), instead of one pass over the text per vendor."""
    rx = _rx()
    ab = v.ab
    for rs, re_ in v.runs:
        starts = [rs]
        # A path or a URL can glue a token to what precedes it: /v1/<token>.
        # Long runs are base64 blobs, where a / inside starts nothing.
        if re_ - rs < 512 and (ab.find(b"/", rs, re_) >= 0 or ab.find(b"+", rs, re_) >= 0):
            starts += [i + 1 for i in range(rs, re_ - 16) if ab[i] in b"/+"]
        for st in starts:
            for pattern, kind in _vendor_patterns(ab[st]):
                m = pattern.match(ab, st)
                if m is not None:
                    _vendor_match(v, out, st, m.end(), kind)
                    break
        if rs >= 3:
            if ab[rs - 1] == 0x3A and ab[rs : rs + 2] == b"AA":
                _telegram(v, out, rs - 1, re_)
            elif ab[rs - 1] == 0x2E:
                for prefix, escaped in _DOTTED:
                    if ab[rs - len(prefix) : rs] == prefix:
                        for pattern, kind in _vendor_patterns(prefix[0]):
                            if not pattern.pattern.startswith(escaped):
                                continue
                            m = pattern.match(ab, rs - len(prefix))
                            if m is not None:
                                _vendor_match(v, out, m.start(), m.end(), kind)
    if b"hooks.slack.com" in ab:
        for m in rx.slack_hook.finditer(ab):
            _vendor_match(v, out, m.start(), m.end(), "slack_token")


def _vendor_match(v: _View, out: list[_Cand], s: int, e: int, kind: str) -> None:
    ab = v.ab
    if not _left_ok(ab, s):
        return
    if kind == "aws_access_key" or kind == "google_api_key" and ab[s : s + 4] == b"AIza":
        if e < len(ab) and ab[e] in _ALNUM:
            return  # a longer word that happens to start like a key
    kind2 = _vendor_kind(v.s(s, e), kind)
    if kind2 is not None:
        _add(out, s, e, kind2)
        if kind2 == "aws_access_key":
            _find_aws_secret_near(v, out, s, e)


def _telegram(v: _View, out: list[_Cand], colon: int, end: int) -> None:
    """<bot id>:AA<33 chars>, a Telegram bot token."""
    ab = v.ab
    m = _rx().telegram.match(ab, colon)
    if m is None:
        return
    d = colon
    while d > 0 and ab[d - 1] in _DIGITS and colon - d < 11:
        d -= 1
    if colon - d >= 8 and _left_ok(ab, d) and not _is_placeholder(v.s(colon + 3, m.end())):
        _add(out, d, m.end(), "generic_api_key")


def _vendor_kind(token: str, kind: str) -> str | None:
    """Confirm a vendor-format match; None for placeholders and look-alikes."""
    m = _rx().vendor_prefix.match(token)
    body = token[m.end() :] if m else token
    if kind == "jwt":
        return None if _is_sample_jwt(token) or _is_placeholder(token) else "jwt"
    if _is_placeholder(body) or _is_placeholder(token):
        return None
    if kind == "openai_key":
        if token.startswith("sk-ant-"):
            kind = "anthropic_key"
        if not (any(ch.isdigit() for ch in body) and any(ch.isalpha() for ch in body)):
            return None  # sk-some-hyphenated-words
        if body.count("-") > len(body) // 6:
            return None
    elif kind == "aws_access_key":
        if not any(ch.isdigit() for ch in token[4:]):
            return None
    elif len(body) >= 12 and len(set(body)) < 6:
        return None
    return kind


def _is_sample_jwt(token: str) -> bool:
    """The jwt.io sample (John Doe, sub 1234567890) is documentation."""
    parts = token.split(".")
    payload = _b64_decode(parts[1]) if len(parts) > 1 else None
    return payload is not None and "John Doe" in payload and "1234567890" in payload


def _find_aws_secret_near(v: _View, out: list[_Cand], s: int, e: int) -> None:
    """A 40-character base64 value next to an access key id is its secret."""
    lo, hi = max(0, s - 400), min(len(v.ab), e + 400)
    for m in _rx().aws_near.finditer(v.ab, lo, hi):
        value = v.s(*m.span())
        if _looks_aws_secret(value):
            _add(out, m.start(), m.end(), "aws_secret_key")


def _looks_aws_secret(value: str) -> bool:
    return (
        len(value) == 40
        and any(ch.isdigit() for ch in value)
        and any(ch.isupper() for ch in value)
        and any(ch.islower() for ch in value)
        and not _is_placeholder(value)
        and not value.startswith(("AKIA", "ASIA"))
    )


def _find_private_keys(v: _View, out: list[_Cand]) -> None:
    """PEM private keys (RSA, EC, DSA, OpenSSH, PKCS#8, encrypted, PGP) and PuTTY keys."""
    rx = _rx()
    ab = v.ab
    pos = 0
    while (m := rx.pk_begin.search(ab, pos)) is not None:
        end_m = rx.pk_end.search(ab, m.end(), m.end() + 12000)
        next_begin = rx.pk_begin.search(ab, m.end(), end_m.start() if end_m else m.end() + 12000)
        if end_m is not None and next_begin is None:
            body_end, span_end = end_m.start(), end_m.end()
        else:  # truncated: the header and the base64 lines that follow it
            span_end = rx.pk_body.match(ab, m.end()).end()
            body_end = span_end
        chunks = [len(x) for x in rx.b64_chunk.findall(ab, m.end(), body_end)]
        # A real body has long base64 lines; prose after a lone header does not.
        enough = sum(chunks) >= 40 and max(chunks, default=0) >= (16 if end_m is not None else 40)
        if enough and b"..." not in ab[m.end() : body_end]:
            _add(out, m.start(), span_end, "private_key")
        pos = max(m.end(), span_end)
    if b"PuTTY-User-Key-File" in ab:
        for m in rx.putty.finditer(ab):
            end_m = rx.putty_end.search(ab, m.end(), m.end() + 8000)
            _add(out, m.start(), end_m.end() if end_m else min(len(ab), m.end() + 2000), "private_key")


# --------------------------------------------------------------------------
# Credentials in URLs, assignments, headers and prose


_URL_PLACEHOLDERS = frozenset(
    "password pass passwd pwd secret user username usr login token apikey api_key key changeme pw p".split()
)


def _find_url_credentials(v: _View, out: list[_Cand]) -> None:
    ab = v.ab
    rx = _rx()
    matches = list(rx.url_cred.finditer(ab)) if b"://" in ab else []
    if b":\\/\\/" in ab:
        matches += rx.url_cred_esc.finditer(ab)
    for m in matches:
        us, ue = m.span(1)
        ps, pe = m.span(2)
        user, pw = v.s(us, ue), v.s(ps, pe)
        if pw.lower() in _URL_PLACEHOLDERS or _is_placeholder(pw) or pw == user:
            continue
        if pw.isdigit() and len(pw) <= 5:
            continue  # host:port@ — not a password
        _add(out, us, pe, "url_credentials")  # with no user, us is the colon


_SECRET_LAST = frozenset(
    "password passwd pass pwd pw passphrase passcode secret token apikey credentials credential creds "
    "authorization auth pat sas".split()
)
_KEY_NOT_SECRET = frozenset(
    "public primary foreign sort partition cache hash routing publishable map dict lookup unique composite "
    "idempotency object row group index registry field column json yaml config i18n translation list hot session "
    "shortcut keyboard ssh gpg pgp kms host known dedup dedupe s3 bucket redis storage_path unique_ "
    "encryption_context metadata label tag api_key_id".split()
)
_JOINED_SECRET = ("password", "passwd", "apikey", "secretkey", "accesskey", "privatekey", "authtoken", "accesstoken")


def _secret_name(name: str) -> str | None:
    """Classify an assignment's name: ``"aws"``, ``"yes"`` or None (not secret-ish)."""
    try:
        return _NAME_CACHE[name]
    except KeyError:
        pass
    verdict = _classify_name(name)
    if len(_NAME_CACHE) < 4096:  # code repeats the same names; bound the memory
        _NAME_CACHE[name] = verdict
    return verdict


_NAME_CACHE: dict[str, str | None] = {}


def _classify_name(name: str) -> str | None:
    parts = [p.lower() for p in _rx().name_part.findall(name)]
    if not parts:
        return None
    joined = "".join(parts)
    last = parts[-1]
    secret = False
    if joined in ("pwd", "oldpwd", "pw"):
        secret = joined == "pw"
    elif last in _SECRET_LAST or joined.endswith(_JOINED_SECRET):
        secret = True
    elif last == "key" and len(parts) >= 2 and parts[-2] not in _KEY_NOT_SECRET:
        secret = True
    elif parts[-2:] == ["key", "base"] and "secret" in parts:
        secret = True
    if not secret:
        return None
    if "secret" in parts and ("aws" in parts or "access" in parts):
        return "aws"
    return "yes"


_KEYWORDS = (b"pass", b"pw", b"secret", b"token", b"key", b"auth", b"cred", b"bearer", b"basic", b"mysql", b"curl")
_NAME_BYTES = frozenset(b"abcdefghijklmnopqrstuvwxyz0123456789_.-")
_WORD_BYTES = frozenset(b"abcdefghijklmnopqrstuvwxyz0123456789_")
_PROSE_WORDS = frozenset(
    b"password passwd passphrase passcode pw pwd key secret token credential credentials".split()
)
_COLON_WORDS = frozenset(b"key token secret password passphrase pw".split())
# What may follow a name that is assigned to or followed by a phrase.
_AFTER_NAME = frozenset([b" ", b"\t", b":", b"=", b'"', b"'", b"]", b"\\", b">", b"-"])


def _find_keyword_secrets(v: _View, out: list[_Cand]) -> None:
    """Assignments, headers and phrases around a keyword such as ``pass`` or ``token``.

    Each keyword hit is confirmed by patterns anchored at the name or word that
    holds it, so the cost follows the number of keywords, not the text size.
    """
    rx = _rx()
    low = v.low
    hits: list[int] = []
    for kw in _KEYWORDS:
        i = low.find(kw)
        while i >= 0:
            hits.append(i)
            i = low.find(kw, i + 1)
    if not hits:
        return
    hits.sort()
    done = -1
    name_fwd = rx.name_fwd
    for p in hits:
        if p < done:
            continue  # "secret_key" holds two keywords: one name, one visit
        e = name_fwd.match(low, p).end()
        done = e
        while e > p and low[e - 1] in b".-":
            e -= 1
        if low[e : e + 1] not in _AFTER_NAME:
            continue  # token_count.get(…), max_tokens): code, not a secret
        s = p
        while s > 0 and low[s - 1] in _NAME_BYTES:
            s -= 1
        _assignment_at(v, out, s, e)
        ws = p
        while ws > s and low[ws - 1] in _WORD_BYTES:
            ws -= 1
        we = p
        while we < e and low[we] in _WORD_BYTES:
            we += 1
        _phrases_at(v, out, ws, we)


def _assignment_at(v: _View, out: list[_Cand], s: int, e: int) -> None:
    """``name = value`` / ``name: value`` / ``<name>value</name>`` for the name at s:e."""
    rx = _rx()
    ab, low = v.ab, v.low
    while s < e and low[s] not in _NAME_START:
        s += 1  # --password, .env-style prefixes: the name starts at a letter
    if s >= e or (s > 0 and ab[s - 1] == 0x24):
        return  # $PASSWORD is a reference
    m = rx.assign_tail.match(ab, e)
    if m is None:
        if s > 0 and ab[s - 1] == 0x3C and ab[e : e + 1] == b">":
            _xml_element(v, out, s, e)
        elif ab[e : e + 1] in (b" ", b"\t") and _secret_name(v.s(s, e)) == "aws":
            spaced = rx.aws_spaced.match(ab, e)  # aws configure set aws_secret_access_key …
            if spaced is not None and _looks_aws_secret(v.s(*spaced.span(1))):
                _add(out, *spaced.span(1), "aws_secret_key")
        return
    name = v.s(s, e)
    verdict = _secret_name(name)
    if verdict is None:
        return
    if m.group(3) is not None:
        (vs, ve), quoted = m.span(3), True
    elif m.group(4) is not None:
        (vs, ve), quoted = m.span(4), True
    else:
        (vs, ve), quoted = m.span(5), False
    while ve > vs and ab[ve - 1] == 0x20:
        ve -= 1  # "…\n" inside the quotes: a blanked escape, not the value
    value = v.s(vs, ve)
    before = ab[max(0, s - 24) : s]
    if not quoted:
        if before.endswith((b"?", b"&")) or "&" in value and "=" in value.partition("&")[2]:
            value = value.partition("&")[0]  # a query string: & starts the next parameter
        value = value.rstrip(".")
        ve = vs + len(value)
    sep = m.group(2)
    kind = _assignment_kind(name, sep, before, ab, m.start(2))
    if verdict == "aws" and _aws_value(value):
        _add(out, vs, ve, "aws_secret_key")
        return
    style = "env" if kind == "env_secret" else ("colon" if sep in (b":", b"=>") else "code")
    if style == "code" and not _spaced(ab, m.start(2), m.end(2)):
        style = "env"  # key=value with no spaces: logfmt, query strings, flags
    if _plausible(value, style, quoted):
        _add(out, vs, ve, _aws_context(v, vs, value) or kind)


_NAME_START = frozenset(b"abcdefghijklmnopqrstuvwxyz_")


def _xml_element(v: _View, out: list[_Cand], s: int, e: int) -> None:
    """<password>…</password>"""
    if _secret_name(v.s(s, e)) is None:
        return
    close = v.ab.find(b"</", e + 1, e + 400)
    if close > e + 1:
        value = v.s(e + 1, close)
        if _plausible(value, "colon", True):
            _add(out, e + 1, close, "generic_api_key")


def _phrases_at(v: _View, out: list[_Cand], ws: int, we: int) -> None:
    """Prose, HTTP auth schemes and command lines around the keyword word ws:we."""
    rx = _rx()
    low = v.low
    n = len(low)
    word = low[ws:we]
    nxt = low[we : we + 1]
    hi = _line_end(low, we)
    if nxt == b" " or nxt == b"\t":
        if word in _PROSE_WORDS or word.rsplit(b"_", 1)[-1] in _PROSE_WORDS:
            for pattern, style in ((rx.prose, "prose"), (rx.bare_kw, "strict")):
                m = pattern.match(low, ws, hi)
                if m is not None:
                    _phrase_value(v, out, m.end(), hi, style)
            m = rx.prose_set.search(low, max(0, ws - 60), we + 6)
            if m is not None:
                _phrase_value(v, out, m.end(), hi, "prose")
        if word == b"bearer" or word == b"token":
            _auth_scheme(v, out, rx.scheme.match(low, ws, hi))
        elif word == b"basic":
            _basic_auth(v, out, rx.basic.match(low, ws, hi))
        elif word.startswith(b"mysql"):
            m = rx.mysql_p.match(v.ab, ws, hi)
            if m is not None:
                pw = v.s(*m.span(1))
                if len(pw) >= 4 and not _is_placeholder(pw):  # mysql -pS3cret
                    _add(out, *m.span(1), "generic_api_key")
        elif word == b"curl":
            _curl_user(v, out, rx.curl_u.search(v.ab, we, hi))
        if ws >= 1 and low[ws - 1] == 0x2D:
            m = rx.flag.match(low, ws - 2 if low[ws - 2 : ws - 1] == b"-" else ws - 1, hi)
            if m is not None:
                got = _value_at(v, m.end(), hi)
                if got and _plausible(v.s(got[0], got[1]), "env", got[2]):
                    _add(out, got[0], got[1], "generic_api_key")
    if word in _COLON_WORDS and nxt in (b" ", b"\t", b":", b"=", b"-"):
        m = rx.prose_colon.search(low, max(0, ws - 24), min(n, we + 8))
        if m is not None and m.end() > we:
            _phrase_value(v, out, m.end(), hi, "prose")
    if b"value" in low[we : we + 60] and low[ws - 1 : ws] != b"<":
        m = rx.xml_kv.search(low, max(0, ws - 16), hi)
        if m is not None and _secret_name(v.s(*m.span(1))):
            s, e = m.span(2)
            if _plausible(v.s(s, e), "colon", True):
                _add(out, s, e, "generic_api_key")


def _find_cli_tools(v: _View, out: list[_Cand]) -> None:
    """docker login -p …, sshpass -p …, redis-cli -a …, IDENTIFIED BY '…', Discord webhooks."""
    rx = _rx()
    low = v.low
    for m in rx.cli_login.finditer(low):
        if rx.login_tool.search(low, max(0, m.start() - 24), m.start()):
            _phrase_value(v, out, m.end(), _line_end(low, m.end()), "env")
    for pattern in (rx.sshpass, rx.redis_cli):
        for m in pattern.finditer(low):
            _phrase_value(v, out, m.end(), _line_end(low, m.end()), "env")
    for m in rx.identified_by.finditer(low):
        _phrase_value(v, out, m.end(), _line_end(low, m.end()), "prose")
    for m in rx.discord_hook.finditer(v.ab):
        if not _is_placeholder(v.s(*m.span(1))):
            _add(out, *m.span(1), "generic_api_key")


def _line_end(low: bytes, at: int) -> int:
    end = low.find(b"\n", at, at + 480)
    return end if end >= 0 else min(len(low), at + 480)


def _phrase_value(v: _View, out: list[_Cand], at: int, hi: int, style: str) -> None:
    got = _value_at(v, at, hi)
    if got is None:
        return
    s, e, quoted = got
    value = v.s(s, e)
    if style == "prose" and not quoted and _classes(value) < 2 and not value.isdigit():
        return
    if _plausible(value, style, quoted):
        _add(out, s, e, _aws_context(v, s, value) or "generic_api_key")


def _auth_scheme(v: _View, out: list[_Cand], m: re.Match[bytes] | None) -> None:
    if m is None:
        return
    s, e = m.span(2)
    value = v.s(s, e).rstrip(".,;")
    if len(value) < 10 or _is_placeholder(value) or _rx().words.fullmatch(value):
        return
    header = b"authorization" in v.low[max(0, s - 48) : s]
    bearer = m.group(1) == b"bearer"
    # "token <word>" is common prose; want a credential-looking value.
    if header and len(value) >= 12 or (bearer and _classes(value) >= 2 + (len(value) < 12)) or (
        len(value) >= 16 and _classes(value) >= 3
    ):
        _add(out, s, s + len(value), "generic_api_key")


def _basic_auth(v: _View, out: list[_Cand], m: re.Match[bytes] | None) -> None:
    if m is None:
        return
    s, e = m.span(1)
    decoded = _b64_decode(v.s(s, e))
    if decoded is None or ":" not in decoded:
        return
    inner = [c for c in _collect(decoded, _MAX_DEPTH, True) if c[0] <= _RANK["aws_secret_key"]]
    if inner:
        _add(out, s, e, min(inner)[3])
        return
    user, _, pw = decoded.partition(":")
    if pw and pw != user and not _is_placeholder(pw) and pw.lower() not in _URL_PLACEHOLDERS:
        if pw.lower() != "open sesame":  # RFC 7617's Aladdin example
            _add(out, s, e, "generic_api_key")


def _curl_user(v: _View, out: list[_Cand], m: re.Match[bytes] | None) -> None:
    if m is None:
        return
    s, e = m.span(2)
    user, pw = v.s(*m.span(1)), v.s(s, e)
    if pw != user and len(pw) >= 4 and pw.lower() not in _URL_PLACEHOLDERS and not _is_placeholder(pw):
        _add(out, s, e, "generic_api_key")


def _spaced(ab: bytes, s: int, e: int) -> bool:
    return ab[s - 1 : s] in (b" ", b"\t") or ab[e : e + 1] in (b" ", b"\t")


def _assignment_kind(name: str, sep: bytes, before: bytes, ab: bytes, sep_at: int) -> str:
    last = name.rsplit(".", 1)[-1]  # process.env.DB_PASSWORD is an environment variable
    upper = last.upper() == last and any(ch.isalpha() for ch in last)
    if before.endswith((b"-", b"-D")) or before.endswith((b"?", b"&")) and not upper:
        return "generic_api_key"  # --password=…, -Ddb.password=…, ?token=…
    envish = _rx().env_prefix.search(before) is not None
    if sep == b"=" or sep == b":=":
        if upper or envish:
            return "env_secret"
        return "generic_api_key"
    if sep == b":" and upper and "_" in name and ab[sep_at - 1 : sep_at] not in (b'"', b"'"):
        return "env_secret"  # compose / k8s environment map: DB_PASSWORD: …
    return "generic_api_key"


def _value_at(v: _View, pos: int, end: int) -> tuple[int, int, bool] | None:
    m = _rx().value_q.match(v.ab, pos, end)
    if m is None:
        return None
    for g in (1, 2, 3):
        if m.group(g) is not None:
            return m.start(g), m.end(g), True
    s, e = m.span(4)
    value = v.s(s, e)
    trimmed = value.rstrip(".,;:)?'\"")
    return s, s + len(trimmed), False


def _aws_value(value: str) -> bool:
    """An AWS secret key, plain or base64-encoded (a Kubernetes secret)."""
    if _looks_aws_secret(value):
        return True
    if 52 <= len(value) <= 60:
        decoded = _b64_decode(value)
        return decoded is not None and _looks_aws_secret(decoded.strip())
    return False


def _aws_context(v: _View, at: int, value: str) -> str | None:
    """A 40-character secret just after the word "aws" is an AWS secret key."""
    if len(value) == 40 and _looks_aws_secret(value) and b"aws" in v.low[max(0, at - 120) : at]:
        return "aws_secret_key"
    return None


# --------------------------------------------------------------------------
# Email


_LOCAL_CHARS = frozenset(b"abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789._%+-'")
_DOC_DOMAINS = ("example.com", "example.org", "example.net", "example.edu")
_DOC_TLDS = ("test", "invalid", "example", "localhost", "localdomain", "local", "internal", "lan", "home", "corp")
_FILE_TLDS = frozenset(
    "png jpg jpeg gif svg webp ico bmp tif tiff js mjs ts tsx jsx css scss map txt md html htm lock json yaml yml "
    "toml xml py rb go rs java kt swift c h cpp hpp sh ps1 bat exe dll so dylib zip gz tgz tar whl jar pdf".split()
)
_LOCAL_PLACEHOLDERS = frozenset(
    "you your yourname your.name your_name your-name youremail your.email your_email your-email username user "
    "user.name email name someone somebody nobody noreply no-reply donotreply do-not-reply foo bar test me "
    "firstname.lastname first.last john.doe jane.doe".split()
)
_GIT_HOSTS = ("github.com", "gitlab.com", "bitbucket.org", "ssh.dev.azure.com", "vs-ssh.visualstudio.com")


def _find_emails(v: _View, out: list[_Cand]) -> None:
    ab = v.ab
    if b"@" not in ab:
        return
    rx = _rx()
    for m in rx.at.finditer(ab):
        at = m.start()
        s = at
        while s > 0 and ab[s - 1] in _LOCAL_CHARS and at - s < 64:
            s -= 1
        while s < at and ab[s] in b".'":
            s += 1
        if s == at or ab[at - 1] in b".-":
            continue  # user-role-@role.Name is a template, not an address
        dm = rx.domain.match(ab, at + 1)
        if dm is None:
            continue
        e = dm.end()
        local = v.s(s, at).lower()
        domain = v.s(at + 1, e).lower()
        if _email_is_placeholder(local, domain) or _in_url_userinfo(ab, s):
            continue
        _add(out, s, e, "email")


def _in_url_userinfo(ab: bytes, s: int) -> bool:
    """scheme://user@host or scheme://user:pass@host: credentials, not a mailbox."""
    if ab[max(0, s - 3) : s] == b"://":
        return True
    if s > 0 and ab[s - 1] == 0x3A:
        k = ab.rfind(b"://", max(0, s - 80), s)
        return k >= 0 and not any(ch in b" \t\n\"'/@" for ch in ab[k + 3 : s - 1])
    return False


def _email_is_placeholder(local: str, domain: str) -> bool:
    tld = domain.rsplit(".", 1)[-1]
    if tld in _FILE_TLDS or tld in _DOC_TLDS:
        return True
    if domain in _DOC_DOMAINS or domain.endswith(tuple("." + d for d in _DOC_DOMAINS)):
        return True
    if domain.startswith(("example.", "your", "domain.", "mydomain.")):
        return True
    if local in _LOCAL_PLACEHOLDERS or local.endswith("noreply"):
        return True
    return local == "git" and domain in _GIT_HOSTS


# --------------------------------------------------------------------------
# Numbers: SSN, credit cards, phones, IPv4


_TEST_CARDS = frozenset(
    """4242424242424242 4000056655665556 5555555555554444 2223003122003222 5200828282828210 5105105105105100
    378282246310005 371449635398431 6011111111111117 6011000990139424 3056930009020004 36227206271667
    3566002020360505 6200000000000005 4111111111111111 4012888888881881 4222222222222 5454545454545454
    30569309025904 38520000023237 6011000400000000 3530111333300000 4917610000000000 4462030000000000
    4444333322221111 4000000000000002 4000000000000077 4000000000003220 4000002500003155 378734493671000
    5019717010103742 6331101999990016 4000000760000002 4000001240000000 4000008260000000 4000058260000005
    5425233430109903 2222400070000005 4988438843884305 4263982640269299 4917484589897107 4001919257537193
    4007702835532454 5555341244441115 5577000055770004 3714496353984312 4009348888881881 4005519200000004
    4217651111111119 4500600000000061 5431111111111111 6011000991300009 6304000000000000 36259600000004
    6243030000000001 4000111111111115 2222420000001113 2223000048410010 4263970000005262 5500000000000004
    340000000000009 30000000000004 6011000000000004 3088000000000009 4035501000000008 4360000001000005
    2222405343248877 2222990905257051 5101180000000007 6011601160116611 3569990010095841 4646464646464644""".split()
)


def _luhn(digits: str) -> bool:
    total = 0
    for i, ch in enumerate(reversed(digits)):
        d = ord(ch) - 48
        if i % 2:
            d = d * 2 - 9 if d > 4 else d * 2
        total += d
    return total % 10 == 0


def _card_brand_ok(d: str) -> bool:
    n = len(d)
    if d[0] == "4":
        return n in (13, 16, 19)
    two = int(d[:2])
    if 51 <= two <= 55 or 2221 <= int(d[:4]) <= 2720:
        return n == 16
    if two in (34, 37):
        return n == 15
    if two in (36, 38, 39) or 300 <= int(d[:3]) <= 305:
        return 14 <= n <= 19
    if d.startswith(("6011", "65", "62")) or 644 <= int(d[:3]) <= 649 or 3528 <= int(d[:4]) <= 3589:
        return 16 <= n <= 19
    return False


def _bounded(ab: bytes, s: int, e: int, left_bad: bytes, right_bad: bytes) -> bool:
    """No letter, digit or listed byte touches the span; a dot or colon on the
    right only counts when a digit follows it (end of sentence vs 1.2.3.4)."""
    if s > 0:
        c = ab[s - 1]
        if c in _ALNUM or c in left_bad:
            return False
    if e < len(ab):
        c = ab[e]
        if c in _ALNUM or c in right_bad:
            return False
        if _number_continues(ab, e):
            return False
    return True


def _number_continues(ab: bytes, e: int) -> bool:
    """A decimal point (1.5) or a thousands group (1,234) follows: the number
    goes on. A comma and a longer number is a CSV column, not a group."""
    c = ab[e : e + 1]
    if c == b".":
        return ab[e + 1 : e + 2].isdigit()
    if c == b",":
        return ab[e + 1 : e + 4].isdigit() and len(ab[e + 1 : e + 4]) == 3 and not ab[e + 4 : e + 5].isdigit()
    return False


_ALNUM = frozenset(b"abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789")
_DIGITS = frozenset(b"0123456789")


def _numeric_context(v: _View, s: int) -> bool:
    """True when the number follows a word such as 'order' or 'invoice' (not PII)."""
    if _rx().num_context.search(v.low, max(0, s - 30), s) is None:
        return False
    return b"ssn" not in v.low[max(0, s - 12) : s]  # "SSN #536-90-4421" is still an SSN


def _find_numbers(v: _View, out: list[_Cand]) -> None:
    rx = _rx()
    ab, shape = v.ab, v.shape
    if b"00" not in shape:
        return
    for m in rx.numbers.finditer(shape):
        s, e = m.span()
        if m.lastgroup == "sep":
            if e - s == 12:
                _nanp_candidate(v, out, s, e)
            elif ab[s + 3] == ab[s + 6] and ab[s + 3] != 0x2E and _bounded(ab, s, e, b"-.+/_", b"-/_"):
                if _ssn_ok(v.s(s, e)) and not _numeric_context(v, s):
                    _add(out, s, e, "ssn")
            continue
        if m.lastgroup == "card" and _bounded(ab, s, e, b"-.+/_", b"-/_"):
            _card_candidate(v, out, s, e)
        if e - s == shape.count(b"0", s, e):  # a bare run of digits
            _digit_run(v, out, s, e)
    if b"(" in ab:
        for m in rx.nanp_paren.finditer(shape):
            _nanp_candidate(v, out, *m.span())
    if b"+" in ab:
        for m in rx.intl.finditer(ab):
            _intl_candidate(v, out, *m.span())
    for m in rx.trunk.finditer(ab):
        s, e = m.span()
        if ab[s - 1 : s] in (b":", b" ", b"-", b".") and ab[s - 2 : s - 1].isdigit():
            continue  # 08:03 20260416 in `ls -l` output; the tail of a longer number
        if _bounded(ab, s, e, b"-./,+_", b"-/_:"):
            raw = ab[s:e]
            digits = shape.count(b"0", s, e)
            if 10 <= digits <= 12 and (b"." not in raw or not (b" " in raw or b"-" in raw)):
                _phone_candidate(v, out, s, e)
    if b"." in shape:
        _find_ipv4(v, out)


def _digit_run(v: _View, out: list[_Cand], s: int, e: int) -> None:
    """A bare run of 9 to 13 digits, a phone number or an SSN only when the words
    before it say so ("phone: 4155550123", "SSN 536904421")."""
    ab, low, rx = v.ab, v.low, _rx()
    if e < len(ab) and ab[e] in _ALNUM or not 9 <= e - s <= 13:
        return
    if e - s == 9 and rx.ssn_ctx.search(low, max(0, s - 40), s):
        digits = v.s(s, e)
        if _ssn_ok(f"{digits[:3]}-{digits[3:5]}-{digits[5:]}"):
            _add(out, s, e, "ssn")
    elif e - s >= 10 and rx.phone_ctx.search(low, max(0, s - 40), s):
        _phone_candidate(v, out, s - (ab[s - 1 : s] == b"+"), e, keyword=True)


def _ssn_ok(ssn: str) -> bool:
    area, group, serial = ssn[:3], ssn[4:6], ssn[7:]
    if area in ("000", "666") or area[0] == "9" or group == "00" or serial == "0000":
        return False
    digits = area + group + serial
    if digits in ("123456789", "078051120", "219099999", "111223333") or len(set(digits)) <= 2:
        return False
    return True


def _card_candidate(v: _View, out: list[_Cand], s: int, e: int) -> None:
    raw = v.s(s, e)
    if len({ch for ch in raw if not ch.isdigit()}) > 1:
        return  # mixed separators: not how a card number is written
    d = raw.replace(" ", "").replace("-", "")
    if not 13 <= len(d) <= 19 or not _luhn(d) or not _card_brand_ok(d):
        return
    if d in _TEST_CARDS or len(set(d)) <= 3 or _numeric_context(v, s):
        return
    _add(out, s, e, "credit_card")


def _nanp_candidate(v: _View, out: list[_Cand], s: int, e: int) -> None:
    ab = v.ab
    if e < len(ab) and (ab[e] in _ALNUM or ab[e] in b"-/_" or _number_continues(ab, e)):
        return
    raw = v.s(s, e)
    if not raw.startswith("("):
        seps = raw[3] + raw[7]
        if "." in seps and seps != "..":
            return  # 415.555-2671 is not a way to write a number
    if ab[s - 2 : s] in (b"1-", b"1.", b"1 ") and (s == 2 or ab[s - 3] not in _ALNUM):
        s -= 2  # 1-415-555-2671
        if ab[s - 1 : s] == b"+":
            s -= 1
    if s > 0 and (ab[s - 1] in _ALNUM or ab[s - 1] in b"-./_"):
        return
    digits = "".join(ch for ch in raw if ch.isdigit())
    if digits[0] in "01" or digits[3] in "01":
        return  # not a valid area code or exchange
    _phone_candidate(v, out, s, e)


def _phone_candidate(v: _View, out: list[_Cand], s: int, e: int, keyword: bool = False) -> None:
    digits = "".join(ch for ch in v.s(s, e) if ch.isdigit())
    if _fictional_555(digits) or len(set(digits)) <= 2:
        return
    if not keyword and _numeric_context(v, s):
        return
    _add(out, s, e, "phone")


def _fictional_555(digits: str) -> bool:
    """555-0100 to 555-0199 are reserved for fiction and documentation."""
    return digits[-7:].startswith("55501")


def _intl_candidate(v: _View, out: list[_Cand], s: int, e: int) -> None:
    ab = v.ab
    if s > 0 and (ab[s - 1] in _ALNUM or ab[s - 1] in b"+_"):
        return  # 2+3, UTC+05:30
    raw = v.s(s, e)
    if e < len(ab) and (ab[e] in _ALNUM or ab[e] in b"-:"):
        return
    if _rx().phone_shape.search(raw):
        return
    groups = re.findall(r"\d+", raw)
    digits = "".join(groups)
    if not 10 <= len(digits) <= 15:
        return
    if len(groups) > 2 and all(len(g) == 3 for g in groups[1:]) and groups[-1] == "000":
        return  # +10 000 000: a count, not a number to call
    _phone_candidate(v, out, s, e, keyword=True)


_RFC5737 = ("192.0.2.", "198.51.100.", "203.0.113.")


def _find_ipv4(v: _View, out: list[_Cand]) -> None:
    rx = _rx()
    ab, shape = v.ab, v.shape
    for m in rx.ipv4_mid.finditer(shape):
        s = m.start()
        while s > 0 and 0x30 <= ab[s - 1] <= 0x39 and m.start() - s < 3:
            s -= 1
        full = rx.ipv4.match(ab, s) if s < m.start() else None
        if full is None or not _bounded(ab, s, full.end(), b"._-+", b"_-"):
            continue
        e = full.end()
        octets = [int(x) for x in full.groups()]
        if any(o > 255 for o in octets) or all(o < 10 for o in octets[:3]):
            continue  # 1.2.3.4 and 1.1.1.20 are versions
        if octets[0] < 10 and all(o < 100 for o in octets):
            continue  # so is 2.14.3.7
        ip = v.s(s, e)
        if octets[0] in (0, 127, 255) or octets[0] >= 224 or ip.startswith(_RFC5737):
            continue  # unspecified, loopback, broadcast, multicast, documentation
        if octets[3] == 0:
            continue  # a network (10.0.0.0/8) or a version (3.12.1.0), not a host
        if rx.version_context.search(v.low, max(0, s - 12), s):
            continue
        _add(out, s, e, "ipv4")


# --------------------------------------------------------------------------
# IPv6


_HEX = frozenset(b"0123456789abcdefABCDEF")
_V6_CHARS = _HEX | frozenset(b":.")


def _find_ipv6(v: _View, out: list[_Cand]) -> None:
    ab = v.ab
    if b":" not in ab:
        return
    rx = _rx()
    anchors = [m.start() for m in rx.ipv6_dc.finditer(ab)] if b"::" in ab else []
    anchors += [m.start() for m in rx.ipv6_full.finditer(ab)]
    anchors.sort()
    n = len(ab)
    seen_end = -1
    for a in anchors:
        if a < seen_end:
            continue
        s = a
        while s > 0 and ab[s - 1] in _V6_CHARS and a - s < 40:
            s -= 1
        e = a
        while e < n and ab[e] in _V6_CHARS and e - s < 46:
            e += 1
        while e > a and ab[e - 1] in b".:" and ab[e - 2 : e] != b"::":
            e -= 1
        seen_end = e
        if e < n and (ab[e] in _ALNUM or ab[e] in b"_-"):
            continue
        # "addr:fe80::1": the scan back may swallow a word ending in hex
        # letters; retry from each colon until the left side is clean.
        s = _ipv6_start(ab, s, a)
        if s < 0:
            continue
        if _ipv6_ok(v.s(s, e)):
            _add(out, s, e, "ipv6")


def _ipv6_start(ab: bytes, s: int, a: int) -> int:
    """Where the address starts, or -1. The scan back from an anchor may have
    swallowed a word that ends in hex letters ("addr:fe80::1"): skip to the
    next colon until the left side is clean."""
    while s <= a:
        if ab[s] == 0x3A and ab[s : s + 2] != b"::":
            s += 1
        elif s > 0 and (ab[s - 1] in _ALNUM or ab[s - 1] in b"_-/."):
            nxt = ab.find(b":", s, a + 1)
            if nxt < 0:
                return -1
            s = nxt if nxt == a else nxt + 1
            if nxt == a and (ab[s - 1] in _ALNUM):
                return -1
        else:
            return s
    return -1


def _ipv6_ok(addr: str) -> bool:
    a = addr.lower()
    if a.count("::") > 1 or a.startswith(":") and not a.startswith("::"):
        return False
    v4 = None
    if "." in a:
        cut = a.rfind(":")
        a, v4 = a[: cut + 1], a[cut + 1 :]
        if not a.endswith("::"):
            a = a[:-1]
        parts = v4.split(".")
        if len(parts) != 4 or not all(p.isdigit() and len(p) <= 3 and int(p) <= 255 for p in parts):
            return False
    head, dc, tail = a.partition("::")
    groups = (head.split(":") if head else []) + (tail.split(":") if tail else [])
    if any(not 1 <= len(g) <= 4 or g.strip("0123456789abcdef") for g in groups):
        return False
    width = len(groups) + (2 if v4 else 0)
    if (dc and not 2 <= width <= 7) or (not dc and width != 8):
        return False
    if not any(ch.isdigit() for ch in addr):
        return False
    if dc and width == 2 and not v4 and len(groups[0]) < 3:
        return False  # a::b is code, fe80::1 is an address
    values = [int(g, 16) for g in groups]
    if not any(values[:-1]) and (not values or values[-1] in (0, 1) or v4 is not None):
        if v4 is None or v4.startswith(("127.", "0.")) or values == [0xFFFF] and v4.startswith("127."):
            return False  # ::, ::1, ::ffff:127.0.0.1
    if v4 is not None and v4.startswith(("127.", "0.0.0.0") + _RFC5737):
        return False
    return not (len(groups) >= 2 and values[0] == 0x2001 and values[1] == 0xDB8 and head.count(":") >= 1)


# --------------------------------------------------------------------------
# Home paths


_HOME_PLACEHOLDERS = frozenset(
    """user username user_name yourname your_name your-name youruser your_user yourusername your_username you me
    name someone somebody nobody example runner ubuntu ec2-user vagrant circleci jenkins vscode codespace
    codespaces node docker git app admin administrator pi linuxbrew build builder travis gitpod coder dev guest
    shared public default all root www-data postgres centos debian fedora alpine ansible deploy opc azureuser
    abc xxx foo bar test testuser""".split()
)
_WIN_PLACEHOLDERS = frozenset(["default user", "all users", "defaultapppool"])


def _find_home_paths(v: _View, out: list[_Cand]) -> None:
    text = v.text
    rx = _rx()
    if "home" in text:
        for m in rx.home.finditer(text):
            s = m.start() - 1
            if text[s - 1 : s + 1] == "\\/":
                s -= 1  # JSON-escaped \/home\/alice
            elif text[s : s + 1] != "/":
                continue
            if s > 0 and (text[s - 1].isalnum() or text[s - 1] in "._-~$"):
                if not text.endswith("/export", 0, s):
                    continue  # a URL path such as https://site/home/about
            _home_name(v, out, s, m.end())
    if "Users" in text:
        for m in rx.users.finditer(text):
            _users_path(v, out, m.start(), m.end())
    if "Documents and Settings" in text:
        for m in rx.docs_settings.finditer(text):
            dm = rx.drive.search(text, max(0, m.start() - 8), m.start())
            if dm is not None:
                _home_name(v, out, dm.start(1), m.end())
    if "~" in text:
        for m in rx.tilde.finditer(text):
            _tilde_path(v, out, m)


def _users_path(v: _View, out: list[_Cand], at: int, after: int) -> None:
    text = v.text
    rx = _rx()
    dm = rx.drive.search(text, max(0, at - 8), at)
    if dm is not None:
        _home_name(v, out, dm.start(1), after)
        return
    if text[at - 2 : at] == "\\/":
        s = at - 2
    elif text[at - 1 : at] == "/":
        s = at - 1
    else:
        return
    if s > 0 and (text[s - 1].isalnum() or text[s - 1] in "._-~$"):
        if not re.search(r"/mnt/[a-z]\Z", text[max(0, s - 6) : s]):
            return
    _home_name(v, out, s, after)


def _home_name(v: _View, out: list[_Cand], s: int, name_at: int) -> None:
    text = v.text
    m = _rx().home_name.match(text, name_at)
    if m is None:
        return
    name = m.group().rstrip(".")
    e = name_at + len(name)
    if e < len(text) and text[e] in "<>*{}$%":
        return
    if not name or name.lower() in _HOME_PLACEHOLDERS or name.lower() in _WIN_PLACEHOLDERS:
        return
    if "." in name and name.rsplit(".", 1)[-1].lower() in _FILE_TLDS:
        return  # /home/index.html is a web path
    _add(out, s, e, "home_path")


def _tilde_path(v: _View, out: list[_Cand], m: re.Match[str]) -> None:
    text = v.text
    s = m.start()
    if s > 0 and not (text[s - 1].isspace() or text[s - 1] in "\"'`=(:,[{;|"):
        return  # HEAD~3, ~~strike~~, pkg~=1.0
    name = m.group(1).rstrip(".")
    e = m.start(1) + len(name)
    nxt = text[e : e + 1]
    after = text[e + 1 : e + 2]
    if nxt in ("/", "\\"):
        pass
    elif nxt in ("", "\n", "\r", '"', "'", "`", ")", "]") or nxt == "." and (after == "" or after.isspace()):
        pass
    elif nxt.isspace() or nxt in ",;":
        if _rx().shell_verb.search(text, max(0, s - 40), s) is None:
            return  # prose such as "~twice as fast"
    else:
        return
    if name.lower() not in _HOME_PLACEHOLDERS:
        _add(out, s, e, "home_path")


# --------------------------------------------------------------------------
# Encoded forms


def _find_percent_encoded(v: _View, out: list[_Cand], depth: int, secrets_only: bool) -> None:
    ab = v.ab
    if b"%" not in ab:
        return
    n = len(ab)
    last_end = -1
    for m in _rx().pct.finditer(ab):
        if m.start() < last_end:
            continue
        s = m.start()
        while s > 0 and not ab[s - 1 : s].isspace() and ab[s - 1] not in b"\"'<>`":
            s -= 1
        e = m.end()
        while e < n and not ab[e : e + 1].isspace() and ab[e] not in b"\"'<>`":
            e += 1
        last_end = e
        token = v.s(s, e)
        decoded, src = _percent_decode(token)
        if decoded == token:
            continue
        for _rank, ds, de, kind in _collect(decoded, depth + 1, secrets_only):
            _add(out, s + src[ds], s + src[de], kind)


def _percent_decode(token: str) -> tuple[str, list[int]]:
    """Decode %XX escapes; ``src[i]`` is where decoded char ``i`` starts in ``token``."""
    chars: list[str] = []
    src: list[int] = []
    i, n = 0, len(token)
    hexdigits = "0123456789abcdefABCDEF"
    while i < n:
        if token[i] == "%" and i + 2 < n and token[i + 1] in hexdigits and token[i + 2] in hexdigits:
            chars.append(chr(int(token[i + 1 : i + 3], 16)))
            src.append(i)
            i += 3
        else:
            chars.append(token[i])
            src.append(i)
            i += 1
    src.append(n)
    return "".join(chars), src


def _b64_decode(blob: str) -> str | None:
    """Decode base64 or base64url to text; None when it is not mostly printable text."""
    import binascii  # only needed when a blob turns up

    s = blob.rstrip("=").replace("-", "+").replace("_", "/")
    if len(s) % 4 == 1:
        s = s[:-1]
    s += "=" * (-len(s) % 4)
    try:
        raw = binascii.a2b_base64(s)
        text = raw.decode("utf-8")
    except (binascii.Error, ValueError):
        return None
    if not text:
        return None
    if text.isprintable():
        return text
    bad = sum(1 for ch in text if not ch.isprintable() and ch not in "\n\r\t")
    return text if bad * 20 <= len(text) else None


def _find_base64(v: _View, out: list[_Cand], depth: int) -> None:
    """Decode base64 blobs that read as text and rescan them for secrets; a
    finding covers the whole blob. Lines wrapped at 64 or 76 columns (PEM, the
    base64 command) are joined first."""
    ab = v.ab
    for s, e in _base64_blobs(v):
        flat = ab[s:e].translate(None, b" \t\r\n\\").decode("ascii")
        if flat.isalpha() or flat.islower() or flat.isupper() or flat.isdigit():
            continue  # words, hex digests, numbers
        if "+" not in flat and "/" not in flat and _rx().digit_re.search(flat) is None:
            continue  # CamelCaseIdentifiers
        if _b64_decode(flat[:48]) is None:
            continue  # binary data: images, archives, random keys
        decoded = _b64_decode(flat)
        if decoded is None:
            continue
        while e < len(ab) and ab[e] == 0x3D:
            e += 1
        inner = [c for c in _collect(decoded, depth + 1, True) if c[3] in _SECRET_SET]
        if inner:
            _add(out, s, e, min(inner)[3])


def _base64_blobs(v: _View) -> list[tuple[int, int]]:
    """Token runs of 20+ base64 characters, consecutive wrapped lines merged."""
    ab = v.ab
    blobs: list[tuple[int, int]] = []
    for s, e in v.runs:
        if e - s < 20 or ab.find(b"-", s, e) >= 0 or ab.find(b"_", s, e) >= 0:
            continue  # identifiers and base64url tokens; JWTs have their own detector
        if blobs:
            ps, pe = blobs[-1]
            gap = ab[pe:s]
            # A wrapped line is a multiple of 4 long and ends in a newline (real
            # or escaped, which the view blanks to spaces) plus indentation.
            if (pe - ps) % 4 == 0 and (pe - ps) >= 60 and 0 < len(gap) <= 12 and not gap.strip(b" \t\r\n\\"):
                blobs[-1] = (ps, e)
                continue
        blobs.append((s, e))
    return blobs
