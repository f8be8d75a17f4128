"""Encode: score and classify a new memory (DESIGN.md section 5, Encode).

Pure functions, no I/O. ``encode`` gives a new memory its importance, type,
domain and keywords; whether it restates an existing memory is
``gitmem.engines.similarity``. Trigger phrases are recognised in English,
French and Chinese.
"""

from __future__ import annotations

import re
from collections import Counter
from dataclasses import dataclass

from gitmem.base.model import Domain, MemoryType
from gitmem.base.text import ZH_KEYWORD_SPLIT
from gitmem.engines.features import (
    TOKEN_RE,
    latin_words,
    nfkc,
    normalize,
    strip_triggers,
    zh_bigrams,
    zh_clean,
    zh_segments,
)
from gitmem.engines.lexicon import EXPLICIT_TRIGGERS, NAMED

__all__ = ["ENCODE_CHARS", "Domain", "Encoding", "MemoryType", "encode", "importance", "keywords"]



@dataclass(frozen=True)
class Encoding:
    """What ``encode`` learns about a text before it becomes a memory."""

    importance: float
    reason: str
    type: MemoryType
    domain: Domain
    keywords: tuple[str, ...]


# Where "remember" starts an instruction rather than reporting a memory
# ("I don't remember the password" is not a request to remember).
_EXPLICIT_RE = re.compile(
    r"(?:^|(?<=[.!?;:\n]))\s*[-*>\"']*\s*(?:" + EXPLICIT_TRIGGERS + r")"
    r"|(?<!\bi )(?<!\bwe )(?<!n't )(?<!not )\bremember (?:this|that)\b"
    r"|\b(?:please remember|don'?t forget|do not forget|never forget|keep in mind|note to self)\b"
    r"|\bn'?oubli(?:e|ez) pas\b|\bretiens\b|\bsouviens[- ]toi\b|\bsouvenez[- ]vous\b|请?记住|别忘|不要忘|记得|牢记"
)
_EMOTION_RE = re.compile(
    r"\bi (?:really |so |absolutely |just )?(?:love|hate|adore|loathe|can't stand)\b"
    r"|\b(?:frustrat\w*|annoy\w*|angry|upset|furious|happy|sad|glad|excited|thrilled|worried|anxious"
    r"|scared|afraid|stressed|overwhelmed|disappointed|proud|grateful|relieved|lonely|depressed"
    r"|exhausted|tired of|fed up|sick of|i feel|i'm feeling|makes me)\b"
    r"|\bj'adore\b|\bje (?:deteste|hais)\b|\bfrustr\w*|\benerv\w*|\bje suis (?:tres )?(?:content|heureu|triste"
    r"|decu|fier|fiere|ravi|inquiet|stresse|deprime|en colere)\w*|\bj'en ai marre\b|\bje me sens\b"
    r"|\bca m'(?:enerve|agace|fatigue)\b"
    r"|讨厌|开心|高兴|难过|伤心|生气|沮丧|烦死|好烦|很烦|焦虑|担心|害怕|失望|兴奋|激动|感动|郁闷|崩溃|受不了|我爱|压力"
)
_PREFERENCE_RE = re.compile(
    r"\bi (?:really |much |usually )?(?:prefer|like|want)\b|\bi'?d rather\b|\bi would rather\b"
    r"|\b(?:always|never|prefers?|preferred|from now on|my favou?rite|rather than)\b"
    r"|\bje prefere\b|\bj'aime\b|\bje n'aime\b|\btoujours\b|\bjamais\b|\bdesormais\b|\ba l'avenir\b"
    r"|\bplutot que\b|\bprefere\b"
    r"|我(?:更|比较|最)?喜欢|更喜欢|偏好|偏爱|总是|从不|从来不|永远|以后|宁愿|不喜欢|习惯用"
)
_DECISION_RE = re.compile(
    r"\b(?:we|i|they|team) (?:have |has |'ve )?(?:decided|chose|chosen|picked|agreed|settled on)\b"
    r"|\bdecided to\b|\bdecision\b|\blet'?s (?:go with|use|stick with)\b|\bwe(?:'ll| will) (?:go with|use)\b"
    r"|\bgoing forward\b|\bagreed to\b|\bon a (?:decide|choisi|convenu|tranche)\b"
    r"|\bnous avons (?:decide|choisi)\b|\bj'ai (?:decide|choisi)\b|\bon part sur\b|\bon va utiliser\b"
    r"|\bdecision\b|决定|定了|选定|我们选|就用|确定用|敲定|采用"
)
_PERSON_PROJECT_RE = re.compile(
    r"\bmy name is\b|\bi am an? \b|\bi'm an? \b|\bi work (?:at|on|for|in)\b|\bi live\b|\bi'm from\b"
    r"|\bmy (?:wife|husband|partner|son|daughter|kids?|team|manager|boss|company|job|role|email|account"
    r"|birthday|github|username|title|mother|father|mom|dad)\b"
    r"|\b(?:our|the|this) (?:project|repo|repository|codebase|team|app|service|stack|product|company)\b"
    r"|\bwe use\b|\bje m'appelle\b|\bmon nom est\b|\bje travaille\b|\bj'habite\b"
    r"|\b(?:notre|le|ce) (?:projet|equipe|depot|application|service|produit)\b|\bon utilise\b"
    r"|\bnous utilisons\b|我叫|我的名字|我是|我住在|我们的项目|我们项目|项目用|项目使用|这个项目"
    r"|我们用|我们使用|团队|项目"
)
# Capitalized names owning or doing something: facts about people.
_PERSON_CASED_RE = re.compile(
    r"\b[A-Z][a-z]+(?:'s\b| (?:owns|leads|manages|maintains|works|handles|prefers|likes|uses|is responsible)\b"
    r"|\s*的)"
)
_POSSESSIVE_RE = re.compile(r"\b[A-Z][a-z]+(?:'s\b|\s*的)")
_ERROR_RE = re.compile(
    r"\b(?:error|errors|bug|bugs|fail|fails|failed|failing|failure|crash\w*|exception|traceback|broken"
    r"|broke|timed out|times out|regression|doesn't work|does not work|not working|erreur\w*|plante|plantage"
    r"|echou\w*|echec|bogue|ne marche pas|ne fonctionne pas)\b"
    r"|错误|报错|失败|崩溃|超时|异常|故障|出错|不工作|不能用|限流|\bbug"
)
_SKILL_RE = re.compile(
    r"\bhow to\b|\bto fix\b|\bfix(?:ed)? (?:it |this )?by\b|\bthe (?:fix|trick|workaround|solution) is\b"
    r"|\bworkaround\b|\bin order to\b|\bsteps?\b|\bfirst\b.*\bthen\b|\buse \S+ to\b|\brun `"
    r"|\bcomment (?:faire|corriger)\b|\bpour (?:corriger|resoudre|faire)\b|\bastuce\b|\bd'abord\b.*\bpuis\b"
    r"|如何|怎么|怎样|方法|步骤|解决|办法|先.+再|分段|需要先"
)
_REFLECTION_RE = re.compile(r"^\s*(?:lesson|lessons learned|reflection|lecon|反思|教训|总结)\b\s*[:：]?")
_PATTERN_RE = re.compile(r"^\s*(?:pattern|motif|模式)\s*[:：]")
_SELF_RE = re.compile(
    r"\byou (?:should|must|need to|have to|always|never|tend to|are|were|can|shouldn't|mustn't)\b"
    r"|\byour\b|\bthe (?:agent|assistant)\b|\bas an? (?:agent|assistant|ai)\b"
    r"|\btu (?:dois|devrais|es|peux)\b|\bvous devez\b|\bton\b|\btes\b"
    r"|你应该|你要|你需要|你是|你总是|你的|助手"
)
_RELATIONSHIP_RE = re.compile(
    r"\bwe (?:work|worked|talk|talked|collaborate|pair|get along|trust|communicate|chat)\b|\bbetween us\b"
    r"|\byou and (?:i|me)\b|\bwith you\b|\btogether\b|\bour (?:relationship|collaboration|conversations?"
    r"|sessions?|chats?)\b|\bthank(?:s| you)\b|\bentre nous\b|\bensemble\b|\bnotre (?:collaboration|relation)\b"
    r"|我们一起|我们之间|咱们|合作|谢谢你"
)
_PROJECT_RE = re.compile(
    r"`|\b[\w-]+\.(?:py|js|ts|tsx|jsx|md|yaml|yml|json|toml|sh|go|rs|java|c|cpp|h|rb|sql|html|css|txt"
    r"|cfg|ini|lock|env)\b|\w/\w"
    r"|\b(?:code|repo|repository|build|deploy\w*|release|branch|commit|merge|tests?|ci|pipeline|server"
    r"|database|db|api|endpoint|port|script|function|module|library|package|dependenc\w+|config\w*"
    r"|staging|production|prod|project|service|frontend|backend|lint\w*|compile\w*|migration\w*"
    r"|projet|depot|deploiement|serveur|fonction|branche|bdd)\b"
    r"|项目|代码|仓库|部署|发布|构建|测试|服务器|数据库|接口|端口|分支|提交|脚本|函数|配置|上线|环境"
)
_USER_RE = re.compile(
    r"\b(?:i|me|my|mine|myself|i'm|i've|i'd|i'll|the user|user's|je|moi|mon|ma|mes|l'utilisateur)\b|\bj'"
    r"|我(?!们)|用户"
)
_PERSONAL_RE = re.compile(
    r"\bmy name\b|\bi live\b|\bi'm from\b|\bi am from\b|\bi work\b|\bje m'appelle\b|\bj'habite\b"
    r"|\bje travaille\b|我叫|我的名字|我住|我在.{1,12}工作"
)
_RULES: tuple[tuple[float, str, re.Pattern[str]], ...] = (
    (0.9, "explicit request to remember", _EXPLICIT_RE),
    (0.85, "emotional content", _EMOTION_RE),
    (0.8, "preference", _PREFERENCE_RE),
    (0.75, "decision", _DECISION_RE),
    (0.7, "fact about a person or project", _PERSON_PROJECT_RE),
)


