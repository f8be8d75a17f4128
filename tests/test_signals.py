"""Tests for gitmem.engines.harvest.signals: what to remember, in three languages, from the user's own words."""

from __future__ import annotations

from pathlib import Path

import pytest

from gitmem.engines.harvest.episodes import extract
from gitmem.engines.harvest.reader import read
from gitmem.engines.harvest.signals import MAX_SIGNALS, Signal, classify, clip, find_signals, is_own_words, one_line
from gitmem.engines.harvest.sources import Event, discover
from tests.conftest import bench_dir

FIXTURES = Path(__file__).parent / "fixtures" / "sessions"


def bench_sessions() -> Path:
    """The shared folder of real transcripts (never copied into the repository)."""
    path = bench_dir("sessions")
    if path is None:
        pytest.skip("bench transcripts are not beside the project (set GITMEM_BENCH_DIR)")
    return path


def signals_of(name: str) -> list[tuple[str, str]]:
    return [(s.kind, s.text) for s in find_signals(read(FIXTURES / "jsonl" / name).events)]


def user(line: int, text: str, *, meta: bool = False, sidechain: bool = False) -> Event:
    return Event(line, "user", text, None, meta=meta, sidechain=sidechain)


def test_bench_signals_come_only_from_real_user_lines() -> None:
    files = discover([bench_sessions()])
    assert files, "the bench folder holds no transcript"
    for path in files:
        t = read(path)
        real_lines = {e.line for e in t.events if e.role == "user" and not e.meta and not e.sidechain}
        assert {s.line for s in extract(t).signals} <= real_lines, path.name


def test_signals_in_english() -> None:
    assert signals_of("signals_en.jsonl") == [
        ("remember", "The staging database listens on port 5433."),
        ("correction", "No, use pnpm instead of npm."),
        ("correction", "That's wrong, the lockfile is pnpm-lock.yaml."),
        ("decision", "We'll use PostgreSQL 16 for the analytics service."),
        ("preference", "I prefer short commit messages in the imperative mood."),
        ("preference", "Always run the linter before committing."),
        ("fact", "My name is Dana and I work on the billing team."),
        ("error", "The export button still doesn't work after the update."),
    ]


def test_signals_in_french() -> None:
    assert signals_of("signals_fr.jsonl") == [
        ("remember", "La production tourne sous Debian 12."),
        ("correction", "Non, plutôt utiliser Poetry pour les dépendances."),
        ("decision", "On part sur FastAPI pour la nouvelle API."),
        ("preference", "Je préfère les réponses courtes et précises."),
        ("preference", "Désormais, écris les messages de commit en anglais."),
        ("fact", "Je m'appelle Camille et je travaille chez un petit éditeur."),
        ("error", "Le script de déploiement ne marche pas depuis hier."),
    ]


def test_signals_in_chinese() -> None:
    assert signals_of("signals_zh.jsonl") == [
        ("remember", "测试服务器的端口是8080。"),
        ("correction", "不对，应该用 yarn 而不是 npm。"),
        ("decision", "我们决定采用 Vue 3 来重写前端。"),
        ("preference", "我喜欢简洁的代码风格，以后都用中文回答。"),
        ("fact", "我叫小王，是这个项目的负责人。"),
        ("error", "登录页面一直报错，打不开。"),
        ("correction", "不要修改数据库的表结构。"),
    ]


@pytest.mark.parametrize(("sentence", "kind"), [
    ("Don't add comments to generated files.", "correction"),
    ("let's stick with SQLite for now", "decision"),
    ("n'oublie pas de lancer les tests", "remember"),
    ("c'est faux, le port est 8443", "correction"),
    ("决定用 Rust 重写这个模块", "decision"),
    ("别忘了更新 changelog", "remember"),
    ("I'd rather keep the old API", "preference"),
    ("our team deploys on Fridays", "fact"),
    ("Thanks, that looks great", None),
])
def test_classify(sentence: str, kind: str | None) -> None:
    assert classify(sentence) == kind


