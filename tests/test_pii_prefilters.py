"""The scanner's literal pre-filters find what the plain patterns they stand for find.

Three detectors were rewritten for speed: spelled-out emails (``alice [at] corp [dot] de``) are found
from their ``[at]`` instead of a pattern that tried 64 characters at every letter, and credential
words of other languages and the project folders Claude Code names after a home path are searched
only where one of their literals occurs. Each is checked here against
the pattern it replaced, on generated texts built from the pieces those patterns care about.
"""

from __future__ import annotations

import re

from hypothesis import given, strategies as st

from gitmem.guards.pii import commands, personal, words
from gitmem.guards.pii.kinds import Cand, add
from gitmem.guards.pii.view import View, near

# the pattern _spelled_emails replaced, searched from the left
SPELLED = re.compile(
    rb"([a-z0-9._%+-]{1,64})[ \t]*[\[({<][ \t]*at[ \t]*[\])}>][ \t]*"
    rb"((?:[a-z0-9-]{1,63}(?:[ \t]*[\[({<][ \t]*dot[ \t]*[\])}>][ \t]*|\.))+[a-z]{2,24})(?![a-z0-9-])"
)


def spelled_by_pattern(text: str) -> list[Cand]:
    out: list[Cand] = []
    v = View(text)
    for m in SPELLED.finditer(v.low):
        local = m.group(1).decode().strip(".")
        domain = personal._rx.spelled_dot.sub(b".", m.group(2)).decode()
        if local and not personal._email_is_placeholder(local, domain):
            add(out, m.start(1), m.end(2), "email")
    return out


def spelled_now(text: str) -> list[Cand]:
    out: list[Cand] = []
    personal._spelled_emails(View(text), out)
    return out


PIECES = st.sampled_from(["alice", "bob.smith", "x", "a" * 70, " ", "\t", "[at]", "(at)", "{ at }", "<at>", "[dot]",
                          "(dot)", ".", "corp", "de", "uni", "edu", "example", "com", "-", "_", "%", "+", "\n", "é",
                          "AT", "Dot", "[", "]", "at", "dot", "1", "zz"])


@given(st.lists(PIECES, max_size=30))
def test_spelled_emails_are_found_as_the_pattern_found_them(pieces: list[str]) -> None:
    text = "".join(pieces)
    assert spelled_now(text) == spelled_by_pattern(text)


def test_spelled_emails_examples() -> None:
    for text in ("write to alice [at] corp [dot] de today", "bob(at)corp(dot)de", "carol{at}uni.edu",
                 "a" * 80 + " [at] corp.de", "x [at] y.de z [at] w.de", "b.com.x [at] c.com"):
        assert spelled_now(text) == spelled_by_pattern(text) != [], text


def word_secrets(text: str, finditer: bool) -> list[Cand]:
    out: list[Cand] = []
    if finditer:
        words._word_secrets(text, words._rx.secret_word.finditer(text), out)
        if not text.isascii():
            for m in words._rx.phone_word.finditer(text):
                tail = words._rx.phone_tail.match(text, m.end())
                if tail is not None:
                    add(out, tail.start(2) if tail.group(1) is None else tail.start(1), tail.end(2), "phone")
    else:
        words.find_word_secrets(View(text), out)
    return out


WORD_PIECES = st.sampled_from(["密码", "密碼", "パスワード", "Пароль", "пароль", "Passwort", "PASSWORT", "mot de passe",
                               "contraseña", "Contraseñas", "hasło", "şifre", "jelszó", "senha", "：", ":", "=", " ist ",
                               " est ", "是", " ", "Xk7pQ2mZ9v", "hunter22", "1234", "(ASCII)", "手机号", "手机",
                               "13812345678", "+86 ", "телефон", "тел.", "\n", "word", "İ"])


@given(st.lists(WORD_PIECES, max_size=25))
def test_credential_words_are_found_as_the_pattern_found_them(pieces: list[str]) -> None:
    text = "".join(pieces)
    assert word_secrets(text, finditer=False) == word_secrets(text, finditer=True)


def encoded_by_pattern(text: str) -> list[Cand]:
    out: list[Cand] = []
    for m in personal._rx.encoded.finditer(text):
        if m.group(1).lower() not in personal.HOME_PLACEHOLDERS:
            add(out, m.start(), m.end(), "home_path")
    return out


