"""Audit of a PII configuration: allowlists that hide too much, kinds that
cannot be disabled, patterns that do not compile or can take exponential time."""

from __future__ import annotations

import re
from collections.abc import Iterable

from gitmem.guards.pii.kinds import MANDATORY_KINDS, PII_KINDS, SECRET_KINDS, Allowlist


def audit(allowlist: Allowlist, disabled_kinds: Iterable[str] = ()) -> list[str]:
    """Check a PII configuration; return one readable problem per line, [] when sound.

    Problems: an allowlist pattern that does not compile or matches nearly every
    string (three quarters of a set of unrelated probes), a mandatory kind (every
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
        probes = sum(1 for probe in _PROBES if rx.fullmatch(probe))
        hidden = [kind for kind, samples in _AUDIT_SAMPLES.items() if _hides(rx, samples)]
        if probes * 4 >= len(_PROBES) * 3:
            problems.append(
                f"allowlist pattern {pattern!r} matches nearly everything ({probes} of {len(_PROBES)} unrelated "
                f"probe strings) and would hide the whole category of {', '.join(hidden) or 'every kind'}, "
                "turning secret blocking off; allow exact values or a narrow pattern"
            )
        elif hidden:
            problems.append(
                f"allowlist pattern {pattern!r} would hide the whole category of {', '.join(hidden)}: "
                "it matches most sample values; allow exact values or a narrow pattern"
            )
    return problems


def _hides(rx: re.Pattern[str], samples: tuple[str, ...]) -> bool:
    hits = sum(1 for s in samples if rx.fullmatch(s))
    return hits >= min(2, len(samples)) and hits * 2 > len(samples)


# Strings of every shape, none alike: a pattern that matches most of them matches
# nearly everything (.*, .+, \S+, [^@]+, (?s).*, a|.*), whatever it was meant for.
_PROBES: tuple[str, ...] = (
    "x", "Q", "7", "-", "zz", "hello", "Hello, World", "AKIAQ3EGTZ7R2LWN5XHD", "Zq8XnVb2Lk9Mw3Rt",
    "hunter2-Xq9!", "alice.martin@gmail.com", "+1 415 867 2309", "10.20.30.40", "/home/alice", "C:\\Users\\dave",
    "sk-proj-Zq8XnVb2Lk9Mw3Rt7Yp1Hc5Ds6Fg4Jh0Ka2Lq9Wz3", "ghp_R4nd0mT0k3nAbCdEfGh1JkLmNoPqRsTuV2wXy", "4539 1488 0343 6467",
    "eyJhbGciOiJIUzI1NiJ9.eyJ1aWQiOiI4ZjNhIn0.Zq8XnVb2Lk9Mw3Rt7Yp1Hc5Ds6Fg4Jh0Ka2", "{}", "[x]", "a b c d e f",
    "密码", "пароль", "!@#$%^&*()", "0000", "CamelCaseWord", "snake_case_word", "kebab-case-word", "%2F%3D",
)

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