def test_signals_skip_questions_short_replies_code_and_injected_text() -> None:
    events = [
        user(1, "Could you always use tabs?"),
        user(2, "ok"),
        user(3, "```\nnever do this\n```"),
        user(4, "Remember that the cache is cold on Mondays.", meta=True),
        user(5, "Don't touch the vendor folder.", sidechain=True),
        Event(6, "assistant", "I always prefer to double-check.", None),
        Event(7, "tool_result", "Remember that this is tool output.", None, tool="Bash"),
        user(8, "key\tvalue\tremember this row"),
    ]
    assert find_signals(events) == ()


def test_signals_are_deduplicated_and_keep_first_line() -> None:
    events = [user(3, "Always use UTC timestamps."), user(9, "always use UTC timestamps.")]
    assert find_signals(events) == (Signal("Always use UTC timestamps.", "preference", 3),)



# --------------------------------------------------------------------------- text helpers

def test_one_line_and_clip() -> None:
    assert one_line("  a\n\tb   c ") == "a b c"
    assert clip("short") == "short"
    assert clip("x" * 250) == "x" * 199 + "…" and len(clip("x" * 250)) == 200
    assert clip("word " * 10, 12) == "word word w…"
    assert clip("a" * 10 + "   " + "b" * 10, 12) == "aaaaaaaaaa…"   # no trailing space before the ellipsis


def test_is_own_words() -> None:
    assert is_own_words(user(1, "hi"))
    assert not is_own_words(user(1, "hi", meta=True))
    assert not is_own_words(user(1, "hi", sidechain=True))
    assert not is_own_words(Event(1, "assistant", "hi", None))


# --------------------------------------------------------------------------- what is, and is not, a signal

@pytest.mark.parametrize(("text", "expected"), [
    ("Remember that the VPN drops at midnight.", "The VPN drops at midnight."),
    ("please remember: invoices are due on the 5th", "Invoices are due on the 5th"),
    ("n'oublie pas que le serveur redémarre le lundi", "Le serveur redémarre le lundi"),
    ("记住：周五不要发布新版本", "周五不要发布新版本"),
    ("Remember this.", "Remember this."),   # nothing left worth keeping after the lead: kept whole
])
def test_remember_lead_is_cut(text: str, expected: str) -> None:
    [signal] = find_signals([user(1, text)])
    assert (signal.kind, signal.text) == ("remember", expected)


def test_each_sentence_of_a_prompt_is_looked_at_and_lists_lose_their_markers() -> None:
    found = find_signals([user(4, "Thanks for the fix. Always use UTC in logs!\n- We decided to keep Flask.\n"
                                   "2) My name is Ana and I maintain the API.")])
    assert [(s.kind, s.text, s.line) for s in found] == [
        ("preference", "Always use UTC in logs!", 4), ("decision", "We decided to keep Flask.", 4),
        ("fact", "My name is Ana and I maintain the API.", 4)]


def test_fenced_code_long_sentences_and_code_like_text_are_not_signals() -> None:
    assert find_signals([user(1, "```python\nalways = True  # never\n```")]) == ()
    assert find_signals([user(1, "Always " + "really " * 80 + "check.")]) == ()
    assert find_signals([user(1, "always {x} = [y]; $z | `w` <v> #u @t")]) == ()


def test_short_cjk_sentences_count_when_latin_ones_would_not() -> None:
    assert [s.kind for s in find_signals([user(1, "以后用中文")])] == ["preference"]
    assert find_signals([user(1, "never!")]) == ()


def test_signals_are_capped_per_session() -> None:
    events = [user(n, f"Always run check number {n} before merging.") for n in range(1, MAX_SIGNALS + 50)]
    found = find_signals(events)
    assert len(found) == MAX_SIGNALS and found[-1].line == MAX_SIGNALS


def test_only_the_head_of_a_huge_prompt_is_read() -> None:
    text = "filler words here. " * 500 + "Always deploy on Tuesdays."
    assert find_signals([user(1, text)]) == ()


def test_the_first_matching_kind_wins() -> None:
    assert classify("Remember: we decided to use Go.") == "remember"
    assert classify("No, we decided to use Go.") == "correction"
    assert classify("We decided to always use Go.") == "decision"
