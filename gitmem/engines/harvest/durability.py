"""Durability: whether a signal is worth keeping after the session, and how strongly.

A sentence's form says what kind of signal it is (``signals.classify``); this
module says whether it outlives the session. A hedge scoped to now ("for now",
"this time", 先不用, "pour l'instant") or a reference to something only the
session holds ("this function", "the output above", 上面) marks a transient
instruction: it stays in the episode, it does not become a memory. An
explicit marker ("remember", "always", "never", "from now on", "every time",
以后, 千万, désormais) or a repetition within the session marks a durable one,
and so do the kinds that are durable by nature: a stated preference, a
decision, a fact about the person or the project. A correction or a reported
error on its own is a step of the task, not a lesson.

English, French and Chinese, as the user text of real sessions holds them.
"""

from __future__ import annotations

import re
from typing import Literal

__all__ = ["Verdict", "floor", "is_scoped_now", "is_transient", "judge", "pattern_sources", "says_it_lasts", "strong_marker", "task_local"]

Verdict = Literal["durable", "transient"]

_I = re.IGNORECASE

# Scoped to now whatever else the sentence says ("never use tts for now" is still for now).
_SCOPED_NOW = re.compile(
    r"\bfor (?:now|the moment|the time being|this (?:task|session|one|time|pr|ticket|run))\b|\bthis time\b"
    r"|\bjust (?:this )?once\b|\bfor today\b|\buntil (?:further notice|i say otherwise|tomorrow)\b|\btemporar(?:y|ily)\b"
    r"|\bpour (?:l['’]instant|le moment|cette (?:fois|tâche|session)|aujourd['’]hui)\b|\bcette fois\b|\bprovisoirement\b"
    r"|\btemporairement\b|先不用|先不要|先不着急|先不急|暂时|暫時|这次|這次|这一次|這一次|本次|临时|臨時|今天先", _I)

# A reference to something only this session holds; a durable marker outweighs it.
_TASK_LOCAL = re.compile(
    r"\b(?:this|that|these|those) (?:function|file|line|method|class|test|output|error|page|bug|change|commit|step"
    r"|section|paragraph|table|snippet|cell|variable|component|screenshot|image|link|message)s?\b"
    r"|\b(?:the )?(?:output|code|text|table|answer|list|result|message|example) above\b|\babove\b|\bon line \d+|\bin line \d+"
    r"|\b(?:today|right now|at the moment|currently)\b|\b(?:output|print|show|do|write|run) (?:\w+ ){0,4}first\b"
    r"|\b(?:undo|revert|redo|fix|change|remove|delete|move|rename) (?:it|that|this|them)\b"
    r"|\b(?:that'?s|that is|this is|it'?s) (?:wrong|incorrect|not (?:right|correct|what))\b|\bnot what i (?:asked|wanted|meant)\b"
    r"|\bci-dessus\b|\bce (?:fichier|message|tableau|code)\b|\bcette (?:fonction|ligne|page|erreur|étape)\b|\baujourd['’]hui\b"
    r"|\ben ce moment\b|\bd['’]abord\b"
    r"|现在|現在|目前|今天|刚才|剛才|上面|下面|这里|這裡|这个(?:文件|函数|页面|错误|表格|图片)|這個(?:檔案|函數|頁面|錯誤|表格|圖片)"
    r"|这一步|這一步|先(?:输出|輸出|做|写|寫|给|給|看)", _I)

# Explicit markers of a lasting rule.
_DURABLE = re.compile(
    r"\b(?:remember|remeber|remmeber|rember|rememeber|always|never|from now on|going forward|every ?time|each time|in (?:the )?future|by default"
    r"|whenever|as a rule|from here on|in every (?:project|session|answer|reply))\b"
    r"|\b(?:toujours|jamais|désormais|dorénavant|à l['’]avenir|chaque fois|à partir de maintenant|par défaut)\b"
    r"|记住|記住|总是|總是|永远|永遠|以后|以後|今后|今後|从现在开始|從現在開始|每次|一律|千万|千萬|务必|務必|始终|始終|默认|默認", _I)

_UNSURE = re.compile(r"\bi (?:don'?t|do not) know\b|\bnot sure\b|\bje ne sais pas\b|不知道|不确定|不確定|找不到", _I)


def pattern_sources() -> tuple[str, ...]:
    """The source of every pattern here: a change to one of them changes the scorer's feature spec."""
    return _SCOPED_NOW.pattern, _TASK_LOCAL.pattern, _DURABLE.pattern, _UNSURE.pattern


def strong_marker(sentence: str) -> bool:
    """Whether ``sentence`` says outright that it is a lasting rule ("always", "from now on", 以后 …)."""
    return _DURABLE.search(sentence) is not None


# What ``says_it_lasts`` leaves out before reading ``_DURABLE``: the words of memory (a request to remember is
# told by its place, ``scorer.outright``; "I remember when..." is none), and "always"/"never" said of oneself
# ("I've never really had a reason", "I always wanted"): a story, not a rule for the agent.
_NOT_A_RULE = re.compile(
    r"\b(?:remember|remeber|remmeber|rember|rememeber)\b|记住|記住"
    r"|\b(?:i|we)(?:'ve|'d|'m| have| had| am| was| were)?(?: \w+)? (?:always|never)\b", _I)


def says_it_lasts(sentence: str) -> bool:
    """Whether ``sentence`` says outright that it is a lasting rule for the agent ("always answer in French",
    "from now on", 以后): ``strong_marker`` without the words of memory and without "always"/"never" said of
    oneself. Such a rule signal stands without the scorer's confirmation."""
    return strong_marker(_NOT_A_RULE.sub(" ", sentence))


def task_local(sentence: str) -> bool:
    """Whether ``sentence`` points at something only the session holds ("this function", 上面 …)."""
    return _TASK_LOCAL.search(sentence) is not None


def is_scoped_now(sentence: str) -> bool:
    """Whether ``sentence`` carries a hedge scoped to now ("for now", "this time", 先不用, "pour l'instant")."""
    return _SCOPED_NOW.search(sentence) is not None


def is_transient(sentence: str) -> bool:
    """Whether ``sentence`` is scoped to now: a hedge ("for now") or a task-local reference without a durable marker."""
    if _SCOPED_NOW.search(sentence):
        return True
    return task_local(sentence) and not strong_marker(sentence)


def judge(sentence: str, kind: str, repeated: bool = False) -> Verdict:
    """Whether a signal of ``kind`` outlives its session.

    ``repeated``: the user said it more than once in the session, which makes
    an instruction durable unless it is scoped to now.
    """
    if _SCOPED_NOW.search(sentence):
        return "transient"
    if repeated or kind == "remember" or strong_marker(sentence):
        return "durable"
    if task_local(sentence) or _UNSURE.search(sentence):
        return "transient"
    # A reported error alone is a step of the task (a fix pairs it with its cause: see signals).
    return "transient" if kind == "error" else "durable"


def floor(sentence: str, kind: str, repeated: bool = False) -> float:
    """The lowest importance a durable signal is created at: explicit rules rank with what was asked to be kept."""
    if kind == "remember":
        return 0.9
    if repeated or strong_marker(sentence):
        return 0.85
    if kind in ("preference", "decision", "correction", "error"):
        return 0.75
    return 0.0
