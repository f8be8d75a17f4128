"""Vendor formats (AWS, GitHub, OpenAI, Anthropic, Slack, Stripe, Google, JWT
and tokens of vendors without a kind of their own) and private keys.

Vendor formats are tried only where a run of 16+ token characters starts, and
only the patterns whose first byte matches: one look per run instead of one
pass over the text per vendor. Stripe publishable keys (``pk_live_…``) are
public by design and not reported. Test-mode secret keys (``sk_test_…``) are
secrets: a test key still opens the vendor account. Only the sample key of
Stripe's own documentation is not.
"""

from __future__ import annotations

import re

from gitmem.guards.pii.kinds import Cand, add
from gitmem.guards.pii.plausibility import is_placeholder, looks_aws_secret
from gitmem.guards.pii.view import ALNUM, DIGITS, Patterns, View, decode_base64

_rx = Patterns(
    {
        "slack_hook": rb"hooks\.slack\.com/services/[A-Za-z0-9_/-]{20,120}",
        "telegram": rb":AA[A-Za-z0-9_-]{33}",
        "pk_begin": rb"-----BEGIN[A-Z0-9 ]{0,30}PRIVATE KEY(?: BLOCK)?-----",
        "pk_end": rb"-----END[A-Z0-9 ]{0,30}PRIVATE KEY(?: BLOCK)?-----",
        "pk_body": rb"[A-Za-z0-9+/=\s\\:,-]{0,12000}",
        "b64_chunk": rb"[A-Za-z0-9+/=]+",
        "putty": rb"PuTTY-User-Key-File-[0-9]: ",
        "putty_end": rb"Private-MAC: [0-9a-fA-F]+",
        "glue": rb"[-_/+](?=[A-Za-z])",
        "named_token": rb"([a-z]{3,16})[-_]([A-Za-z0-9]{32,100})",
        "aws_near": rb"(?<![A-Za-z0-9/+])[A-Za-z0-9/+]{40}(?![A-Za-z0-9/+=])",
        "vendor_prefix": (
            r"(?:sk-ant-(?:api|admin|oat|sid)\d\d-|sk-ant-|sk-(?:proj|svcacct|admin|None)-|sk-|[sr]k_(?:live|test|prod)_|"
            r"gh[pousr]_|github_pat_|xox[a-z]-|xapp-|AIza|GOCSPX-|ya29\.|rzp_(?:test|live)_|sk_sbox_|[A-Za-z]+[_-])"
        ),
    }
)

# Vendor formats, tried where a run of token characters starts (see
# find_vendor), compiled by first byte on demand.
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
    (rb"gsk_[A-Za-z0-9]{48,56}", "generic_api_key"),            # Groq
    # test-mode keys of payment vendors: a test key still opens the account
    (rb"rzp_(?:test|live)_[A-Za-z0-9]{14,32}", "generic_api_key"),  # Razorpay
    (rb"FLWSECK(?:_TEST)?-[a-f0-9]{32}-X", "generic_api_key"),      # Flutterwave
    (rb"sk_sbox_[a-z0-9]{26,40}", "generic_api_key"),               # Checkout.com sandbox
)
# Prefixes holding a dot end a token run early: ya29.<run>, SG.<run>, hvs.<run>.
_DOTTED = ((b"ya29.", b"ya29\\."), (b"SG.", b"SG\\."), (b"hvs.", b"hv"), (b"hvb.", b"hv"))
_VENDOR_CACHE: dict[int, list[tuple[re.Pattern[bytes], str]]] = {}
# What a token glued after - _ / or + may start with: the first bytes of the vendor formats.
_AFTER_GLUE = frozenset(src[0] for src, _ in _VENDOR_SOURCES)


def _vendor_patterns(first: int) -> list[tuple[re.Pattern[bytes], str]]:
    """The vendor patterns whose text starts with the byte ``first``."""
    found = _VENDOR_CACHE.get(first)
    if found is None:
        found = [(re.compile(src), kind) for src, kind in _VENDOR_SOURCES if src[0] == first]
        _VENDOR_CACHE[first] = found
    return found


def _left_ok(ab: bytes, start: int) -> bool:
    return start == 0 or not (ab[start - 1 : start].isalnum())


def find_vendor(v: View, out: list[Cand]) -> None:
    """Vendor formats, tried at the start of each token run (and after a / or +
    inside one), instead of one pass over the text per vendor."""
    rx = _rx
    ab = v.ab
    for rs, re_ in v.runs:
        starts = [rs]
        # A path, a URL or a name can glue a token to what precedes it: /v1/<token>,
        # prod-AKIA…, key_AKIA…. Long runs are base64 blobs, where a / inside starts nothing.
        if re_ - rs < 512:
            starts += [m.end() for m in rx.glue.finditer(ab, rs, re_ - 16) if ab[m.end()] in _AFTER_GLUE]
        for st in starts:
            for pattern, kind in _vendor_patterns(ab[st]):
                m = pattern.match(ab, st)
                if m is not None:
                    _vendor_match(v, out, st, m.end(), kind)
                    break
            else:
                if st == rs and re_ - rs >= 36:
                    _named_token(v, out, rs, re_)
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


