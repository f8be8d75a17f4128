"""The harvest scorer: hashed features, the shipped weights, pure-Python scores, and what harvest keeps with them."""

from __future__ import annotations

import json
import os
import subprocess
import sys
import zlib
from datetime import datetime, timezone
from pathlib import Path
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from gitmem.api import MemoryRepo
from gitmem.engines.harvest import cues, featurize, scorer
from gitmem.engines.harvest.candidates import Candidate
from gitmem.engines.harvest.reader import read

T = datetime(2026, 10, 5, 12, 0, tzinfo=timezone.utc)
WEIGHTS = Path(scorer.__file__).with_name(scorer.FILE)


def cand(text: str, speaker: str = "user", **kw: Any) -> Candidate:
    fields: dict[str, Any] = {"line": 1, "part": 0, "turn": 1, "position": 0.2, **kw}
    return Candidate(speaker=speaker, text=text, **fields)  # type: ignore[arg-type]


# --------------------------------------------------------------------------- features

def test_features_hash_with_crc32_not_the_salted_hash() -> None:
    vec = featurize.features(cand("Use pnpm here."))
    assert zlib.crc32(b"sp=user") & (featurize.BUCKETS - 1) in vec
    assert all(0 <= b < featurize.BUCKETS for b in vec)
    code = ("from gitmem.engines.harvest import featurize as f\nfrom gitmem.engines.harvest.candidates import Candidate\n"
            "print(sorted(f.features(Candidate(1, 0, 'user', 'Always reply in French.', 1, 0.2)).items()))")
    outs = {subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True,
                           env={**os.environ, "PYTHONHASHSEED": seed}).stdout for seed in ("1", "2")}
    assert len(outs) == 1   # the same vector whatever the interpreter's hash seed


def test_structure_reads_speaker_context_and_the_rules() -> None:
    plain = featurize.features(cand("The cache lives in the build folder.", "assistant"))
    fixed = featurize.features(cand("The cache lives in the build folder.", "assistant", after_error=True,
                                    then_passed=True, next_user="great, thanks", tool_before="Bash"))
    extra = set(fixed) - set(plain)
    for name in ("after_error", "then_passed", "sp=assistant&error_then_passed", "next=agree", "tool=bash"):
        assert zlib.crc32(name.encode()) & (featurize.BUCKETS - 1) in extra, name
    ruled = featurize.features(cand("From now on always use UTC."))
    assert zlib.crc32(b"rule=preference") & (featurize.BUCKETS - 1) in ruled


def _has(vec: dict[int, float], name: str) -> bool:
    return zlib.crc32(name.encode()) & (featurize.BUCKETS - 1) in vec


@pytest.mark.parametrize(("text", "cue"), [
    ("Merk dir: wir deployen nur vom main-Branch.", "remember"),
    ("Guárdalo en memoria para futuras sesiones.", "remember"),
    ("Запомни: сервер слушает порт 8080.", "remember"),
    ("A partir de ahora responde siempre en español.", "durable"),
    ("Ab jetzt bitte immer auf Deutsch antworten.", "durable"),
    ("以后每次提交前都必须先跑测试。", "durable"),
    ("Ich möchte, dass du vor jedem Push fragst.", "prefer"),
    ("我希望你回答得简短一点。", "prefer"),
    ("Usemos pnpm en este repositorio.", "decide"),
    ("那就统一用 pnpm 吧。", "decide"),
    ("Die Konfiguration liegt unter /etc/app.", "fact"),
    ("配置文件位于 ~/.config/app 目录。", "fact"),
    ("Regla nueva grabada en MEMORY.md.", "saved"),
    ("已记录到记忆里。", "saved"),
    ("Lass mich das kurz prüfen.", "chatter"),
    ("现在让我查看一下日志。", "chatter"),
    ("Der Build schlug fehl, weil die Lock-Datei veraltet war.", "cause"),
    ("构建失败是因为锁文件过期了。", "cause"),
])
def test_cues_read_what_lasts_in_the_languages_the_rules_do_not(text: str, cue: str) -> None:
    assert cue in cues.cues(text)
    vec = featurize.features(cand(text))
    assert _has(vec, f"cue={cue}") and _has(vec, f"sp=user&cue={cue}")


def test_plain_task_requests_carry_no_lasting_cue() -> None:
    for text in ("Füge bitte einen Button zum Formular hinzu.", "Añade un botón al formulario.", "给表单加一个按钮。"):
        assert not {"remember", "durable", "saved"} & set(cues.cues(text)), text


