"""Cue words of what lasts, in the languages real sessions are written in: features of the harvest scorer.

The rule signals (``signals``) read English, French and Chinese, and make
memories of what they match. These cues make none: each is one binary
feature of ``featurize`` (alone and joined with the speaker), whose weight
the scorer learns from the labelled corpus. They cover the languages of
its sessions beyond the rules' three (Spanish, German, Russian, Portuguese,
Italian, Indonesian, Vietnamese, Japanese, Korean) and the shapes the rules
lack in every language:

- ``remember``: a request to remember or note something ("merk dir",
  "guárdalo en memoria", запомни, 记一下);
- ``durable``: words that make a statement last ("siempre", "ab jetzt",
  впредь, 每次, 默认, 务必);
- ``prefer``: a wish about how the agent works ("prefiero", "ich möchte",
  我希望, してほしい);
- ``decide``: a choice made ("usemos", "wir nehmen", решили, 统一用);
- ``fact``: where something lives or what is used ("liegt unter",
  находится, 位于, 端口, "listens on");
- ``saved``: the assistant says it wrote a rule or a fact down
  ("Regla nueva grabada", gespeichert, 已记录, MEMORY.md), which follows a
  durable item the user gave;
- ``rule``: the word rule or policy itself (regla, Regel, 规则, ルール);
- ``chatter``: progress talk at the start of a statement ("let me",
  "voy a", "lass mich", 现在让我, まず), which is almost never kept;
- ``cause``: a reason given (porque, weil, потому что, 因为, 导致, 坑).

A cue is searched in the statement's first ``featurize.MAX_CHARS``
characters; a change to a pattern changes the feature spec (``sources``).
"""

from __future__ import annotations

import re

__all__ = ["CUES", "cues", "sources"]

