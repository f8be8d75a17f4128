"""A person's explicit "keep this for later": each one is a like (+10 priority).

A like is a request addressed to the agent to keep *this* for later use (the
seed's "记下来以后用"), never a statement about memory ("I can't remember", "do
you remember this?") and never an instruction about a file ("save this file").
It is read the same way in every language of the table below, the 20 most
spoken (English, Mandarin, Hindi, Spanish, French, Arabic, Bengali, Portuguese,
Russian, Urdu, Indonesian/Malay, German, Japanese, Nigerian Pidgin, Marathi,
Telugu, Turkish, Tamil, Cantonese, Vietnamese) and Korean, Italian, Persian,
Polish, Thai, Ukrainian, Dutch and Swahili:

- a *request*: the imperative of remember, keep, save or note with "this" or
  "it" as its object, ending its clause ("save this." counts, "save this file"
  does not) or followed by "for later" in its language;
- a *phrase* that is a like on its own ("worth keeping", "留着以后用");
- *not negated*: no negation or memory question ("don't", "can't", "do you",
  "不要", "не", "không", …) among the three words (or, in a script without
  spaces, the eight characters) before it, within its clause.

A language outside the table, or a person who would rather say so in so many
words, has the language-free path: ``gitmem sediment like ID`` (and the MCP
tool ``sediment_like``). An agent's own words never count.
"""

from __future__ import annotations

import re
import unicodedata
from dataclasses import dataclass


@dataclass(frozen=True)
class Language:
    """One language's requests (regular expressions, lowercase), its "for later" words and its lone phrases."""

    requests: tuple[str, ...]
    later: tuple[str, ...] = ()
    phrases: tuple[str, ...] = ()
    spaced: bool = True          # words are separated by spaces (else: no word boundaries are looked for)


