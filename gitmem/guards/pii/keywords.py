"""Secrets found around a keyword: credentials in URLs, env-style and keyword
assignments, HTTP auth headers, command lines and prose.

``env_secret`` is an assignment with ``=`` to an environment-style name
(UPPER_SNAKE, ``process.env.X``, or after ``export``/``set``/``-e``/``ENV``), or
with ``:`` to an unquoted UPPER_SNAKE name (a compose ``environment:`` map).
The same value under a lowercase or camelCase name, a quoted JSON key, a CLI
flag or a URL query parameter is a ``generic_api_key``. Credentials in a URL
are ``url_credentials``; default pairs with the user equal to the password
(``postgres:postgres``) and placeholder passwords are not secrets.
"""

from __future__ import annotations

import re

from gitmem.guards.pii.commands import find_commands
from gitmem.guards.pii.credname import identifier_name, name_parts, qualified, secret_name
from gitmem.guards.pii.disguise import find_split_tokens
from gitmem.guards.pii.kinds import RANK, Cand, add
from gitmem.guards.pii.layouts import find_netrc, find_pgpass, find_tables, labelled_at
from gitmem.guards.pii.plausibility import classes, is_placeholder, looks_aws_secret, plausible
from gitmem.guards.pii.vendors import find_private_keys, find_vendor, is_sample_jwt
from gitmem.guards.pii.values import aws_context, line_end, phrase_value, value_at
from gitmem.guards.pii.view import ALNUM, Patterns, View, decode_base64
from gitmem.guards.pii.words import find_word_secrets

_USERINFO = rb"([^\s/?#@:\"'<>\[\]{}\\]*):([^\s/\"'<>\\]+)@(?=[A-Za-z0-9\[])"
_rx = Patterns(
    {
        "url_cred": rb"://" + _USERINFO,
        "url_cred_esc": rb":\\/\\/" + _USERINFO,
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
        "bare_kw": rb"\b(?:[a-z0-9]+_)*(?:password|passwd|passphrase|pwd|pw|api[ _-]?key|secret|token)[ \t]+",
        # Command lines whose password flag is a bare -p / -a, and SQL grants. Each
        # starts with a literal; the tool before "login" is checked afterwards.
        "cli_login": rb"login\b[^\n]{0,200}?[ \t](?:-p|--password)(?:[ \t]+|=)(?=[^-\s])",
        "login_tool": rb"\b(?:docker|podman|nerdctl|buildah|skopeo|oras|crane|helm(?: registry)?|az|oc|argocd|cf|rhc)[ \t]+\Z",
        "sshpass": rb"sshpass[ \t]+-p[ \t]*(?=[^-\s])",
        "redis_cli": rb"redis-cli\b[^\n]{0,200}?[ \t](?:-a|--pass)(?:[ \t]+|=)(?=[^-\s])",
        "identified_by": rb"identified[ \t]+(?:with[ \t]+\S+[ \t]+)?by[ \t]+(?:password[ \t]+)?",
        "discord_hook": rb"discord(?:app)?\.com/api/webhooks/[0-9]{5,30}/([A-Za-z0-9_-]{40,120})",
        "aws_spaced": rb"[ \t]+([A-Za-z0-9/+]{40})(?![A-Za-z0-9/+=])",
        "scheme": rb"\b(bearer|token)[ \t]+([A-Za-z0-9._~+/=-]{10,4000})",
        "basic": rb"\bbasic[ \t]+([A-Za-z0-9+/]{6,2000}={0,2})",
        "flag": rb"(?<![\w-])--?(?:password|passwd|pass|token|api-key|apikey|secret|client-secret|auth-token|access-token)[ \t]+",
        "mysql_p": rb"\bmysql(?:dump|admin|sh|import)?\b[^\n]{0,200}?[ \t]-p(?:'([^'\n]+)'|\"([^\"\n]+)\"|([^\s\"'-][^\s\"']*))",
        "curl_u": rb"(?<![\w-])(?:-u|--user)[ \t]+[\"']?([^\s:\"']+):([^\s\"']+)",
        "env_prefix": rb"(?:\bexport|\bset|\bsetx|\benv|\bENV|\bARG|--env|--build-arg|(?:^|[\s\"'])-e)[ \t]+\Z",
        "words": r"[A-Za-z]+(?:[._-][A-Za-z]+)*",
        "snake_ident": r"_[a-z0-9_]*|[a-z][a-z0-9]*(?:_[a-z0-9]*)+",
        # a code name: lower-case words joined by - . : / with version numbers (feature-flags-v2, user:42:profile)
        "code_name": r"[a-z]{2,}(?:[-.:/](?:[a-z]{2,}|[0-9]{1,4}|v[0-9]{1,3}))+",
    }
)


