"""What to remember from a session: signals in the user's own words.

Signals come only from events that are neither ``meta`` nor ``sidechain``:
explicit "remember …", corrections, decisions, preferences, facts about the
person or the project, and reported failures, in English, French and Chinese.
Questions, pasted code and tables, and sentences too short to mean anything
are not signals. Each signal is judged durable or transient (``durability``);
an instruction repeated in separate turns, a proposal of the assistant the
user accepts, and a problem the user reports with the cause the assistant
found are signals of the exchange.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from collections import Counter
from typing import Iterable, Literal, Sequence

from gitmem.base.text import CJK as CJK_RANGES
from gitmem.engines.harvest import durability, placement
from gitmem.engines.harvest.sources import Event

__all__ = ["CJK", "MAX_ITEM", "MAX_SIGNALS", "Signal", "SignalKind", "classify", "clip", "explains", "find_signals", "is_own_words",
           "marker_sources", "markers", "one_line", "repeated_across", "unique"]

SignalKind = Literal["remember", "preference", "decision", "correction", "fact", "error"]

MAX_ITEM = 200
MAX_SIGNALS = 200


@dataclass(frozen=True, slots=True)
class Signal:
    """A statement from the user worth remembering, with the line it came from.

    ``durable``: it outlives the session (a transient one stays in the episode);
    ``floor``: the lowest importance its memory is created at; ``inbox``: the
    scorer is unsure, so its memory goes to the harvest inbox for a person to
    keep or drop, not to the branch itself; ``key``: the key of the candidate
    it was scored from (``line:part:hash``), kept as its memory's ``source_id``
    so a person's decision on it can be matched with the corpus labels.
    """

    text: str
    kind: SignalKind
    line: int
    # How the signal is judged, not what it is: equality ignores it.
    durable: bool = field(default=True, compare=False)
    floor: float = field(default=0.0, compare=False)
    inbox: bool = field(default=False, compare=False)
    key: str = field(default="", compare=False)


def one_line(text: str) -> str:
    """``text`` on one line, runs of white space as one space."""
    return " ".join(text.split())


def unique(items: Iterable[str]) -> tuple[str, ...]:
    """``items`` without the empty ones and the repeats (case-folded), in order."""
    seen: set[str] = set()
    out: list[str] = []
    for item in items:
        key = item.casefold()
        if item and key not in seen:
            seen.add(key)
            out.append(item)
    return tuple(out)


def clip(text: str, limit: int = MAX_ITEM) -> str:
    """``text`` on one line, cut to ``limit`` characters with an ellipsis."""
    text = one_line(text)
    return text if len(text) <= limit else text[: limit - 1].rstrip() + "…"


def is_own_words(e: Event) -> bool:
    """Whether ``e`` is the user's own prompt (not injected by the tool, not a sub-agent's)."""
    return e.role == "user" and not e.meta and not e.sidechain


CJK = re.compile(f"[{CJK_RANGES}]")   # one character of a script written without spaces
# Sentence ends: Latin punctuation followed by a space, CJK punctuation anywhere, line breaks.
_SENTENCE_END = re.compile(r"(?<=[.!?;])\s+|(?<=[。！？；])\s*|\n+")
_CODEY = re.compile(r"[{}()\[\];=<>|\\/$`#@*_]")

_I = re.IGNORECASE
_PATTERNS: tuple[tuple[SignalKind, re.Pattern[str]], ...] = (
    ("remember", re.compile(
        r"\b(?:remember|remeber|remmeber|rember|rememeber|don'?t forget|do not forget|keep in mind|memori[sz]e|for future reference|make a note)\b"
        r"|\bsave (?:this |that |it )?(?:in|to|into) (?:your |the )?memory\b|\bsave in memory\b"
        r"|n['’]oublie pas|souviens-toi|rappelle-toi|\bretiens\b|garde (?:bien )?en (?:tête|mémoire)|mémorise|note bien"
        r"|记住|記住|别忘了|別忘了|不要忘记|不要忘記|牢记|牢記|记下来|記下來|^(?:请|請|要)?记得|^(?:请|請|要)?記得", _I)),
    ("correction", re.compile(
        r"^(?:no|nope|wrong)\b[,.!:]?\s|^(?:actually|instead)\b[, ]|^(?:please\s+)?(?:don'?t|do not|stop)\b"
        r"|\b(?:that'?s|that is|this is|it'?s|it is) (?:wrong|incorrect|not (?:right|correct|what i))"
        r"|\bnot what i (?:asked|wanted|meant|said)\b|\bi (?:said|told you|asked (?:you )?to)\b|\binstead of\b"
        r"|\b(?:use|do|try) \S+(?: \S+)? instead\b|\byou (?:forgot|missed|broke|deleted|removed)\b|\bshould(?:n'?t| not) have\b"
        r"|\b(?:revert|undo) (?:that|this|it|the)\b"
        r"|^non\b[,.!]?\s|^(?:en fait|plutôt)\b|\bnon,? plutôt\b|\bc['’]est (?:faux|pas (?:ça|bon|correct|juste|ce que))"
        r"|^(?:ne|n['’])\s?\w+ pas\b|\bpas comme ça\b|\bau lieu de\b|\btu (?:as oublié|t['’]es trompé)|\bje t['’]ai (?:dit|demandé)\b"
        r"|不对|不對|不是这样|不是這樣|错了|錯了|搞错|搞錯|不要|别再|別再|不应该|不應該|应该是|應該是|而不是|我说的是|我說的是"
        r"|不是我要的|不希望|不需要|先不用|不用再|撤销|撤銷|回滚|回滾|改回", _I)),
    ("decision", re.compile(
        r"\blet'?s (?:go with|use|keep|stick with|switch to|choose|pick|adopt|settle on)\b"
        r"|\bwe(?:'ll| will| are going to|'re going to) (?:use|go with|keep|adopt|switch to|stick with)\b"
        r"|\b(?:i|we)(?:'ve| have)? decided\b|\b(?:i'll|i will|we'll|we will) go with\b|\bsettled on\b|\bthe decision is\b"
        r"|\bon part sur\b|\bpartons sur\b|\bon (?:va )?(?:utilise|utiliser|prend|prendre|garde|garder|choisit)\b"
        r"|\b(?:j['’]ai|on a|nous avons) décidé\b|\bdécidons\b|\ballons-y avec\b|\bon reste sur\b|\bva pour\b"
        r"|还是我自己|還是我自己|交给我自己|交給我自己|我自己(?:来|來)(?:做|操作|处理|處理)?|"
        r"决定|決定|就用|就这么定|就這麼定|采用|採用|我们用|我們用|选定|選定|确定用|確定用|就选|就選", _I)),
    ("preference", re.compile(
        r"\bi (?:really )?(?:prefer|like|liked|love|hate|dislike|can'?t stand)\b|\bi(?:'d| would) (?:rather|prefer)\b"
        r"|\b(?:always|never)\b|\bfrom now on\b|\bgoing forward\b|\bin the future\b|\bmy preference\b"
        r"|^(?:please )?use \S+(?: \S+)?,? (?:not|rather than|over) \S+|^utilise \S+(?: \S+)?,? (?:pas|plutôt que) \S+"
        r"|\bgive me (?:\w+ ){0,3}(?:answers?|replies|feedback|responses?)\b|\b(?:be|keep it) (?:more )?(?:honest|realistic|concise|brief|direct|short)\b"
        r"|\bdon'?t (?:flatter|worship|sugarcoat)\b|\b(?:keep|make) (?:your )?(?:answers|replies|responses) (?:short|brief|concise)\b"
        r"|\b(?:reply|replay|respond|answer|speak|talk|write)\b.{0,30}\b(?:in|using) (?:chinese|english|french|spanish|german|japanese)\b"
        r"|\bje (?:préfère|prefere|n['’]aime pas|déteste|veux toujours)\b|\bj['’](?:aime|adore|aimerais mieux)\b"
        r"|\b(?:toujours|jamais)\b|\bdésormais\b|\bdorénavant\b|\bà l['’]avenir\b|\bà partir de maintenant\b"
        r"|\b(?:réponds|parle|écris)\b.{0,20}\ben (?:français|anglais|chinois)\b"
        r"|我(?:需要|要|想要)的是|越(?:详细|詳細|简单|簡單|短|具体|具體)越好|不要(?:太)?(?:宏观|宏觀|笼统|籠統)|"
        r"我(?:更)?喜欢|我(?:更)?喜歡|我偏好|我习惯|我習慣|我讨厌|我討厭|总是|總是|永远|永遠|一律|以后|以後|今后|今後"
        r"|从现在开始|從現在開始|每次都|用中文|用英文|用繁體|用简体", _I)),
    ("fact", re.compile(
        r"\bmy (?:git |github |gitlab )?(?:name|email|role|job|team|company|project|repo|repository|stack|os|timezone|server|domain|boss|manager)\b"
        r"|\bi(?:'m| am) (?:a|an|the|working on|using|based in|responsible)\b|\bi work (?:at|on|for|with|in)\b"
        r"|\bour (?:project|app|repo|stack|team|server|database|db|api|codebase|company|product|customers?|clients?)\b"
        r"|\bthe (?:project|repo|app|server|database|api) (?:is|uses|runs|lives)\b|\bwe use\b|\bcall me\b"
        r"|\byour name (?:is|will be|shall be)\b|\bi(?:'ll| will| want to) call you\b|\bton nom (?:est|sera)\b|\bje t['’]appellerai\b"
        r"|\b(?:is|are) (?:located|stored|deployed|hosted) (?:in|at|on)\b|\bthis is the (?:path|folder|directory|url)\b"
        r"|\bje (?:suis|m['’]appelle|travaille)\b|\bmon (?:nom|projet|rôle|serveur|équipe|dépôt|entreprise)\b"
        r"|\bnotre (?:projet|équipe|serveur|base|application|dépôt|api|entreprise|client)\b|\bappelle-moi\b|\bon utilise\b"
        r"|我叫|我是|叫我|你的名字(?:是|叫)|以后叫你|就叫你|我的(?:名字|项目|項目|公司|工厂|工廠|团队|團隊|服务器|伺服器|邮箱|郵箱|客户|客戶)"
        r"|我们的|我們的|我们公司|我們公司|项目(?:是|用|在)|項目(?:是|用|在)|路径(?:是|为)|路徑(?:是|為)", _I)),
    ("error", re.compile(
        r"\b(?:doesn'?t|does not|didn'?t|did not|isn'?t|is not|won'?t|still not|not) work(?:ing)?\b"
        r"|\b(?:it|this|that|the \w+) (?:still )?(?:fails|crashes|breaks|is broken)\b|\bi (?:get|got|see|am getting) (?:an |the |this |a )?error\b"
        r"|\bne (?:marche|fonctionne) (?:pas|plus)\b|\bça plante\b|\bj['’]ai (?:une|des) erreurs?\b"
        r"|报错|報錯|出错|出錯|失败了|失敗了|不能用|没反应|沒反應|打不开|打不開|崩溃|崩潰|有问题|有問題", _I)),
)

_REMEMBER_LEAD = re.compile(
    r"^(?:please\s+)?(?:remember|note|keep in mind|don'?t forget)(?:\s+that)?[\s:,-]+"
    r"|^(?:n['’]oublie pas|souviens-toi|rappelle-toi|retiens)(?:\s+(?:que|qu['’]|de))?[\s:,-]*"
    r"|^(?:请|請)?(?:记住|記住|别忘了|別忘了|记得|記得)[\s:：，,]*", _I)


_FENCED = re.compile(r"```.*?(?:```|$)", re.S)
_ENUMERATOR = re.compile(r"^(?:[-*•>]+|\(?\d{1,2}[.)、](?!\d)|[a-z]\)|[一二三四五六七八九十]+、)\s*")


def _sentences(text: str) -> Iterable[str]:
    for part in _SENTENCE_END.split(text):
        if "\t" in part:
            continue  # a row of pasted table data, not a statement
        part = _ENUMERATOR.sub("", one_line(part))
        if part:
            yield part


def _worth_a_look(sentence: str) -> bool:
    """Plausible prose: not too short, not pasted data or code, not a question."""
    cjk = len(CJK.findall(sentence))
    if len(sentence) > 400 or (cjk < 4 and len(sentence) < 10):
        return False
    if sentence.endswith(("?", "？")) or "```" in sentence:
        return False
    return len(_CODEY.findall(sentence)) <= max(3, len(sentence) // 12)


def classify(sentence: str) -> SignalKind | None:
    """The kind of signal a sentence carries, or None (first matching kind wins)."""
    for kind, pattern in _PATTERNS:
        if pattern.search(sentence):
            return kind
    return None


def markers(sentence: str) -> tuple[str, ...]:
    """The names of every rule pattern ``sentence`` matches: the signal kinds, and the exchange cues
    (an acceptance, a proposal, a cause, a problem). The learned scorer reads them as features."""
    found = [kind for kind, pattern in _PATTERNS if pattern.search(sentence)]
    cues = (("accept", _ACCEPT.match(one_line(sentence))), ("proposal", _PROPOSAL.search(sentence)),
            ("cause", _CAUSE.search(sentence)), ("root-cause", _ROOT_CAUSE.search(sentence)),
            ("problem", _PROBLEM.search(sentence)), ("because", _BECAUSE.search(sentence)))
    return (*found, *(name for name, hit in cues if hit))


def explains(sentence: str) -> bool:
    """Whether ``sentence`` gives a reason or names a fix ("because", "caused by", "the fix was", 因为, weil...)."""
    return _BECAUSE.search(sentence) is not None


def marker_sources() -> tuple[str, ...]:
    """The source of every pattern ``markers`` reads: a change to one of them changes the scorer's feature spec."""
    return (*(p.pattern for _, p in _PATTERNS), _ACCEPT.pattern, _PROPOSAL.pattern, _CAUSE.pattern,
            _ROOT_CAUSE.pattern, _PROBLEM.pattern, _BECAUSE.pattern)


