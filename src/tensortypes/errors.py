"""The exceptions of tensortypes (layer 1: standard library only).

Two kinds of error matter to users: a definition-time ``AnnotationError`` (a bad
annotation, shape string, dim expression or type expression) and a run-time
``TypeCheckError`` (a value that breaks its type). The others belong to the C
back end. Every class subclasses the built-in exception a caller would already
catch, so ``except TypeError`` still sees a ``TypeCheckError``.
"""

from __future__ import annotations

import os

__all__ = [
    "AnnotationError",
    "TypeCheckError",
    "MethodNotDefined",
    "CompileError",
    "CacheError",
    "AnnotationWarning",
    "caret_message",
    "raised_by_value",
    "value_fault",
    "describe_raised",
]

_PACKAGE = os.path.dirname(os.path.abspath(__file__)) + os.sep


def raised_by_value(error: BaseException) -> bool:
    """Whether ``error``, raised while a value was being checked, came from the value.

    Checking a value runs the value's own code: properties such as ``.shape``,
    ``__iter__``, ``__eq__``, ``__hash__``, a ``__class__`` that raises. An exception
    from there means the value cannot be checked, which the checkers report as a
    rejection. One raised by tensortypes' own code (its modules and the code it
    generates) is a bug in tensortypes and must surface as it is. The innermost frame
    of the traceback says which; a ``RecursionError`` always counts as the value's (a
    value nested deeper than the interpreter allows, or containing itself), as does
    anything but an ``Exception`` subclass never (``KeyboardInterrupt`` passes).

    >>> class Odd:
    ...     @property
    ...     def shape(self): raise RuntimeError("no")
    >>> try:
    ...     Odd().shape
    ... except RuntimeError as error:
    ...     raised_by_value(error)
    True
    """
    if not isinstance(error, Exception):
        return False
    if isinstance(error, RecursionError) or getattr(error, _VALUE_FAULT, False):
        return True
    tb = error.__traceback__
    if tb is None:
        return False
    while tb.tb_next is not None:
        tb = tb.tb_next
    filename = tb.tb_frame.f_code.co_filename
    return not (filename.startswith(_PACKAGE) or filename.startswith("<tensortypes "))


_VALUE_FAULT = "_tensortypes_value_fault"


def value_fault(error: Exception) -> Exception:
    """``error``, raised by tensortypes' own code for what a value is (a dict whose
    keys do not compare), marked so that :func:`raised_by_value` counts it as the
    value's: a checker rejects the value instead of letting the error escape.

    >>> raised_by_value(value_fault(ValueError("keys do not compare")))
    True
    """
    setattr(error, _VALUE_FAULT, True)
    return error


def describe_raised(error: BaseException) -> str:
    """``RuntimeError: boom`` for a message, even when the error's ``str`` raises.

    >>> describe_raised(ValueError("bad size"))
    'ValueError: bad size'
    """
    name = type(error).__name__
    if isinstance(error, RecursionError):
        return (
            f"{name} (nested deeper than the interpreter's recursion limit, or it contains itself)"
        )
    try:
        text = str(error)
    except Exception:  # noqa: BLE001 (an exception class of the value's may be hostile too)
        text = ""
    if type(text) is not str:
        text = ""
    if len(text) > 200:
        text = text[:200] + "..."
    return f"{name}: {text}" if text else name


def caret_message(message: str, text: str, start: int, end: int | None = None) -> str:
    """Return ``message`` followed by ``text`` and a caret line under ``text[start:end]``.

    >>> print(caret_message("unexpected token", "n + * 2", 4))
    unexpected token
        n + * 2
            ^
    """
    start = max(0, min(start, len(text)))
    if end is None or end <= start:
        end = start + 1
    width = max(1, min(end, len(text) + 1) - start)
    if len(text) > _SHOWN:
        # A long text is shown as a window around the caret, so that a message stays
        # readable (and small) whatever the input's size.
        width = min(width, _SHOWN // 2)
        left = max(0, start - _SHOWN // 4)
        right = min(len(text), left + _SHOWN)
        left = max(0, min(left, right - _SHOWN))
        head = "..." if left else ""
        text = head + text[left:right] + ("..." if right < len(text) else "")
        start += len(head) - left
    return f"{message}\n    {text}\n    {' ' * start}{'^' * width}"


_SHOWN = 160  # characters of an erroneous text shown around the caret


class AnnotationError(ValueError):
    """A malformed annotation, shape string, dim expression or type expression.

    Raised at definition time. When the problem has a position, ``text`` holds
    the offending source and ``position`` the index of the bad token, and the
    message shows the text with a caret under that token.
    """

    # Set by some raisers for a caller that may try again: the undefined name an
    # annotation refers to (``unresolved``), or that the check is deferred (``deferred``).
    unresolved: str
    deferred: bool

    def __init__(
        self,
        message: str,
        text: str | None = None,
        position: int | None = None,
        end: int | None = None,
    ):
        self.message = message
        self.text = text
        self.position = position
        self.end = end
        if text is not None and position is not None:
            full = caret_message(message, text, position, end)
        else:
            full = message
        super().__init__(full)


class AnnotationWarning(UserWarning):
    """An annotation left unchecked because it cannot be evaluated at all.

    Only the import hook warns so: it checks code its user did not write, where an
    annotation that raises on evaluation (``callable | None`` under ``from
    __future__ import annotations``) is the library's and must not stop the import.
    The rest of that function's annotations are still checked.
    """


class TypeCheckError(TypeError):
    """A value that breaks its type at run time.

    Raised by ``Type.filter``, ``SpecifyShape``, checked calls, compiled-function
    inputs and C extraction. It is a ``TypeError``, which is what PyTensor's
    ``filter`` contract asks for.
    """


class MethodNotDefined(NotImplementedError):
    """A ``CLinkerType`` or ``Op`` method that a subclass did not provide (as in Theano)."""


class CompileError(RuntimeError):
    """The C compiler failed. Carries the compiler's output and the source path."""

    def __init__(self, message: str, source_path: str | None = None, compiler_output: str = ""):
        self.source_path = source_path
        self.compiler_output = compiler_output
        text = message
        if source_path:
            text += f"\n  source: {source_path}"
        if compiler_output:
            text += f"\n{compiler_output}"
        super().__init__(text)


class CacheError(OSError):
    """An unusable module cache (owned by another user, or not writable)."""
