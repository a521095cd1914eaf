"""One compiled check per nested function, however often it is defined (layer 6:
runtime).

A function defined inside another (``def outer(): def inner(x: int): ...``) is a
new function object at every call of ``outer``, and the import hook decorates each
one: compiling its check (or having beartype decorate it) every time costs far
more than checking a call. Every definition runs the same code object, so what was
built for the first one serves the next ones when nothing it was built from
differs: the same globals, the same defaults (by identity) and equal annotations.

What is built is built for a stand-in of the first definition with empty closure
cells (never called), so the cache keeps no closure's values alive. One entry is
kept per code object and checker, replaced when a definition does not fit it; the
cache is emptied when it holds ``LIMIT`` entries (code made at run time by
``exec`` could otherwise fill it without end).

Only plain functions (not generators or coroutines) with no attributes of their
own and no string annotations take part: a string annotation is resolved again at
every definition, in the scope that defines it.
"""

from __future__ import annotations

import functools
import types
from typing import Any

__all__ = ["stand_in", "lookup", "keep", "rewrap", "template_of"]

LIMIT = 4096
_ENTRIES: dict = {}
# Generator, coroutine, async generator, iterable coroutine.
_SUSPENDING = 0x20 | 0x80 | 0x100 | 0x200


class _Entry:
    __slots__ = ("value", "globals", "defaults", "kwdefaults", "annotations")

    def __init__(self, value: Any, stub: Any):
        self.value = value
        self.globals = stub.__globals__
        self.defaults = stub.__defaults__
        self.kwdefaults = stub.__kwdefaults__
        self.annotations = stub.__annotations__

    def fits(self, fn: Any) -> bool:
        return (
            fn.__globals__ is self.globals
            and _same(fn.__defaults__, self.defaults)
            and _same_values(fn.__kwdefaults__, self.kwdefaults, _identical)
            and _same_values(fn.__annotations__, self.annotations, _equal)
        )


def _identical(a: Any, b: Any) -> bool:
    return a is b


def _equal(a: Any, b: Any) -> bool:
    if a is b:
        return True
    if type(a) is not type(b) or isinstance(a, str):
        return False
    try:
        return (a == b) is True
    except Exception:  # noqa: BLE001 (an annotation object's own __eq__)
        return False


def _same(a: tuple | None, b: tuple | None) -> bool:
    if a is None or b is None:
        return a is b
    return len(a) == len(b) and all(x is y for x, y in zip(a, b))


def _same_values(a: dict | None, b: dict | None, same: Any) -> bool:
    if not a or not b:
        return not a and not b
    return a.keys() == b.keys() and all(same(value, b[key]) for key, value in a.items())


def _candidate(fn: Any) -> bool:
    """A plain nested function with evaluated annotations and no attributes of its own
    (``__wrapped__`` or ``__signature__`` would change its signature)."""
    if type(fn) is not types.FunctionType or "<locals>" not in fn.__qualname__ or fn.__dict__:
        return False
    if fn.__code__.co_flags & _SUSPENDING:
        return False
    return not any(isinstance(ann, str) for ann in fn.__annotations__.values())


def lookup(fn: Any, checker: Any = None) -> Any:
    """What ``keep`` kept for an earlier definition of ``fn``'s code (with this
    ``checker``) if ``fn`` fits it, else None.

    >>> def outer():
    ...     def inner(x):
    ...         return x
    ...     inner.__annotations__ = {"x": int}  # (this module's strings would not do)
    ...     return inner
    >>> keep(outer(), "built"); lookup(outer()), lookup(outer(), "other")
    ('built', None)
    """
    if not _candidate(fn):
        return None
    try:
        entry = _ENTRIES.get((fn.__code__, checker))
    except TypeError:  # an unhashable checker
        return None
    return entry.value if entry is not None and entry.fits(fn) else None


def stand_in(fn: Any) -> Any:
    """A copy of ``fn`` with empty closure cells, to build what ``keep`` keeps from;
    None if ``fn`` takes no part (see the module docstring).

    >>> def outer(k):
    ...     def inner(x):
    ...         return x + k
    ...     return inner
    >>> stand_in(outer(1)).__closure__[0].cell_contents
    Traceback (most recent call last):
        ...
    ValueError: Cell is empty
    """
    if not _candidate(fn):
        return None
    code = fn.__code__
    cells = tuple(types.CellType() for _ in code.co_freevars) or None
    stub = types.FunctionType(code, fn.__globals__, fn.__name__, fn.__defaults__, cells)
    stub.__kwdefaults__ = fn.__kwdefaults__
    stub.__qualname__ = fn.__qualname__
    stub.__module__ = fn.__module__
    stub.__annotations__ = dict(fn.__annotations__)
    stub.__doc__ = fn.__doc__
    return stub


def keep(fn: Any, value: Any, checker: Any = None, stub: Any = None) -> None:
    """Keep ``value`` (built from ``stub``, a ``stand_in(fn)``) for later definitions
    of ``fn``'s code checked with ``checker``."""
    if not _candidate(fn):
        return
    stub = stand_in(fn) if stub is None else stub
    if len(_ENTRIES) >= LIMIT:
        _ENTRIES.clear()
    try:
        _ENTRIES[(fn.__code__, checker)] = _Entry(value, stub)
    except TypeError:  # an unhashable checker
        pass


def template_of(wrapper: Any, stub: Any) -> tuple | None:
    """``(wrapper, name)``: a generated wrapper compiled for ``stub`` and the global
    name under which it calls it, for ``rewrap``; None if it has no such name."""
    names = [name for name, value in wrapper.__globals__.items() if value is stub]
    return (wrapper, names[0]) if len(names) == 1 else None


def rewrap(template: tuple, fn: Any) -> Any:
    """A wrapper of ``fn`` running a template's generated code.

    >>> from tensortypes.runtime import typechecked
    >>> def outer(k):
    ...     def inner(x):
    ...         return x + k
    ...     inner.__annotations__ = {"x": int, "return": int}
    ...     return typechecked(inner)
    >>> first, second = outer(1), outer(2)
    >>> first(1), second(1), first.__code__ is second.__code__
    (2, 3, True)
    """
    wrapper, name = template
    namespace = dict(wrapper.__globals__)
    namespace[name] = fn
    made = types.FunctionType(wrapper.__code__, namespace, wrapper.__name__, wrapper.__defaults__)
    made.__kwdefaults__ = wrapper.__kwdefaults__
    functools.update_wrapper(made, fn)
    made.__tensortypes_checker__ = wrapper.__tensortypes_checker__
    return made
