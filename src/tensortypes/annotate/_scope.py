"""Dimension scopes: the sizes bound while one call (or one ``with`` block) is checked
(layer 5: ``annotate``; standard library only).

A scope is a :class:`Bindings` object. ``isinstance(x, Float[np.ndarray, "b c"])``
reads the current scope: inside one it checks ``b`` and ``c`` against the sizes bound
so far and adds the new ones; outside any scope (``current()`` is None) it checks the
value alone. Scopes come from two places, and :func:`current` returns the innermost:

- a ``contextvars.ContextVar`` (private to a thread and to an asyncio task), set by
  ``with scope():``, :func:`push`, and by checked coroutines and generators, which
  suspend and so need it;
- the stack: a plain checked function pushes nothing per call (that would cost more
  than its checks). Its generated wrapper's code object is registered here
  (:func:`register`) with a handler that builds the call's bindings from the
  wrapper's frame. :func:`current` walks the frames from its caller outwards to the
  nearest registered one; frames give per-thread, per-task and dynamic extent for
  free. The ContextVar's scope wins when it was opened inside that call
  (``Bindings.outer`` records the nearest registered frame when it was opened) or
  when the nearest registered frame is a generator driver or coroutine wrapper.

A one-entry memo (a frame and the nearest registered frame outside it) keeps the
walk to a step or two when ``isinstance`` is called repeatedly from the same place;
only ordinary function frames are memoised, whose outer frames cannot change while
they run.

A binding records its value and where it came from, so an error can say "c=3 was
bound by axis 1 of x":

- ``sizes``: name -> size for single axes (``"b"``), ``"*name"`` -> tuple for
  multiple-axes entries, tree-path names prefixed by the current ``treepath``;
- ``where``: the same keys -> ``(label, start, stop)``, the label of the value that
  bound it (``"x"``, ``"return value"``, or None for a bare ``isinstance``) and the
  axes it covered;
- ``arguments``: the call's arguments by name, for the ``{name}`` parts of shapes;
- ``label``: what is being checked now; a checker sets it before each value;
- ``broadcast``: names of multiple-axes bindings made by a ``#*name`` entry.
"""

from __future__ import annotations

import sys
import weakref
from contextvars import ContextVar, Token
from typing import Any

__all__ = [
    "Bindings",
    "current",
    "current_at",
    "push",
    "pop",
    "scope",
    "describe_where",
    "register",
    "nearest_registered",
    "forget_frames",
]


