"""Percent-encoded and base64 forms, decoded and scanned again.

A finding inside a decoded form is reported over the encoded span (base64:
the whole blob; percent-encoding: the encoded characters of the finding).
Base64 lines wrapped at 64 or 76 columns (PEM, the base64 command) are joined
first. The caller passes the scan to run on decoded text, ``collect``.
"""

from __future__ import annotations

from collections.abc import Callable

from gitmem.guards.pii.kinds import SECRET_SET, Cand, add
from gitmem.guards.pii.view import Patterns, View, decode_base64

# collect(text, depth, secrets_only): the candidates in a decoded text.
Collect = Callable[[str, int, bool], list[Cand]]

_rx = Patterns(
    {
        "pct": rb"%[0-9A-Fa-f]{2}",
        "digit_re": r"[0-9]",
    }
)



def find_percent_encoded(v: View, out: list[Cand], depth: int, secrets_only: bool, collect: Collect) -> None:
    """Decode percent-encoded tokens and add what ``collect`` finds in them."""
    ab = v.ab
    if b"%" not in ab:
        return
    n = len(ab)
    last_end = -1
    for m in _rx.pct.finditer(ab):
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
        for _rank, ds, de, kind in collect(decoded, depth + 1, secrets_only):
            add(out, s + src[ds], s + src[de], kind)


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


def find_base64(v: View, out: list[Cand], depth: int, collect: Collect) -> None:
    """Decode base64 blobs that read as text and rescan them for secrets; a
    finding covers the whole blob. Lines wrapped at 64 or 76 columns (PEM, the
    base64 command) are joined first."""
    ab = v.ab
    for s, e in _base64_blobs(v):
        flat = ab[s:e].translate(None, b" \t\r\n\\").decode("ascii")
        if flat.isalpha() or flat.islower() or flat.isupper() or flat.isdigit():
            continue  # words, hex digests, numbers
        if "+" not in flat and "/" not in flat and _rx.digit_re.search(flat) is None:
            continue  # CamelCaseIdentifiers
        if decode_base64(flat[:48]) is None:
            continue  # binary data: images, archives, random keys
        decoded = decode_base64(flat)
        if decoded is None:
            continue
        while e < len(ab) and ab[e] == 0x3D:
            e += 1
        inner = [c for c in collect(decoded, depth + 1, True) if c[3] in SECRET_SET]
        if inner:
            add(out, s, e, min(inner)[3])


def _base64_blobs(v: View) -> list[tuple[int, int]]:
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