def test_structure_is_also_read_per_script_family() -> None:
    assert _has(featurize.features(cand("以后每次都用中文回答。")), "cjk&sp=user")
    assert _has(featurize.features(cand("Всегда отвечай по-русски.")), "cyrillic&sp=user")
    assert _has(featurize.features(cand("Always answer in English.", "assistant")), "other&sp=assistant")
    agreed = featurize.features(cand("配置在 /etc/app 下面。", "assistant", next_user="好的"))
    assert _has(agreed, "cjk&next=agree")


def test_the_spec_changes_with_a_cue_pattern() -> None:
    code = ("import re\nfrom gitmem.engines.harvest import cues\n"
            "cues.CUES = (*cues.CUES[:-1], ('cause', re.compile('x')))\nfrom gitmem.engines.harvest import featurize\n"
            "print(featurize.spec_hash())")
    changed = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True).stdout.strip()
    assert changed and changed != featurize.SPEC


def test_the_spec_changes_with_a_rule_pattern() -> None:
    code = ("import re\nfrom gitmem.engines.harvest import signals\n"
            "signals._PROPOSAL = re.compile('x')\nfrom gitmem.engines.harvest import featurize\n"
            "print(featurize.spec_hash())")
    changed = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True).stdout.strip()
    assert changed and changed != featurize.SPEC


@given(st.text(max_size=300))
@settings(max_examples=60, deadline=None)
def test_any_text_has_a_bounded_vector_and_a_probability(text: str) -> None:
    vec = featurize.features(cand(text))
    assert all(0 <= b < featurize.BUCKETS for b in vec)
    assert 0.0 <= scorer.score(cand(text)) <= 1.0


# --------------------------------------------------------------------------- the weights file

def test_shipped_weights_fit_this_code_and_stay_small() -> None:
    data = WEIGHTS.read_bytes()
    assert len(data) <= 1 << 20
    model = scorer.parse(data)
    assert model.header["spec"] == featurize.SPEC and model.header["version"]
    assert 0.0 < model.inbox_at <= model.keep_at <= 1.0
    assert model.keep and all(w != 0.0 for w in model.keep.values())


def test_pure_python_scores_equal_the_trained_models() -> None:
    model = scorer.load()
    checks = model.header["checks"]
    assert len(checks) >= 4
    for check in checks:
        c = cand(**check["candidate"])
        assert scorer.score(c) == pytest.approx(check["score"], abs=1e-3), c.text


def test_weights_of_another_spec_or_broken_files_are_refused() -> None:
    data = WEIGHTS.read_bytes()
    with pytest.raises(scorer.WeightsMismatch, match="feature spec"):
        scorer.parse(data, spec="another")
    with pytest.raises(scorer.WeightsMismatch):
        scorer.parse(data[:-3])
    with pytest.raises(scorer.WeightsMismatch):
        scorer.parse(b"XXXX" + data[4:])
    size = int.from_bytes(data[4:8], "little")
    head = json.loads(data[8:8 + size])
    head["spec"] = "0" * 24
    forged = json.dumps(head).encode()
    with pytest.raises(scorer.WeightsMismatch, match="retrain"):
        scorer.parse(data[:4] + len(forged).to_bytes(4, "little") + forged + data[8 + size:])


@given(st.dictionaries(st.integers(0, featurize.BUCKETS - 1), st.floats(-8, 8, allow_nan=False), max_size=50))
@settings(max_examples=50, deadline=None)
def test_dump_and_parse_keep_every_weight_within_its_quantum(weights: dict[int, float]) -> None:
    header = {"version": "t", "spec": featurize.SPEC, "bias": 0.5, "thresholds": {"keep": 0.7, "inbox": 0.4},
              "kind_bias": {"fact": 0.1}}
    model = scorer.parse(scorer.dump(header, weights, {"fact": weights}))
    top = max((abs(w) for w in weights.values()), default=1.0)
    for i, w in weights.items():
        assert model.keep.get(i, 0.0) == pytest.approx(w, abs=top / 32767 + 1e-12)
    assert all(w != 0.0 for w in model.keep.values()) and set(model.kinds) == {"fact"}


# --------------------------------------------------------------------------- decisions and texts

