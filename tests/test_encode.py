"""Tests for gitmem.engines.encode: importance, type, domain, keywords."""

from __future__ import annotations

import pytest

from gitmem.engines.encode import Encoding, encode, importance, keywords


# --------------------------------------------------------------- importance


@pytest.mark.parametrize(
    ("text", "score", "rule"),
    [
        ("Remember that the deploy key rotates monthly", 0.9, "explicit"),
        ("Please remember: the VPN is required", 0.9, "explicit"),
        ("Don't forget the staging password changes", 0.9, "explicit"),
        ("Retiens que le serveur redémarre la nuit", 0.9, "explicit"),
        ("N'oublie pas que la démo est vendredi", 0.9, "explicit"),
        ("Souviens-toi que je suis allergique", 0.9, "explicit"),
        ("记住：测试环境端口是5432", 0.9, "explicit"),
        ("别忘了每次部署前先跑测试", 0.9, "explicit"),
        ("I love working with this team", 0.85, "emotional"),
        ("I hate flaky tests", 0.85, "emotional"),
        ("I'm so frustrated with the build", 0.85, "emotional"),
        ("J'adore ce framework", 0.85, "emotional"),
        ("Je déteste les réunions", 0.85, "emotional"),
        ("我讨厌开会", 0.85, "emotional"),
        ("今天很开心", 0.85, "emotional"),
        ("I prefer tabs over spaces", 0.8, "preference"),
        ("I like short answers", 0.8, "preference"),
        ("Always answer in French", 0.8, "preference"),
        ("Never push on Fridays", 0.8, "preference"),
        ("Je préfère les réponses courtes", 0.8, "preference"),
        ("Toujours écrire les tests d'abord", 0.8, "preference"),
        ("Jamais de force push", 0.8, "preference"),
        ("我喜欢简洁的回复", 0.8, "preference"),
        ("我更喜欢深色主题", 0.8, "preference"),
        ("他总是迟到", 0.8, "preference"),
        ("从不在周五部署", 0.8, "preference"),
        ("We decided to use Postgres", 0.75, "decision"),
        ("Let's go with the monorepo", 0.75, "decision"),
        ("On a décidé de passer à Postgres", 0.75, "decision"),
        ("我们决定迁移到 Postgres", 0.75, "decision"),
        ("My name is Andy", 0.7, "fact about a person or project"),
        ("Our project uses Python 3.11", 0.7, "fact about a person or project"),
        ("Le projet utilise Django", 0.7, "fact about a person or project"),
        ("我们的项目用 Rust 写的", 0.7, "fact about a person or project"),
        ("Andy's GitHub account is AIPMAndy", 0.7, "fact about a person or project"),
        ("Water boils at 100 degrees at sea level", 0.5, "general"),
        ("La Seine traverse Paris", 0.5, "general"),
        ("水在零度结冰", 0.5, "general"),
    ],
)
def test_importance_rules(text: str, score: float, rule: str) -> None:
    got, reason = importance(text)
    assert got == score
    assert reason.startswith(rule)


def test_highest_rule_wins() -> None:
    score, reason = importance("Remember that I prefer tabs and we decided on ruff")
    assert score == 0.9 and reason.startswith("explicit")
    assert importance("We decided on ruff because I prefer it")[0] == 0.8


def test_reporting_a_memory_is_not_asking_to_remember() -> None:
    assert importance("I don't remember the old password")[0] < 0.9


# -------------------------------------------------------------- type, domain


@pytest.mark.parametrize(
    ("text", "memory_type"),
    [
        ("I prefer tabs over spaces", "preference"),
        ("Remember that I prefer tabs", "preference"),
        ("We decided to use Postgres", "decision"),
        ("I hate long meetings", "emotion"),
        ("The build failed with a linker error", "error"),
        ("Erreur 500 sur l'API de paiement", "error"),
        ("飞书 API 调用报错 429", "error"),
        ("How to rotate the deploy key: run make rotate", "skill"),
        ("飞书 API 要分段请求，间隔5秒", "skill"),
        ("The staging DB is on port 5432", "fact"),
        ("Lesson: check the network before retrying", "reflection"),
        ("Pattern: GitHub push times out under load", "pattern"),
    ],
)
def test_type(text: str, memory_type: str) -> None:
    assert encode(text).type == memory_type


