"""Secrets disguised from the detectors but not from a person who copies them.

Two disguises, one function each:

* :func:`visible` removes what a reader cannot see (zero-width characters,
  soft hyphens, bidi controls, word joiners, the BOM and other format
  characters) and maps look-alike separators (Unicode hyphens, dashes and
  minus signs, fullwidth and small-form punctuation) to their ASCII forms.
  The scan runs again on the result, and ``where`` maps each character of it
  back to the original text, so a finding still redacts the original span,
  hidden characters included.
* :func:`find_split_tokens` joins a vendor token that whitespace or line
  breaks cut into pieces (``ghp_Q7mZ… \\n t4Vw…``, ``AKIA QZ3E GTZ7 …``), or
  whose separator was swapped (``ghp-…``, ``github pat_…``, ``hf.…``), and
  tries the vendor formats on the joined text. Pieces that read as words end
  the join, so prose after a token, or a sentence that names a prefix
  (``ghp_ tokens are classic PATs``), is never glued into one.
"""

from __future__ import annotations

from bisect import bisect_right
from collections.abc import Callable

from gitmem.guards.pii.kinds import Cand, add
from gitmem.guards.pii.view import ALNUM, Patterns, View

_rx = Patterns(
    {
        # A vendor stem at a word start, its separator possibly swapped or lost.
        # A vendor stem, its separator possibly swapped or lost (the left
        # boundary is checked in Python: a look-behind here would cost a pass).
        "stem": (
            rb"(gh[pousr]|github[ \t._-]{1,3}pat|glpat|npm|hf|dckr[ \t._-]{1,3}pat|"
            rb"sk[ \t._-]{1,3}ant[ \t._-]{1,3}(?:api|admin)[0-9][0-9]|sk[ \t._-]{1,3}proj|[sr]k[ \t._-]{1,3}(?:live|prod)|"
            rb"xox[abposre]|AKIA|ASIA|AIza|sk)(?=[ \t\r\n._-]|(?<=AKIA|ASIA|AIza)[ \t\r\n]*[A-Za-z0-9])"
        ),
        "stem_part": rb"[A-Za-z0-9]+",
        # Between two pieces: blanks and line breaks (escaped ones are blanked
        # by the view), a quote marker, at most one separator of the format.
        "first_gap": rb"[ \t]*(?:[._-][ \t]*)?(?:[\r\n][ \t>]*){0,2}",
        "gap": rb"[ \t]*(?:[\r\n][ \t>]*){0,2}",
        "piece": rb"[A-Za-z0-9_-]+",
        "word": rb"[A-Z]?[a-z]+",
        # Every character visible() may drop or replace (and a few it keeps):
        # one search finds them, the rest of a text is copied in slices.
        "odd": (
            "[\u00a0\u00ad\u02d7\u034f\u0600-\u0605\u061c\u06dd\u070f\u08e2\u115f\u1160\u17b4\u17b5\u180b-\u180e"
            "\u2000-\u206f\u2212\u2796\u3002\u3164\ufe00-\ufe0f\ufe30-\ufe6f\ufeff\uff00-\uffef\ufff9-\ufffb"
            "\U000110bd\U0001bca0-\U0001bca3\U0001d173-\U0001d17a\U000e0000-\U000e007f]"
        ),
    }
)

