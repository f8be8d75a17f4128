"""Personal numbers: phone numbers, US social security numbers, card numbers.

Numbers are found in a "shape" of the text where every digit is ``0``, which
turns their layouts into literals that ``re`` finds with its fast prefix search.
A bare run of digits is a phone number only after a word such as ``phone`` or
``tel``, and an SSN only after ``ssn``; with separators no keyword is needed. A
number right after ``order``, ``invoice``, ``tracking number``, ``#``… is an
identifier, not PII. Card numbers must pass Luhn and a brand's length; the
published test cards are not reported.
"""

from __future__ import annotations

import re

from gitmem.guards.pii.kinds import Cand, add
from gitmem.guards.pii.view import ALNUM, Patterns, View, bounded, number_continues

_rx = Patterns(
    {
        # Numbers, found in the digit shape of the text (every digit is b"0"), in
        # one pass: card layouts, SSN 000-00-0000 and NANP 000-000-0000, and bare
        # runs of 9+ digits. The lookbehind after the first literal keeps the fast
        # prefix search and drops, inside `re`, a run that does not start at a
        # digit boundary.
        "numbers": (
            rb"0(?<!00)00(?:(?P<card>0(?:[ -]?0000[ -]?0000[ -]?0{1,7}|[ -]000000[ -]0{4,5}))"
            rb"|(?P<sep>[ .-](?:00[ -]0000|000[ .-]0000))|(?P<run>000000+))"
        ),
        "nanp_paren": rb"\(000\)[ .-]?000[ .-]0000",
        "intl": rb"\+[0-9][0-9 ().-]{7,24}[0-9]",
        "trunk": rb"0(?<![0-9]0)[1-9][0-9]{0,3}\)?(?:[ .-][0-9]{2,8}){1,4}(?![0-9])",
        "phone_ctx": (
            rb"\b(?:tel(?:ephone)?|phone|mobile|mob|cell(?:phone)?|fax|whatsapp|sms|gsm|call me(?: at| on)?|text me(?: at)?)"
            rb"(?:[ _-]?(?:no\.?|number|num|nr\.?))?[^a-z0-9\n]{0,4}\+?\Z"
        ),
        "ssn_ctx": rb"(?:\bssn|social security(?: number| no\.?)?)[^a-z0-9\n]{0,4}\Z",
        "num_context": (
            rb"(?:\b(?:order|invoice|tracking|ticket|ref|reference|case|sku|serial|sn|s/n|isbn|txn|transaction|"
            rb"confirmation|build|po|id|item|part|account|acct|pid|uid|job|run|issue|pr|bug|receipt|booking|shipment)\b"
            rb"(?:[ \t]*(?:number|no\.?|num|nr|id|code|#))?[^a-z0-9\n]{0,6}|#[ \t]?)\Z"
        ),
        "phone_shape": r"[ .()-]{3,}|\.\d{1,2}$|\d{5,}\.\d",
    }
)



_TEST_CARDS = frozenset(
    """4242424242424242 4000056655665556 5555555555554444 2223003122003222 5200828282828210 5105105105105100
    378282246310005 371449635398431 6011111111111117 6011000990139424 3056930009020004 36227206271667
    3566002020360505 6200000000000005 4111111111111111 4012888888881881 4222222222222 5454545454545454
    30569309025904 38520000023237 6011000400000000 3530111333300000 4917610000000000 4462030000000000
    4444333322221111 4000000000000002 4000000000000077 4000000000003220 4000002500003155 378734493671000
    5019717010103742 6331101999990016 4000000760000002 4000001240000000 4000008260000000 4000058260000005
    5425233430109903 2222400070000005 4988438843884305 4263982640269299 4917484589897107 4001919257537193
    4007702835532454 5555341244441115 5577000055770004 3714496353984312 4009348888881881 4005519200000004
    4217651111111119 4500600000000061 5431111111111111 6011000991300009 6304000000000000 36259600000004
    6243030000000001 4000111111111115 2222420000001113 2223000048410010 4263970000005262 5500000000000004
    340000000000009 30000000000004 6011000000000004 3088000000000009 4035501000000008 4360000001000005
    2222405343248877 2222990905257051 5101180000000007 6011601160116611 3569990010095841 4646464646464644""".split()
)


def _luhn(digits: str) -> bool:
    total = 0
    for i, ch in enumerate(reversed(digits)):
        d = ord(ch) - 48
        if i % 2:
            d = d * 2 - 9 if d > 4 else d * 2
        total += d
    return total % 10 == 0


def _card_brand_ok(d: str) -> bool:
    n = len(d)
    if d[0] == "4":
        return n in (13, 16, 19)
    two = int(d[:2])
    if 51 <= two <= 55 or 2221 <= int(d[:4]) <= 2720:
        return n == 16
    if two in (34, 37):
        return n == 15
    if two in (36, 38, 39) or 300 <= int(d[:3]) <= 305:
        return 14 <= n <= 19
    if d.startswith(("6011", "65", "62")) or 644 <= int(d[:3]) <= 649 or 3528 <= int(d[:4]) <= 3589:
        return 16 <= n <= 19
    return False




def _numeric_context(v: View, s: int) -> bool:
    """True when the number follows a word such as 'order' or 'invoice' (not PII)."""
    if _rx.num_context.search(v.low, max(0, s - 30), s) is None:
        return False
    return b"ssn" not in v.low[max(0, s - 12) : s]  # "SSN #536-90-4421" is still an SSN


