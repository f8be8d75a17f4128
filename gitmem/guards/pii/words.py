"""Credentials and phone numbers introduced by words of other languages.

The keyword detectors read an ASCII view of the text, where 密码, пароль or
パスワード are question marks. Here the words themselves are looked for, in
the text as written: a credential word (``密码``, ``пароль``, ``Passwort``,
``mot de passe``, ``contraseña``…), a separator or a verb (``：``, ``是``,
``ist``, ``est``…), then the value; a phone word (``手机号``, ``电话``,
``телефон``…) then a number. Text in ASCII pays one substring test per
Latin word; the other words are looked for only in text that is not ASCII.
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Iterator

from gitmem.guards.pii.kinds import Cand, add
from gitmem.guards.pii.plausibility import classes, is_placeholder, plausible
from gitmem.guards.pii.view import Patterns, View

_LATIN = ("passwort", "kennwort", "mot de passe", "contrase", "senha", "wachtwoord", "haslo", "hasło", "parola",
          "lösenord", "losenord", "salasana", "adgangskode", "sifre", "şifre", "jelszó", "heslo")
_rx = Patterns(
    {
        "secret_word": (
            r"(?i)(?P<word>密码|密碼|口令|パスワード|暗証番号|비밀번호|пароль|passwort|kennwort|mot de passe|"
            r"contraseñas?|contrasena|senha|wachtwoord|has[lł]o|parola|l[oö]senord|salasana|adgangskode|[sş]ifre|"
            r"jelsz[oó]|heslo)"
            r"(?:[ \t]*(?:\([^)\n]{1,30}\)|（[^）\n]{1,30}）))?"
            r"(?P<sep>[ \t]*(?:[:：=＝]|->|→|是|为|為|は|は、)[ \t]*"
            r"|[ \t]+(?:ist|est|es|é|è|is|jest|je|er|är|on)[ \t]+(?:(?:jetzt|maintenant|ahora|agora|nu|teraz)[ \t]+)?"
            # after a word of a script written without spaces, a blank or nothing at all separates
            r"|[ \t]*)"
        ),
        "value": r"[`\"'“「]?([^\s`\"'“”「」，。、；：！？（）,;]{4,200})",
        "phone_word": r"(?:手机号码?|手機號碼?|手机|手機|电话号码?|電話番号|電話|电话|联系电话|联系方式|携帯|телефон|тел\.)",
        "phone_tail": r"[ \t]*(?:[:：=是为為は]|号码|号|為)?[ \t]*(\+?86[ \t-]?)?(1[3-9][0-9](?:[ \t-]?[0-9]{4}){2})(?![0-9])",
    }
)


# every spelling the credential words of ``secret_word`` start with, lower case: a text holding none of
# them is not searched (the pattern's alternation costs a try of each word at every character)
_STARTS = ("密码", "密碼", "口令", "パスワード", "暗証番号", "비밀번호", "пароль", "passwort", "kennwort", "mot de passe",
           "contrase", "senha", "wachtwoord", "haslo", "hasło", "parola", "losenord", "lösenord", "salasana",
           "adgangskode", "sifre", "şifre", "jelsz", "heslo")
_PHONE_STARTS = ("手机", "手機", "电话", "電話", "联系", "携帯", "телефон", "тел.")
_LATIN_ASCII = tuple(w.encode() for w in _LATIN if w.isascii())   # encoded once: every scan of ASCII text asks


def find_word_secrets(v: View, out: list[Cand]) -> None:
    """A password after a credential word in another language; a phone number after a phone word."""
    text = v.text
    if text.isascii():
        low = v.low
        if not any(w in low for w in _LATIN_ASCII):
            return
        _word_secrets(text, _rx.secret_word.finditer(text), out)
        return
    lowered = text.lower()
    if len(lowered) != len(text):   # a letter that lowers to two: offsets would not line up
        _word_secrets(text, _rx.secret_word.finditer(text), out)
    else:
        _word_secrets(text, _matches_at(text, lowered, v.low, _rx.secret_word), out)
    if any(w in text for w in _PHONE_STARTS):   # no letter of theirs has a case
        for m in _rx.phone_word.finditer(text):
            tail = _rx.phone_tail.match(text, m.end())
            if tail is not None:
                add(out, tail.start(2) if tail.group(1) is None else tail.start(1), tail.end(2), "phone")


def _matches_at(text: str, lowered: str, low: bytes, rx: re.Pattern[str]) -> Iterator[re.Match[str]]:
    """What ``rx.finditer(text)`` finds, tried only where one of ``_STARTS`` occurs: the ASCII ones in
    ``low`` (the view's lower-case bytes), the others in ``lowered`` (``text`` lowered, of the same
    length); left to right and never inside an earlier match."""
    found: set[int] = set()
    for word in _STARTS:
        ascii_word = word.isascii()
        where: str | bytes = low if ascii_word else lowered
        needle: str | bytes = word.encode() if ascii_word else word
        i = where.find(needle)   # type: ignore[arg-type]
        while i >= 0:
            found.add(i)
            i = where.find(needle, i + 1)   # type: ignore[arg-type]
    done = 0
    for i in sorted(found):
        if i < done:
            continue
        m = rx.match(text, i)
        if m is not None:
            done = m.end()
            yield m


def _word_secrets(text: str, matches: Iterable[re.Match[str]], out: list[Cand]) -> None:
    for m in matches:
        if not m["sep"].strip() and m["word"].isascii():
            continue  # "Passwort Manager": a word of a Latin script needs a separator or a verb
        got = _rx.value.match(text, m.end())
        if got is None:
            continue
        s, e = got.span(1)
        value = text[s:e].rstrip(".")
        if _value_ok(value):
            add(out, s, s + len(value), "generic_api_key")


def _value_ok(value: str) -> bool:
    """After such a word even a PIN is told: four digits or more, or a value of two classes."""
    if not value.isascii() or is_placeholder(value):
        return False
    if value.isdigit():
        return len(value) >= 4
    return classes(value) >= 2 and plausible(value, "prose", True)