def _signal_text(kind: SignalKind, sentence: str) -> str:
    if kind == "remember":
        rest = _REMEMBER_LEAD.sub("", sentence, count=1).strip()
        if len(rest) >= 6:
            sentence = rest[0].upper() + rest[1:]
    return clip(sentence, 300)


# A whole user turn that accepts what the assistant just proposed.
_ACCEPT = re.compile(
    r"^(?:ok(?:ay)?,? )?(?:i agree|agreed|yes|yep|sure|sounds good|go (?:for it|ahead)|do it|perfect|great|makes sense"
    r"|let'?s do (?:it|that)|fine|d['’]accord|oui|ça marche|parfait|vas-y|on fait (?:ça|comme ça)"
    r"|同意|好的?|可以|没问题|沒問題|就这样|就這樣|行|就按(?:你说的|你說的|这个|這個)(?:来|來|做)?)(?:[,，]? ?(?:thanks|thank you|谢谢|謝謝|merci))?[.!。！ ]*$", re.I)
# The line of an assistant's answer that carries its proposal.
_PROPOSAL = re.compile(
    r"\b(?:my )?recommend(?:ation|ed)?\b|\bi (?:suggest|propose|would go with)\b|\bmy suggestion\b|\bthe best option is\b"
    r"|\bje (?:recommande|propose|suggère)\b|\bma recommandation\b|建议|建議|推荐|推薦|我的方案", re.I)
