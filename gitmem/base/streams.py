"""Bounded reads: a text, or a stream of lines, read with a cap instead of whole.

Every input a person or a program hands gitmem (``remember -``, an import, a
transcript, ``pii scan -``) may be endless or binary; reading it whole would
exhaust memory before any check runs. These readers stop at a cap and say
which limit was hit.
"""

from __future__ import annotations

from typing import BinaryIO, Iterator

from gitmem.base.errors import ValidationError

_DRAIN = 1 << 16


def read_capped(stream: BinaryIO, cap: int, what: str, limit: str) -> bytes:
    """At most ``cap`` bytes of ``stream``; more is a ValidationError naming ``limit`` (nothing else is read)."""
    data = stream.read(cap + 1)
    if len(data) > cap:
        raise ValidationError(f"{what} is over the limit of {cap} bytes ({limit})",
                              hint="split it into smaller pieces")
    return data


def capped_lines(stream: BinaryIO, cap: int, what: str) -> Iterator[tuple[int, bytes]]:
    """(line number, line without its newline) of ``stream``, each line at most ``cap`` bytes.

    A longer line is a ValidationError naming the line and the cap: no record
    gitmem reads is that long, so the input is not what it claims to be.
    """
    number = 0
    while True:
        line = stream.readline(cap + 2)
        if not line:
            return
        number += 1
        body = line[:-1] if line.endswith(b"\n") else line
        if body.endswith(b"\r"):
            body = body[:-1]
        if len(body) > cap:
            raise ValidationError(f"{what}: line {number} is over the line cap of {cap} bytes",
                                  hint="each line must be one record; is this the right file?")
        yield number, body


def read_lines(stream: BinaryIO, cap: int, what: str, first_line: int = 0) -> bytes:
    """The rest of ``stream`` as it is (newlines kept), refusing a line over ``cap`` bytes.

    The ValidationError names the line (counted from ``first_line``) and the cap;
    nothing past that line is read, so an endless line ends the read.
    """
    chunks: list[bytes] = []
    number = first_line
    while True:
        line = stream.readline(cap + 1)
        if not line:
            return b"".join(chunks)
        number += 1
        if len(line) > cap and not line.endswith(b"\n"):
            raise ValidationError(f"{what}: line {number} is over the line cap of {cap} bytes",
                                  hint="each line must be one record; is this the right file?")
        chunks.append(line)
