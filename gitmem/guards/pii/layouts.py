"""Secrets in labelled layouts: a label that says password, passphrase, token,
key or secret, then the value, whatever the layout around them.

* a label line: ``Password for db01: …``, ``* **Token** - …``, ``password (staging): …``,
  ``Secret:`` with the value alone on the next line, ``Token<TAB>…`` (TSV),
  ``the password, …,``, ``credentials: user / …``;
* a table: a row whose cell is a label and whose next cell is the value, or a
  header cell that labels a column, under a Markdown separator row;
* a PostgreSQL password file line, ``host:port:database:user:password``;
* a ``.netrc`` entry, ``machine host login user password …``.

The keyword detectors find where a label word stands (:func:`labelled_at` is
called for each); tables and password-file lines have a pass of their own.
"""

from __future__ import annotations

from gitmem.guards.pii.kinds import Cand, add
from gitmem.guards.pii.plausibility import classes, is_placeholder, plausible
from gitmem.guards.pii.values import line_end, phrase_value, value_at
from gitmem.guards.pii.view import Patterns, View

_rx = Patterns(
    {
        # After the label word: emphasis, a qualifier ("(staging)", "for db01",
        # "issued"), then a separator: colon, dash, arrow, bar or tab.
        "tail": (
            rb"[*_]{0,2}(?:[ \t]*\([^)\n]{1,40}\))?"
            rb"(?:[ \t]+(?:for|to|of|on|at|in)[ \t]+[^\s:|*\[]{1,40}(?:[ \t]+[^\s:|*\[]{1,40})?)?"
            rb"(?:[ \t]+(?:issued|generated|created|below|here|now|value))?"
            # code has these too (a[i - 1], a|b, x->y): apart from the colon, a
            # separator stands between blanks; ? is a non-ASCII one in the view (an em dash, an arrow)
            rb"[ \t]*[*_]{0,2}(?:[ \t]*:|[ \t]+(?:=>|->|\||-|\?)(?=[ \t])|\t)[ \t]*[*_]{0,2}[ \t]*"
        ),
        "apposition": rb",[ \t]+(?=[^\s,]{6,}[,.;])",
        "pair": rb"[^\s/:|]{1,64}[ \t]*/[ \t]*",
        # A key that is no secret: "sort key", "the key", "press any key".
        "key_plain": (
            rb"(?:^|[^a-z])(?:sort|partition|primary|foreign|public|cache|hash|routing|map|dict|lookup|unique|composite|"
            rb"row|group|index|registry|field|column|json|yaml|config|translation|list|hot|shortcut|keyboard|ssh|gpg|pgp|"
            rb"host|dedup|bucket|redis|idempotency|object|the|a|an|this|that|your|my|which|each|any|same|cache|first|"
            rb"next|primary|s3|i18n|dictionary|metadata|label|tag|enter|escape|tab|space|return|"
            # an error about a key names the key: "Unrecognized key(s) in object: 'parameter'"; "X is key - …"
            rb"unrecognized|unrecognised|unknown|invalid|missing|duplicate|unexpected|extra|required|is|was|are)[ \t_-]\Z"
        ),
        "key_word": rb"[a-z][a-z0-9]*[ \t_-]\Z",
        "paren": rb"[ \t]*\([ \t]*(?=[^\s)]{6,}[ \t]*\))",
        "block_scalar": rb"[>|][-+]?[ \t]*\r?(?=\n|\Z)",
        "label_line": rb"[ \t]*(?:[-*+>#|][ \t]*)*[a-z0-9 _-]{0,30}\Z",
        "sep_row": rb"[ \t]*\|?[ \t]*:?-{3,}:?[ \t]*(?:\|[ \t]*:?-{3,}:?[ \t]*)*\|?[ \t]*\r?(?:\n|\Z)",
        "pgpass_hint": rb":(?:[0-9]{1,5}|\*):[^\s:]+:[^\s:]+:",
        # a .netrc entry: machine HOST [login USER] password VALUE, on one line or several
        "netrc": rb"machine[ \t]+[^\s]+(?:\s+login[ \t]+[^\s]+)?\s+password[ \t]+([^\s]+)",
        "pgpass": rb"[ \t]*[^\s:#|]+:(?:[0-9]{1,5}|\*):[^\s:]+:[^\s:]+:((?:[^\s:\\]|\\.){6,})[ \t]*\r?(?:\n|\Z)",
        "words": rb"[a-z][a-z0-9 _-]{0,40}",
    }
)