_THIS = r"(?:this|that|it)(?: one| bit| info| down)?"
_KEPT = r"(?:this|that)(?: one| bit| info)?"          # "save it", "keep it" say more often what to do with a file
LANGUAGES: dict[str, Language] = {
    "en": Language(
        (rf"keep {_THIS} in mind", rf"(?:note|write|jot) {_THIS} down", rf"make a note of {_THIS}",   # the longer
         rf"don'?t forget {_THIS}", rf"do not forget {_THIS}",                                        # ones first
         rf"(?:please )?(?:remember|memori[sz]e|note|bookmark) {_THIS}", rf"(?:please )?(?:save|store|keep|stash) {_KEPT}"),
        ("for later", "for next time", "for the future", "for future use", "for future reference", "later"),
        ("worth keeping", "we(?:'ll| will) (?:want|need) this again", "use this again next time")),
    "pcm": Language((r"remember (?:dis|am)(?: one)?", r"keep (?:dis|am)(?: one)?", r"save (?:dis|am)(?: one)?",
                     r"hold (?:dis|am)(?: one)?", r"no forget (?:dis|am)(?: one)?", r"write (?:dis|am) down"),
                    ("for later", "for next time")),
    "zh": Language((r"(?:记住|記住)(?:这|這)(?:个|個|一点|一點|点|點|些)?", r"(?:记|記)(?:一下|下来|下來)",
                    r"(?:这个|這個|这些|這些|这|這|它)(?:先)?(?:保存|存|留)(?:下来|下來|起来|起來)",
                    r"(?:记录|記錄)(?:下来|下來|一下)",
                    r"(?:别|別|不要)忘(?:了|记|記)这(?:个|一点)?", r"(?:别|別|不要)忘(?:了|记|記)這(?:個|一點)?"),
                   ("以后用", "以後用", "以后再用", "以後再用", "下次用", "备用", "備用", "以后", "以後"),
                   ("留着以后用", "留著以後用", "以后用得上", "以後用得上", "以后用得着", "以後用得著"), spaced=False),
    "yue": Language((r"記住(?:呢個|佢)", r"记住(?:呢个|佢)", r"記低(?:佢|呢個)?", r"记低(?:佢|呢个)?",
                     r"唔好唔記得(?:呢個)?", r"留返(?:嚟|起)?"),
                    ("遲啲用", "迟啲用", "下次用"), ("留返遲啲用", "留返嚟遲啲用"), spaced=False),
    "hi": Language((r"(?:इसे|इसको|यह|ये) याद रख(?:ो|ना|ें|िए|िये|ना जी)", r"याद रख(?:ना|िए|िये|ें)",
                    r"(?:इसे|इसको|यह|ये) (?:सेव|सहेज|नोट|लिख)(?: कर)?(?: लो| लें| लीजिए| लेना| करो| करें| कर लो)",
                    r"(?:इसे|इसको|यह|ये) (?:बचा|संभाल)(?:कर)? (?:रखो|रखना|रखें)", r"(?:इसे|यह|ये) भूलना मत",
                    r"मत भूलना"),
                   ("बाद के लिए", "बाद में काम आएगा")),
    "ur": Language((r"(?:اسے|اس کو|یہ) یاد رکھ(?:و|نا|یں|یے)", r"یاد رکھ(?:نا|یں|یے)",
                    r"(?:اسے|اس کو|یہ) (?:محفوظ|نوٹ|سیو)(?: کر)?(?: لو| لیں| کرو| کریں| کر لو)",
                    r"(?:اسے|یہ) بھولنا مت", r"مت بھولنا"),
                   ("بعد کے لیے", "بعد کے لئے")),
    "bn": Language((r"(?:এটা|এটি|এই কথাটা) মনে রে?খ(?:ো|ুন|বেন|িও)", r"মনে রাখ(?:ো|ুন|বেন)",
                    r"(?:এটা|এটি) (?:সেভ|নোট|লিখে|সংরক্ষণ)(?: করে)? (?:রাখো|রাখুন|করো|করুন)",
                    r"(?:এটা|এটি) ভুলো না", r"ভুলবেন না"),
                   ("পরে ব্যবহারের জন্য", "পরের জন্য", "পরে কাজে লাগবে")),
    "mr": Language((r"(?:हे|ही|हा) लक्षात ठेव(?:ा|शील)?", r"लक्षात ठेवा",
                    r"(?:हे|ही|हा) (?:सेव्ह|सेव|नोंद|लिहून)(?: करून)? (?:ठेव|ठेवा|कर|करा)", r"(?:हे )?विसरू नको",
                    r"विसरू नका"),
                   ("नंतरसाठी", "नंतर वापरायला")),
    "te": Language((r"(?:ఇది|దీన్ని|దీనిని) గుర్తుంచుకో(?:ండి)?", r"గుర్తుంచుకోండి", r"గుర్తు పెట్టుకో(?:ండి)?",
                    r"(?:ఇది|దీన్ని|దీనిని) (?:సేవ్|నోట్|రాసి)(?: చేసి)? (?:చెయ్యి|చేయండి|చేసుకో|చేసుకోండి|పెట్టుకో|పెట్టుకోండి)",
                    r"(?:ఇది|దీన్ని) మర్చిపోవద్దు", r"మర్చిపోకండి"),
                   ("తర్వాత కోసం", "తర్వాత వాడటానికి")),
    "ta": Language((r"(?:இதை|இது) நினைவில் வை(?:த்துக்கொள்(?:ளுங்கள்)?|யுங்கள்)?",
                    r"நினைவில் வைத்துக்கொள்(?:ளுங்கள்)?", r"(?:இதை|இதைக்) (?:சேமி(?:க்கவும்)?|குறித்துக்கொள்(?:ளுங்கள்)?)",
                    r"(?:இதை )?மறக்காதே", r"மறக்காதீர்கள்"),
                   ("பின்னர் பயன்படுத்த", "பிறகு பயன்படுத்த", "பின்னர்க்கு")),
    "es": Language((r"(?:recuerda|recuerde|recordad|memoriza|memorice|guarda|guarde|guardad|anota|anote|apunta|apunte)"
                    r" (?:esto|eso)", r"(?:guárdalo|guardalo|anótalo|anotalo|apúntalo|apuntalo|recuérdalo|recuerdalo)",
                    r"no (?:olvides|olvide|olvidéis) (?:esto|eso)", r"ten(?:lo| esto) en cuenta"),
                   ("para después", "para despues", "para más tarde", "para mas tarde", "para la próxima",
                    "para la proxima", "para luego")),
    "pt": Language((r"(?:lembra|lembre|lembre-se|memoriza|memorize|guarda|guarde|salva|salve|anota|anote)"
                    r" (?:isto|isso|disso|disto)(?: aqui)?", r"(?:guarda|guarde|anota|anote|salva|salve)-?o",
                    r"não (?:esqueça|esquece|esqueças) (?:disso|disto|isso)", r"nao (?:esqueca|esquece) (?:disso|isso)"),
                   ("pra depois", "para depois", "para mais tarde", "para a próxima", "para a proxima")),
    "fr": Language((r"(?:retiens|retenez|mémorise|memorise|mémorisez|memorisez|garde|gardez|sauvegarde|sauvegardez"
                    r"|enregistre|enregistrez|note|notez) (?:ça|ca|cela|ceci)",
                    r"(?:note|notez|garde|gardez|retiens|retenez)-le", r"souviens-toi de (?:ça|ca|cela)",
                    r"souvenez-vous de (?:ça|ca|cela)", r"n'oublie pas (?:ça|ca|cela)"),
                   ("pour plus tard", "pour la prochaine fois", "pour la suite"), ("à garder pour plus tard",
                                                                                   "a garder pour plus tard")),
    "it": Language((r"(?:ricorda|ricordati|memorizza|salva|conserva|annota|segna|tieni)(?: di)? (?:questo|questa cosa)",
                    r"(?:salvalo|annotalo|segnatelo|ricordatelo|tienilo a mente)", r"prendi nota",
                    r"non dimenticare (?:questo|questa cosa)"),
                   ("per dopo", "per più tardi", "per piu tardi", "per la prossima volta")),
    "de": Language((r"merk(?:e)? dir (?:das|dies)", r"merken sie sich (?:das|dies)", r"merkt euch (?:das|dies)",
                    r"(?:behalte|behalten sie|speicher|speichere|speichern sie|notier|notiere|notieren sie|heb|hebe)"
                    r" (?:das|dies)(?: auf)?", r"schreib(?:e)? (?:das|dies) auf", r"vergiss (?:das|dies) nicht",
                    r"(?:das|dies) für später"),
                   ("für später", "fur spater", "fürs nächste mal", "furs nachste mal"),
                   ("für später (?:merken|aufheben|behalten|speichern)",)),
    "nl": Language((r"(?:onthoud|bewaar|noteer) (?:dit|dat)", r"sla (?:dit|dat) op", r"schrijf (?:dit|dat) op",
                    r"vergeet (?:dit|dat) niet"), ("voor later", "voor de volgende keer")),
    "ru": Language((r"(?:запомни|запомните|сохрани|сохраните|запиши|запишите|отметь|отметьте|оставь|оставьте)"
                    r" (?:это|эту|этот)(?: себе)?", r"не забудь(?:те)? (?:это|об этом)"),
                   ("на потом", "на будущее", "на следующий раз")),
    "uk": Language((r"(?:запам'ятай|запам’ятай|запам'ятайте|збережи|збережіть|запиши|запишіть|залиш) (?:це|цю|цей)",
                    r"не забудь(?:те)? (?:це|про це)"), ("на потім", "на майбутнє", "на наступний раз")),
    "pl": Language((r"(?:zapamiętaj|zapamietaj|zapisz|zachowaj|zanotuj|zapamiętajcie) (?:to|sobie to)",
                    r"nie zapomnij o tym"), ("na później", "na pozniej", "na przyszłość", "na przyszlosc")),
    "tr": Language((r"(?:bunu|şunu|sunu) (?:hatırla|hatirla|kaydet|sakla|not al|aklında tut|aklinda tut|unutma)",
                    r"(?:hatırla|kaydet|sakla|not al) bunu"),
                   ("sonrası için", "sonrasi icin", "daha sonra için", "bir dahaki sefere")),
    "ar": Language((r"(?:تذكر|تذكري|تذكروا|احفظ|احفظي|احفظوا|سجل|سجلي|دون|دوني) (?:هذا|هذه|ذلك)",
                    r"لا (?:تنس|تنسى|تنسي|تنسوا) (?:هذا|هذه|ذلك)"),
                   ("لوقت لاحق", "لاحقا", "للمرة القادمة", "للاستخدام لاحقا")),
    "fa": Language((r"(?:اینو|این را|اینرا) (?:یادت باشه|به خاطر بسپار|ذخیره کن|یادداشت کن|نگه دار)",
                    r"یادت (?:باشه|بمونه)", r"(?:اینو |این را )?فراموش نکن"),
                   ("برای بعد", "برای دفعه بعد")),
    "id": Language((r"(?:tolong )?(?:ingat|ingat-ingat|simpan|catat|tandai) (?:ini|itu|yang ini)",
                    r"jangan lupa(?:kan)? (?:ini|itu|yang ini)"), ("untuk nanti", "buat nanti", "untuk lain kali")),
    "vi": Language((r"(?:hãy )?(?:ghi nhớ|nhớ|lưu lại|lưu|ghi lại|ghi chú lại|ghi chú) (?:điều này|cái này|việc này)",
                    r"đừng quên (?:điều này|cái này|việc này)"), ("để dùng sau", "để sau dùng", "cho lần sau")),
    "sw": Language((r"(?:kumbuka|hifadhi|andika|weka) (?:hili|hii|hiki|hilo)", r"usisahau (?:hili|hii|hiki|hilo)"),
                   ("kwa baadaye", "kwa wakati ujao")),
    "ko": Language((r"(?:이거|이것을|이걸|이 내용을?) ?(?:기억|저장|메모|기록)해 ?(?:줘|둬|두세요|주세요|놔|놓으세요)",
                    r"(?:기억|저장|메모|기록)해 ?(?:둬|두세요|놔|놓으세요)", r"(?:이거|이걸) 적어 ?(?:줘|둬|두세요)",
                    r"잊지 ?마(?:세요)?"), ("나중에 쓰게", "나중을 위해", "나중에 쓸"), spaced=False),
    "ja": Language((r"(?:これ|それ|この(?:こと|内容|点))を(?:覚えて|保存して|メモして|記録して|取って)(?:おいて|ください)?",
                    r"覚えておいて", r"メモして(?:おいて|ください)", r"取っておいて", r"忘れないで"),
                   ("後で使う", "あとで使う", "次回のために", "今後のために"), ("後で使うので", "あとで使うから"), spaced=False),
    "th": Language((r"จำ(?:อันนี้|สิ่งนี้|เรื่องนี้)?ไว้", r"(?:บันทึก|จด|เก็บ)(?:อันนี้|สิ่งนี้|เรื่องนี้)?ไว้",
                    r"อย่าลืม(?:อันนี้|สิ่งนี้|เรื่องนี้)"), ("ใช้ทีหลัง", "ไว้ใช้ทีหลัง", "คราวหน้า"),
                   ("เก็บไว้ใช้ทีหลัง",), spaced=False),
}