# The line of an assistant's answer that names the cause it found.
_CAUSE = re.compile(
    r"\bthe (?:issue|problem|bug|cause) (?:is|was)\b|\bcaused by\b"
    r"|\bla cause\b|\ble problème (?:est|était|vient)\b|根本原因|原因是|问题在于|問題在於|问题出在|問題出在", re.I)
_ROOT_CAUSE = re.compile(r"\broot cause\b|\bcause (?:racine|première)\b|根本原因|根因", re.I)
_PROBLEM = re.compile(r"\b(?:error|exception|fails?|failed|crash(?:es)?|broken|not (?:\w+ed|working|created|saved|shown))\b"
                      r"|\berreur\b|报错|報錯|错误|錯誤|失败|失敗|异常|異常", re.I)
# How a statement gives a reason or a fix, in the grammar words of each language (no topic word): what
# makes an explanation of a confirmed fix (``candidates.fix_explanations``) a lesson.
_BECAUSE = re.compile(
    r"\b(?:because|caused by|due to|the (?:issue|problem|bug|cause|error|failure) (?:is|was)|fixed (?:it|this|that|by)"
    r"|fixes (?:it|this|that)|that'?s why|which is why|the fix (?:is|was)|(?:it|this) (?:failed|broke) (?:since|as))\b"
    r"|\b(?:parce que?|à cause d|dû à|la cause|corrigé en|porque|debido a|la causa|se arregl[óa]|weil|wegen|verursacht"
    r"|behoben|daran,? dass|потому что|из-за|причина|исправ\w+)\b"
    r"|因为|因為|由于|由於|导致|導致|原因|所以|修复了|修復了|ため|原因は|ので|때문", re.I)
