"""Passwords on command lines that the keyword detectors cannot see: the flag
or position that holds the password belongs to one tool.

``http -a user:pw`` (HTTPie), ``htpasswd -b file user pw``, ``ldapsearch -w pw``,
``sqlcmd -P pw``, ``net use … /user:name pw``,
``smbclient -U user%pw``, ``echo pw | sudo -S`` / ``| docker login --password-stdin`` / ``| chpasswd``,
``… login --with-token <<< tok``, and an ``Authorization:`` header whose
value holds characters a token format would not.
"""

from __future__ import annotations

from gitmem.guards.pii.kinds import Cand, add
from gitmem.guards.pii.plausibility import is_placeholder, plausible
from gitmem.guards.pii.values import line_end, value_at
from gitmem.guards.pii.view import Patterns, View, near

_rx = Patterns(
    {
        "httpie": rb"https?[ \t][^\n]{0,200}?(?<![\w-])(?:-a|--auth)(?:[ \t]+|=)[\"']?[^\s:\"']+:(?=[^\s\"'])",
        "htpasswd": rb"htpasswd((?:[ \t]+[^\s|;&<>]+){2,8})",
        "ldap": rb"ldap(?:search|modify|add|delete|whoami|passwd|compare|modrdn|exop|url)\b[^\n]{0,300}?[ \t]-w[ \t]+(?=[^-\s])",
        # one literal start each: re finds a literal fast, an alternation at every position
        "sqlcmd": rb"sqlcmd\b[^\n]{0,300}?[ \t]-P[ \t]*(?=[^-\s])",
        "osql": rb"[io]sql\b[^\n]{0,300}?[ \t]-P[ \t]*(?=[^-\s])",
        "bcp": rb"bcp\b[^\n]{0,300}?[ \t]-P[ \t]*(?=[^-\s])",
        "net_use": rb"net[ \t]+use\b[^\n]{0,200}?/user:[^\s]+[ \t]+(?=[^/\s*])",
        "echo_pipe": (
            rb"echo[ \t]+(?:-[ne][ \t]+)?(?P<v>\"[^\"\n]{4,200}\"|'[^'\n]{4,200}'|[^\s|;&]{4,200})[ \t]*\|[ \t]*"
            rb"(?:sudo[ \t]+-s|chpasswd|passwd[ \t]+--stdin|[^\n|;&]{0,200}?(?:--password-stdin|--with-token|--token-stdin))"
        ),
        "printf_pipe": (
            rb"printf[ \t]+(?:'%s'[ \t]+|\"%s\"[ \t]+|%s[ \t]+)?(?P<v>\"[^\"\n]{4,200}\"|'[^'\n]{4,200}'|[^\s|;&]{4,200})[ \t]*\|[ \t]*"
            rb"(?:sudo[ \t]+-s|chpasswd|passwd[ \t]+--stdin|[^\n|;&]{0,200}?(?:--password-stdin|--with-token|--token-stdin))"
        ),
        "smbclient": rb"smbclient\b[^\n]{0,200}?(?:-u|--user)(?:[ \t]+|=)[\"']?[^\s%\"']+%(?=[^\s\"'])",
        "here_string": rb"(?:login|auth)\b[^\n|;&]{0,200}?<<<[ \t]*(?=[^\s$<])",
        "auth_header": rb"authorization[\"']?[ \t]*[:=][ \t]*[\"']?(?:bearer|token)[ \t]+(?=[^\s\"'$<{])",
    }
)


# How far before its <<< a here-string match starts: "login" and up to 200 bytes.
_HERE_REACH = 210
# (literal, pattern, matched on the text as written rather than lowered) of the tools with a password flag;
# [io]sql is one pattern, tried once for both literals
_TOOLS = ((b"ldap", "ldap", False), (b"sqlcmd", "sqlcmd", True), (b"isql", "osql", True), (b"osql", "osql", True),
          (b"bcp", "bcp", True), (b"net use", "net_use", False), (b"smbclient", "smbclient", False))

# What reads a password piped to it: echo pw | <one of these>.
_STDIN_READERS = (b"sudo", b"chpasswd", b"--stdin", b"-stdin", b"--with-token")


def find_commands(v: View, out: list[Cand]) -> None:
    """Passwords given to the tools listed in the module's docstring."""
    low = v.low
    rx = _rx
    if b"http" in low and (b"-a" in low or b"--auth" in low):
        for m in rx.httpie.finditer(low):
            _value(v, out, m.end())
    if b"htpasswd" in low:
        for m in rx.htpasswd.finditer(low):
            _htpasswd(v, out, m.start(1), m.end(1))
    for needle, name, cased in _TOOLS:
        # a pattern is compiled (and looked up) only for a text that holds its literal
        if needle in low and not (needle == b"osql" and b"isql" in low):
            for m in getattr(rx, name).finditer(v.ab if cased else low):
                _value(v, out, m.end())
    if b"<<<" in low:   # the pattern has no literal start: it is tried on the lines of each <<< only
        for m in near(rx.here_string, low, b"<<<", _HERE_REACH):
            _value(v, out, m.end())
    if b"|" in low and (b"echo" in low or b"printf" in low) and any(n in low for n in _STDIN_READERS):
        for m in [*rx.echo_pipe.finditer(low), *(rx.printf_pipe.finditer(low) if b"printf" in low else ())]:
            s, e = m.span("v")
            if v.ab[s] in b"\"'":
                s, e = s + 1, e - 1
            value = v.s(s, e)
            if plausible(value, "env", True) and not is_placeholder(value):
                add(out, s, e, "generic_api_key")
    if b"authorization" in low:
        for m in rx.auth_header.finditer(low):
            _value(v, out, m.end())


def _value(v: View, out: list[Cand], at: int) -> None:
    got = value_at(v, at, line_end(v.low, at))
    if got is not None and plausible(v.s(got[0], got[1]), "env", got[2]):
        add(out, got[0], got[1], "generic_api_key")


def _htpasswd(v: View, out: list[Cand], s: int, e: int) -> None:
    """``htpasswd -b[c…] FILE USER PASSWORD`` or ``htpasswd -nb USER PASSWORD``."""
    args: list[tuple[int, int]] = []
    flags = b""
    pos = s
    ab = v.ab
    while pos < e:
        while pos < e and ab[pos] in b" \t":
            pos += 1
        end = pos
        while end < e and ab[end] not in b" \t":
            end += 1
        if end > pos:
            if ab[pos : pos + 1] == b"-" and not args:
                flags += ab[pos + 1 : end]
            else:
                args.append((pos, end))
        pos = end
    if b"b" not in flags:
        return
    index = 1 if b"n" in flags else 2
    if index < len(args):
        got = value_at(v, args[index][0], args[index][1])
        if got is not None and plausible(v.s(got[0], got[1]), "env", got[2]):
            add(out, got[0], got[1], "generic_api_key")
