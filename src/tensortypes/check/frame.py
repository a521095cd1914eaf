"""The state of one walk through a function, and how two walks meet (layer 6: ``check``).

A :class:`Frame` holds what the walker knows at one point of a function: the
value of each variable (locals, and attribute chains such as ``self.state``
that refinement narrowed or the code assigned), where each size name was
bound (for the notes of a diagnostic), the divisibility facts the code
established, the types that annotated locals were declared with, and whether
the path has ended (``return``/``raise``). Each branch of an ``if`` or ``try``
walks a copy; :func:`join_frames` is the state where the branches meet.
"""

from __future__ import annotations

from .joins import join_values

__all__ = ["Frame", "join_frames"]


class Frame:
    """Variables, size origins, facts and declarations at one point of a walk.

    >>> f = Frame()
    >>> g = f.copy()
    >>> g.vars["x"] = 1
    >>> "x" in f.vars, g.where is f.where
    (False, True)
    """

    __slots__ = ("vars", "where", "func", "returns", "globals", "terminated", "building",
                 "facts", "declared", "sizes")

    def __init__(self, func=None, building=None):
        self.vars: dict = {}
        self.where: dict = {}
        self.func = func
        self.returns: list = []
        self.globals: dict = {}
        self.terminated = False
        self.building = building  # the ClassInfo whose __init__ is being walked
        self.facts: tuple = ()  # divisibility facts: (name, k) after ``assert name % k == 0``
        # Annotated locals: name -> lattice type. An annotation declares the name's type
        # for the whole function, so the branches share one table.
        self.declared: dict = {}
        # Size names local annotations introduced: name -> (size or None, where bound).
        self.sizes: dict = {}

    def copy(self) -> Frame:
        """A frame with its own variables and the same shared tables."""
        other = Frame(self.func, self.building)
        other.vars = dict(self.vars)
        other.where = self.where
        other.returns = self.returns
        other.globals = self.globals
        other.facts = self.facts
        other.declared = self.declared
        other.sizes = self.sizes
        return other


def join_frames(a: Frame, b: Frame) -> Frame:
    """The state after two branches meet: each variable joined, shared facts kept.

    >>> from tensortypes.check.symbolic import IntV, NONE
    >>> a, b = Frame(), Frame()
    >>> a.vars["n"], b.vars["n"] = IntV(), NONE
    >>> join_frames(a, b).vars["n"].describe()
    'int | None'
    """
    out = a.copy()
    out.facts = tuple(f for f in a.facts if f in b.facts)
    out.vars = {}
    for key in a.vars.keys() | b.vars.keys():
        x, y = a.vars.get(key), b.vars.get(key)
        out.vars[key] = x if y is None else y if x is None else join_values(x, y)
    return out