_MARKUP = re.compile(r"[*#`>_]+|^\s*[-•]\s*")


def _plain_line(line: str) -> str:
    return one_line(_MARKUP.sub(" ", line)).strip(" :-—")


def _line_after(text: str, pattern: re.Pattern[str]) -> str | None:
    """The first line of ``text`` matching ``pattern``, with the next line when it only heads it."""
    lines = [ln for ln in text.splitlines() if ln.strip()]
    for n, line in enumerate(lines):
        if pattern.search(line):
            plain = _plain_line(line)
            if len(plain) < 30 and n + 1 < len(lines):  # a heading: its content is the next line
                plain = f"{plain}: {_plain_line(lines[n + 1])}"
            return plain if len(plain) >= 12 else None
    return None


def _candidates(events: Iterable[Event]) -> Iterable[tuple[Event, str, SignalKind]]:
    """(event, sentence, kind) of every signal sentence in the user's own words, in order."""
    for e in events:
        if not is_own_words(e):
            continue
        prose = _FENCED.sub("\n", e.text[:8000])  # pasted code is not a statement
        for sentence in _sentences(prose):
            if _worth_a_look(sentence) and (kind := classify(sentence)) is not None:
                yield e, sentence, kind


def _cause(answers: Sequence[str]) -> str | None:
    """The cause the assistant named in its answers, a "root cause" line first."""
    for pattern in (_ROOT_CAUSE, _CAUSE):
        for text in answers:
            if found := _line_after(text, pattern):
                return found
    return None


