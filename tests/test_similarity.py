"""Tests for gitmem.engines.similarity: the near-miss-safe duplicate decision."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from gitmem.engines import features
from gitmem.engines.similarity import (
    DUPLICATE_THRESHOLD,
    conflict,
    find_duplicate,
    is_duplicate,
    similarity,
)

PAIRS_FILE = Path(__file__).parent / "fixtures" / "dedupe_pairs.jsonl"
PAIRS = [json.loads(line) for line in PAIRS_FILE.read_text(encoding="utf-8").splitlines() if line.strip()]
DUPLICATES = [p for p in PAIRS if p["duplicate"]]
NEAR_MISSES = [p for p in PAIRS if not p["duplicate"]]
# Kept apart and never tuned on: figures on it are reported, not chosen.
HOLDOUT_FILE = Path(__file__).parent / "fixtures" / "dedupe_pairs_holdout.jsonl"
HOLDOUT = [json.loads(line) for line in HOLDOUT_FILE.read_text(encoding="utf-8").splitlines() if line.strip()]


def _label(pair: dict[str, object]) -> str:
    return f"{pair['why']}: {pair['a']} | {pair['b']}"


# ---------------------------------------------------------------- the pair set


def test_pair_set_is_large_and_balanced() -> None:
    assert len(PAIRS) >= 200 and len(HOLDOUT) >= 40
    assert min(len(DUPLICATES), len(NEAR_MISSES)) >= 0.4 * len(PAIRS)
    whys = " ".join(p["why"] for p in NEAR_MISSES)
    for kind in ("number", "date", "name", "negation"):
        assert whys.count(kind) >= 6, kind
    for kind in ("quantifier", "role"):
        assert whys.count(kind) >= 25, kind
    for lang in ("(FR)", "(ZH)"):
        assert sum(lang in p["why"] for p in DUPLICATES) >= 8
        assert sum(lang in p["why"] for p in NEAR_MISSES) >= 8


@pytest.mark.parametrize("pair", NEAR_MISSES, ids=_label)
def test_near_miss_is_never_merged(pair: dict[str, str]) -> None:
    assert not is_duplicate(pair["a"], pair["b"])
    assert not is_duplicate(pair["b"], pair["a"])
    assert conflict(pair["a"], pair["b"]) is not None


@pytest.mark.parametrize("pair", [p for p in DUPLICATES if not p.get("known_miss")], ids=_label)
def test_true_duplicate_is_reinforced(pair: dict[str, str]) -> None:
    assert conflict(pair["a"], pair["b"]) is None
    assert similarity(pair["a"], pair["b"]) >= DUPLICATE_THRESHOLD
    assert is_duplicate(pair["a"], pair["b"])
    assert is_duplicate(pair["b"], pair["a"])


def test_pair_set_totals_zero_false_merges_and_full_recall() -> None:
    false_merges = [p for p in NEAR_MISSES if is_duplicate(p["a"], p["b"])]
    missed = [p for p in DUPLICATES if not is_duplicate(p["a"], p["b"])]
    # known misses: a typo and a French synonym the lexicon lacks; a missed
    # reinforcement costs a duplicate, a false merge would lose a fact
    assert (false_merges, missed) == ([], [p for p in DUPLICATES if p.get("known_miss")])
    assert len(missed) <= 0.05 * len(DUPLICATES)


def test_holdout_pairs_keep_the_goals() -> None:
    near = [p for p in HOLDOUT if not p["duplicate"]]
    dups = [p for p in HOLDOUT if p["duplicate"]]
    merged = [p for p in near if is_duplicate(p["a"], p["b"]) or is_duplicate(p["b"], p["a"])]
    found = [p for p in dups if is_duplicate(p["a"], p["b"]) and is_duplicate(p["b"], p["a"])]
    # Measured once, not tuned: one false merge ("https" stems to "http")
    # and 16 of 17 duplicates; the bound keeps it from getting worse.
    assert len(merged) <= 1
    assert len(found) >= 0.9 * len(dups)


@pytest.mark.parametrize(
    ("a", "b", "kind"),
    [
        ("retry at most 3 times", "retry at least 3 times", "quantifier differs: at-most vs at-least"),
        ("retry at most 3 times", "retry 3 times at most", None),
        ("retry no more than 3 times", "retry at most three times", None),
        ("all tests must pass", "some tests must pass", "quantifier differs: all vs some"),
        ("always lint before pushing", "usually lint before pushing", "quantifier differs"),
        ("always lint before pushing", "lint before pushing", None),
        ("you must sign commits", "you may sign commits", "quantifier differs: must vs may"),
        ("you can't push to main", "never push to main", None),
        ("Release in May", "release in May", None),
        ("on déploie souvent le lundi", "on déploie parfois le lundi", "quantifier differs"),
        ("你必须先跑测试", "你可以先跑测试", "quantifier differs"),
        ("copy prod to staging", "copy staging to prod", "role differs"),
        ("copy prod to staging", "to staging, copy prod", None),
        ("copy from prod to staging", "copy from staging to prod", "role differs"),
        ("service A calls service B", "service B calls service A", "role differs: A calls B vs B calls A"),
        ("X depends on Y", "Y depends on X", "role differs"),
        ("Postgres > MySQL for analytics", "MySQL > Postgres for analytics", "role differs"),
        ("first build then test", "first test then build", "role differs"),
        ("use pnpm, not npm", "use npm, not pnpm", "role differs"),
        ("move files into lib", "move files from lib", "negation differs: into vs from"),
        ("前端调用后端", "后端调用前端", "role differs"),
        ("we use Postgres for billing", "for billing we use Postgres", None),
    ],
)
def test_quantifiers_and_roles_are_part_of_the_fact(a: str, b: str, kind: str | None) -> None:
    reason = conflict(a, b)
    if kind is None:
        assert reason is None
    else:
        assert reason is not None and reason.startswith(kind), reason


def test_each_true_duplicate_is_found_among_other_memories() -> None:
    # The store passes many memories of the domain as candidates: the right
    # one must win over the other pairs' texts, placed before and after it.
    # (Some pairs state the same fact in two languages; those are no distractors.)
    assert DUPLICATES
    for i, pair in enumerate(DUPLICATES):
        if pair.get("known_miss"):
            continue
        others = [(f"o{j}", q["a"]) for j, q in enumerate(DUPLICATES) if j != i and not is_duplicate(q["a"], pair["a"])]
        candidates = others[:30] + [("right", pair["a"])] + others[30:]
        assert find_duplicate(pair["b"], candidates) == "right", _label(pair)


def test_near_miss_is_not_found_as_duplicate() -> None:
    assert NEAR_MISSES
    for pair in NEAR_MISSES:
        assert find_duplicate(pair["b"], [("m-1", pair["a"])]) is None, _label(pair)


# ------------------------------------------------------------------- conflict


@pytest.mark.parametrize(
    ("a", "b", "prefix"),
    [
        ("port is 5432", "port is 5433", "number differs: 5432 vs 5433"),
        ("Use Python 3.11", "Use Python 3.12", "number differs"),
        ("retry three times", "retry five times", "number differs"),
        ("timeout is 30 seconds", "timeout is 30 minutes", "number differs"),
        ("release on 2024-03-01", "release on 2024-03-02", "date differs"),
        ("standup on Monday", "standup on Tuesday", "date differs"),
        ("sync at 10:00", "sync at 10:30", "date differs"),
        ("3月1日上线", "3月2日上线", "date differs"),
        ("La réunion est le lundi", "La réunion est le mardi", "date differs"),
        ("use Postgres", "use MySQL", "name differs"),
        ("Alice owns billing", "Bob owns billing", "name differs"),
        ("edit settings.yaml", "edit config.yaml", "name differs"),
        ("张三负责账单系统", "李四负责账单系统", "name differs"),
        ("use tabs", "never use tabs", "negation differs"),
        ("do run migrations", "don't run migrations", "negation differs"),
        ("utilise des tabulations", "n'utilise pas de tabulations", "negation differs"),
        ("用 tab 缩进", "别用 tab 缩进", "negation differs"),
        ("测试环境有缓存", "测试环境没有缓存", "negation differs"),
        ("enable the flag", "disable the flag", "negation differs"),
    ],
)
def test_conflict_names_the_difference(a: str, b: str, prefix: str) -> None:
    reason = conflict(a, b)
    assert reason is not None and reason.startswith(prefix)


@pytest.mark.parametrize(
    ("a", "b"),
    [
        ("The port is 5432.", "the port is 5432"),
        ("retry three times", "retry 3 times"),
        ("Release on March 1, 2024", "release on 2024-03-01"),
        ("Standup at 10am", "standup at 10:00"),
        ("the staging DB", "the staging database"),
        ("Don't forget: never force-push", "never force-push"),
        ("N'oublie pas : on déploie le lundi", "on déploie le lundi"),
        ("别忘了：周一部署", "周一部署"),
        ("重试三次", "重试3次"),
        ("twenty-five workers", "25 workers"),
        ("10k rows", "10,000 rows"),
    ],
)
def test_no_conflict_for_restatements(a: str, b: str) -> None:
    assert conflict(a, b) is None


def test_conflict_is_symmetric_in_outcome() -> None:
    assert PAIRS
    for pair in PAIRS:
        assert (conflict(pair["a"], pair["b"]) is None) == (conflict(pair["b"], pair["a"]) is None)


# ----------------------------------------------------------------- similarity


def test_similarity_orders_paraphrase_above_unrelated() -> None:
    base = "the staging database runs on port 5432"
    assert similarity(base, "Remember: the staging DB is on port 5432") > 0.8
    assert similarity(base, "the user prefers concise answers") < 0.2


def test_similarity_penalises_a_swapped_word() -> None:
    added = similarity("the importer crashes on empty files", "the importer crashes on empty files again")
    swapped = similarity("the importer crashes on empty files", "the exporter crashes on empty files")
    assert swapped < DUPLICATE_THRESHOLD < added


def test_similarity_of_empty_and_punctuation() -> None:
    assert similarity("", "") == 1.0
    assert similarity("", "port 5432") == 0.0
    assert similarity("!!!", "???") == 0.0


def test_find_duplicate_prefers_the_best_and_the_first_on_ties() -> None:
    candidates = [
        ("m-a", "the staging DB is on port 5433"),
        ("m-b", "the staging DB mostly runs on port 5432 now"),
        ("m-c", "the staging DB is on port 5432"),
        ("m-d", "the staging DB is on port 5432"),
    ]
    assert find_duplicate("The staging DB is on port 5432!", candidates) == "m-c"
    assert find_duplicate("anything", []) is None
    assert find_duplicate("the staging DB is on port 5432", candidates, threshold=1.01) is None


def test_threshold_parameter_is_honoured() -> None:
    a, b = "Always run the tests before pushing", "Always run the linter before pushing"
    assert not is_duplicate(a, b)
    assert is_duplicate(a, b, threshold=0.1)


# ------------------------------------------------------------------ properties


@settings(max_examples=300, deadline=None)
@given(st.text(max_size=80), st.text(max_size=80))
def test_similarity_is_symmetric_and_bounded(a: str, b: str) -> None:
    forward = similarity(a, b)
    assert forward == similarity(b, a)
    assert 0.0 <= forward <= 1.0


@settings(max_examples=300, deadline=None)
@given(st.text(max_size=120))
def test_a_text_is_a_duplicate_of_itself(text: str) -> None:
    assert similarity(text, text) == 1.0
    assert conflict(text, text) is None
    assert is_duplicate(text, text)


_WORD = st.one_of(
    st.from_regex(r"[A-Za-z]{1,9}", fullmatch=True),
    st.sampled_from(["le", "port", "serveur", "版本", "端口是", "数据库", "retries", "build", "de", "der"]),
)


@pytest.mark.slow
@settings(max_examples=300, deadline=None)
@given(
    st.lists(_WORD, max_size=6),
    st.integers(min_value=0, max_value=99999),
    st.integers(min_value=1, max_value=500),
    st.lists(_WORD, max_size=6),
)
def test_changing_one_number_prevents_a_merge(before: list[str], n: int, delta: int, after: list[str]) -> None:
    head, tail = " ".join(before), " ".join(after)
    original = f"{head} {n} {tail}"
    changed = f"{head} {n + delta} {tail}"
    assert conflict(original, changed) is not None
    assert not is_duplicate(original, changed)


@settings(max_examples=200, deadline=None)
@given(st.lists(_WORD, min_size=1, max_size=8))
def test_negating_prevents_a_merge(words: list[str]) -> None:
    text = " ".join(words)
    assert not is_duplicate(text, f"never {text}")
    assert not is_duplicate(text, f"不要 {text}")


def test_features_are_cached_for_repeated_candidates() -> None:
    features.describe.cache_clear()
    candidates = [(f"m{i}", f"memory number {i} about the build") for i in range(50)]
    find_duplicate("memory about the build", candidates)
    find_duplicate("another memory about the build", candidates)
    assert features.describe.cache_info().hits >= 50


# ------------------------------------------------------------------ negation, counted

_NEGATION = st.sampled_from(["never", "not", "no", "without", "jamais", "不要", "don't", "cannot"])


@settings(max_examples=300, deadline=None)
@given(st.lists(_WORD, min_size=1, max_size=6), _NEGATION, _NEGATION)
def test_adding_a_negation_to_a_negated_text_prevents_a_merge(words: list[str], first: str, added: str) -> None:
    negated = f"{' '.join(words)} {first}"
    assert not is_duplicate(negated, f"{added} {negated}")
    assert conflict(negated, f"{added} {negated}") is not None


def test_the_reported_double_negation_pair_is_not_merged() -> None:
    assert not is_duplicate("B NO", "never B NO")
    assert conflict("B NO", "never B NO") == "negation differs: no vs never, no"


@pytest.mark.parametrize(
    ("a", "b"),
    [
        ("don't use tabs in python", "never use tabs in python"),
        ("n'utilise pas les tabulations en python", "n'utilise jamais les tabulations en python"),
        ("ne pousse pas sur main le vendredi", "ne pousse jamais sur main le vendredi"),
    ],
)
def test_one_negation_for_another_is_still_one_negation(a: str, b: str) -> None:
    reason = conflict(a, b)
    assert reason is None or not reason.startswith("negation differs")


# ------------------------------------------------------------------ find_duplicate edges


def test_find_duplicate_of_no_candidates() -> None:
    assert find_duplicate("anything", []) is None


def test_find_duplicate_above_a_perfect_score_finds_nothing() -> None:
    assert find_duplicate("same text", [("m1", "same text")], threshold=1.01) is None


def test_find_duplicate_skips_a_similar_candidate_with_a_conflict() -> None:
    candidates = [("m-5433", "the staging database runs on port 5433"),
                  ("m-5432", "staging database on port 5432")]
    assert find_duplicate("the staging database runs on port 5432", candidates) == "m-5432"


def test_find_duplicate_accepts_a_generator() -> None:
    candidates = ((f"m{i}", text) for i, text in enumerate(["unrelated words", "I prefer tabs over spaces"]))
    assert find_duplicate("i prefer tabs over spaces", candidates) == "m1"


def test_similarity_of_inflections_under_the_porter_stemmer() -> None:
    # the stemmer swap must keep inflected restatements together
    assert similarity("Alice deployed the services", "Alice deploys the service") >= DUPLICATE_THRESHOLD
    assert is_duplicate("the tests are failing on main", "the test fails on main")


# ------------------------------------------------------------------ conflict reasons, by kind


@pytest.mark.parametrize(
    ("a", "b", "reason"),
    [
        ("deploy on 2026-03-04", "deploy on 2026-03-05", "date differs: 2026-03-04 vs 2026-03-05"),
        ("standup at 9:30", "standup at 10:30", "date differs: 09:30 vs 10:30"),
        ("backups run on monday", "backups run on friday", "date differs: monday vs friday"),
        ("the cache lives 5 minutes", "the cache lives 5 hours", "number differs: unit minute vs hour"),
        ("retry 3 times", "retry three times", None),
        ("enable the feature flag", "disable the feature flag", "negation differs: enabl vs disabl"),
        ("upgrade to python v2", "upgrade to python v3", "name differs: v2 vs v3"),  # identifiers are names
        ("小明负责部署", "小红负责部署", "name differs: 明 vs 红"),
    ],
)
def test_conflict_reason_by_kind(a: str, b: str, reason: str | None) -> None:
    assert conflict(a, b) == reason


def test_a_second_name_is_new_information() -> None:
    assert conflict("Alice owns billing", "Alice and Bob own billing") == "name differs: none vs bob"


def test_same_numbers_in_another_order_do_not_conflict() -> None:
    assert conflict("ports 80 and 443 are open", "ports 443 and 80 are open") is None


def test_dates_written_two_ways_do_not_conflict() -> None:
    assert conflict("release on 2026-03-04", "release on March 4, 2026") is None


def test_similarity_drops_remember_phrases_and_filler() -> None:
    assert similarity("Please remember: staging runs on port 5432", "staging runs on port 5432") == 1.0


def test_similarity_penalises_an_unrelated_swap_more_than_an_addition() -> None:
    added = similarity("the importer crashes on empty files", "the importer crashes on empty csv files")
    swapped = similarity("the importer crashes on empty files", "the exporter crashes on empty files")
    assert added > swapped
    assert swapped < DUPLICATE_THRESHOLD


# ------------------------------------------------------------ the compare cap


def _long(n_chars: int, seed: str = "") -> str:
    words = "deploy staging database port tests merge review release".split()
    out: list[str] = []
    i = 0
    while sum(len(w) + 1 for w in out) < n_chars:
        out.append(words[i % len(words)] + seed)
        i += 1
    return " ".join(out)


def test_texts_over_the_cap_are_duplicates_only_when_equal() -> None:
    from gitmem.engines.similarity import COMPARE_CHARS

    text = _long(COMPARE_CHARS + 10)
    assert is_duplicate(text, text)
    assert find_duplicate(text, [("x", text + " "), ("same", text)]) == "same"
    # the same words, one added at the end: compared in full it would merge
    longer = text + " please"
    assert similarity(text, longer) > DUPLICATE_THRESHOLD
    assert not is_duplicate(text, longer) and not is_duplicate(longer, text)
    assert find_duplicate(longer, [("a", text)]) is None
    assert find_duplicate(text[:100], [("a", text)]) is None
    assert (conflict(text, longer) or "").startswith("too long to compare")
    assert conflict(text, text) is None


def test_texts_at_the_cap_are_still_compared() -> None:
    from gitmem.engines.similarity import COMPARE_CHARS

    text = _long(COMPARE_CHARS - 200)[: COMPARE_CHARS - 8]
    assert len(text) <= COMPARE_CHARS - 7
    assert is_duplicate(text, text + " please")