# Negations and memory questions, any language: one of them in the few words before a request undoes it.
NEGATORS = frozenset((
    "don't dont didn't didnt can't cant cannot couldn't couldnt won't wont doesn't never not no nobody"
    " ne n' pas jamais non nunca nem não nao você voce nicht kein keine nie niet geen не ни ні"
    " değil degil asla tidak nggak gak tak belum jangan bukan không chẳng chưa có đừng"
    " لا لم لن ما نه نمی هرگز मत नहीं ना न नको नाही না নয় নেই مت نہیں లేదు వద్దు இல்லை வேண்டாம் hapana"
).split())
NEGATOR_PHRASES = ("do not", "did not", "can not", "do you", "did you", "does anyone", "no need to",
                   "te acuerdas", "você lembra", "tu te souviens")
NEGATOR_PREFIXES = ("不要", "不用", "不必", "无需", "無需", "不需要", "别", "別", "没", "沒", "唔好", "唔使", "唔",
                    "不", "ไม่ต้อง", "ไม่", "안 ", "못 ", "しないで", "なくて")
CLAUSE = ".!?;:,…。！？；：，、)]}»«¿¡।॥؟،"          # what ends a clause (a quote or an apostrophe does not)
PUNCTUATION = ".!?;:,…。！？；：，、)]}»\"'“”‘’«¿¡।॥؟،"
_ENDS = r"(?=$|[\s" + re.escape(PUNCTUATION) + r"])"      # a word ends here
# a request may close with a courtesy (or, in a script without spaces, a sentence-final particle)
COURTESY = re.compile(
    r"(?:please|pls|plz|thanks|thank you|for me|por favor|s'il te plaît|s'il vous plaît|svp|bitte|per favore"
    r"|prego|alsjeblieft|aub|пожалуйста|будь ласка|proszę|prosze|lütfen|lutfen|tolong|yah|ya|dong|deh|oke|ok"
    r"|nhé|nhe|nha|nhá|đi|giúp tôi|nhỉ|na|jee|ji|जी|ज़रा|abeg|o|sasa|tafadhali|لطفا|من فضلك|رجاء)" + _ENDS,
    )
