"""The scripts whose words are not cut by spaces, as character ranges: one definition for every engine.

- ``HAN``: the ideographs (CJK unified, extension A, compatibility). Chinese
  is written without spaces; a run of ideographs is one unicode61 token.
- ``KANA``: hiragana and katakana. Japanese mixes them into its ideograph
  runs without spaces, so a run of Japanese is kana and Han together.
- ``HANGUL``: Hangul syllables. Korean does put spaces between words, but its
  particles glue onto the nouns ("서버에서"), so bigrams find a noun inside
  its inflected form; Hangul is searched like the other two.

``CJK`` is the three together: the index cuts a run of them into character
bigrams, the statement features read a run as one unit, and the harvest
counts its characters where a Latin text counts words. The roles engine reads
Chinese relation words ("调用", "之前") inside ideograph runs only, so it uses
``HAN`` alone: a kana or Hangul character next to a Chinese relation word
would be no role word.
"""

from __future__ import annotations

__all__ = ["CJK", "HAN", "HANGUL", "KANA"]

HAN = "\u3400-\u4dbf\u4e00-\u9fff\uf900-\ufaff"
KANA = "\u3040-\u30ff"
HANGUL = "\uac00-\ud7af"
CJK = KANA + HAN + HANGUL