def _matches(text: str) -> list[tuple[float, str, str]]:
    folded = normalize(text)
    lowered = folded.casefold()
    found = []
    for score, name, pattern in _RULES:
        match = pattern.search(lowered)
        if match:
            found.append((score, name, match.group().strip(" :-*>\"'")))
    if not any(name.startswith("fact") for _, name, _ in found):
        person = _PERSON_CASED_RE.search(folded)
        if person:
            found.append((0.7, "fact about a person or project", person.group().strip()))
        elif _PROJECT_RE.search(lowered):
            found.append((0.7, "fact about a person or project", "project terms"))
    return found


# How much of a text the encoder reads: a memory states itself in its first
# sentences, and a pasted document near the 1 MiB cap would otherwise cost
# seconds of pattern matching. Past this, a text adds no keyword or trigger.
ENCODE_CHARS = 32_768


def importance(text: str) -> tuple[float, str]:
    """Initial importance of a text and the rule that gave it.

    Explicit "remember this" 0.9, emotional 0.85, preference 0.8, decision
    0.75, fact about a person or project 0.7, anything else 0.5; the highest
    matching rule wins. Trigger phrases are recognised in English, French and
    Chinese.
    """
    return _importance(_matches(text[:ENCODE_CHARS]))


def _importance(found: list[tuple[float, str, str]]) -> tuple[float, str]:
    if not found:
        return 0.5, "general knowledge"
    score, name, phrase = max(found, key=lambda f: f[0])
    return score, f'{name} ("{phrase}")'