_LABELS = frozenset(
    b"password passwd passphrase passcode pwd pw token secret key credentials credential creds".split()
)
_PAIR_LABELS = frozenset(b"credentials credential creds login".split())
# A bare value holding these is code (x[i], f(y), {k: v}, a|b), not a secret typed after a label.
_CODE_BYTES = frozenset(b"[](){}|<>")


def labelled_at(v: View, out: list[Cand], ws: int, we: int) -> None:
    """The value after the label word at ``ws:we`` in a label line (see the module's docstring)."""
    low = v.low
    word = low[ws:we].rsplit(b"_", 1)[-1]
    if word not in _LABELS and word not in _PAIR_LABELS or low[ws - 1 : ws] in (b"[", b"$") or (
        low[ws - 1 : ws] == b":" and low[ws - 2 : ws - 1].isalnum()
    ):
        return  # not a label; our own [SECRET:kind]; $TOKEN; arn:…:secret:name
    if word == b"key" and low[ws:we] == b"key" and (
        _rx.key_word.search(low, max(0, ws - 24), ws) is None or _rx.key_plain.search(low, max(0, ws - 24), ws)
    ):
        return  # "key: value pairs", "sort key: id": a key that is no secret
    if b"_" in low[ws:we]:
        return  # db_password: an identifier, read as an assignment by the keyword detectors
    hi = line_end(low, we)
    m = _rx.tail.match(low, we, hi)
    if m is not None and b"?" in low[we : m.end()] and not _real_separator(v, we, m.end()):
        m = None  # "auth token · host": a middle dot lists, it labels nothing
    if m is not None:
        at = m.end()
        if word in _PAIR_LABELS:
            pair = _rx.pair.match(low, at, hi)
            if pair is None:
                return
            at = pair.end()
        block = _rx.block_scalar.match(low, at, hi + 1)
        if at >= hi or block is not None:  # the value on the next line: "Secret:", "password: >-"
            if b":" in low[we : m.end()]:
                _next_line(v, out, hi)
            return
        got = value_at(v, at, hi)
        if got is not None and (got[2] or not _CODE_BYTES & set(v.ab[got[0] : got[1]])):
            tight = not got[2] and low[at - 1 : at] == b":"   # pw:api, a namespace: the value must look made
            phrase_value(v, out, at, hi, "strict" if word in _PAIR_LABELS or tight else "prose")
        return
    if word in _LABELS:
        m = _rx.apposition.match(low, we, hi) or _rx.paren.match(low, we, hi)
        if m is not None:  # "the password, …," "the passphrase (…)"
            phrase_value(v, out, m.end(), hi, "strict")
        elif we == hi or low[we:hi].strip(b" \t*_:\r") == b"":
            ls = low.rfind(b"\n", 0, ws) + 1
            if _rx.label_line.match(low, ls, ws) is not None:  # the label alone on its line
                _next_line(v, out, hi)


# What a non-ASCII separator (? in the byte view) may be: dashes, arrows, a full-width colon or equals sign.
_SEPARATORS = frozenset("\u2010\u2011\u2012\u2013\u2014\u2015\u2192\u21d2\u27f6\u279c\u2794\uff1a\uff1d\u2236")


def _real_separator(v: View, s: int, e: int) -> bool:
    return all(ch in _SEPARATORS for ch, b in zip(v.text[s:e], v.low[s:e]) if b == 0x3F and not ch.isascii())


def _next_line(v: View, out: list[Cand], nl: int) -> None:
    """``Secret:`` at the end of a line: the value is the next line, alone."""
    low = v.low
    if low[nl : nl + 1] != b"\n":
        return
    start = nl + 1
    end = line_end(low, start)
    line = v.ab[start:end].strip()
    if line and b" " not in line and b"\t" not in line:
        s = v.ab.find(line, start, end)
        phrase_value(v, out, s, s + len(line), "strict")


def find_tables(v: View, out: list[Cand]) -> None:
    """Table rows whose label cell is followed by the value, and columns a header cell labels."""
    ab, low = v.ab, v.low
    if b"|" not in ab:
        return
    for word in (b"pass", b"pw", b"token", b"secret", b"key", b"cred"):
        i = low.find(word)
        while i >= 0:
            _table_cell(v, out, i)
            i = low.find(word, i + 1)