def find_secrets(v: View, out: list[Cand]) -> None:
    """Every secret kind in ``v``, before encoded forms are decoded."""
    find_vendor(v, out)
    find_split_tokens(v, out)
    find_private_keys(v, out)
    find_url_credentials(v, out)
    find_keyword_secrets(v, out)
    find_cli_tools(v, out)
    find_commands(v, out)
    find_tables(v, out)
    find_pgpass(v, out)
    find_netrc(v, out)
    find_word_secrets(v, out)


_URL_PLACEHOLDERS = frozenset(
    "password pass passwd pwd secret user username usr login token apikey api_key key changeme pw p".split()
)


def find_url_credentials(v: View, out: list[Cand]) -> None:
    ab = v.ab
    rx = _rx
    matches = list(rx.url_cred.finditer(ab)) if b"://" in ab else []
    if b":\\/\\/" in ab:
        matches += rx.url_cred_esc.finditer(ab)
    for m in matches:
        us, ue = m.span(1)
        ps, pe = m.span(2)
        user, pw = v.s(us, ue), v.s(ps, pe)
        if pw.lower() in _URL_PLACEHOLDERS or is_placeholder(pw) or pw == user:
            continue
        if pw.isdigit() and len(pw) <= 5:
            continue  # host:port@ — not a password
        add(out, us, pe, "url_credentials")  # with no user, us is the colon


_KEYWORDS = (b"pass", b"pw", b"secret", b"token", b"key", b"auth", b"cred", b"bearer", b"basic", b"mysql", b"curl")
_NAME_BYTES = frozenset(b"abcdefghijklmnopqrstuvwxyz0123456789_.-")
_WORD_BYTES = frozenset(b"abcdefghijklmnopqrstuvwxyz0123456789_")
_PROSE_WORDS = frozenset(
    b"password passwd passphrase passcode pw pwd key secret token credential credentials".split()
)
_COLON_WORDS = frozenset(b"key token secret password passphrase pw".split())
# What may follow a name that is assigned to or followed by a phrase.
_AFTER_NAME = frozenset([b" ", b"\t", b":", b"=", b'"', b"'", b"]", b"\\", b">", b"-", b"*", b",", b"(", b"|", b"\n", b"\r"])


def find_keyword_secrets(v: View, out: list[Cand]) -> None:
    """Assignments, headers and phrases around a keyword such as ``pass`` or ``token``.

    Each keyword hit is confirmed by patterns anchored at the name or word that
    holds it, so the cost follows the number of keywords, not the text size.
    """
    rx = _rx
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


def _assignment_at(v: View, out: list[Cand], s: int, e: int) -> None:
    """``name = value`` / ``name: value`` / ``<name>value</name>`` for the name at s:e."""
    rx = _rx
    ab, low = v.ab, v.low
    while s < e and low[s] not in _NAME_START:
        s += 1  # --password, .env-style prefixes: the name starts at a letter
    if s >= e or (s > 0 and ab[s - 1] == 0x24) or (s > 1 and ab[s - 1] == 0x3A and ab[s - 2] in ALNUM):
        return  # $PASSWORD is a reference; arn:…:secret:name a path (but …/:_authToken= a label)
    m = rx.assign_tail.match(ab, e)
    if m is None:
        if s > 0 and ab[s - 1] == 0x3C and ab[e : e + 1] == b">":
            _xml_element(v, out, s, e)
        elif ab[e : e + 1] in (b" ", b"\t") and secret_name(v.s(s, e)) == "aws":
            spaced = rx.aws_spaced.match(ab, e)  # aws configure set aws_secret_access_key …
            if spaced is not None and looks_aws_secret(v.s(*spaced.span(1))):
                add(out, spaced.start(1), spaced.end(1), "aws_secret_key")
        return
    name = v.s(s, e)
    verdict = secret_name(name)
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
    if _computed(ab, m.end(), quoted, value, name) or before.endswith(_DOC_FIELDS):
        return  # code that computes the value, or a docstring field (:param token: …)
    sep = m.group(2)
    kind = _assignment_kind(name, sep, before, ab, m.start(2))
    if verdict == "aws" and _aws_value(value):
        add(out, vs, ve, "aws_secret_key")
        return
    style = "env" if kind == "env_secret" else ("colon" if sep in (b":", b"=>") else "code")
    if style == "code" and not _spaced(ab, m.start(2), m.end(2)):
        style = "env"  # key=value with no spaces: logfmt, query strings, flags
    elif not quoted and sep == b":" and (not _spaced(ab, m.start(2), m.end(2)) or name.lower() == "pass"):
        style = "strict"  # pw:api (a namespace), "PASS: Per-block" (a test's status): a value must look made
    if plausible(value, style, quoted):
        add(out, vs, ve, aws_context(v, vs, value) or kind)