def test_decisions_follow_the_thresholds() -> None:
    m = scorer.load()
    assert scorer.decide(m.keep_at) == "keep" and scorer.decide(m.inbox_at) == "inbox"
    assert scorer.decide(max(0.0, m.inbox_at - 1e-6)) == "drop"


def test_concise_cuts_at_a_sentence_end_never_mid_word() -> None:
    long = "The API lives under /v2 and every client calls it there. " * 8
    short = scorer.concise(long)
    assert len(short) <= 300 and short.endswith("there.")
    wordy = "word " * 100
    cut = scorer.concise(wordy)
    assert len(cut) <= 300 and cut.endswith("…") and cut[:-1].split()[-1] == "word"
    assert scorer.concise("  Use   pnpm here.  ") == "Use pnpm here."


# --------------------------------------------------------------------------- harvest with the shipped weights

def _record(n: int, kind: str, content: Any, session: str) -> str:
    return json.dumps({"type": kind, "sessionId": session, "uuid": f"u-{n}", "parentUuid": f"u-{n - 1}" if n else None,
                       "isSidechain": False, "cwd": "/tmp/proj", "version": "2.1.41",
                       "timestamp": f"2026-10-05T09:{n:02d}:00.000Z",
                       "message": {"role": kind, "content": content}})


def claude_code(path: Path, session: str, turns: list[tuple[str, Any]]) -> Path:
    """A Claude Code transcript: ("user" | "assistant", text or content blocks) per record."""
    path.write_text("".join(_record(n, role, content, session) + "\n" for n, (role, content) in enumerate(turns)))
    return path


def tool_use(n: int, command: str) -> dict[str, Any]:
    return {"type": "tool_use", "id": f"t{n}", "name": "Bash", "input": {"command": command}}


def edit(n: int, path: str, old: str, new: str) -> dict[str, Any]:
    return {"type": "tool_use", "id": f"t{n}", "name": "Edit",
            "input": {"file_path": path, "old_string": old, "new_string": new}}


def tool_result(n: int, output: str, error: bool) -> dict[str, Any]:
    return {"type": "tool_result", "tool_use_id": f"t{n}", "content": output, "is_error": error}


SESSION: list[tuple[str, Any]] = [
    ("user", "Je préfère que tu écrives toujours les messages de commit en français."),
    ("assistant", "D'accord, je les écrirai en français."),
    ("user", "We decided to keep PostgreSQL for the job queue; no Redis in this project."),
    ("assistant", "Understood. Let me check the test suite first."),
    ("assistant", [tool_use(1, "pytest -q")]),
    ("user", [tool_result(1, "FAILED tests/test_dates.py::test_parse - TypeError: can't compare offset-naive "
                             "and offset-aware datetimes", True)]),
    ("assistant", "The test failed because the fixture built a naive datetime; making the fixture "
                  "timezone-aware with UTC fixed the comparison."),
    ("assistant", [edit(3, "tests/test_dates.py", "datetime(2026, 1, 1)", "datetime(2026, 1, 1, tzinfo=UTC)")]),
    ("user", [tool_result(3, "The file tests/test_dates.py has been updated.", False)]),
    ("assistant", [tool_use(2, "pytest -q")]),
    ("user", [tool_result(2, "42 passed in 1.20s", False)]),
    ("assistant", "Done! All tests pass now."),
    ("user", "thanks, looks good"),
]


@pytest.fixture
def harvested(tmp_path: Path) -> dict[str, Any]:
    root = tmp_path / "mem"
    MemoryRepo.init(root, T)
    src = claude_code(tmp_path / "7e8f9a0b-1111-4222-8333-444455556666.jsonl", "7e8f9a0b-1111-4222-8333-444455556666",
                      SESSION)
    [r] = MemoryRepo.open(root).harvest([src], now=T)
    assert r.status == "harvested", r.reason
    mems = MemoryRepo.open(root).list().memories
    return {"memories": {m.content: m for m in mems}, "signals": scorer.find_signals(read(src)), "source": src}


def test_a_french_preference_is_kept_as_a_preference(harvested: dict[str, Any]) -> None:
    [mem] = [m for text, m in harvested["memories"].items() if "français" in text]
    assert "preference" in mem.tags and mem.type == "preference"