def find_numbers(v: View, out: list[Cand]) -> None:
    rx = _rx
    ab, shape = v.ab, v.shape
    if b"00" not in shape:
        return
    for m in rx.numbers.finditer(shape):
        s, e = m.span()
        if m.lastgroup == "sep":
            if e - s == 12:
                _nanp_candidate(v, out, s, e)
            elif ab[s + 3] == ab[s + 6] and ab[s + 3] != 0x2E and bounded(ab, s, e, b"-.+/_", b"-/_"):
                if _ssn_ok(v.s(s, e)) and not _numeric_context(v, s):
                    add(out, s, e, "ssn")
            continue
        if m.lastgroup == "card" and bounded(ab, s, e, b"-.+/_", b"-/_"):
            _card_candidate(v, out, s, e)
        if e - s == shape.count(b"0", s, e):  # a bare run of digits
            _digit_run(v, out, s, e)
    if b"(" in ab:
        for m in rx.nanp_paren.finditer(shape):
            _nanp_candidate(v, out, *m.span())
    if b"+" in ab:
        for m in rx.intl.finditer(ab):
            _intl_candidate(v, out, *m.span())
    for m in rx.trunk.finditer(ab):
        s, e = m.span()
        if ab[s - 1 : s] in (b":", b" ", b"-", b".") and ab[s - 2 : s - 1].isdigit():
            continue  # 08:03 20260416 in `ls -l` output; the tail of a longer number
        if bounded(ab, s, e, b"-./,+_", b"-/_:"):
            raw = ab[s:e]
            digits = shape.count(b"0", s, e)
            if 10 <= digits <= 12 and (b"." not in raw or not (b" " in raw or b"-" in raw)):
                _phone_candidate(v, out, s, e)


def _digit_run(v: View, out: list[Cand], s: int, e: int) -> None:
    """A bare run of 9 to 13 digits, a phone number or an SSN only when the words
    before it say so ("phone: 4155550123", "SSN 536904421")."""
    ab, low, rx = v.ab, v.low, _rx
    if e < len(ab) and ab[e] in ALNUM or not 9 <= e - s <= 13:
        return
    if e - s == 9 and rx.ssn_ctx.search(low, max(0, s - 40), s):
        digits = v.s(s, e)
        if _ssn_ok(f"{digits[:3]}-{digits[3:5]}-{digits[5:]}"):
            add(out, s, e, "ssn")
    elif e - s >= 10 and rx.phone_ctx.search(low, max(0, s - 40), s):
        _phone_candidate(v, out, s - (ab[s - 1 : s] == b"+"), e, keyword=True)


def _ssn_ok(ssn: str) -> bool:
    area, group, serial = ssn[:3], ssn[4:6], ssn[7:]
    if area in ("000", "666") or area[0] == "9" or group == "00" or serial == "0000":
        return False
    digits = area + group + serial
    if digits in ("123456789", "078051120", "219099999", "111223333") or len(set(digits)) <= 2:
        return False
    return True


def _card_candidate(v: View, out: list[Cand], s: int, e: int) -> None:
    raw = v.s(s, e)
    if len({ch for ch in raw if not ch.isdigit()}) > 1:
        return  # mixed separators: not how a card number is written
    d = raw.replace(" ", "").replace("-", "")
    if not 13 <= len(d) <= 19 or not _luhn(d) or not _card_brand_ok(d):
        return
    if d in _TEST_CARDS or len(set(d)) <= 3 or _numeric_context(v, s):
        return
    add(out, s, e, "credit_card")


def _nanp_candidate(v: View, out: list[Cand], s: int, e: int) -> None:
    ab = v.ab
    if e < len(ab) and (ab[e] in ALNUM or ab[e] in b"-/_" or number_continues(ab, e)):
        return
    raw = v.s(s, e)
    if not raw.startswith("("):
        seps = raw[3] + raw[7]
        if "." in seps and seps != "..":
            return  # 415.555-2671 is not a way to write a number
    if ab[s - 2 : s] in (b"1-", b"1.", b"1 ") and (s == 2 or ab[s - 3] not in ALNUM):
        s -= 2  # 1-415-555-2671
        if ab[s - 1 : s] == b"+":
            s -= 1
    if s > 0 and (ab[s - 1] in ALNUM or ab[s - 1] in b"-./_"):
        return
    digits = "".join(ch for ch in raw if ch.isdigit())
    if digits[0] in "01" or digits[3] in "01":
        return  # not a valid area code or exchange
    _phone_candidate(v, out, s, e)


def _phone_candidate(v: View, out: list[Cand], s: int, e: int, keyword: bool = False) -> None:
    digits = "".join(ch for ch in v.s(s, e) if ch.isdigit())
    if _fictional_555(digits) or len(set(digits)) <= 2:
        return
    if not keyword and _numeric_context(v, s):
        return
    add(out, s, e, "phone")


def _fictional_555(digits: str) -> bool:
    """555-0100 to 555-0199 are reserved for fiction and documentation."""
    return digits[-7:].startswith("55501")


def _intl_candidate(v: View, out: list[Cand], s: int, e: int) -> None:
    ab = v.ab
    if s > 0 and (ab[s - 1] in ALNUM or ab[s - 1] in b"+_"):
        return  # 2+3, UTC+05:30
    raw = v.s(s, e)
    if e < len(ab) and (ab[e] in ALNUM or ab[e] in b"-:"):
        return
    if _rx.phone_shape.search(raw):
        return
    groups = re.findall(r"\d+", raw)
    digits = "".join(groups)
    if not 10 <= len(digits) <= 15:
        return
    if len(groups) > 2 and all(len(g) == 3 for g in groups[1:]) and groups[-1] == "000":
        return  # +10 000 000: a count, not a number to call
    _phone_candidate(v, out, s, e, keyword=True)