_NAME_START = frozenset(b"abcdefghijklmnopqrstuvwxyz_")
_DOC_FIELDS = (b":param ", b":type ", b":arg ", b":argument ", b":keyword ", b":ivar ", b":cvar ", b":var ", b"@param ")
# Names whose values are as often identifiers as secrets: cache_key = "cached_", STATS_KEY = "_stats".
_IDENTIFIER_NAMES = ("key", "token", "auth", "credentials", "creds", "credential")


def _code_value(v: View, at: int, hi: int, name: bytes) -> bool:
    """The value after ``name =`` at ``at`` is computed by code (see ``_computed``)."""
    if b"=" not in v.low[max(0, at - 4) : at]:
        return False
    got = value_at(v, at, hi)
    return got is not None and _computed(v.ab, got[1], got[2], v.s(got[0], got[1]), name.decode("ascii", "replace"))


def _computed(ab: bytes, end: int, quoted: bool, value: str, name: str) -> bool:
    """The value is an expression, not a literal: a call, subscript or attribute
    (``_OwnedDescriptor(``, ``x.y``), a private name (``_token``), a string that
    is concatenated or formatted (``'x' + name``, ``'%s' % a``), or, under a
    name that often holds identifiers, a quoted snake_case identifier."""
    rest = ab[end + quoted : end + 8].lstrip(b" \t")  # after the closing quote
    if not quoted:
        return value.startswith("_") or ab[end : end + 1] in (b"(", b"[")
    if rest[:1] in (b"+", b"%", b"*") or rest[:1] == b"." and rest[1:2].isalpha():
        return True
    parts = name_parts(name.rsplit(".", 1)[-1])
    last = parts[-1].lower() if parts else ""
    return last in _IDENTIFIER_NAMES and (
        _rx.snake_ident.fullmatch(value) is not None or _rx.code_name.fullmatch(value) is not None
        or value.isalpha() and value.islower()   # THIRD_APP_KEY = "thirdapp": a map key, not a credential
    )


def _xml_element(v: View, out: list[Cand], s: int, e: int) -> None:
    """<password>…</password>"""
    if secret_name(v.s(s, e)) is None:
        return
    close = v.ab.find(b"</", e + 1, e + 400)
    if close > e + 1:
        value = v.s(e + 1, close)
        if plausible(value, "colon", True):
            add(out, e + 1, close, "generic_api_key")


def _phrases_at(v: View, out: list[Cand], ws: int, we: int) -> None:
    """Prose, HTTP auth schemes and command lines around the keyword word ws:we."""
    rx = _rx
    low = v.low
    n = len(low)
    word = low[ws:we]
    nxt = low[we : we + 1]
    hi = line_end(low, we)
    labelled_at(v, out, ws, we)
    if nxt == b" " or nxt == b"\t":
        if (word in _PROSE_WORDS or word.rsplit(b"_", 1)[-1] in _PROSE_WORDS) and not (
            b"_" in word and identifier_name(v.s(ws, we)) or qualified(low, ws)
        ):
            for pattern, style in ((rx.prose, "prose"), (rx.bare_kw, "strict")):
                m = pattern.match(low, ws, hi)
                if m is not None and not _code_value(v, m.end(), hi, word):
                    phrase_value(v, out, m.end(), hi, style)
            m = rx.prose_set.search(low, max(0, ws - 60), we + 6)
            if m is not None:
                phrase_value(v, out, m.end(), hi, "prose")
        if word == b"bearer" or word == b"token":
            _auth_scheme(v, out, rx.scheme.match(low, ws, hi))
        elif word == b"basic":
            _basic_auth(v, out, rx.basic.match(low, ws, hi))
        elif word.startswith(b"mysql"):
            m = rx.mysql_p.match(v.ab, ws, hi)
            if m is not None:
                g = next(k for k in (1, 2, 3) if m.group(k) is not None)
                pw = v.s(*m.span(g))
                if len(pw) >= 4 and not is_placeholder(pw):  # mysql -pS3cret, -p'S3 cret'
                    add(out, m.start(g), m.end(g), "generic_api_key")
        elif word == b"curl":
            _curl_user(v, out, rx.curl_u.search(v.ab, we, hi))
        if ws >= 1 and low[ws - 1] == 0x2D:
            m = rx.flag.match(low, ws - 2 if low[ws - 2 : ws - 1] == b"-" else ws - 1, hi)
            if m is not None:
                got = value_at(v, m.end(), hi)
                if got and plausible(v.s(got[0], got[1]), "env", got[2]):
                    add(out, got[0], got[1], "generic_api_key")
    if word in _COLON_WORDS and nxt in (b" ", b"\t", b":", b"=", b"-"):
        m = rx.prose_colon.search(low, max(0, ws - 24), min(n, we + 8))
        if m is not None and m.end() > we:
            phrase_value(v, out, m.end(), hi, "prose")
    if b"value" in low[we : we + 60] and low[ws - 1 : ws] != b"<":
        m = rx.xml_kv.search(low, max(0, ws - 16), hi)
        if m is not None and secret_name(v.s(*m.span(1))):
            s, e = m.span(2)
            if plausible(v.s(s, e), "colon", True):
                add(out, s, e, "generic_api_key")