PARTICLE = re.compile("了|吧|啊|呀|哦|喔|噢|嘛|啦|呢|喇|啲|ね|よ|な|요|줘|ครับ|ค่ะ|นะ")
_HARAKAT = re.compile("[\u064b-\u065f\u0670\u0640]")   # Arabic vowel marks and the tatweel: written or not
WINDOW = 80                                             # characters read after a request to see its clause end


def _compile() -> tuple[re.Pattern[str], re.Pattern[str], dict[str, re.Pattern[str] | None], dict[str, bool]]:
    """One pattern of every language's requests and one of its phrases (a named group per language, so
    that a text is read once), each language's "for later", and whether its script is spaced."""
    requests, phrases, later, spaced = [], [], {}, {}
    for n, lang in enumerate(LANGUAGES.values()):
        end = _ENDS if lang.spaced else ""   # where a word starts is checked after the match (``_starts``): a
        requests.append(f"(?P<r{n}>{'|'.join(lang.requests)})")   # pattern without look-behind is scanned fast
        if lang.phrases:
            phrases.append(f"(?P<r{n}>{'|'.join(lang.phrases)}){end}")
        later[f"r{n}"] = re.compile(f"(?:{'|'.join(lang.later)}){end}") if lang.later else None
        spaced[f"r{n}"] = lang.spaced
    return re.compile("|".join(requests)), re.compile("|".join(phrases)), later, spaced


