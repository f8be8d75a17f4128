"""Tests for gitmem.engines.harvest.signals: what to remember, in three languages, from the user's own words."""

from __future__ import annotations

from pathlib import Path

import pytest

from gitmem.engines.harvest.episodes import extract
from gitmem.engines.harvest.reader import read
from gitmem.engines.harvest.signals import MAX_SIGNALS, Signal, classify, clip, find_signals, is_own_words, one_line
from gitmem.engines.harvest.sources import Event, discover
from tests.conftest import bench_transcripts

FIXTURES = Path(__file__).parent / "fixtures" / "sessions"


def signals_of(name: str) -> list[tuple[str, str]]:
    return [(s.kind, s.text) for s in find_signals(read(FIXTURES / "jsonl" / name).events)]


def user(line: int, text: str, *, meta: bool = False, sidechain: bool = False) -> Event:
    return Event(line, "user", text, None, meta=meta, sidechain=sidechain)


def test_bench_signals_come_only_from_own_words_never_tool_output() -> None:
    # The whole exchange is read (the user's words and the assistant's replies), never a tool's output,
    # text the tool injected, or a sub-agent's traffic.
    files = bench_transcripts()
    for path in files:
        t = read(path)
        own_lines = {e.line for e in t.events if e.role in ("user", "assistant") and not e.meta and not e.sidechain}
        assert {s.line for s in extract(t).signals} <= own_lines, path.name


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
    ("图片搜索还是我自己操作，你操作太慢", "decision"),
    ("Your name will be archeo, write it in your notes", "fact"),
    ("Je t'appellerai Nova", "fact"),
    ("那就叫你小助吧", "fact"),
    ("报价单的格式交给我自己处理", "decision"),
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


def durable_of(events: list[Event]) -> list[tuple[str, str, bool]]:
    return [(s.kind, s.text, s.durable) for s in find_signals(events)]


@pytest.mark.parametrize("text", [
    "Don't use tts for now.", "Output the standard template first.", "Rename this function to parse_row.",
    "Pour l'instant, n'utilise pas Docker.", "先不用输出客户的报价，先输出模板。", "这次不要跑全部测试。",
])
def test_transient_instructions_are_signals_of_the_episode_but_not_durable(text: str) -> None:
    sigs = find_signals([user(4, text)])
    assert all(not s.durable and s.floor == 0.0 for s in sigs)


@pytest.mark.parametrize("text", [
    "Always show me the path you used.", "Use pnpm, not npm.", "Reply in Chinese.", "Désormais, réponds en français.",
    "以后都用中文回答。", "Please remmeber that the docs live in the wiki.", "use uv rather than pip",
])
def test_durable_instructions_are_durable(text: str) -> None:
    [sig] = find_signals([user(4, text)])
    assert sig.durable and sig.floor >= 0.75


def test_an_instruction_repeated_in_separate_turns_is_durable_even_unclassified() -> None:
    events = [user(2, "follow agents.md first"), Event(3, "assistant", "ok", None), user(6, "Follow agents.md first.")]
    assert durable_of(events) == [("correction", "follow agents.md first", True)]
    assert find_signals(events)[0].floor == 0.85
    assert find_signals([user(2, "follow agents.md first")]) == ()
    hedged = [user(2, "skip the lint step for now"), user(5, "skip the lint step for now")]
    assert all(not s.durable for s in find_signals(hedged))


@pytest.mark.parametrize(("proposal", "accept"), [
    ("## My Recommendation\nKeep one WordPress agent, no sub-agents per theme or plugin.\n\nWhy: ...", "i agree"),
    ("Options:\n- A\n- B\nI suggest option B: a nightly cron job instead of a daemon.", "Sounds good!"),
    ("方案如下。\n我建议用 SQLite 保存报价记录，不用 Excel。", "没问题"),
    ("Je recommande de garder Poetry pour les dépendances.", "d'accord"),
])
def test_a_proposal_the_user_accepts_is_a_durable_decision(proposal: str, accept: str) -> None:
    events = [user(1, "what do you think about the layout of the agents"), Event(2, "assistant", proposal, None),
              user(3, accept)]
    [sig] = [s for s in find_signals(events) if s.kind == "decision"]
    assert sig.durable and sig.line == 3 and len(sig.text) >= 12 and "#" not in sig.text


@pytest.mark.parametrize("reply", ["no, keep both", "why?", "ok let me think about it tomorrow"])
def test_a_proposal_not_accepted_is_no_decision(reply: str) -> None:
    events = [Event(2, "assistant", "I recommend dropping the cache layer entirely.", None), user(3, reply)]
    assert [s for s in find_signals(events) if s.kind == "decision"] == []


def test_an_acceptance_without_a_proposal_is_no_decision() -> None:
    events = [Event(2, "assistant", "Done, the file is saved.", None), user(3, "great")]
    assert find_signals(events) == ()


@pytest.mark.parametrize(("report", "answer"), [
    ("the user is not created when I submit the form", "Looking at it.\n## Root Cause\nCreate() returns an IdentityResult that the code ignores."),
    ("I get an error when the export runs on Mondays", "The problem is the cron job uses local time, not UTC."),
    ("页面一直报错，打不开了，帮我看看", "根本原因：配置文件里的端口写成了 8O80。"),
    ("j'ai une erreur au démarrage du serveur", "La cause : le fichier .env manque la variable PORT."),
])
def test_a_reported_problem_with_the_cause_found_is_a_durable_error(report: str, answer: str) -> None:
    events = [user(1, report), Event(2, "assistant", "Let me check the code.", None), Event(3, "assistant", answer, None),
              user(4, "thanks, works now")]
    [sig] = [s for s in find_signals(events) if s.kind == "error" and s.durable]
    assert sig.line == 1 and " — " in sig.text


def test_a_reported_problem_without_a_cause_is_not_a_durable_error() -> None:
    events = [user(1, "the deploy still doesn't work after the update"), Event(2, "assistant", "Fixed it.", None)]
    assert all(not s.durable for s in find_signals(events))


def test_a_one_off_correction_repeated_in_an_earlier_session_becomes_durable() -> None:
    from gitmem.engines.harvest.signals import repeated_across

    sigs = find_signals([user(1, "Undo that, please."), user(3, "Don't use tts for now."), user(5, "No, that's wrong.")])
    assert [s.durable for s in sigs] == [False, False, False]
    again = repeated_across(sigs, ["undo that please", "Don't use tts for now.", "the build is red"])
    assert [(s.text, s.durable, s.floor) for s in again] == [
        ("Undo that, please.", True, 0.85), ("Don't use tts for now.", False, 0.0), ("No, that's wrong.", False, 0.0)]
    assert repeated_across(sigs, []) == sigs