_ROW = 480  # the longest table row read


def _cells(ab: bytes, start: int, end: int) -> list[tuple[int, int]]:
    """(start, end) of each cell of the table line ``ab[start:end]``, blanks and emphasis trimmed."""
    cells = []
    pos = start
    while pos <= end:
        bar = ab.find(b"|", pos, end)
        stop = end if bar < 0 else bar
        s, e = pos, stop
        while s < e and ab[s] in b" \t*_`":
            s += 1
        while e > s and ab[e - 1] in b" \t*_`\r":
            e -= 1
        cells.append((s, e))
        if bar < 0:
            break
        pos = bar + 1
    if cells and cells[0][0] == cells[0][1] and ab[start:end].lstrip().startswith(b"|"):
        cells = cells[1:]
    if cells and cells[-1][0] == cells[-1][1]:
        cells = cells[:-1]
    return cells


def _is_label(low: bytes, s: int, e: int) -> bool:
    cell = low[s:e]
    if not cell or _rx.words.fullmatch(cell) is None or cell.count(b" ") > 3:
        return False
    last = cell.replace(b"-", b" ").replace(b"_", b" ").split()[-1]
    if last == b"key":
        return cell != b"key"  # a bare "Key" column heads keys of any kind
    return last in _LABELS


def _table_cell(v: View, out: list[Cand], at: int) -> None:
    ab, low = v.ab, v.low
    ls = low.rfind(b"\n", max(0, at - _ROW), at) + 1
    if ls == 0 and at > _ROW:
        return  # a line this long is no table row (a JSON record, a minified file)
    le = line_end(low, at)
    if not (ab[ls:le].lstrip().startswith(b"|") or low.find(b" | ", ls, le) >= 0 or low.find(b"\t|", ls, le) >= 0):
        return  # a|b|c is an alternation, not a table row
    cells = _cells(ab, ls, le)
    col = next((k for k, (s, e) in enumerate(cells) if s <= at < e), None)
    if col is None or not _is_label(low, *cells[col]):
        return
    if col + 1 < len(cells):
        _cell_value(v, out, *cells[col + 1])
    nxt = le + 1
    if low[le : le + 1] == b"\n" and (sep := _rx.sep_row.match(ab, nxt)) is not None:
        row = sep.end()
        for _ in range(200):  # the rows of the table under this header
            if row >= len(ab) or ab[row : row + 1] == b"\n":
                break
            re_ = line_end(low, row)
            if ab.find(b"|", row, re_) < 0:
                break
            row_cells = _cells(ab, row, re_)
            if col < len(row_cells) and len(row_cells) == len(cells):
                _cell_value(v, out, *row_cells[col])
            row = re_ + 1


def _cell_value(v: View, out: list[Cand], s: int, e: int) -> None:
    value = v.s(s, e)
    if not value or " " in value or is_placeholder(value):
        return
    if classes(value) >= 2 and plausible(value, "prose", False) or plausible(value, "prose", True) and classes(value) >= 3:
        add(out, s, e, "generic_api_key")


def find_pgpass(v: View, out: list[Cand]) -> None:
    """``host:port:database:user:password`` lines of a PostgreSQL password file."""
    ab = v.ab
    for hint in _rx.pgpass_hint.finditer(ab):
        m = _rx.pgpass.match(ab, ab.rfind(b"\n", 0, hint.start()) + 1)
        if m is None:
            continue
        s, e = m.span(1)
        got = value_at(v, s, e)
        if got is not None and plausible(v.s(got[0], got[1]), "env", got[2]):
            add(out, got[0], got[1], "generic_api_key")


def find_netrc(v: View, out: list[Cand]) -> None:
    """The password of a ``.netrc`` entry (``machine … login … password …``): any value a
    person did not write as a placeholder, a UUID-shaped API key included."""
    if b"machine" not in v.low:
        return
    for m in _rx.netrc.finditer(v.low):
        s, e = m.span(1)
        value = v.s(s, e)
        if len(value) >= 6 and not is_placeholder(value) and (classes(value) >= 2 or len(value) >= 10):
            add(out, s, e, "generic_api_key")