def _vendor_match(v: View, out: list[Cand], s: int, e: int, kind: str) -> None:
    ab = v.ab
    if not _left_ok(ab, s):
        return
    if kind == "aws_access_key" or kind == "google_api_key" and ab[s : s + 4] == b"AIza":
        if e < len(ab) and ab[e] in ALNUM:
            return  # a longer word that happens to start like a key
    kind2 = _vendor_kind(v.s(s, e), kind)
    if kind2 is not None:
        add(out, s, e, kind2)
        if kind2 == "aws_access_key":
            _find_aws_secret_near(v, out, s, e)


# Words before a dash that name an id, a digest or a build, not a vendor: req-…, sha384-…, build-….
_NOT_VENDOR = frozenset(
    """req request trace span msg message build commit chunk run session sess id uuid guid data integrity nonce sig
    signature sha sha1 sha256 sha384 sha512 md5 hash digest blob tree ref cache etag file img image asset static
    main app vendor bundle runtime polyfills page node doc docx doxcn wiki obj item user usr ou on oc cli tenant
    event evt order ord txn tx cus customer sub price prod acct account invoice in pi ch cs seti pm src tok
    test spec fixture mock sample example dummy fake""".split()
)


def _named_token(v: View, out: list[Cand], rs: int, re_: int) -> None:
    """``name-`` then a long random token: a key of a vendor with no prefix of its own
    (``deepinfra-Q7mZ…``). Ids, digests and build names before the dash are not vendors;
    the token must mix upper case, lower case and digits, as generated keys do."""
    m = _rx.named_token.match(v.ab, rs, re_)
    if m is None or m.end() != re_ or m.group(1).lower().decode() in _NOT_VENDOR:
        return
    body = v.s(*m.span(2))
    if _mixed(body) and not is_placeholder(body, VENDOR_RUN, descending=False) and len(set(body)) >= len(body) // 2:
        add(out, rs, re_, "generic_api_key")


def _mixed(body: str) -> bool:
    return any(c.isdigit() for c in body) and any(c.isupper() for c in body) and any(c.islower() for c in body)


def _telegram(v: View, out: list[Cand], colon: int, end: int) -> None:
    """<bot id>:AA<33 chars>, a Telegram bot token."""
    ab = v.ab
    m = _rx.telegram.match(ab, colon)
    if m is None:
        return
    d = colon
    while d > 0 and ab[d - 1] in DIGITS and colon - d < 11:
        d -= 1
    if colon - d >= 8 and _left_ok(ab, d) and not is_placeholder(v.s(colon + 3, m.end())):
        add(out, d, m.end(), "generic_api_key")


VENDOR_RUN = 8   # equal characters in a row that make a vendor token's body a mask, not chance


def _vendor_kind(token: str, kind: str) -> str | None:
    """Confirm a vendor-format match; None for placeholders and look-alikes."""
    m = _rx.vendor_prefix.match(token)
    body = token[m.end() :] if m else token
    if kind == "jwt":
        return None if is_sample_jwt(token) or is_placeholder(token) else "jwt"
    if is_placeholder(body, VENDOR_RUN, descending=False) or is_placeholder(token, VENDOR_RUN, descending=False):
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


def vendor_token(token: str) -> tuple[str, int] | None:
    """The kind and length of the vendor token that ``token`` starts with, if any."""
    ab = token.encode("ascii", "replace")
    for pattern, kind in _vendor_patterns(ab[0]) if ab else ():
        m = pattern.match(ab)
        if m is not None:
            confirmed = _vendor_kind(token[: m.end()], kind)
            return (confirmed, m.end()) if confirmed else None
    return None


def is_sample_jwt(token: str) -> bool:
    """The jwt.io sample (John Doe, sub 1234567890) is documentation."""
    parts = token.split(".")
    payload = decode_base64(parts[1]) if len(parts) > 1 else None
    return payload is not None and "John Doe" in payload and "1234567890" in payload


def _find_aws_secret_near(v: View, out: list[Cand], s: int, e: int) -> None:
    """A 40-character base64 value next to an access key id is its secret."""
    lo, hi = max(0, s - 400), min(len(v.ab), e + 400)
    for m in _rx.aws_near.finditer(v.ab, lo, hi):
        value = v.s(*m.span())
        if looks_aws_secret(value):
            add(out, m.start(), m.end(), "aws_secret_key")


def find_private_keys(v: View, out: list[Cand]) -> None:
    """PEM private keys (RSA, EC, DSA, OpenSSH, PKCS#8, encrypted, PGP) and PuTTY keys."""
    rx = _rx
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
            add(out, m.start(), span_end, "private_key")
        pos = max(m.end(), span_end)
    if b"PuTTY-User-Key-File" in ab:
        for m in rx.putty.finditer(ab):
            end_m = rx.putty_end.search(ab, m.end(), m.end() + 8000)
            add(out, m.start(), end_m.end() if end_m else min(len(ab), m.end() + 2000), "private_key")