_I = re.IGNORECASE
CUES: tuple[tuple[str, re.Pattern[str]], ...] = (
    ("remember", re.compile(
        r"\b(?:recu[eé]rda(?:lo|me)?|acu[eé]rdate|no (?:te )?olvides|gu[aá]rd[ae](?:lo)? (?:eso |esto )?en (?:tu |la )?memo\w*"
        r"|an[oó]ta(?:lo)?|ap[uú]nta(?:lo)?|merke?\s*dir|vergiss nicht|nicht vergessen|speicher[en]? (?:das|dies|es)"
        r"|notiere?\s*(?:dir)?|im gedächtnis|запомни|не забудь|сохрани в памят|lembre(?:-se)?|não esqueça|guarde na memória"
        r"|ricorda(?:ti)?|non dimenticare|onthoud|zapamiętaj|ingat|jangan lupa|nhớ)"
        r"|覚えて|忘れないで|기억해|잊지 마|记一下|记录下来|記錄下來|写进记忆|寫進記憶|存到记忆|加入记忆|更新记忆|写入memory|写到memory", _I)),
    ("durable", re.compile(
        r"\b(?:siempre|nunca|jamás|a partir de ahora|de ahora en adelante|en adelante|en el futuro|cada vez que|por defecto"
        r"|immer|niemals|nie|ab (?:jetzt|sofort)|künftig|zukünftig|in zukunft|jedes mal|standardmäßig|grundsätzlich"
        r"|всегда|никогда|впредь|с этого момента|в будущем|каждый раз|по умолчанию"
        r"|sempre|daqui (?:em|pra) diante|a partir de agora|d'ora in poi|selalu|jangan pernah|mulai sekarang"
        r"|luôn luôn|không bao giờ|always|never|from now on|going forward|by default|every time|each time|whenever"
        r"|in future)\b"
        r"|いつも|常に|絶対に|今後|これから|항상|절대|앞으로|每次|每当|默认|默認|务必|務必|必须|必須|始终|始終|一直|禁止|不许|不許"
        r"|千万别|千萬別", _I)),
    ("prefer", re.compile(
        r"\b(?:prefiero|me gusta|no me gusta|quiero que|odio|prefiro|ich (?:möchte|will|mag|bevorzuge|hasse)"
        r"|mir ist wichtig|bitte (?:immer|nie|keine?)|я (?:предпочитаю|хочу чтобы|люблю|не люблю)|мне нравится"
        r"|пожалуйста,? не|eu prefiro|gosto de|preferisco|voglio che|saya (?:suka|mau|ingin)|tôi muốn)\b"
        r"|希望你|我希望|我想要|请你|請你|我要你|不要再|别再|別再|说中文|說中文|中文回复|中文回覆|中文回答|好き|嫌い|してほしい"
        r"|좋아해|싫어", _I)),
    ("decide", re.compile(
        r"\b(?:vamos a usar|usemos|usaremos|decid(?:í|imos)|nos quedamos con|unifiquemos|wir (?:nehmen|verwenden|nutzen"
        r"|bleiben bei)|entschieden|lass uns|давай(?:те)? (?:использовать|оставим)|решили|будем использовать|vamos usar"
        r"|decidimos|usiamo|abbiamo deciso|kita pakai|chúng ta dùng|we(?:'ll| will)? (?:go with|use|keep)"
        r"|let'?s (?:use|go with|keep)|decided|going with)\b"
        r"|就这样|就這樣|那就|改成|换成|換成|统一用|統一用|以.{1,8}为准|以.{1,8}為準|方案[一二三ABC]", _I)),
    ("fact", re.compile(
        r"\b(?:está en|vive en|se encuentra en|usamos|nuestro (?:proyecto|servidor|repo)"
        r"|mi (?:nombre|correo|zona horaria|servidor|proyecto)|liegt (?:in|unter)|befindet sich|wir (?:nutzen|verwenden)"
        r"|unsere?\s*(?:projekt|server|repo)|meine?\s*(?:name|email|zeitzone|server|projekt)|находится|лежит в"
        r"|мы используем|наш (?:проект|сервер)|меня зовут|мой (?:сервер|проект)|fica em|nosso (?:projeto|servidor)"
        r"|meu nome|si trova|il mio nome|lives (?:in|under|at)|is located|runs on|is deployed|listens on|port \d+"
        r"|version \d)\b"
        r"|位于|位於|在.{0,10}目录|目录是|目錄是|路径|路徑|端口|版本|部署在|放在|地址是|账号|帳號|配置在|配置文件", _I)),
    ("saved", re.compile(
        r"\b(?:guardad[oa]|grabad[oa]|anotad[oa]|registrad[oa]|gespeichert|notiert|dokumentiert|сохранен[оа]?|записал"
        r"|запомнил|salvo|memorizzato|tersimpan|đã lưu|saved (?:to|in) (?:memory|memory\.md|agents\.md|user\.md|soul\.md)"
        r"|noted|i(?:'ll| will) remember|added to (?:memory|memory\.md|agents\.md|user\.md))\b"
        r"|已记录|已記錄|已保存|已经记下|已經記下|记住了|記住了|已更新.{0,6}(?:记忆|記憶|memory)|写入.{0,6}(?:记忆|記憶|memory)"
        r"|記憶しました|기억했|메모했|(?:memory|agents|user|soul|tools)\.md", _I)),
    ("rule", re.compile(
        r"\b(?:regla|norma|regel|правило|regra|regola|aturan|quy tắc|rule|policy|convention|guideline)s?\b"
        r"|规则|規則|原则|原則|约定|約定|规范|規範|ルール|규칙", _I)),
    ("chatter", re.compile(
        r"^\W*(?:(?:now )?let me|now i(?:'ll| will)|i(?:'ll| will) (?:now |first )?(?:check|look|run|read|create|update"
        r"|start|try)|next,? i|first,? i|ahora (?:voy|vamos)|voy a|d[eé]jame|jetzt (?:prüfe|schaue|teste)"
        r"|ich (?:prüfe|schaue|werde jetzt)|lass mich|сейчас (?:проверю|посмотрю)|давай(?:те)? (?:я |посмотрим|проверим)"
        r"|проверю|vou |deixa eu|ora (?:controllo|verifico)|sekarang saya)"
        r"|^\W*(?:现在让我|让我|讓我|我来|我來|我先|接下来|接下來|现在我|現在我|好的，?我|好，?我|下面|然后我|然後我|まず|次に)", _I)),
    ("cause", re.compile(
        r"\b(?:porque|causa|debido a|weil|da |ursache|liegt daran|потому что|причина|из-за|porquê|perché|karena|vì)\b"
        r"|因为|因為|原因|导致|導致|所以|是由于|問題是|问题是|坑", _I)),
)


def cues(text: str) -> list[str]:
    """The names of the cues ``text`` holds, in ``CUES`` order."""
    return [name for name, pattern in CUES if pattern.search(text)]


def sources() -> tuple[str, ...]:
    """Every cue's pattern: part of the scorer's feature spec."""
    return tuple(f"{name}={pattern.pattern}" for name, pattern in CUES)