def find_cli_tools(v: View, out: list[Cand]) -> None:
    """docker login -p …, sshpass -p …, redis-cli -a …, IDENTIFIED BY '…', Discord webhooks."""
    rx = _rx
    low = v.low
    for m in rx.cli_login.finditer(low):
        if rx.login_tool.search(low, max(0, m.start() - 24), m.start()):
            phrase_value(v, out, m.end(), line_end(low, m.end()), "env")
    for pattern in (rx.sshpass, rx.redis_cli):
        for m in pattern.finditer(low):
            phrase_value(v, out, m.end(), line_end(low, m.end()), "env")
    for m in rx.identified_by.finditer(low):
        phrase_value(v, out, m.end(), line_end(low, m.end()), "prose")
    for m in rx.discord_hook.finditer(v.ab):
        if not is_placeholder(v.s(*m.span(1))):
            add(out, m.start(1), m.end(1), "generic_api_key")


def _auth_scheme(v: View, out: list[Cand], m: re.Match[bytes] | None) -> None:
    if m is None:
        return
    s, e = m.span(2)
    value = v.s(s, e).rstrip(".,;")
    if len(value) < 10 or is_placeholder(value) or _rx.words.fullmatch(value) or is_sample_jwt(value):
        return
    header = b"authorization" in v.low[max(0, s - 48) : s]
    bearer = m.group(1) == b"bearer"
    # "token <word>" is common prose; want a credential-looking value.
    if header and len(value) >= 12 or (bearer and classes(value) >= 2 + (len(value) < 12)) or (
        len(value) >= 16 and classes(value) >= 3
    ):
        add(out, s, s + len(value), "generic_api_key")


def _basic_auth(v: View, out: list[Cand], m: re.Match[bytes] | None) -> None:
    if m is None:
        return
    s, e = m.span(1)
    decoded = decode_base64(v.s(s, e))
    if decoded is None or ":" not in decoded:
        return
    inner: list[Cand] = []
    find_secrets(View(decoded), inner)  # what a user:password pair may hide
    inner = [c for c in inner if c[0] <= RANK["aws_secret_key"]]
    if inner:
        add(out, s, e, min(inner)[3])
        return
    user, _, pw = decoded.partition(":")
    if pw and pw != user and not is_placeholder(pw) and pw.lower() not in _URL_PLACEHOLDERS:
        if pw.lower() != "open sesame":  # RFC 7617's Aladdin example
            add(out, s, e, "generic_api_key")


def _curl_user(v: View, out: list[Cand], m: re.Match[bytes] | None) -> None:
    if m is None:
        return
    s, e = m.span(2)
    user, pw = v.s(*m.span(1)), v.s(s, e)
    if pw != user and len(pw) >= 4 and pw.lower() not in _URL_PLACEHOLDERS and not is_placeholder(pw):
        add(out, s, e, "generic_api_key")


def _spaced(ab: bytes, s: int, e: int) -> bool:
    return ab[s - 1 : s] in (b" ", b"\t") or ab[e : e + 1] in (b" ", b"\t")


def _assignment_kind(name: str, sep: bytes, before: bytes, ab: bytes, sep_at: int) -> str:
    last = name.rsplit(".", 1)[-1]  # process.env.DB_PASSWORD is an environment variable
    upper = last.upper() == last and any(ch.isalpha() for ch in last)
    if before.endswith((b"-", b"-D")) or before.endswith((b"?", b"&")) and not upper:
        return "generic_api_key"  # --password=…, -Ddb.password=…, ?token=…
    envish = _rx.env_prefix.search(before) is not None
    if sep == b"=" or sep == b":=":
        if upper or envish:
            return "env_secret"
        return "generic_api_key"
    if sep == b":" and upper and "_" in name and ab[sep_at - 1 : sep_at] not in (b'"', b"'"):
        return "env_secret"  # compose / k8s environment map: DB_PASSWORD: …
    return "generic_api_key"


def _aws_value(value: str) -> bool:
    """An AWS secret key, plain or base64-encoded (a Kubernetes secret)."""
    if looks_aws_secret(value):
        return True
    if 52 <= len(value) <= 60:
        decoded = decode_base64(value)
        return decoded is not None and looks_aws_secret(decoded.strip())
    return False