REQUEST, PHRASE, LATER, SPACED = _compile()
_SPACES = re.compile(r"\s*")


def _closes(text: str, end: int, lang: str) -> bool:
    """Whether the request of group ``lang`` ending at ``end`` ends its clause (after a courtesy or two), or is
    followed by its language's "for later". Linear in the text, whatever it holds."""
    later = LATER[lang]
    at = end
    for _ in range(4):
        at = _SPACES.match(text, at).end()                # type: ignore[union-attr]   # \s* always matches
        if text.startswith(",", at):
            at = _SPACES.match(text, at + 1).end()        # type: ignore[union-attr]
        if later is not None and later.match(text, at):
            return True
        m = COURTESY.match(text, at) or (None if SPACED[lang] else PARTICLE.match(text, at))
        if m is None:
            break
        at = m.end()
    at = _SPACES.match(text, at).end()                    # type: ignore[union-attr]
    return at >= len(text) or text[at] in PUNCTUATION


def _negated(text: str, at: int) -> bool:
    """Whether a negation or a memory question stands in the few words before ``at``, within its clause."""
    clause = re.split("[" + re.escape(CLAUSE) + "]", text[max(0, at - 40):at])[-1]
    words = clause.lower().replace("’", "'").split()
    tail = " ".join(words[-3:])
    if any(w in NEGATORS for w in words[-3:]) or any(f" {n} " in f" {tail} " for n in NEGATOR_PHRASES):
        return True
    near = clause.rstrip()[-8:]
    return any(p.strip() in near for p in NEGATOR_PREFIXES)


