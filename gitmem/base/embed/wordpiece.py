"""BERT's tokenizer, read from a model's ``tokenizer.json``: normalise, split, WordPiece, [CLS] ... [SEP].

The steps and their order are those of the ``BertNormalizer``, ``BertPreTokenizer``
and ``WordPiece`` model that a sentence-transformers BERT model's tokenizer.json
names (the Hugging Face tokenizers library runs them in Rust; this is the same
algorithm in Python, so the extra needs no tokenizer library):

1. the special tokens written in the text ("[SEP]") are kept whole;
2. clean: drop NUL, U+FFFD and control characters (tab and newlines aside), every other white
   space becomes a space;
3. a space around each CJK ideograph;
4. lower case, then accents stripped (NFD, combining marks dropped), as the
   normalizer's ``lowercase`` with ``strip_accents`` unset says;
5. split on white space and around each punctuation character (ASCII
   punctuation and every Unicode P* character);
6. WordPiece: the longest vocabulary prefix first, then "##" pieces; a word that
   cannot be cut, or longer than ``max_input_chars_per_word``, is [UNK].

``tests/test_embed_model.py`` checks the ids against the tokenizers library's
where that library is installed.
"""

from __future__ import annotations

import json
import re
import unicodedata
from functools import lru_cache
from pathlib import Path

from gitmem.base.errors import ConfigError

__all__ = ["WordPiece"]

_CJK = ((0x4E00, 0x9FFF), (0x3400, 0x4DBF), (0x20000, 0x2A6DF), (0x2A700, 0x2B73F), (0x2B740, 0x2B81F),
        (0x2B820, 0x2CEAF), (0xF900, 0xFAFF), (0x2F800, 0x2FA1F))


def _is_cjk(cp: int) -> bool:
    return any(lo <= cp <= hi for lo, hi in _CJK)


def _is_punctuation(ch: str) -> bool:
    cp = ord(ch)
    if 33 <= cp <= 47 or 58 <= cp <= 64 or 91 <= cp <= 96 or 123 <= cp <= 126:
        return True
    return unicodedata.category(ch).startswith("P")


def _normal(text: str, lowercase: bool, strip_accents: bool, chinese: bool) -> str:
    out = []
    for ch in text:
        cp = ord(ch)
        if ch in "\t\n\r":
            out.append(" ")
        elif cp == 0 or cp == 0xFFFD or unicodedata.category(ch).startswith("C"):
            continue   # a control character goes even when it is also white space (U+0085)
        elif ch.isspace():
            out.append(" ")
        elif chinese and _is_cjk(cp):
            out.append(f" {ch} ")
        else:
            out.append(ch)
    text = "".join(out)
    if strip_accents:
        text = "".join(c for c in unicodedata.normalize("NFD", text) if unicodedata.category(c) != "Mn")
    return text.lower() if lowercase else text


class WordPiece:
    """A BERT tokenizer: ``ids(text)`` gives [CLS], the text's pieces (cut to fit ``max_length``), [SEP]."""

    def __init__(self, path: Path, max_length: int) -> None:
        spec = json.loads(path.read_text("utf-8"))
        model, norm = spec.get("model") or {}, spec.get("normalizer") or {}
        if model.get("type") != "WordPiece" or norm.get("type") != "BertNormalizer":
            raise ConfigError(f"{path} is not a BERT WordPiece tokenizer",
                              hint="use a sentence-transformers BERT model such as all-MiniLM-L6-v2")
        self.vocab: dict[str, int] = model["vocab"]
        self.unk = self.vocab[model.get("unk_token", "[UNK]")]
        self.prefix = model.get("continuing_subword_prefix", "##")
        self.longest = int(model.get("max_input_chars_per_word", 100))
        self.lowercase = bool(norm.get("lowercase", True))
        accents = norm.get("strip_accents")
        self.strip_accents = self.lowercase if accents is None else bool(accents)
        self.clean, self.chinese = bool(norm.get("clean_text", True)), bool(norm.get("handle_chinese_chars", True))
        self.cls, self.sep = self.vocab["[CLS]"], self.vocab["[SEP]"]
        self.max_length = max_length
        special = sorted((t["content"] for t in spec.get("added_tokens") or () if t.get("special")), key=len,
                         reverse=True)
        self._special = re.compile("(" + "|".join(map(re.escape, special)) + ")") if special else None
        self._piece = lru_cache(maxsize=65536)(self._word)

    def ids(self, text: str) -> list[int]:
        """The token ids of ``text`` as the model reads it."""
        out: list[int] = []
        parts = self._special.split(text) if self._special is not None else [text]
        for i, part in enumerate(parts):
            if i % 2:
                out.append(self.vocab[part])
                continue
            for word in self._words(part):
                out.extend(self._piece(word))
        return [self.cls, *out[:self.max_length - 2], self.sep]

    def _words(self, text: str) -> list[str]:
        words: list[str] = []
        for chunk in _normal(text, self.lowercase, self.strip_accents, self.chinese).split():
            start = 0
            for j, ch in enumerate(chunk):
                if _is_punctuation(ch):
                    if start < j:
                        words.append(chunk[start:j])
                    words.append(ch)
                    start = j + 1
            if start < len(chunk):
                words.append(chunk[start:])
        return words

    def _word(self, word: str) -> tuple[int, ...]:
        if len(word) > self.longest:
            return (self.unk,)
        pieces, start = [], 0
        while start < len(word):
            end, found = len(word), None
            while start < end:
                piece = word[start:end] if start == 0 else self.prefix + word[start:end]
                found = self.vocab.get(piece)
                if found is not None:
                    break
                end -= 1
            if found is None:
                return (self.unk,)
            pieces.append(found)
            start = end
        return tuple(pieces)
