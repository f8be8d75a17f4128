"""Step 2 of the write path: sizes, encodings and disk space."""

from __future__ import annotations

import shutil
from pathlib import Path

from gitmem.base.errors import ValidationError
from gitmem.base.text import is_blank

TEXT_SUFFIXES = (".md", ".yaml", ".yml", ".json", ".jsonl", ".txt")


def check_content(path: str, data: bytes, max_bytes: int) -> None:
    """Refuse content over ``max_bytes`` or text files that are not UTF-8."""
    if len(data) > max_bytes:
        raise ValidationError(f"{path}: {len(data)} bytes is over the limit of {max_bytes} bytes",
                              hint="split the content into smaller memories")
    if path.endswith(TEXT_SUFFIXES):
        try:
            data.decode("utf-8")
        except UnicodeDecodeError as exc:
            raise ValidationError(f"{path}: not valid UTF-8 (byte {exc.start})", hint="send UTF-8 text") from None
        if b"\x00" in data:   # in UTF-8 a NUL byte is only ever the NUL character
            raise ValidationError(f"{path}: text holds a NUL character", hint="remove control characters")


def check_text(text: str, what: str, max_bytes: int) -> str:
    """Validate user text before it becomes a document: size, no NUL, not empty."""
    if not isinstance(text, str):
        raise ValidationError(f"{what} must be text")
    if "\x00" in text:
        raise ValidationError(f"{what} holds a NUL character", hint="remove control characters")
    try:
        size = len(text.encode("utf-8"))
    except UnicodeEncodeError:
        raise ValidationError(f"{what} is not valid Unicode (lone surrogate)", hint="send UTF-8 text") from None
    if size > max_bytes:
        raise ValidationError(f"{what} is {size} bytes, over the limit of {max_bytes} bytes",
                              hint="split it into smaller memories")
    if is_blank(text):   # zero-width and other invisible characters alone are no text either
        raise ValidationError(f"{what} is empty", hint="give some visible text")
    return text


def check_range(name: str, value: float, lo: float, hi: float) -> float:
    """Refuse a number outside [lo, hi] (or not a number)."""
    if isinstance(value, bool) or not isinstance(value, (int, float)) or value != value or not lo <= value <= hi:
        raise ValidationError(f"{name} must be a number in [{lo}, {hi}], got {value!r}")
    return float(value)


def free_mb(root: Path) -> int:
    """Free space on the disk of ``root``, in MiB."""
    return shutil.disk_usage(root).free // (1024 * 1024)

