"""Which names hold a credential and which an identifier: ``DB_PASSWORD``,
``aws_secret_access_key`` and ``apiKey`` name credentials; ``docToken``,
``flag_key``, ``sortKey``, ``xsecToken``, ``csrf_token`` and ``forKey`` name
identifiers, page or form tokens, or keys of a map (a vendor-format value under
such a name is still found, by vendors.py).

The keyword detectors (keywords.py) ask for every name they meet, so verdicts
are cached, within a bound.
"""

from __future__ import annotations

from gitmem.guards.pii.view import Patterns

_rx = Patterns({"name_part": r"[A-Z]+(?=[A-Z][a-z])|[A-Z]?[a-z]+|[A-Z]+|[0-9]+"})

WORD_BYTES = frozenset(b"abcdefghijklmnopqrstuvwxyz0123456789_")


def name_parts(name: str) -> list[str]:
    """The words of a name, lower case: ``nextPageToken`` is next, page, token."""
    return [p.lower() for p in _rx.name_part.findall(name)]


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
# Words before "key", "token" or "secret" that name an identifier, not a credential:
# docToken, nextPageToken, sortKey, storageKey, flag_key, testKey, designToken.
# A vendor-format value under such a name is still found (vendors.py).
_ID_QUALIFIERS = frozenset(
    "doc docs document page next prev previous continuation cursor sync resume cancel cancellation design sort "
    "partition primary foreign i18n translation message route lookup react list item sheet wiki file folder node "
    "block row column field idempotency theme storage cache dedupe dedup event trace span correlation feature "
    "features flag flags test tests mock fixture fake dummy sample example locale label tag group index map dict "
    "hash registry composite unique object router nav menu query search filter form input param element component "
    "widget obj tenant data for csrf xsrf xsec authenticity forgery antiforgery nonce captcha share".split()
)
_JOINED_SECRET = ("password", "passwd", "apikey", "secretkey", "accesskey", "privatekey", "authtoken", "accesstoken")


def secret_name(name: str) -> str | None:
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
    parts = name_parts(name)
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
    if not secret or _names_identifier(parts):
        return None
    if "secret" in parts and ("aws" in parts or "access" in parts):
        return "aws"
    return "yes"


def _names_identifier(parts: list[str]) -> bool:
    """Name parts (lower case) such as doc+token, next+page+token, storage+key: an identifier's name."""
    return any(p in _ID_QUALIFIERS for p in parts[:-1])


def identifier_name(name: str) -> bool:
    """``docToken``, ``flag_key``, ``sortKey``: a name like a credential's that holds an identifier."""
    parts = name_parts(name)
    return len(parts) >= 2 and (_names_identifier(parts) or parts[-1] == "key" and parts[-2] in _KEY_NOT_SECRET)


def qualified(low: bytes, ws: int) -> bool:
    """The word before the keyword at ``ws`` names an identifier: "the parent node token is …", "the doc key is …"."""
    e = ws
    while e > 0 and low[e - 1] in b" \t":
        e -= 1
    s = e
    while s > 0 and low[s - 1] in WORD_BYTES:
        s -= 1
    return e < ws and low[s:e].decode("ascii", "replace").rsplit("_", 1)[-1] in _ID_QUALIFIERS