# The canonical prefix of each stem (its words joined with the vendor's own separators).
_CANON: dict[tuple[bytes, ...], bytes] = {
    (b"github", b"pat"): b"github_pat_",
    (b"dckr", b"pat"): b"dckr_pat_",
    (b"sk", b"proj"): b"sk-proj-",
    (b"sk", b"live"): b"sk_live_",
    (b"rk", b"live"): b"rk_live_",
    (b"sk", b"prod"): b"sk_prod_",
    (b"rk", b"prod"): b"rk_prod_",
}
_SINGLE: dict[bytes, bytes] = {
    b"ghp": b"ghp_", b"gho": b"gho_", b"ghu": b"ghu_", b"ghs": b"ghs_", b"ghr": b"ghr_",
    b"glpat": b"glpat-", b"npm": b"npm_", b"hf": b"hf_", b"sk": b"sk-",
    b"xoxa": b"xoxa-", b"xoxb": b"xoxb-", b"xoxp": b"xoxp-", b"xoxo": b"xoxo-", b"xoxs": b"xoxs-",
    b"xoxr": b"xoxr-", b"xoxe": b"xoxe-", b"AKIA": b"AKIA", b"ASIA": b"ASIA", b"AIza": b"AIza",
}
# Invisible and format characters (Unicode category Cf and the fillers that
# render as nothing), dropped by visible().
_INVISIBLE = frozenset(
    "\u00ad\u034f\u061c\u115f\u1160\u17b4\u17b5\u180b\u180c\u180d\u180e\u200b\u200c\u200d\u200e\u200f"
    "\u202a\u202b\u202c\u202d\u202e\u2060\u2061\u2062\u2063\u2064\u2066\u2067\u2068\u2069\u206a\u206b"
    "\u206c\u206d\u206e\u206f\u3164\ufe00\ufe01\ufe02\ufe03\ufe0e\ufe0f\ufeff\uffa0"
)
_LOOKALIKE = {
    # Dashes a reader takes for a hyphen inside a token (the em dash is too wide to pass).
    **dict.fromkeys("\u2010\u2011\u2012\u2013\u2212\u2043\ufe58\ufe63\uff0d\u02d7\u2796", "-"),
    **dict.fromkeys("\uff3f\ufe4d\ufe4e\ufe4f\u2017", "_"),
    **dict.fromkeys("\u2024\uff0e\ufe52\u3002\uff61", "."),
    "\uff0f": "/", "\uff0b": "+", "\uff1a": ":", "\uff1d": "=", "\u00a0": " ", "\u2007": " ", "\u202f": " ",
}


_WINDOW = 400  # characters around a hidden one that are scanned again, at most


def hidden(text: str) -> list[tuple[int, int]]:
    """Spans of ``text`` around the characters :func:`visible` changes, merged:
    from two lines before to two lines after each (at most ``_WINDOW``
    characters either side), so a token cut over three lines is seen whole.
    The rest of a text is not scanned twice."""
    if text.isascii():
        return []
    spans: list[tuple[int, int]] = []
    for m in _rx.odd.finditer(text):
        ch = m.group()
        if not (ch in _INVISIBLE or ch in _LOOKALIKE or "\uff01" <= ch <= "\uff5e" or _is_format(ch)):
            continue
        i = m.start()
        start, end = _lines_around(text, i)
        if spans and start <= spans[-1][1]:
            spans[-1] = (spans[-1][0], max(end, spans[-1][1]))
        else:
            spans.append((start, end))
    return spans


def _lines_around(text: str, i: int) -> tuple[int, int]:
    """From the start of the line two lines before ``i`` to the end of the line two after it, within the window."""
    lo, hi = max(0, i - _WINDOW), min(len(text), i + _WINDOW)
    start = i
    for _ in range(3):
        nl = text.rfind("\n", lo, start)
        if nl < 0:
            start = lo
            break
        start = nl
    else:
        start += 1
    end = i
    for _ in range(3):
        nl = text.find("\n", end + 1 if end > i else end, hi)
        if nl < 0:
            end = hi
            break
        end = nl
    return start, end


def visible(text: str) -> tuple[str, Callable[[int], int]] | None:
    """``text`` as a person sees it, and the map from its offsets back to ``text``'s.

    Invisible and format characters are dropped; look-alike hyphens, dashes,
    underscores, dots and fullwidth ASCII become ASCII. None when nothing
    changes (all-ASCII text never does). Only the characters that may change
    are visited, so a text in any script costs one search.
    """
    if text.isascii():
        return None
    parts: list[str] = []
    shown_at: list[int] = [0]  # a segment of the result starts here…
    orig_at: list[int] = [0]  # …and comes from here in the text
    last = size = 0
    for m in _rx.odd.finditer(text):
        ch = m.group()
        i = m.start()
        if ch in _INVISIBLE or _is_format(ch):
            mapped = ""
        else:
            mapped = _LOOKALIKE.get(ch) or (chr(ord(ch) - 0xFEE0) if "\uff01" <= ch <= "\uff5e" else ch)
            if mapped == ch:
                continue
        parts.append(text[last:i])
        size += i - last
        parts.append(mapped)
        size += len(mapped)
        last = i + 1
        shown_at.append(size)
        orig_at.append(last)
    if len(shown_at) == 1:
        return None
    parts.append(text[last:])

    def original(offset: int) -> int:
        k = bisect_right(shown_at, offset) - 1
        return orig_at[k] + offset - shown_at[k]

    return "".join(parts), original


def _is_format(ch: str) -> bool:
    import unicodedata  # only reached for non-ASCII text

    return unicodedata.category(ch) == "Cf"