def test_an_explicit_decision_the_score_does_not_confirm_lands_on_main(harvested: dict[str, Any]) -> None:
    from gitmem.engines.harvest.episodes import extract

    # "we'll use PostgreSQL" is a decision said outright: it stands on main, not in the inbox
    [sig] = [s for s in extract(read(harvested["source"])).signals if "PostgreSQL" in s.text]
    assert sig.kind == "decision" and sig.durable and not sig.inbox
    assert any("PostgreSQL" in text for text in harvested["memories"])


def test_the_assistants_cause_and_fix_after_a_failing_test_is_kept_as_a_lesson(harvested: dict[str, Any]) -> None:
    found = [s for s in harvested["signals"] if "naive datetime" in s.text]
    assert found and not found[0].inbox and found[0].kind == "error"
    assert any("naive datetime" in text for text in harvested["memories"])


def test_a_lesson_is_the_assistants_reason_or_fix_of_a_confirmed_fix_in_any_language() -> None:
    for text in ("The build broke because the lockfile was stale.", "Der Test schlug fehl, weil die Zeitzone fehlte.",
                 "La compilation échouait parce que le cache était vieux.", "测试失败是因为时区没有设置。",
                 "Тест падал из-за устаревшего кэша сборки."):
        assert scorer.lesson(cand(text, "assistant", fixed=True)), text
        assert not scorer.lesson(cand(text, "assistant")) and not scorer.lesson(cand(text, "user", fixed=True))
    assert not scorer.lesson(cand("Let me run the tests again now.", "assistant", fixed=True))


def test_chatter_and_tool_output_are_dropped(harvested: dict[str, Any]) -> None:
    texts = " ".join(harvested["memories"]) + " ".join(s.text for s in harvested["signals"])
    for chatter in ("Let me check", "All tests pass now", "looks good", "je les écrirai", "42 passed", "TypeError"):
        assert chatter not in texts


# --------------------------------------------------------------------------- how scored and rule signals combine

def model_with(bias: float, keep_at: float = 0.7, inbox_at: float = 0.4) -> scorer.Model:
    header = {"version": "t", "spec": featurize.SPEC, "bias": bias, "thresholds": {"keep": keep_at, "inbox": inbox_at}}
    return scorer.parse(scorer.dump(header, {}, {}))


def events_transcript(*turns: tuple[str, str]) -> Any:
    from gitmem.engines.harvest.sources import Event, Transcript

    events = tuple(Event(n, role, text, None) for n, (role, text) in enumerate(turns, 1))  # type: ignore[arg-type]
    return Transcript("s", "jsonl", "f", None, None, None, None, events, 0, len(events), 0)


def test_a_rule_signal_inside_a_kept_candidate_stands_for_it() -> None:
    from gitmem.engines.harvest.signals import find_signals

    t = events_transcript(("user", "Let's go with Hugo for the blog. Remember that the site deploys from gh-pages."),
                          ("assistant", "The build reads its settings from config/hugo.toml in this repository."))
    found = scorer.find_signals(t, find_signals(t.events), model_with(5.0))
    assert [(s.line, s.kind, s.inbox) for s in found] == [(1, "decision", False), (1, "remember", False),
                                                         (2, "fact", False)]


def test_unsure_candidates_go_to_the_inbox_and_dropped_ones_leave_nothing() -> None:
    t = events_transcript(("user", "The staging database runs on the old cluster behind the VPN."))
    [unsure] = scorer.find_signals(t, (), model_with(0.0))   # probability 0.5: between inbox and keep
    assert unsure.inbox and unsure.durable
    assert scorer.find_signals(t, (), model_with(-5.0)) == ()


def test_a_statement_scoped_to_now_is_never_kept_whatever_its_score() -> None:
    t = events_transcript(("user", "Skip the integration tests for now, they need the VPN."))
    assert scorer.find_signals(t, (), model_with(9.0)) == ()


def test_the_scorers_verdict_replaces_a_rules_transient_one_on_the_same_statement() -> None:
    from gitmem.engines.harvest.signals import Signal

    t = events_transcript(("user", "The API lives under /v2 on every server."))
    rule = Signal("The API lives under /v2 on every server.", "fact", 1, durable=False)
    [kept] = scorer.find_signals(t, (rule,), model_with(5.0))
    assert kept.durable and not kept.inbox
    assert scorer.find_signals(t, (rule,), model_with(-5.0)) == (rule,)


