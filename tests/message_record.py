"""Every message the suite makes, checked against the one forms of ``core.words``.

While the suite runs (``tests/conftest.py`` calls :func:`install`), the text of
every ``TypeCheckError``, ``AnnotationError`` and ``CacheError`` constructed in
the test process, and the message and notes of every static checker
``Diagnostic``, is recorded (each distinct text once). At the end of the
session :func:`problems` checks each one against :data:`FORBIDDEN`, the forms
the library no longer prints (a value as ``float64[3]`` or ``(n, d) floating``
instead of ``f64[3](numpy)`` / ``float[n,d](numpy)``, an annotation with double
quotes or without its module instead of ``Float[np.ndarray, 'n d']``); a
message in an old form fails the session, naming the message.

``TENSORTYPES_MESSAGES=path`` also writes the recorded messages to ``path``
(one JSON object a line: ``kind``, ``text``); ``python tests/message_record.py
path`` checks such a file on its own.

Recording costs one set insertion per constructed error: the suite does not
slow down noticeably. Messages made in child processes (a ``tensortypes check``
run as a command) are not seen here; the tests of those commands compare
their output.
"""

from __future__ import annotations

import json
import re
import sys
from collections.abc import Iterable

# A value printed in the long or the class-and-dtype form, or an annotation in another
# form: none of these may appear in a message.
FORBIDDEN = {
    "long dtype before a shape": re.compile(r"\b(float|int|uint|complex|bfloat)\d+\[[\d,]*\]"),
    "class before a dtype": re.compile(r"\b(ndarray|Tensor|Array) (float|int|bool)"),
    "'of dtype ... and shape'": re.compile(r"of dtype \w+ and shape"),
    "annotation without its module": re.compile(r"\b[A-Z]\w*\[(ndarray|Tensor|Array), ['\"]"),
    "annotation with double quotes": re.compile(
        r"\b[A-Z]\w*\[(np\.ndarray|torch\.Tensor|jax\.Array), \""
    ),
    "the dtype twice": re.compile(r"\b(float64|int64) \1\b"),
    "static value as shape and dtype": re.compile(
        r"\)\s(floating|integer|(float|int|uint|complex|bfloat)\d+(\|\w+)*)\b(?! result)"
    ),
    "static value as 'array (...)'": re.compile(r"\barray \([^()]*\) "),
    "an array class by its private module": re.compile(r"\bjaxlib\._jax\.|\btorch\._C\._"),
}
"""What no message may contain, by what it is (the one forms are in ``core.words``)."""

_LIMIT = 200_000  # distinct texts kept (a runaway generator must not eat the memory)
_recorded: dict[str, str] = {}


def record(kind: str, text: object) -> None:
    """Keep ``text`` (a message of ``kind``) for the end-of-session check."""
    if isinstance(text, str) and text not in _recorded and len(_recorded) < _LIMIT:
        _recorded[text] = kind


def recorded() -> dict[str, str]:
    """The texts recorded so far, each with its kind."""
    return dict(_recorded)


def problems(messages: Iterable[tuple[str, str]]) -> list[str]:
    """``kind: what is wrong: text`` for every ``(kind, text)`` in an old form."""
    found = []
    for kind, text in messages:
        for what, pattern in FORBIDDEN.items():
            if pattern.search(text):
                found.append(f"{kind}: {what}: {text}")
    return found


def _wrap(cls: type, texts) -> None:
    """Record ``texts(instance)`` (``(kind, text)`` pairs) after each ``cls(...)`` is built."""
    original = cls.__init__

    def init(self, *args, **kwargs):
        original(self, *args, **kwargs)
        for kind, text in texts(self):
            record(kind, text)

    cls.__init__ = init  # type: ignore[misc]


def _first(error: BaseException) -> object:
    return error.args[0] if error.args else None


def install() -> None:
    """Record every error and diagnostic the library constructs from now on."""
    from tensortypes.check.diagnostics import Diagnostic
    from tensortypes.errors import AnnotationError, CacheError, TypeCheckError

    _wrap(TypeCheckError, lambda e: [("TypeCheckError", _first(e))])
    # The message, not the user's text shown under a caret.
    _wrap(AnnotationError, lambda e: [("AnnotationError", e.message)])
    _wrap(CacheError, lambda e: [("CacheError", _first(e))])
    # A syntax error quotes Python's own words.
    _wrap(
        Diagnostic,
        lambda d: (
            []
            if d.code == "syntax"
            else [
                (f"checker [{d.code}]", d.message),
                *((f"checker [{d.code}] note", n) for n in d.notes),
            ]
        ),
    )


def write(path: str) -> None:
    """Write the recorded messages to ``path``, one JSON object a line."""
    with open(path, "w", encoding="utf-8") as out:
        for text, kind in _recorded.items():
            out.write(json.dumps({"kind": kind, "text": text}) + "\n")


def read(path: str) -> list[tuple[str, str]]:
    """The ``(kind, text)`` pairs of a file written by :func:`write`."""
    with open(path, encoding="utf-8") as lines:
        return [(item["kind"], item["text"]) for item in map(json.loads, lines)]


def main(argv: list[str]) -> int:
    if len(argv) != 1:
        print("usage: python tests/message_record.py RECORDED_FILE", file=sys.stderr)
        return 2
    found = problems(read(argv[0]))
    for line in found:
        print(line)
    return 1 if found else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
