"""A person's explicit "keep this for later", in the languages gitmem reads: each one is a like (+10 priority).

The phrases ask to keep something for *later use* (the seed's "记下来以后用"), not
merely to remember a fact; an agent's own words never count.
"""

from __future__ import annotations

import re

LIKE = re.compile(
    r"\b(?:keep|save|store|note|remember) (?:this|that|it)(?: one)? for (?:later|next time|the future|future use)\b"
    r"|\b(?:worth keeping|we(?:'ll| will) (?:want|need) this again|use this again next time)\b"
    r"|\bgarde(?:z)?[- ](?:ça|cela|le|la) (?:pour plus tard|pour la prochaine fois)\b|\bà garder pour plus tard\b"
    r"|\bguarda(?:r)? (?:esto|eso|isso|isto) para (?:después|despues|más tarde|mas tarde|depois|mais tarde)\b"
    r"|\bmerk dir das\b|\bfür später (?:merken|aufheben|behalten)\b"
    r"|记下来(?:以后用)?|記下來(?:以後用)?|留着以后用|以后用得上|覚えておいて|後で使う", re.IGNORECASE)


def is_like(text: str) -> bool:
    """Whether a person's message asks to keep something for later."""
    return bool(LIKE.search(text))


def count(user_texts: list[str]) -> int:
    """The likes in a session: the person's messages that ask to keep something for later."""
    return sum(1 for t in user_texts if is_like(t))
