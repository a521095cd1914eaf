"""Reading the files ``tensortypes check`` is given (layer 6: ``check``).

A checked tree is outside input: a name ending in ``.py`` may be a FIFO (which
blocks a reader forever), a device or a symlink to ``/dev/zero`` (which never
ends), or a file of gigabytes. :func:`read_source` opens without blocking,
reads only regular files and at most :data:`MAX_FILE_BYTES`, and decodes as
Python itself does (``tokenize.open``'s rules): a UTF-8 byte order mark, a
PEP 263 coding line, else UTF-8. Every refusal is an answer, never an
exception: a note saying why the file was skipped, or an error saying why it
could not be read.
"""

from __future__ import annotations

import io
import os
import stat
import tokenize

__all__ = ["MAX_FILE_BYTES", "Source", "read_source", "decode_source"]

# A source file larger than this is skipped with a note (the largest hand-written
# modules are well under 1 MiB; a generated 100,000-line file is about 4 MiB).
MAX_FILE_BYTES = 16 * 1024 * 1024


class Source:
    """What reading one path gave: ``text``, or a reason it has none.

    ``skipped`` is a note (a FIFO, a device, a file over the size limit: not a
    source file); ``error`` is a file that should be Python but cannot be read
    or decoded.
    """

    __slots__ = ("text", "skipped", "error")

    def __init__(
        self, text: str | None = None, skipped: str | None = None, error: str | None = None
    ):
        self.text = text
        self.skipped = skipped
        self.error = error


def decode_source(data: bytes) -> str:
    """The text of a Python source file's bytes, decoded as the interpreter does.

    Raises ``SyntaxError`` for an unknown or conflicting coding line and
    ``UnicodeDecodeError`` for bytes the encoding refuses.

    >>> decode_source(b"# -*- coding: latin-1 -*-\\ns = '\\xe9'\\n").splitlines()[1]
    "s = '\\xe9'"
    >>> decode_source(b"\\xef\\xbb\\xbfx = 1\\n")
    'x = 1\\n'
    """
    encoding, _ = tokenize.detect_encoding(io.BytesIO(data).readline)
    text = data.decode(encoding)
    # "utf-8-sig" drops the mark; a mark under a declared utf-8 cookie stays in the
    # str, which ast.parse then refuses, so drop it here too (Python accepts it).
    return text[1:] if text.startswith("\ufeff") else text


def read_source(path, limit: int | None = None) -> Source:
    """Read ``path`` as a Python source file, without blocking and within ``limit`` bytes.

    >>> read_source("/dev/null").skipped
    'not a regular file (a character device): skipped'
    """
    try:
        before = os.stat(path)
    except OSError as error:
        return Source(error=f"cannot read the file: {error.strerror or error}")
    if not stat.S_ISREG(before.st_mode):  # a socket cannot even be opened
        return Source(skipped=f"not a regular file ({_kind(before.st_mode)}): skipped")
    limit = MAX_FILE_BYTES if limit is None else limit
    flags = os.O_RDONLY | getattr(os, "O_NONBLOCK", 0) | getattr(os, "O_NOCTTY", 0)
    try:
        fd = os.open(path, flags)
    except OSError as error:
        return Source(error=f"cannot read the file: {error.strerror or error}")
    try:
        info = os.fstat(fd)
        if not stat.S_ISREG(info.st_mode):
            return Source(skipped=f"not a regular file ({_kind(info.st_mode)}): skipped")
        if info.st_size > limit:
            return Source(skipped=f"{info.st_size} bytes, over the limit of {limit} bytes: skipped")
        if hasattr(os, "set_blocking"):
            os.set_blocking(fd, True)
        chunks, size = [], 0
        while True:
            chunk = os.read(fd, 1 << 20)
            if not chunk:
                break
            size += len(chunk)
            if size > limit:  # the file grew while it was read
                return Source(skipped=f"over the limit of {limit} bytes: skipped")
            chunks.append(chunk)
    except OSError as error:
        return Source(error=f"cannot read the file: {error.strerror or error}")
    finally:
        os.close(fd)
    data = b"".join(chunks)
    try:
        return Source(text=decode_source(data))
    except SyntaxError as error:  # an unknown codec, a cookie that contradicts a BOM
        return Source(error=f"cannot read the file: {error.msg}")
    except (UnicodeDecodeError, LookupError) as error:
        return Source(error=f"cannot read the file: {error}")


def _kind(mode: int) -> str:
    for test, name in (
        (stat.S_ISFIFO, "a FIFO"),
        (stat.S_ISCHR, "a character device"),
        (stat.S_ISBLK, "a block device"),
        (stat.S_ISSOCK, "a socket"),
        (stat.S_ISDIR, "a directory"),
    ):
        if test(mode):
            return name
    return "a special file"