def encoded_now(text: str) -> list[Cand]:
    out: list[Cand] = []
    personal._encoded_homes(View(text), out)
    return out


HOME_PIECES = st.sampled_from(["-Users-", "-home-", "C-", "c", "-mnt-c", "-mnt-", "alice", "runner", "x" * 40, "-",
                               "proj", "/", " ", "Users", "home", "D", "é", "1"])


@given(st.lists(HOME_PIECES, max_size=25))
def test_encoded_project_folders_are_found_as_the_pattern_found_them(pieces: list[str]) -> None:
    text = "".join(pieces)
    assert encoded_now(text) == encoded_by_pattern(text)


AT_PIECES = st.sampled_from(["at", "a", "t", " ", "\t", "[", "(", "{", "<", "]", ")", "}", ">", "x", "data", "dot", "\n"])


@given(st.lists(AT_PIECES, max_size=40))
def test_spelled_at_is_found_from_its_literal_as_the_pattern_found_it(pieces: list[str]) -> None:
    low = "".join(pieces).encode()
    assert [m.span() for m in personal.spelled_ats(low)] == [m.span() for m in personal._rx.spelled_at.finditer(low)]


HERE_PIECES = st.sampled_from(["login", "auth", "<<<", "<<", "<", " ", "\t", "x", "$v", "\n", "|", ";", "gh auth",
                               "tok3n", " " + "a" * 60, "-"])


@given(st.lists(HERE_PIECES, max_size=30))
def test_here_strings_are_found_near_their_literal_as_the_pattern_found_them(pieces: list[str]) -> None:
    low = "".join(pieces).encode()
    rx = commands._rx.here_string
    assert [m.span() for m in near(rx, low, b"<<<", commands._HERE_REACH)] == [m.span() for m in rx.finditer(low)]


def test_here_strings_far_from_their_login_are_found() -> None:
    low = ("gh auth login --with-token" + " x" * 85 + " <<< tok3n; auth <<< x").encode()
    rx = commands._rx.here_string
    assert [m.span() for m in near(rx, low, b"<<<", commands._HERE_REACH)] == [m.span() for m in rx.finditer(low)]
    assert len(list(rx.finditer(low))) == 2


def test_isql_and_osql_are_both_looked_for() -> None:
    for text in ("isql -S db -U sa -P Hunter2xyz9", "osql -S db -U sa -P Hunter2xyz9"):
        out: list[Cand] = []
        commands.find_commands(View(text), out)
        assert [c[3] for c in out] == ["generic_api_key"], text


def test_spelled_at_examples() -> None:
    for text in ("alice  [at] corp", "bob\t( at )x", "x[at]y [at] z", "data] [ at  }", "<at> <at>", "a [[at]]"):
        low = text.encode()
        want = [m.span() for m in personal._rx.spelled_at.finditer(low)]
        assert [m.span() for m in personal.spelled_ats(low)] == want != [], text


SHAPE_PIECES = st.sampled_from(["hasło", "HASŁO", "Hasło", "lösenord", "LÖSENORD", "şifre", "ŞIFRE", "sifre", "İ", "?",
                                "??", "has?o", "пароль", "ПАРОЛЬ", "密码", "тел.", "телефон", "13812345678", ":", " ",
                                " jest ", "Xk7pQ2mZ9v", "hunter22", "é", "word", "\n", "1234"])


@given(st.lists(SHAPE_PIECES, max_size=20))
def test_words_beyond_ascii_are_looked_for_only_where_their_shape_is(pieces: list[str]) -> None:
    text = "".join(pieces)
    assert word_secrets(text, finditer=False) == word_secrets(text, finditer=True)


def test_words_beyond_ascii_examples() -> None:
    for text in ("hasło: Xk7pQ2mZ9v", "HASŁO: Xk7pQ2mZ9v", "şifre: Xk7pQ2mZ9v", "手机 13812345678", "é sifre: Xk7pQ2mZ9v",
                 "SİFRE: Xk7pQ2mZ9v"):
        assert word_secrets(text, finditer=False) == word_secrets(text, finditer=True) != [], text