class Bindings:
    """The sizes bound in one scope and where each came from.

    >>> b = Bindings()
    >>> b.bind("n", 3, ("x", 1, 2))
    >>> b.sizes, b.describe("n")
    ({'n': 3}, 'n=3 (axis 1 of x)')
    """

    __slots__ = ("sizes", "where", "arguments", "label", "treepath", "broadcast", "outer")

    def __init__(self, arguments: dict[str, Any] | None = None, label: str | None = None):
        self.sizes: dict[str, Any] = {}
        self.where: dict[str, tuple] = {}
        self.arguments = arguments
        self.label = label
        self.treepath = ""
        self.broadcast: set[str] | None = None
        # The nearest registered frame when this scope was made current (see current()).
        self.outer: Any = None

    def bind(self, name: str, value: Any, where: tuple | None = None) -> None:
        """Record ``name`` = ``value`` (``where`` = ``(label, start, stop)``).

        >>> b = Bindings(); b.bind("*batch", (2, 3)); b.sizes["*batch"]
        (2, 3)
        """
        if not isinstance(name, str) or not name:
            raise TypeError(f"a binding name is a non-empty str, got {name!r}")
        self.sizes[name] = value
        if where is not None:
            self.where[name] = where

    def mark_broadcast(self, key: str, flag: bool) -> None:
        """Record whether the multiple-axes binding ``key`` came only from ``#*name``
        entries (``flag``), which decides how a later ``*name`` merges with it.

        >>> b = Bindings(); b.mark_broadcast("*batch", True); b.broadcast
        {'*batch'}
        """
        if flag:
            if self.broadcast is None:
                self.broadcast = set()
            self.broadcast.add(key)
        elif self.broadcast is not None:
            self.broadcast.discard(key)

    def describe(self, name: str) -> str:
        """``"name=value (where)"`` for one binding; KeyError if it is not bound.

        >>> b = Bindings(); b.bind("c", 4, ("y", 0, 1)); b.describe("c")
        'c=4 (axis 0 of y)'
        """
        value = self.sizes[name]
        where = self.where.get(name)
        shown = f"{name}={value}"
        return shown if where is None else f"{shown} ({describe_where(where)})"

    def summary(self) -> str:
        """Every binding, one ``name=value (where)`` per line, in binding order.

        >>> b = Bindings(); b.bind("b", 8, ("x", 0, 1)); print(b.summary())
        b=8 (axis 0 of x)
        """
        if not self.sizes:
            return "(no sizes bound)"
        return "\n".join(self.describe(name) for name in self.sizes)

    def copy(self) -> Bindings:
        """An independent copy (the arguments mapping is shared, not copied).

        >>> b = Bindings(); b.bind("n", 1); c = b.copy(); c.bind("m", 2); sorted(b.sizes)
        ['n']
        """
        new = Bindings(self.arguments, self.label)
        new.sizes = dict(self.sizes)
        new.where = dict(self.where)
        new.treepath = self.treepath
        new.broadcast = None if self.broadcast is None else set(self.broadcast)
        return new

    def adopt(self, other: Bindings) -> None:
        """Take over the sizes of ``other``, a trial copy whose check succeeded (a
        union member that fitted, a container whose every element did).

        >>> b = Bindings(); trial = b.copy(); trial.bind("n", 2); b.adopt(trial); b.sizes
        {'n': 2}
        """
        self.sizes = other.sizes
        self.where = other.where
        self.broadcast = other.broadcast

    def __repr__(self) -> str:
        inner = ", ".join(f"{k}={v!r}" for k, v in self.sizes.items())
        return f"Bindings({inner})"


def describe_where(where: tuple) -> str:
    """Text for a ``(label, start, stop)`` origin: ``"axis 1 of x"``, ``"axes 0-2 of y"``.

    A None label (a bare ``isinstance``) leaves out the ``of ...`` part; a None
    start means the whole value named by the label (a PyTree's structure).

    >>> describe_where(("x", 1, 2)), describe_where((None, 0, 3)), describe_where(("y", 2, 2))
    ('axis 1 of x', 'axes 0-2', 'no axes of y')
    """
    label, start, stop = where
    if start is None:  # a binding made by a whole value (a PyTree structure)
        return "the call" if label is None else label
    of = "" if label is None else f" of {label}"
    if stop - start == 1:
        return f"axis {start}{of}"
    if stop <= start:
        return f"no axes{of}"
    return f"axes {start}-{stop - 1}{of}"


SCOPE: ContextVar[Bindings | None] = ContextVar("tensortypes_dimension_scope", default=None)

_get = SCOPE.get
_getframe = sys._getframe
# Generators, coroutines and async generators: their frames' outer frames change
# between resumptions, so they are never memoised.
_SUSPENDING = 0x20 | 0x80 | 0x100 | 0x200

FRAMES: dict[int, Any] = {}
"""``id(code)`` of registered frames -> handler(frame) returning that call's
``Bindings`` (None while the frame is outside its body), or None for a frame that
sets the ContextVar itself (generator drivers, coroutine wrappers)."""

_memo: tuple = (None, None)


def forget_frames() -> None:
    """Drop the frames :func:`nearest_registered` remembers, so a call that has
    returned keeps nothing of its caller's alive (its locals, the arguments).

    >>> forget_frames(); sys.modules[__name__]._memo
    (None, None)
    """
    global _memo
    _memo = (None, None)


def register(code: Any, handler: Any = None) -> None:
    """Make frames running ``code`` scope holders for :func:`current` (see the module
    docstring); the entry goes when ``code`` is collected.

    >>> def wrapper():
    ...     return current()
    >>> register(wrapper.__code__, lambda frame: Bindings({"n": 1}))
    >>> wrapper().arguments
    {'n': 1}
    """
    key = id(code)
    FRAMES[key] = handler
    weakref.finalize(code, FRAMES.pop, key, None)