def test_rule_signals_are_confirmed_by_the_score_of_their_candidate() -> None:
    from gitmem.engines.harvest.signals import find_signals

    t = events_transcript(("user", "I prefer tabs over spaces in this codebase."))
    rules = find_signals(t.events)
    [sure] = scorer.find_signals(t, rules, model_with(5.0), "scored")
    [unsure] = scorer.find_signals(t, rules, model_with(0.0), "scored")
    [weak] = scorer.find_signals(t, rules, model_with(-5.0), "scored")
    assert (sure.durable, sure.inbox) == (True, False)
    assert (unsure.durable, unsure.inbox) == (True, True)
    assert not weak.durable and weak.text == sure.text
    outright = events_transcript(("user", "From now on always answer in French."))
    [stands] = scorer.find_signals(outright, find_signals(outright.events), model_with(-5.0), "scored")
    assert stands.durable and not stands.inbox   # a rule that says it lasts needs no score


def test_rule_signals_made_transient_never_become_memories() -> None:
    from gitmem.engines.harvest.signals import find_signals

    t = events_transcript(("user", "From now on always answer in French."))
    rules = find_signals(t.events)
    assert any(s.durable for s in rules)
    assert any(s.durable for s in scorer.find_signals(t, rules, model_with(-5.0), "kept"))
    assert not any(s.durable for s in scorer.find_signals(t, rules, model_with(-5.0), "transient"))


def test_concise_leaves_out_the_stamp_a_tool_puts_before_the_users_words() -> None:
    assert scorer.concise("[Wed 2026-02-04 14:40 GMT+11] Use pnpm in this repository.") == "Use pnpm in this repository."
    assert scorer.concise("[message_id: 42] 以后用中文回答") == "以后用中文回答"
    assert scorer.concise("[x] keep this list item") == "[x] keep this list item"


@pytest.mark.parametrize("text", [
    "Merk dir: wir deployen nur vom main-Branch.",
    "Guárdalo en memoria para futuras sesiones: el servidor está en Frankfurt.",
    "Запомни: всегда отвечай по-русски.",
    "以后每次提交前都必须先跑测试，记住。",
])
def test_a_request_to_remember_in_a_language_the_rules_do_not_read_is_not_dropped(text: str) -> None:
    assert scorer.decide(scorer.score(cand(text))) != "drop"


@pytest.mark.parametrize("text", ["Lass mich das kurz prüfen.", "Ahora voy a revisar el archivo.",
                                  "现在让我查看一下日志。", "Сейчас проверю конфигурацию."])
def test_the_assistants_progress_talk_in_any_language_is_dropped(text: str) -> None:
    assert scorer.decide(scorer.score(cand(text, "assistant"))) == "drop"


def test_in_inbox_mode_a_rule_the_score_does_not_confirm_waits_in_the_inbox() -> None:
    from gitmem.engines.harvest.signals import find_signals

    t = events_transcript(("user", "I prefer tabs over spaces in this codebase."))
    rules = find_signals(t.events)
    [sure] = scorer.find_signals(t, rules, model_with(5.0), "inbox")
    [unsure] = scorer.find_signals(t, rules, model_with(-5.0), "inbox")
    assert (sure.durable, sure.inbox) == (True, False)
    assert (unsure.durable, unsure.inbox) == (True, True) and unsure.text == sure.text   # never dropped
    outright = events_transcript(("user", "From now on always answer in French."))
    [stands] = scorer.find_signals(outright, find_signals(outright.events), model_with(-5.0), "inbox")
    assert stands.durable and not stands.inbox


@pytest.mark.parametrize(("text", "stands"), [
    ("Remember that the staging box is the one in Frankfurt.", True),
    ("请记住：测试服务器在上海机房。", True),
    ("Sometimes I remember to relax my mind and ride those thoughts.", False),
    ("I need to give them something they can remember in five minutes.", False),
    ("好的，记住了，小明。", False),
])
def test_only_a_request_to_remember_leading_its_sentence_stands_without_the_score(text: str, stands: bool) -> None:
    from gitmem.engines.harvest.signals import find_signals

    t = events_transcript(("user", text))
    found = [s for s in scorer.find_signals(t, find_signals(t.events), model_with(-5.0), "inbox") if s.durable]
    assert [s.inbox for s in found if s.kind == "remember"] in ([not stands], [])
    assert any(not s.inbox for s in found) == stands


def test_the_shipped_rule_signals_go_to_the_inbox_unless_confirmed() -> None:
    assert scorer.RULE_SIGNALS == "inbox"