@pytest.mark.parametrize(
    ("text", "domain"),
    [
        ("I prefer concise answers", "user"),
        ("Je préfère les réponses courtes", "user"),
        ("我喜欢深色主题", "user"),
        ("My name is Andy", "user"),
        ("You should always answer in French", "self"),
        ("Tu dois toujours répondre en français", "self"),
        ("你应该先检查网络", "self"),
        ("We work best when we pair in the morning", "relationship"),
        ("Between us, short check-ins work better", "relationship"),
        ("The deploy script lives in scripts/deploy.sh", "project"),
        ("CI runs pytest on every push", "project"),
        ("我们的项目用 Postgres", "project"),
        ("The Seine flows through Paris", "world"),
    ],
)
def test_domain(text: str, domain: str) -> None:
    assert encode(text).domain == domain


def test_encode_returns_a_frozen_encoding() -> None:
    result = encode("Remember: the staging DB is on port 5432")
    assert isinstance(result, Encoding)
    assert result.importance == 0.9
    assert "staging" in result.keywords
    with pytest.raises(AttributeError):
        result.importance = 0.1  # type: ignore[misc]


# ------------------------------------------------------------------ keywords


def test_keywords_drop_stop_words_and_keep_identifiers() -> None:
    words = keywords("Remember: the deploy script lives in scripts/deploy.sh and the DB is Postgres")
    assert "the" not in words and "remember" not in words
    assert "scripts/deploy.sh" in words and "postgres" in words
    assert all(w == w.lower() for w in words)


def test_keywords_french_keeps_accents_and_drops_stop_words() -> None:
    words = keywords("Je préfère les réponses courtes pour le déploiement")
    assert "déploiement" in words and "réponses" in words
    assert not {"je", "les", "pour", "le"} & set(words)


def test_keywords_chinese_segments() -> None:
    words = keywords("别忘了每次部署前先跑测试")
    assert "部署" in words and "跑测试" in words
    assert not any("忘" in w for w in words)


def test_keywords_rank_by_frequency_and_respect_limit() -> None:
    words = keywords("GitHub push timeout; GitHub clone timeout; GitHub fetch", limit=2)
    assert words == ("github", "timeout")
    assert keywords("anything at all", limit=0) == ()


def test_keywords_of_nothing() -> None:
    assert keywords("") == ()
    assert keywords("the of and") == ()
    assert keywords("deploy the service", limit=0) == ()
    assert keywords("deploy the service", limit=-3) == ()


def test_keywords_skip_remember_phrases_and_short_numbers() -> None:
    words = keywords("Please remember: the cache holds 42 entries for 3600 seconds")
    assert "remember" not in words and "please" not in words
    assert "42" not in words
    assert "3600" in words


def test_keywords_keep_identifiers_whole_and_drop_filler_in_code() -> None:
    assert keywords("run `make lint` before pushing") == ("run", "lint", "before", "pushing")  # "make" is filler
    assert keywords("edit config.yaml then restart nginx") == ("edit", "config.yaml", "restart", "nginx")


def test_keywords_keep_the_words_the_comparison_calls_facts() -> None:
    # the shared stop list drops "before" from a question, the comparison keeps it in a statement
    assert "before" in keywords("run the tests before pushing")


@pytest.mark.parametrize(
    ("text", "field", "value"),
    [
        ("Remember: the staging DB is on port 5432", "type", "fact"),
        ("I hate waiting for slow builds", "type", "emotion"),
        ("We decided to use Postgres", "type", "decision"),
        ("Lesson: pin your dependencies", "type", "reflection"),
        ("Pattern: retries hide flaky tests", "type", "pattern"),
        ("The build fails with a timeout", "type", "error"),
        ("你应该先跑测试", "domain", "self"),
        ("Thanks, we work well together", "domain", "relationship"),
        ("The capital of France is Paris", "domain", "world"),
    ],
)
def test_encode_classifies(text: str, field: str, value: str) -> None:
    assert getattr(encode(text), field) == value


def test_encode_of_an_empty_text_is_general_knowledge() -> None:
    enc = encode("")
    assert (enc.importance, enc.reason, enc.keywords) == (0.5, "general knowledge", ())
    assert enc.type == "fact"


def test_importance_names_the_matched_phrase() -> None:
    score, reason = importance("N'oublie pas que le déploiement est vendredi")
    assert score == 0.9
    assert reason.startswith("explicit request to remember")


def test_encode_is_deterministic() -> None:
    text = "Alice prefers concise answers about the deploy pipeline"
    assert encode(text) == encode(text)
