"""A person's "keep this for later" is a like in any of the table's languages; a statement about memory, a negated
request or an instruction about a file is not."""

from __future__ import annotations

import pytest

from gitmem.engines.sediment import likes

LIKES = {   # language: requests a person makes, in their words
    "en": ["Keep this for later.", "remember this!", "please remember this, thanks", "Don't forget this!",
           "No, remember this: the port is 8080", "save this", "note this down", "worth keeping",
           "can you remember this for later?", "keep that in mind"],
    "zh": ["记下来以后用", "记住这个", "把这个存下来", "留着以后用", "記住這個", "留著以後用", "别忘了这个"],
    "hi": ["इसे याद रखो", "इसे नोट कर लो", "मत भूलना"],
    "es": ["recuerda esto", "guárdalo para después", "tenlo en cuenta", "no olvides esto"],
    "fr": ["garde ça pour plus tard", "retiens ça", "notez-le", "à garder pour plus tard"],
    "ar": ["تذكر هذا", "احفظ هذا لوقت لاحق", "لا تنس هذا", "تَذَكَّرْ هذا"],
    "bn": ["এটা মনে রেখো", "এটা সেভ করে রাখো"],
    "pt": ["lembre disso", "guarda isso pra depois", "não esqueça disso"],
    "ru": ["запомни это", "сохрани это на потом", "не забудь это"],
    "ur": ["اسے یاد رکھو", "اسے نوٹ کر لو"],
    "id": ["ingat ini ya", "simpan ini untuk nanti", "jangan lupa ini"],
    "de": ["Merk dir das!", "speichere das für später", "vergiss das nicht", "für später merken"],
    "ja": ["覚えておいて", "これをメモしておいて", "忘れないで", "後で使うので"],
    "pcm": ["remember dis one", "keep am for later", "no forget dis"],
    "mr": ["हे लक्षात ठेव", "विसरू नको"],
    "te": ["ఇది గుర్తుంచుకో", "దీన్ని నోట్ చేసుకో"],
    "tr": ["bunu hatırla", "bunu unutma", "bunu kaydet sonrası için"],
    "ta": ["இதை நினைவில் வை", "மறக்காதே"],
    "yue": ["記低佢", "記住呢個", "留返遲啲用"],
    "vi": ["nhớ điều này nhé", "hãy ghi nhớ điều này", "đừng quên điều này", "lưu cái này để dùng sau"],
    "ko": ["이거 기억해 줘", "저장해 둬", "잊지 마세요"],
    "it": ["ricorda questo", "salvalo per dopo", "non dimenticare questo"],
    "fa": ["این را به خاطر بسپار", "فراموش نکن"],
    "pl": ["zapamiętaj to na później", "nie zapomnij o tym"],
    "th": ["จำไว้นะ", "เก็บไว้ใช้ทีหลัง"],
    "uk": ["запам'ятай це", "не забудь про це"],
    "nl": ["onthoud dit", "bewaar dit voor later", "vergeet dit niet"],
    "sw": ["kumbuka hili", "usisahau hili"],
}
NOT_LIKES = {   # language: what looks like a like and is not (negated, a question, a fact, a file)
    "en": ["I can't remember this", "don't remember this", "do you remember this?", "I never save this",
           "Keep it up!", "save this file please", "keep this file as is", "save it", "remember that the API uses v2",
           "no need to save this", "I don't remember"],
    "zh": ["我记不住这个", "不要记住这个", "把文件保存下来。", "没记下来", "你还记得这个吗"],
    "hi": ["मुझे याद नहीं", "इसे याद मत रखो"],
    "es": ["no recuerdo esto", "no recuerda esto", "¿te acuerdas de esto?"],
    "fr": ["je ne me souviens pas de ça", "ne garde pas ça"],
    "ar": ["لا أتذكر هذا", "لا تذكر هذا"],
    "bn": ["আমার মনে নেই"],
    "pt": ["não lembro disso", "você lembra disso?"],
    "ru": ["я не помню это", "не запоминай это", "я не запомнил это"],
    "ur": ["مجھے یاد نہیں"],
    "id": ["saya tidak ingat ini", "saya lupa"],
    "de": ["merk dir das nicht", "ich weiß das nicht mehr"],
    "ja": ["覚えていない", "保存しないで", "ファイルを保存して"],
    "pcm": ["I no fit remember dis"],
    "mr": ["मला आठवत नाही"],
    "te": ["నాకు గుర్తు లేదు", "గుర్తుంచుకోలేను"],
    "tr": ["bunu hatırlamıyorum", "bunu hatırlama"],
    "ta": ["எனக்கு நினைவில்லை"],
    "yue": ["我唔記得", "唔好記住呢個"],
    "vi": ["tôi không nhớ điều này", "bạn có nhớ điều này không?"],
    "ko": ["기억이 안 나", "기억하지 마", "기억 못 해"],
    "it": ["non ricordo questo"],
    "fa": ["یادم نیست"],
    "pl": ["nie pamiętam tego"],
    "th": ["จำไม่ได้", "ไม่ต้องจำไว้"],
    "uk": ["я не пам'ятаю це"],
    "nl": ["ik weet dit niet meer", "onthoud dit niet"],
    "sw": ["sikumbuki hili"],
}


def test_the_table_covers_the_twenty_most_spoken_languages() -> None:
    twenty = {"en", "zh", "hi", "es", "fr", "ar", "bn", "pt", "ru", "ur", "id", "de", "ja", "pcm", "mr", "te", "tr",
              "ta", "yue", "vi"}
    assert twenty <= set(likes.LANGUAGES) and twenty <= set(LIKES) and twenty <= set(NOT_LIKES)


@pytest.mark.parametrize("lang, text", [(k, t) for k, texts in LIKES.items() for t in texts])
def test_a_request_to_keep_this_for_later_is_a_like(lang: str, text: str) -> None:
    assert likes.is_like(text), (lang, text)


@pytest.mark.parametrize("lang, text", [(k, t) for k, texts in NOT_LIKES.items() for t in texts])
def test_a_near_miss_is_no_like(lang: str, text: str) -> None:
    assert not likes.is_like(text), (lang, text)


def test_a_session_counts_each_message_that_asks_once() -> None:
    assert likes.count(["remember this", "ok", "记下来以后用 记下来以后用", "I can't remember this"]) == 2


def test_reading_around_the_anchors_gives_the_verdict_of_reading_everything() -> None:
    for text in [t for texts in (*LIKES.values(), *NOT_LIKES.values()) for t in texts]:
        low = likes._normal(text)
        assert likes.like_in(low, [(0, len(low))]) == likes.is_like(text), text


def test_a_long_message_is_read_in_linear_time_and_a_like_at_its_end_counts() -> None:
    log = "the build failed because the cache was stale so we cleared it and ran again\n" * 2000
    assert not likes.is_like(log) and likes.is_like(log + "Keep this for later.")
    assert not likes.is_like("save this" + " " * 5000 + "file") and likes.is_like("save this" + " " * 5000)
    assert likes.is_like("keep " * 300 + "this for later")   # more anchors than are worth it: the whole text is read
