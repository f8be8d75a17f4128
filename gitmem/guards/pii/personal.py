"""Personal data that is not a number: email addresses and home paths.

``/home/<name>``, ``/Users/<name>`` and ``C:\\Users\\<name>`` are home paths
unless the name is a placeholder or a service account that identifies no
person (``user``, ``username``, ``yourname``, ``runner``, ``ubuntu``,
``ec2-user``, ``vagrant``, ``Public``, ``Default`` …); ``/root``, ``~/`` and
``$HOME`` are never reported. ``~name`` counts when it is used as a path.
Documentation domains (``example.com``, ``.test``…) and placeholder mailboxes
are not addresses.
"""

from __future__ import annotations

import re
from collections.abc import Iterator

from gitmem.guards.pii.kinds import Cand, add
from gitmem.guards.pii.plausibility import plausible
from gitmem.guards.pii.view import Patterns, View

_rx = Patterns(
    {
        "at": rb"@",
        # alice [at] corp [dot] de, bob(at)corp(dot)de, carol{at}uni.edu: an address spelled out,
        # found from its "[at]" (the local part before it is walked back over, see _spelled_emails)
        "spelled_at": rb"[ \t]*[\[({<][ \t]*at[ \t]*[\])}>][ \t]*",
        # the part of it that starts with a literal: found by re's fast prefix search
        "at_closed": rb"at[ \t]*[\])}>]",
        "spelled_domain": (
            rb"((?:[a-z0-9-]{1,63}(?:[ \t]*[\[({<][ \t]*dot[ \t]*[\])}>][ \t]*|\.))+[a-z]{2,24})(?![a-z0-9-])"
        ),
        "combo": rb"[^\s:/@\"'`<>()\[\]{},;]{6,128}(?![^\s\"'`<>)\],;.])",
        "spelled_dot": rb"[ \t]*[\[({<][ \t]*dot[ \t]*[\])}>][ \t]*",
        "domain": rb"((?:[A-Za-z0-9](?:[A-Za-z0-9-]{0,61}[A-Za-z0-9])?\.)+[A-Za-z]{2,24})(?![A-Za-z0-9-])",
        "home": r"home\\{0,2}/",
        "users": r"Users(?:\\{0,4}/|\\{1,4})",
        "docs_settings": r"Documents and Settings(?:\\{0,4}/|\\{1,4})",
        "home_name": r"[^\W][\w.-]{0,31}",
        "tilde": r"~([A-Za-z_][\w.-]{0,31})",
        "drive": r"(?<![A-Za-z0-9])([A-Za-z]:(?:\\{1,4}|/))\Z",
        "encoded": r"(?<![A-Za-z0-9-])(?:[A-Za-z]-)?(?:-mnt-[a-z])?-(?:Users|home)-([A-Za-z0-9]{1,32})(?![A-Za-z0-9])",
        "shell_verb": r"(?:^|[\s;&|(])(?:cd|ls|cp|mv|rm|cat|chown|chmod|pushd|find|du|tar|rsync|scp)\s+(?:-\S+\s+)*\Z",
    }
)



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


def find_emails(v: View, out: list[Cand]) -> None:
    ab = v.ab
    if b"at]" in v.low or b"at)" in v.low or b"at}" in v.low or b"at>" in v.low:
        _spelled_emails(v, out)
    if b"@" not in ab:
        return
    rx = _rx
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
        add(out, s, e, "email")
        if ab[e : e + 1] == b":":
            _combo_password(v, out, e + 1)


def _combo_password(v: View, out: list[Cand], at: int) -> None:
    """``alice@corp.de:Qm7vK2pL9x``: an account and its password, as leaked lists write them
    (a port, a path or a placeholder after the colon is none)."""
    m = _rx.combo.match(v.ab, at)
    if m is not None and plausible(m.group().decode(), "strict", False):
        add(out, at, m.end(), "generic_api_key")


_SPELLED_LOCAL = frozenset(b"abcdefghijklmnopqrstuvwxyz0123456789._%+-")


def _spelled_emails(v: View, out: list[Cand]) -> None:
    """``local [at] domain [dot] tld``: each ``[at]`` is found first, then the local part is walked back
    over (at most 64 characters, never into the previous address) and the domain matched after it;
    the same addresses as one pattern ``local{1,64} [at] domain`` searched from the left, at a
    fraction of its cost (that pattern tries 64 characters at every letter of the text)."""
    low, done = v.low, 0
    for m in spelled_ats(low):
        at = m.start()
        if at < done:
            continue
        s = at
        while s > done and at - s < 64 and low[s - 1] in _SPELLED_LOCAL:
            s -= 1
        if s == at:
            continue
        dm = _rx.spelled_domain.match(low, m.end())
        if dm is None:
            continue
        done = dm.end()
        local = low[s:at].decode().strip(".")
        domain = _rx.spelled_dot.sub(b".", dm.group(1)).decode()
        if local and not _email_is_placeholder(local, domain):
            add(out, s, dm.end(1), "email")


