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

__all__ = ["Frame", "join_frames", "valid_guard", "forget_guards"]


class Frame:
    """Variables, size origins, facts and declarations at one point of a walk.

    >>> f = Frame()
    >>> g = f.copy()
    >>> g.vars["x"] = 1
    >>> "x" in f.vars, g.where is f.where
    (False, True)
    """

    __slots__ = (
        "vars",
        "where",
        "func",
        "returns",
        "globals",
        "terminated",
        "building",
        "facts",
        "declared",
        "sizes",
        "guards",
        "aliases",
        "flags",
        "equal",
        "bounds",
        "flag_bounds",
    )

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
        # Flag correlations: variable key -> (its value object, {(condition key, truth)}):
        # while the variable still holds that object, it is not None whenever the
        # condition (a name or attribute chain) has that truthiness.
        self.guards: dict = {}
        # Named conditions: ``unit = diag is None`` -> {"unit": (test node, deps)}, where
        # deps pairs each name the test reads with its value then.
        self.aliases: dict = {}
        # The names read by the conditions of this path other than None checks (``if
        # packed:``, ``if mode == "x":``, or after ``if not flag: return``): whether a
        # value these do not name is None may follow from them (a flag correlation).
        self.flags: frozenset = frozenset()
        # Sizes a check on this path showed equal to another (``if len(x) == 0:``, ``if
        # n == m:``): size name -> the size it is; the function's own annotations read so.
        self.equal: dict = {}
        # Sizes a comparison on this path ordered: pairs ``(a, b)`` with ``a >= b``
        # (``if n < k: raise`` leaves ``(n, k)``); both ways make the two equal.
        self.bounds: frozenset = frozenset()
        # The pairs that hold where a flag is true (``if flag and n < k: raise`` leaves
        # ``{"flag": {(n, k)}}``): added to ``bounds`` by ``if flag:``.
        self.flag_bounds: dict = {}

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
        other.guards = dict(self.guards) if self.guards else {}
        other.aliases = dict(self.aliases) if self.aliases else {}
        other.flags = self.flags
        other.equal = dict(self.equal) if self.equal else {}
        other.bounds = self.bounds
        other.flag_bounds = dict(self.flag_bounds) if self.flag_bounds else {}
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
    out.guards = {}
    for key in a.guards.keys() & b.guards.keys():
        conds = valid_guard(a, key) & valid_guard(b, key)
        if conds:
            out.guards[key] = (out.vars.get(key), conds)
    out.aliases = {k: v for k, v in a.aliases.items() if b.aliases.get(k) is v}
    out.flags = a.flags & b.flags
    out.equal = {k: v for k, v in a.equal.items() if b.equal.get(k) is v}
    out.bounds = a.bounds & b.bounds
    out.flag_bounds = {k: v for k, v in a.flag_bounds.items() if b.flag_bounds.get(k) == v}
    return out


def valid_guard(frame: Frame, key: str) -> frozenset:
    """The conditions under which ``key`` is not None, while it holds the guarded value."""
    found = frame.guards.get(key)
    if found is None or frame.vars.get(key) is not found[0]:
        return frozenset()
    return found[1]


def forget_guards(frame: Frame, key: str) -> None:
    """``key`` was assigned: drop the correlations and named conditions that read it."""
    if frame.guards:
        for var, (obj, conds) in list(frame.guards.items()):
            kept = frozenset(
                c for c in conds if c[0] != key and not c[0].startswith((key + ".", key + "=="))
            )
            if kept != conds:
                if kept:
                    frame.guards[var] = (obj, kept)
                else:
                    del frame.guards[var]
    if frame.flag_bounds:
        frame.flag_bounds.pop(key, None)  # the flag's value is another from here on
    if frame.aliases:
        frame.aliases.pop(key, None)
        for name, (_, deps) in list(frame.aliases.items()):
            if any(dep == key for dep, _ in deps):
                del frame.aliases[name]
