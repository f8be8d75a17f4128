"""Could a value be a real secret? Placeholders, references and code are not.

The keyword detectors find a value after a name such as ``password``; these
tests decide, from the value and how it was written, whether to report it.
"""

from __future__ import annotations

import re

from gitmem.guards.pii.view import Patterns

_rx = Patterns(
    {
        # References and templates, not values: ${VAR} $VAR $(cmd) %VAR% %(name)s
        # {name} [REDACTED] [SECRET:kind] (our own placeholders: stripping is idempotent)
        # !vault !!tag *alias &anchor @Microsoft.KeyVault(…)
        "reference_start": (
            r"\$[{(A-Za-z_]|%[A-Za-z_]\w*%|%\(|\{[A-Za-z_][\w.]*\}|\[[A-Za-z _:-]*\]\Z|!!|![A-Za-z]+(?:\s|\Z)"
            r"|[*&][a-z_][a-z0-9_-]*\Z|@[A-Za-z_][\w.]*(?:\(|\Z)"
            # secret stores: vault:path, ref+vault://, op://vault/item, AWS and GCP secret names
            r"|vault:|ref\+[a-z0-9]+://|op://|arn:aws:secretsmanager:|secretsmanager:|sm://|gcp:secretmanager"
            r"|projects/[^/\s]+/secrets/"
        ),
        "reference": r"[A-Za-z_][A-Za-z0-9_]*(?:(?:\.|::)[A-Za-z_][A-Za-z0-9_]*)+|[a-z]+(?:_[a-z]+)+",
        "identifier_path": r"[a-z]+(?:[:./][a-z]+)+",
        "code": r"[A-Za-z_][\w.]*[(\[]",
        "color": r"#(?:[0-9a-fA-F]{3}|[0-9a-fA-F]{6}|[0-9a-fA-F]{8})",
        "hyphenated": r"[a-z]+(?:-[a-z]+)+",
        "constant": r"[A-Z][A-Z0-9]*(?:_[A-Z0-9]+)+",
        "pathlike": r"(?:~|\.{1,2})?/|[A-Za-z]:[\\/]|.*\.(?:pem|key|crt|txt|json|env|ya?ml|p12|pfx|jks|gpg|asc)\Z",
    }
)

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


# Values that vendors publish in their own documentation: Stripe's test-mode
# and publishable keys reach no money.
_PUBLIC_PREFIXES = ("sk_test_", "rk_test_", "pk_test_", "pk_live_")


def is_placeholder(value: str, run: int = 5) -> bool:
    """A documentation placeholder or sample, a mask or a reference rather than a secret.

    ``run``: this many equal characters in a row make a mask ("*****", "00000"); a vendor
    token's random body asks for more (five equal digits in a row happen by chance).
    """
    if not value or _rx.reference_start.match(value) or value.startswith(_PUBLIC_PREFIXES):
        return True
    if "<" in value and ">" in value or value.startswith("<"):
        return True  # <your-key>, "<enter passphrase>" cut at its blank
    low = value.lower()
    if low in _STOPWORDS:
        return True
    if any(w in low for w in _PLACEHOLDER_WORDS):
        return True
    return len(value) >= run and _has_run(low, run)


def classes(value: str) -> int:
    """How many of digits, upper case, lower case and other characters ``value`` mixes."""
    return (
        any(ch.isdigit() for ch in value)
        + any(ch.isupper() for ch in value)
        + any(ch.islower() for ch in value)
        + any(not ch.isalnum() for ch in value)
    )


def plausible(value: str, style: str, quoted: bool) -> bool:
    """Could ``value`` be a real secret, given how it was written?

    ``style`` is ``env`` (X=…), ``colon`` (JSON/YAML key), ``code`` (x = …),
    ``prose`` (typed in chat) or ``strict`` (a bare word after a keyword).
    """
    if len(value) < 6 or len(value) > 2000 or is_placeholder(value):
        return False
    if not quoted and (value[0] == "#" and style != "env" or _rx.code.match(value) or "(" in value or "[" in value):
        return False  # a YAML comment; a call or subscript such as get_token(…), environ[…]
    if value.startswith(("ssh-", "ecdsa-sha2-", "sk-ssh-", "-----")):
        return False  # a public key or a PEM block (private keys have their own detector)
    if _rx.identifier_path.fullmatch(value):
        return False  # agent:main:main, config/default.yaml: names, not secrets
    if _rx.pathlike.match(value):
        return False
    if not quoted and _rx.reference.fullmatch(value):
        return False  # settings.SECRET_KEY, os.environ, request_password
    bare = value.strip(value[0]) if value[0] in "*_`" and value[-1] == value[0] else value
    if _rx.color.fullmatch(value) or bare != value and bare.isalpha() or bare.replace(" ", "").isalpha() and " " in bare:
        return False  # "#f8f8f2", *negative*, 'some value': a colour, an emphasised word, words
    if not quoted and _rx.constant.fullmatch(value.rstrip(",;")):
        return False  # FG_DEFAULT: a constant named, not a value
    if style == "prose" and not quoted and _rx.hyphenated.fullmatch(value):
        return False  # "the key is lower-case"
    n_classes = classes(value)
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
    return n_classes >= 2


def looks_aws_secret(value: str) -> bool:
    """Forty characters of mixed case and digits: the shape of an AWS secret access key."""
    return (
        len(value) == 40
        and any(ch.isdigit() for ch in value)
        and any(ch.isupper() for ch in value)
        and any(ch.islower() for ch in value)
        and not is_placeholder(value)
        and not value.startswith(("AKIA", "ASIA"))
    )