def nearest_registered(frame: Any) -> Any:
    """The nearest frame running registered code, from ``frame`` outwards, or None.

    >>> nearest_registered(sys._getframe()) is None
    True
    """
    global _memo
    start, (known, answer), frames = frame, _memo, FRAMES
    while frame is not None:
        if frame is known:
            break
        if id(frame.f_code) in frames:
            answer = frame
            break
        frame = frame.f_back
    else:
        answer = None
    parent = start.f_back
    if (
        parent is not None
        and parent is not known
        and answer is not start
        and not parent.f_code.co_flags & _SUSPENDING
    ):
        # The caller's caller is the frame most likely to be met again (a loop, or
        # the function calling a fresh helper each time).
        _memo = (parent, answer)
    return answer


def current() -> Bindings | None:
    """The current scope's :class:`Bindings`, or None outside any scope.

    >>> current() is None
    True
    """
    return current_at(_getframe(1))


def current_at(frame: Any, _get: Any = _get, _frames: dict = FRAMES) -> Bindings | None:
    """:func:`current` as seen from ``frame`` (``isinstance`` passes its caller's, so
    the memo holds the caller's caller, a frame likely to be met again).

    >>> current_at(sys._getframe()) is None
    True
    """
    active = _get()
    if not _frames:
        return active
    known, answer = _memo
    # The memo's usual hit is one or two frames out: test those inline.
    if frame is not known:
        if frame.f_back is not known or id(frame.f_code) in _frames:
            answer = nearest_registered(frame)
    while answer is not None:
        handler = _frames.get(id(answer.f_code))
        if handler is None or (active is not None and active.outer is answer):
            return active
        found = handler(answer)
        if found is not None:
            return found
        # A checked call's own checks run outside its body: look further out.
        up = answer.f_back
        answer = None if up is None else nearest_registered(up)
    return active


def push(
    arguments: dict[str, Any] | None = None, label: str | None = None
) -> tuple[Bindings, Token]:
    """Open a fresh scope; returns its bindings and the token that :func:`pop` needs.

    >>> b, token = push({"size": 3}); current() is b
    True
    >>> pop(token); current() is None
    True
    """
    bindings = Bindings(arguments, label)
    if FRAMES:
        bindings.outer = nearest_registered(_getframe(1))
    return bindings, SCOPE.set(bindings)


def pop(token: Token) -> None:
    """Close the scope that ``push`` opened (restores the one before it).

    >>> _, token = push(); pop(token); current() is None
    True
    """
    SCOPE.reset(token)


class scope:  # noqa: N801 (used like a function: ``with scope():``)
    """``with scope(arguments) as bindings:`` runs the block in a fresh scope.

    ``bindings`` may also be an existing :class:`Bindings` to re-enter.

    >>> import numpy as np
    >>> with scope() as b:
    ...     b.bind("n", 2)
    ...     current().sizes
    {'n': 2}
    """

    __slots__ = ("bindings", "_token", "_outer")

    def __init__(self, arguments: dict[str, Any] | None = None, bindings: Bindings | None = None):
        if bindings is not None and not isinstance(bindings, Bindings):
            raise TypeError(f"scope(bindings=...) takes a Bindings, got {bindings!r}")
        self.bindings = bindings if bindings is not None else Bindings(arguments)
        self._token: Token[Bindings | None] | None = None
        self._outer: Any = None

    def __enter__(self) -> Bindings:
        if self._token is not None:
            raise RuntimeError("this scope is already entered; create a new one")
        bindings = self.bindings
        self._outer = bindings.outer
        # Opened inside a checked call, the block's isinstance checks use this scope,
        # not the call's; a checked call made inside the block uses its own.
        bindings.outer = nearest_registered(_getframe(1)) if FRAMES else None
        self._token = SCOPE.set(bindings)
        return bindings

    def __exit__(self, *exc: Any) -> None:
        token, self._token = self._token, None
        self.bindings.outer, self._outer = self._outer, None
        if token is not None:  # an exit without its enter has no scope to close
            SCOPE.reset(token)
