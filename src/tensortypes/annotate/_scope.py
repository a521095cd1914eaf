"""Dimension scopes: the sizes bound while one call (or one ``with`` block) is checked
(layer 5: ``annotate``; standard library only).

A scope is a :class:`Bindings` object held in a ``contextvars.ContextVar``, so it is
private to a thread and to an asyncio task. ``isinstance(x, Float[np.ndarray, "b c"])``
reads the current scope: inside one it checks ``b`` and ``c`` against the sizes bound
so far and adds the new ones; outside any scope (``current()`` is None) it checks the
value alone. The runtime checker pushes a fresh scope per checked call and pops it when
the call ends, whatever happens in the body.

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

from contextvars import ContextVar, Token
from typing import Any

__all__ = ["Bindings", "current", "push", "pop", "scope", "describe_where"]


class Bindings:
    """The sizes bound in one scope and where each came from.

    >>> b = Bindings()
    >>> b.bind("n", 3, ("x", 1, 2))
    >>> b.sizes, b.describe("n")
    ({'n': 3}, 'n=3 (axis 1 of x)')
    """

    __slots__ = ("sizes", "where", "arguments", "label", "treepath", "broadcast")

    def __init__(self, arguments: dict[str, Any] | None = None, label: str | None = None):
        self.sizes: dict[str, Any] = {}
        self.where: dict[str, tuple] = {}
        self.arguments = arguments
        self.label = label
        self.treepath = ""
        self.broadcast: set[str] | None = None

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

    A None label (a bare ``isinstance``) leaves out the ``of ...`` part.

    >>> describe_where(("x", 1, 2)), describe_where((None, 0, 3)), describe_where(("y", 2, 2))
    ('axis 1 of x', 'axes 0-2', 'no axes of y')
    """
    label, start, stop = where
    of = "" if label is None else f" of {label}"
    if stop - start == 1:
        return f"axis {start}{of}"
    if stop <= start:
        return f"no axes{of}"
    return f"axes {start}-{stop - 1}{of}"


SCOPE: ContextVar[Bindings | None] = ContextVar("tensortypes_dimension_scope", default=None)

current = SCOPE.get
"""The current scope's :class:`Bindings`, or None outside any scope."""


def push(arguments: dict[str, Any] | None = None,
         label: str | None = None) -> tuple[Bindings, Token]:
    """Open a fresh scope; returns its bindings and the token that :func:`pop` needs.

    >>> b, token = push({"size": 3}); current() is b
    True
    >>> pop(token); current() is None
    True
    """
    bindings = Bindings(arguments, label)
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

    __slots__ = ("bindings", "_token")

    def __init__(self, arguments: dict[str, Any] | None = None,
                 bindings: Bindings | None = None):
        if bindings is not None and not isinstance(bindings, Bindings):
            raise TypeError(f"scope(bindings=...) takes a Bindings, got {bindings!r}")
        self.bindings = bindings if bindings is not None else Bindings(arguments)
        self._token: Token | None = None

    def __enter__(self) -> Bindings:
        if self._token is not None:
            raise RuntimeError("this scope is already entered; create a new one")
        self._token = SCOPE.set(self.bindings)
        return self.bindings

    def __exit__(self, *exc: Any) -> None:
        token, self._token = self._token, None
        SCOPE.reset(token)