def spelled_ats(low: bytes) -> Iterator[re.Match[bytes]]:
    """What ``spelled_at.finditer(low)`` finds, searched from its literal ``at``: a pattern that starts
    with blanks and a bracket is tried at every byte, the ``at`` then a closing bracket is found by
    re's literal search, and the blanks and the opening bracket before it are walked back over."""
    rx, end = _rx.spelled_at, 0
    for c in _rx.at_closed.finditer(low):
        b = c.start()
        if b < end:
            continue   # inside the previous match
        while b > end and low[b - 1] in b" \t":
            b -= 1
        if b == end or low[b - 1] not in b"[({<":
            continue
        b -= 1
        while b > end and low[b - 1] in b" \t":
            b -= 1
        m = rx.match(low, b)
        if m is not None:
            end = m.end()
            yield m


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




HOME_PLACEHOLDERS = frozenset(
    """user username user_name yourname your_name your-name youruser your_user yourusername your_username you me
    name someone somebody nobody example runner ubuntu ec2-user vagrant circleci jenkins vscode codespace
    codespaces node docker git app admin administrator pi linuxbrew build builder travis gitpod coder dev guest
    shared public default all root www-data postgres centos debian fedora alpine ansible deploy opc azureuser
    abc xxx foo bar test testuser""".split()
)
_WIN_PLACEHOLDERS = frozenset(["default user", "all users", "defaultapppool"])


def find_home_paths(v: View, out: list[Cand]) -> None:
    text = v.text
    rx = _rx
    if "home" in text:
        for m in rx.home.finditer(text):
            s = m.start() - 1
            if text[s - 1 : s + 1] == "\\/":
                s -= 1  # JSON-escaped \/home\/alice
            elif text[s : s + 1] != "/":
                continue
            if s > 0 and (text[s - 1].isalnum() or text[s - 1] in "._-~$"):
                if not re.search(r"(?<![\w.~$-])/(?:export|var)\Z", text[max(0, s - 8) : s]):
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
    if "-Users-" in text or "-home-" in text:
        _encoded_homes(v, out)


def _encoded_homes(v: View, out: list[Cand]) -> None:
    """Claude Code's project folder names, every non-alphanumeric of the path made ``-``:
    ``-Users-NAME-proj``, ``C--Users-NAME-proj``, ``-home-NAME-…``, ``-mnt-c-Users-NAME``."""
    text, done = v.text, 0
    found: set[int] = set()
    for word in ("-Users-", "-home-"):   # in every match: the pattern is tried only around them
        i = text.find(word)
        while i >= 0:
            found.add(i)
            i = text.find(word, i + 1)
    rx = _rx.encoded
    for i in sorted(found):
        # a match starts at most 8 characters before its "-Users-" ("C-" and "-mnt-c"): tried at each of
        # those starts, leftmost first (match() at a position still lets the look-behind see before it)
        m = next((got for s in range(max(i - 8, done), i + 1) if (got := rx.match(text, s)) is not None), None)
        if m is None:
            continue
        done = m.end()
        if m.group(1).lower() not in HOME_PLACEHOLDERS:
            add(out, m.start(), m.end(), "home_path")


def _users_path(v: View, out: list[Cand], at: int, after: int) -> None:
    text = v.text
    rx = _rx
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
        # WSL's /mnt/c/Users/NAME and Git Bash's /c/Users/NAME
        lo = max(0, s - 6)
        drive = re.search(r"(?:/mnt)?/[A-Za-z]\Z", text[lo:s])
        begin = lo + drive.start() if drive else 0
        if drive is None or begin > 0 and (text[begin - 1].isalnum() or text[begin - 1] in "._-~$"):
            return
    _home_name(v, out, s, after)


def _home_name(v: View, out: list[Cand], s: int, name_at: int) -> None:
    text = v.text
    m = _rx.home_name.match(text, name_at)
    if m is None:
        return
    name = m.group().rstrip(".")
    e = name_at + len(name)
    if e < len(text) and text[e] in "<>*{}$%":
        return
    if not name or name.lower() in HOME_PLACEHOLDERS or name.lower() in _WIN_PLACEHOLDERS:
        return
    if "." in name and name.rsplit(".", 1)[-1].lower() in _FILE_TLDS:
        return  # /home/index.html is a web path
    add(out, s, e, "home_path")


def _tilde_path(v: View, out: list[Cand], m: re.Match[str]) -> None:
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
        if _rx.shell_verb.search(text, max(0, s - 40), s) is None:
            return  # prose such as "~twice as fast"
    else:
        return
    if name.lower() not in HOME_PLACEHOLDERS:
        add(out, s, e, "home_path")