def find_split_tokens(v: View, out: list[Cand]) -> None:
    """Vendor tokens cut by whitespace or line breaks, or with a swapped separator, joined again."""
    from gitmem.guards.pii.vendors import vendor_token

    ab = v.ab
    for at in _stem_hits(ab):
        if at > 0 and (ab[at - 1] in ALNUM or ab[at - 1] in b"_.-"):
            continue  # inside a word: work_, task-
        m = _rx.stem.match(ab, at)
        if m is None:
            continue
        stem = _canonical(m.group(1))
        if stem is None or stem == b"sk-" and ab[m.end() : m.end() + 1] == b"_":  # sk_test_…: Stripe's
            continue
        joined, ends = _join(ab, m.end(), stem)
        found = vendor_token(joined.decode("ascii")) if ends else None
        if found is None:
            continue
        kind, length = found
        for piece_end, size in ends:  # the token ends where a piece ends
            if size == length:
                if ab[m.start() : piece_end] != joined[:length]:  # else the plain scan sees it
                    add(out, m.start(), piece_end, kind)
                break


_SEP = rb"[ \t\r\n._-]"
_STEM_STARTS = Patterns(
    {
        "gh": rb"gh[pousr]" + _SEP,
        "github": rb"github[ \t._-]{1,3}pat" + _SEP,
        "hf": rb"hf" + _SEP,
        "npm": rb"npm" + _SEP,
        "glpat": rb"glpat" + _SEP,
        "dckr": rb"dckr[ \t._-]{1,3}pat" + _SEP,
        "sk": rb"sk" + _SEP,
        "rk": rb"rk[ \t._-]{1,3}(?:live|prod)",
        "xox": rb"xox[abposre]" + _SEP,
    }
)


def _stem_hits(ab: bytes) -> list[int]:
    """Where a stem may start: one literal search per stem is several times
    faster than one alternation, which ``re`` tries at every position."""
    hits: list[int] = []
    for name, literal in _STEM_LITERALS:
        if literal in ab:
            hits += [m.start() for m in getattr(_STEM_STARTS, name).finditer(ab)]
    for literal in (b"AKIA", b"ASIA", b"AIza"):
        i = ab.find(literal)
        while i >= 0:
            hits.append(i)
            i = ab.find(literal, i + 1)
    return sorted(hits)


_STEM_LITERALS = tuple((name, name.encode()) for name in ("gh", "github", "hf", "npm", "glpat", "dckr", "sk", "rk", "xox"))


def _wordlike(piece: bytes) -> bool:
    return len(piece) >= 2 and _rx.word.fullmatch(piece) is not None or piece in (b"a", b"A", b"I")


def _canonical(stem: bytes) -> bytes | None:
    words: tuple[bytes, ...] = tuple(bytes(w) for w in _rx.stem_part.findall(stem))
    if len(words) == 1:
        return _SINGLE.get(words[0])
    if len(words) == 2:
        return _CANON.get((words[0], words[1]))
    if len(words) == 3 and words[:2] == (b"sk", b"ant"):
        return b"sk-ant-" + words[2] + b"-"
    return None


def _join(ab: bytes, at: int, stem: bytes) -> tuple[bytes, list[tuple[int, int]]]:
    """The stem and the pieces after it joined; (end in ``ab``, joined length) after each piece.

    Pieces are separated by blanks and at most two line breaks; the first gap
    may also hold the stem's (swapped) separator. A piece that reads as a word
    ends the join unless a piece that does not follows it: prose goes on
    after a token (and after a prefix named in a sentence), while a random
    piece of a token may spell a short word now and then.
    """
    rx = _rx
    pieces: list[bytes] = []
    ends: list[int] = []
    pos, n, size = at, len(ab), len(stem)
    while pos < n and size < 400 and len(pieces) < 24:
        g = (rx.first_gap if not pieces else rx.gap).match(ab, pos)
        if g is None or g.group().count(b"\n") > 2 or g.end() - pos > 12:
            break
        p = rx.piece.match(ab, g.end())
        if p is None or pieces and g.end() == pos:
            break  # no piece, or two pieces with nothing between them: not a split
        pieces.append(p.group())
        size += p.end() - p.start()
        pos = p.end()
        ends.append(pos)
    keep = 0
    while keep < len(pieces):
        if _wordlike(pieces[keep]) and (keep + 1 == len(pieces) or _wordlike(pieces[keep + 1])):
            break
        keep += 1
    joined = stem
    out: list[tuple[int, int]] = []
    for piece, end in zip(pieces[:keep], ends):
        joined += piece
        out.append((end, len(joined)))
    return joined, out
