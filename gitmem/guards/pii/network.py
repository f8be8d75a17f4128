"""IP addresses: IPv4 and IPv6 hosts, parsed and classified by ``ipaddress``.

Candidates are found cheaply in the byte views (three dotted numbers in the
digit shape; a ``::`` or three colon-separated hex groups), then ``ipaddress``
decides whether the text is an address and what kind of address it is.
Loopback, unspecified, multicast, reserved and documentation addresses are not
reported. Four dotted numbers are a version, not an IPv4 address, when the
first three are single digits, when all four are under 100 and the first under
10, when the last is 0, or after ``v`` / ``version``.
"""

from __future__ import annotations

from gitmem.guards.pii.kinds import Cand, add
from gitmem.guards.pii.view import ALNUM, Patterns, View, bounded

TYPE_CHECKING = False
if TYPE_CHECKING:
    import ipaddress

_rx = Patterns(
    {
        "ipv4_mid": rb"\.0{1,3}\.0{1,3}\.",
        "ipv4": rb"([0-9]{1,3})\.([0-9]{1,3})\.([0-9]{1,3})\.([0-9]{1,3})",
        "version_context": rb"(?:\b(?:v|ver|version|release|build|firmware|kernel|rev)[ .:=/_-]{0,3}|[=~<>!]=|[\^~])\Z",
        "ipv6_full": rb":[0-9A-Fa-f]{1,4}:[0-9A-Fa-f]{1,4}:[0-9A-Fa-f]{1,4}:",
        "ipv6_dc": rb"::",
    }
)

_HEX = frozenset(b"0123456789abcdefABCDEF")
_V6_CHARS = _HEX | frozenset(b":.")


class _Networks:
    """The networks whose addresses identify no host, built on first use
    (``ipaddress`` is imported only when a text holds a candidate address)."""

    def __init__(self) -> None:
        import ipaddress

        self.ipaddress = ipaddress
        net4 = ipaddress.IPv4Network
        self.this_network = net4("0.0.0.0/8")
        self.documentation4 = (net4("192.0.2.0/24"), net4("198.51.100.0/24"), net4("203.0.113.0/24"))
        self.documentation6 = ipaddress.IPv6Network("2001:db8::/32")


_NETWORKS: _Networks | None = None


def _networks() -> _Networks:
    global _NETWORKS
    if _NETWORKS is None:
        _NETWORKS = _Networks()
    return _NETWORKS


def find_ipv4(v: View, out: list[Cand]) -> None:
    """IPv4 host addresses in ``v``, versions and non-host addresses left out."""
    ab, shape = v.ab, v.shape
    if b"00" not in shape or b"." not in shape:
        return  # a reportable address has an octet of two digits or more
    for m in _rx.ipv4_mid.finditer(shape):
        s = m.start()
        while s > 0 and 0x30 <= ab[s - 1] <= 0x39 and m.start() - s < 3:
            s -= 1
        full = _rx.ipv4.match(ab, s) if s < m.start() else None
        if full is None or not bounded(ab, s, full.end(), b"._-+", b"_-"):
            continue
        e = full.end()
        octets = [int(x) for x in full.groups()]
        if any(o > 255 for o in octets) or all(o < 10 for o in octets[:3]):
            continue  # 1.2.3.4 and 1.1.1.20 are versions
        if octets[0] < 10 and all(o < 100 for o in octets):
            continue  # so is 2.14.3.7
        if octets[3] == 0:
            continue  # a network (10.0.0.0/8) or a version (3.12.1.0), not a host
        if not _ipv4_host(_networks().ipaddress.IPv4Address(bytes(octets))):
            continue
        if _rx.version_context.search(v.low, max(0, s - 12), s):
            continue
        add(out, s, e, "ipv4")


def _ipv4_host(addr: ipaddress.IPv4Address) -> bool:
    """Could ``addr`` name a host that tells something about a person or a network?"""
    nets = _networks()
    if addr.is_loopback or addr.is_multicast or addr.is_reserved:
        return False  # 127/8, 224/4, 240/4 with the broadcast address
    return addr not in nets.this_network and not any(addr in net for net in nets.documentation4)


def find_ipv6(v: View, out: list[Cand]) -> None:
    """IPv6 host addresses in ``v``; code such as ``a::b`` and ``std::map`` left out."""
    ab = v.ab
    if b":" not in ab:
        return
    anchors = [m.start() for m in _rx.ipv6_dc.finditer(ab)] if b"::" in ab else []
    anchors += [m.start() for m in _rx.ipv6_full.finditer(ab)]
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
        if e < n and (ab[e] in ALNUM or ab[e] in b"_-"):
            continue
        s = _ipv6_start(ab, s, a)
        if s >= 0 and _ipv6_host(v.s(s, e)):
            add(out, s, e, "ipv6")


def _ipv6_start(ab: bytes, s: int, a: int) -> int:
    """Where the address starts, or -1. The scan back from an anchor may have
    swallowed a word that ends in hex letters ("addr:fe80::1"): skip to the
    next colon until the left side is clean."""
    while s <= a:
        if ab[s] == 0x3A and ab[s : s + 2] != b"::":
            s += 1
        elif s > 0 and (ab[s - 1] in ALNUM or ab[s - 1] in b"_-/."):
            nxt = ab.find(b":", s, a + 1)
            if nxt < 0:
                return -1
            s = nxt if nxt == a else nxt + 1
            if nxt == a and (ab[s - 1] in ALNUM or ab[s - 1] in b"_-/."):
                return -1  # the anchor itself is glued to a word ("ghp_::1"); retrying it never ends
        else:
            return s
    return -1


def _ipv6_host(text: str) -> bool:
    """Is ``text`` an IPv6 address of a host, written the way addresses are?"""
    if not any(ch.isdigit() for ch in text):
        return False  # dead:beef::cafe reads as words
    nets = _networks()
    try:
        addr = nets.ipaddress.IPv6Address(text)
    except ValueError:
        return False
    parts = [p for p in text.replace("::", ":").split(":") if p]
    v4 = "." in text
    groups = parts[:-1] if v4 else parts
    width = len(groups) + (2 if v4 else 0)
    if "::" in text:
        if width < 2:
            return False  # fe80:: and ::1 alone are too short to tell from code
        if width == 2 and not v4 and len(groups[0]) < 3:
            return False  # a::b is code, fe80::1 is an address
    if addr.is_unspecified or addr.is_loopback or addr in nets.documentation6:
        return False
    if v4:
        tail = nets.ipaddress.IPv4Address(int(addr) & 0xFFFFFFFF)
        if tail.is_loopback or int(tail) == 0 or any(tail in net for net in nets.documentation4):
            return False  # ::ffff:127.0.0.1, ::0.0.0.0, documentation
        if tail in nets.this_network and not any(int(g, 16) for g in groups[:-1]):
            return False
    return True
