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

import ast
import io
import os
import stat
import sys
import tokenize

__all__ = [
    "MAX_FILE_BYTES",
    "Source",
    "read_source",
    "decode_source",
    "parse_module",
    "older_syntax",
]

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


# -- Python 3.12 syntax on an older interpreter ------------------------------------------------


def parse_module(text: str, filename: str = "<unknown>"):
    """``(tree, newer)``: the module's syntax tree, and whether it needed :func:`older_syntax`.

    Raises the ``SyntaxError`` of ``ast.parse`` (and its ``RecursionError``,
    ``MemoryError`` or ``ValueError``) when the text is not Python, or uses a
    newer syntax this interpreter cannot read even after :func:`older_syntax`.

    >>> parse_module("x = 1")[1]
    False
    """
    try:
        return ast.parse(text, filename=filename), False
    except SyntaxError as error:
        if sys.version_info >= (3, 12):
            raise
        older = older_syntax(text)
        if older is None:
            raise
        try:
            return ast.parse(older, filename=filename), True
        except SyntaxError:
            raise error from None


def older_syntax(text: str) -> str | None:
    """The text with the syntax of Python 3.12 that 3.11 cannot parse written out, or None.

    Type parameter lists (``def f[T](x: T)``, ``class Box[T]:``) become blanks of
    the same width, so every other position stays where it was, and their
    names are then unknown to the checker, as any unresolved name; ``type X =
    Y`` becomes ``X = Y``; an f-string whose expressions use what only 3.12
    allows in them (a backslash, the string's own quote) becomes a plain string
    of the same lines. None when the text cannot be tokenized (or has none of
    these). Each step is linear in the number of tokens.

    >>> print(older_syntax("def f[T: int](x: T) -> T:\\n    return x\\n"), end="")
    def f        (x: T) -> T:
        return x
    >>> print(older_syntax("class Box[T](Base):\\n    type Pair[U] = tuple[U, U]\\n"), end="")
    class Box   (Base):
        Pair         = tuple[U, U]
    """
    try:
        tokens = list(tokenize.generate_tokens(io.StringIO(text).readline))
    except (tokenize.TokenError, SyntaxError, IndentationError):
        return None
    lines = text.splitlines(keepends=True)
    edits: list = []  # (start, end, replacement), positions as (row, col), rows from 1
    significant = [t for t in tokens if t.type not in _TRIVIA]
    for i, tok in enumerate(significant):
        after = significant[i + 1] if i + 1 < len(significant) else None
        if (
            tok.type == tokenize.NAME
            and tok.string in ("def", "class")
            and after is not None
            and after.type == tokenize.NAME
        ):
            j = i + 2
            if j < len(significant) and significant[j].string == "[":
                end = _closing(significant, j)
                if end is not None:
                    edits.append((significant[j].start, significant[end].end, None))
        elif (
            tok.type == tokenize.NAME
            and tok.string == "type"
            and after is not None
            and after.type == tokenize.NAME
            and (
                i == 0
                or significant[i - 1].type in (tokenize.NEWLINE, tokenize.INDENT, tokenize.DEDENT)
                or significant[i - 1].string == ";"
            )
        ):
            j = i + 2
            close = j - 1
            if j < len(significant) and significant[j].string == "[":
                found = _closing(significant, j)
                if found is None:
                    continue
                close = found
            if close + 1 < len(significant) and significant[close + 1].string == "=":
                # "type Name[T] = ..." -> "Name" then blanks up to the "="
                name = after.string
                edits.append((tok.start, significant[close].end, name))
        elif tok.type == tokenize.STRING and _is_fstring(tok.string):
            try:
                ast.parse(tok.string, mode="eval")
            except SyntaxError as error:
                if any(part in (error.msg or "") for part in _RELAXED_IN_312):
                    edits.append((tok.start, tok.end, _plain(tok.string)))
    if not edits:
        return None
    return _apply(lines, edits)


_TRIVIA = frozenset({tokenize.COMMENT, tokenize.NL, tokenize.ENCODING})
# What Python 3.11 refuses in an f-string's expressions and 3.12 allows (PEP 701); an
# f-string wrong for any other reason stays wrong.
_RELAXED_IN_312 = ("cannot include a backslash", "cannot include '#'", "nested too deeply")


def _closing(tokens: list, j: int) -> int | None:
    """The index of the bracket that closes ``tokens[j]`` (a ``[``), or None."""
    depth = 0
    for k in range(j, len(tokens)):
        s = tokens[k].string
        if tokens[k].type == tokenize.OP:
            if s in "([{":
                depth += 1
            elif s in ")]}":
                depth -= 1
                if depth == 0:
                    return k
    return None


def _is_fstring(s: str) -> bool:
    prefix = s[: len(s) - len(s.lstrip("rRbBuUfF"))]
    return "f" in prefix.lower()


def _plain(s: str) -> str:
    """An f-string literal as a plain one of the same lines (its ``f`` dropped, a space ahead)."""
    prefix = s[: len(s) - len(s.lstrip("rRbBuUfF"))]
    body = s[len(prefix) :]
    quote = body[:3] if body[:3] in ('"""', "'''") else body[:1]
    inner = body[len(quote) : len(body) - len(quote)]
    # the inner text may hold the quote itself (nested in an expression): keep only its lines
    blank = "".join("\n" if c == "\n" else " " for c in inner)
    return " " * len(prefix) + quote + blank + quote


def _apply(lines: list, edits: list) -> str:
    """``lines`` with each ``(start, end, replacement)`` applied (None: blanks of that width)."""
    out = list(lines)
    for (srow, scol), (erow, ecol), new in sorted(edits, reverse=True):
        first, last = out[srow - 1], out[erow - 1]
        old = "".join(out[srow - 1 : erow])[scol : len("".join(out[srow - 1 : erow - 1])) + ecol]
        if new is None:
            new = "".join("\n" if c == "\n" else " " for c in old)
        elif len(new) < len(old) and "\n" not in old:
            new = new + " " * (len(old) - len(new))
        out[srow - 1 : erow] = [first[:scol] + new + last[ecol:]]
    return "".join(out)