def _exchanges(events: Sequence[Event]) -> Iterable[Signal]:
    """Signals of an exchange: a proposal the user accepts, a problem the user reports with the cause found."""
    answers: list[str] = []
    problem: tuple[Event, str] | None = None
    for e in [*events, Event(0, "user", "", None)]:  # a last empty turn closes the last exchange
        if e.sidechain or e.meta:
            continue
        if e.role == "assistant":
            answers.append(e.text)
        elif e.role == "user":
            if problem is not None and (cause := _cause(answers)):
                yield Signal(clip(f"{problem[1]} — {cause}", 300), "error", problem[0].line, True, 0.75)
            problem = None
            said = one_line(e.text)
            if _ACCEPT.match(said) and answers and (proposal := _line_after(answers[-1], _PROPOSAL)):
                yield Signal(clip(proposal, 300), "decision", e.line, True, 0.75)
            elif _PROBLEM.search(said) and (len(said) >= 20 or len(CJK.findall(said)) >= 6):
                problem = (e, placement.concise(said, 100))   # a statement, never cut inside a word
            answers = []


def find_signals(events: Iterable[Event]) -> tuple[Signal, ...]:
    """Signals in the user's own words (meta and sidechain events are skipped), each judged durable or not.

    A transient signal (scoped to now, task-local) is kept for the episode
    but marked ``durable=False``; an instruction the user repeats, a
    proposal the user accepts and a reported problem with the cause the
    assistant found are durable.
    """
    events = list(events)
    found = list(_candidates(events))
    said = Counter(_key(sentence) for _, sentence, _ in found)
    out: list[Signal] = []
    seen: set[str] = set()
    for e, sentence, kind in found:
        text = _signal_text(kind, sentence)
        if text.casefold() in seen:
            continue
        seen.add(text.casefold())
        repeated = said[_key(sentence)] > 1
        durable = durability.judge(sentence, kind, repeated) == "durable"
        out.append(Signal(text, kind, e.line, durable, durability.floor(sentence, kind, repeated) if durable else 0.0))
    out += _repeats(events, {_key(s) for _, s, _ in found})
    for sig in _exchanges(events):
        if sig.text.casefold() not in seen:
            seen.add(sig.text.casefold())
            out.append(sig)
    out.sort(key=lambda s: s.line)
    return tuple(out[:MAX_SIGNALS])


def _key(sentence: str) -> str:
    return " ".join(sentence.casefold().split()).rstrip(".!。！")


def _repeats(events: Sequence[Event], known: set[str]) -> list[Signal]:
    """An instruction the user gave in more than one turn, unclassified by form: durable by repetition."""
    turns: dict[str, tuple[str, list[int]]] = {}
    for e in events:
        if not is_own_words(e):
            continue
        for sentence in _sentences(_FENCED.sub("\n", e.text[:8000])):
            wordy = len(sentence.split()) >= 3 or len(CJK.findall(sentence)) >= 6
            if _worth_a_look(sentence) and wordy and not durability.is_scoped_now(sentence):
                turns.setdefault(_key(sentence), (sentence, []))[1].append(e.line)
    return [Signal(clip(first, 300), "correction", lines[0], True, 0.85)
            for key, (first, lines) in turns.items() if len(set(lines)) > 1 and key not in known]


def repeated_across(signals: Sequence[Signal], earlier: Sequence[str]) -> tuple[Signal, ...]:
    """``signals`` with each transient correction that repeats one of ``earlier`` sessions made durable.

    A correction given once is a step of the task; the same correction in
    another session is how the person wants the agent to work. A hedge
    scoped to now still keeps it transient.
    """
    from dataclasses import replace

    from gitmem.engines import similarity

    def again(s: Signal) -> bool:
        return (s.kind == "correction" and not s.durable and not durability.is_scoped_now(s.text)
                and any(similarity.is_duplicate(s.text, old) for old in earlier))

    return tuple(replace(s, durable=True, floor=0.85) if again(s) else s for s in signals)