def _memory_type(text: str, found: list[tuple[float, str, str]]) -> MemoryType:
    lowered = normalize(text).casefold()
    if _PATTERN_RE.search(lowered):
        return "pattern"
    if _REFLECTION_RE.search(lowered):
        return "reflection"
    if _ERROR_RE.search(lowered):
        return "error"
    by_rule: dict[str, MemoryType] = {
        "emotional content": "emotion", "preference": "preference", "decision": "decision"}
    ranked = sorted((f for f in found if f[1] in by_rule), key=lambda f: -f[0])
    if ranked:
        return by_rule[ranked[0][1]]
    if _SKILL_RE.search(lowered):
        return "skill"
    return "fact"


def _domain(text: str, memory_type: MemoryType) -> Domain:
    lowered = normalize(text).casefold()
    if _SELF_RE.search(lowered):
        return "self"
    if _RELATIONSHIP_RE.search(lowered):
        return "relationship"
    about_user = bool(_USER_RE.search(lowered))
    if about_user and (memory_type in ("preference", "emotion") or _PERSONAL_RE.search(lowered)):
        return "user"
    if _POSSESSIVE_RE.search(normalize(text)):
        return "user"  # "Andy's GitHub account": a fact about a person
    if _PROJECT_RE.search(lowered) or any(w.name == "strong" and w.form in NAMED for w, _ in
                                          latin_words(normalize(text))):
        return "project"
    return "user" if about_user else "world"


def keywords(text: str, limit: int = 8) -> tuple[str, ...]:
    """Up to ``limit`` lowercase content words of ``text``, most frequent first.

    Stop words (English and French), remember-phrases and short numbers are
    dropped; identifiers such as ``config.yaml`` stay whole; Chinese runs are
    cut at particles and kept whole up to four characters, longer ones as
    character bigrams.
    """
    counts: Counter[str] = Counter()
    order: dict[str, int] = {}

    def add(word: str) -> None:
        counts[word] += 1
        order.setdefault(word, len(order))

    for match in TOKEN_RE.finditer(strip_triggers(nfkc(text))):
        if match.group("cjk"):
            cleaned, _ = zh_clean(match.group("cjk"))
            for segment in zh_segments(cleaned, ZH_KEYWORD_SPLIT):
                for piece in [segment] if len(segment) <= 4 else zh_bigrams(segment):
                    if len(piece) > 1:
                        add(piece)
            continue
        for word, surface in latin_words(match.group()):
            # a "word" longer than any real one (a hash, a run of one letter) is no keyword,
            # and would swell the front matter past what readers accept
            if word.content and 1 < len(surface) <= 64 and not (surface.isdigit() and len(surface) < 3):
                add(surface)
    ranked = sorted(counts, key=lambda w: (-counts[w], order[w]))
    return tuple(ranked[: max(0, limit)])


def encode(text: str) -> Encoding:
    """Importance (with its reason), type, domain and keywords of a new memory.

    Only the first ``ENCODE_CHARS`` characters are read, so the cost stays bounded.
    """
    head = text[:ENCODE_CHARS]
    found = _matches(head)
    score, reason = _importance(found)
    memory_type = _memory_type(head, found)
    return Encoding(score, reason, memory_type, _domain(head, memory_type), keywords(head))