def _normal(text: str) -> str:
    """The text as the patterns read it: composed, lowercase, without Arabic vowel marks, one apostrophe."""
    return _HARAKAT.sub("", unicodedata.normalize("NFC", text)).replace("’", "'").lower()


# Every request and phrase holds one of these (its verb, mostly): the patterns run only around them, so that a
# long message costs a few substring searches (tests/test_likes.py checks that this changes no verdict).
ANCHORS = tuple(sorted(set((
    "remember memori note write jot bookmark save store keep stash forget hold"
    " recuerd recordad memoriz guard guárd anot anót apunt apúnt olvid tenlo recuérd"
    " lembr salv esque retiens retenez mémoris memoris garde sauvegard enregistr souvien oublie"
    " ricord conserv annot segn tien prendi dimentic merk behalt speicher notier heb schreib vergiss"
    " onthoud bewaar noteer sla vergeet запомни сохрани запиши отметь оставь забуд запам збереж"
    " запиш залиш zapami zapisz zachowaj zanotuj zapomnij hatırla hatirla kaydet sakla aklında aklinda"
    " unutma ingat simpan catat tandai lupa nhớ lưu ghi quên kumbuka hifadhi andika weka usisahau"
    " تذكر احفظ سجل دون تنس یادت خاطر ذخیره یادداشت نگه فراموش याद सेव सहेज नोट लिख बचा संभाल भूल"
    " یاد محفوظ نوٹ سیو بھول মনে সেভ নোট লিখে সংরক্ষণ ভুল लक्षात नोंद लिहून विसर గుర్తు సేవ్ నోట్ రాసి"
    " మర్చిపో நினைவில் சேமி குறித்து மறக்கா 记 記 存 留 忘 录 錄 覚え 保存 メモ 記録 取って 忘れ 後で使う あとで使う"
    " 기억 저장 메모 기록 적어 잊지 จำ บันทึก จด เก็บ อย่าลืม"
).split()) | {"not al", "ten esto", "à garder", "für später", "fur spater", "worth keeping", "this again"}))
MAX_HITS = 200   # anchors found more often than this: the whole text is read instead


def _windows(text: str) -> list[tuple[int, int]] | None:
    """The spans around the anchors in ``text`` (None: too many to be worth it; read the whole text)."""
    hits: list[int] = []
    for anchor in ANCHORS:
        at = text.find(anchor)
        while at != -1:
            hits.append(at)
            if len(hits) > MAX_HITS:
                return None
            at = text.find(anchor, at + 1)
    spans: list[tuple[int, int]] = []
    for at in sorted(hits):
        a, b = max(0, at - 60), min(len(text), at + 120)
        if spans and a <= spans[-1][1]:
            spans[-1] = (spans[-1][0], max(spans[-1][1], b))
        else:
            spans.append((a, b))
    return spans


def _starts(text: str, m: re.Match[str]) -> bool:
    """Whether match ``m`` starts a word (always, in a script without spaces)."""
    at = m.start()
    return not SPACED[m.lastgroup or ""] or at == 0 or text[at - 1].isspace() or text[at - 1] in PUNCTUATION


def is_like(text: str) -> bool:
    """Whether a person's message asks to keep something for later."""
    low = _normal(text)
    spans = _windows(low)
    return like_in(low, [(0, len(low))] if spans is None else spans)


def like_in(low: str, spans: list[tuple[int, int]]) -> bool:
    """Whether a request or a phrase that is a like starts inside one of ``spans`` of ``low`` (a normalised text)."""
    for a, b in spans:
        for m in REQUEST.finditer(low, a, b):
            if m.lastgroup and _starts(low, m) and _closes(low, m.end(), m.lastgroup) and not _negated(low, m.start()):
                return True
        if any(_starts(low, m) and not _negated(low, m.start()) for m in PHRASE.finditer(low, a, b)):
            return True
    return False


def count(user_texts: list[str]) -> int:
    """The likes in a session: the person's messages that ask to keep something for later."""
    return sum(1 for t in user_texts if is_like(t))
