"""Refinement: what a test, an ``assert`` or an early return proves (layer 6: ``check``).

:class:`RefineMixin` gives the walker ``narrow(test, frame, positive)``: the
frame in which ``test`` is known true (``positive``) or false. It narrows

- ``x is None`` / ``x is not None`` / ``x == None`` and truthiness, on locals
  and on attribute chains (``self.state``), which TorchScript refuses;
- ``isinstance(x, Tensor)`` on unions;
- ``and``/``or``/``not`` combinations;
- size equalities: after ``assert x.shape[1] == w.shape[0]`` (or ``if ... !=
  ...: raise``) the two sizes are one (:func:`assume_equal` substitutes one
  symbol by the other everywhere in the frame);
- divisibility: after ``assert n % k == 0`` the frame records the fact
  ``(n, k)`` that reshapes use to make ``n // k`` exact.
"""

from __future__ import annotations

import ast

from tensortypes.core.dims import Dim

from .expr import attr_key
from .symbolic import NONE, UNKNOWN, Arr, Bcast, IntV, TupleV, UnionV, strip_none

__all__ = ["RefineMixin", "assume_equal"]


class RefineMixin:
    """Narrowing for the walker (needs ``eval``, ``quiet`` and ``module``)."""

    def narrow(self, test, frame, positive: bool):
        if isinstance(test, ast.UnaryOp) and isinstance(test.op, ast.Not):
            return self.narrow(test.operand, frame, not positive)
        if isinstance(test, ast.BoolOp):
            if isinstance(test.op, ast.And) == positive:
                for value in test.values:
                    frame = self.narrow(value, frame, positive)
            return frame
        key = _key(test)
        if key is not None:
            if positive and key in frame.vars:
                frame = frame.copy()
                frame.vars[key] = strip_none(frame.vars[key])
            elif positive and isinstance(test, ast.Attribute):
                frame = frame.copy()
                frame.vars[key] = strip_none(self.eval(test, frame))
            return frame
        if isinstance(test, ast.Compare) and len(test.ops) == 1:
            return self.narrow_compare(test, frame, positive)
        if isinstance(test, ast.Call) and isinstance(test.func, ast.Name) and \
                test.func.id == "isinstance" and len(test.args) == 2:
            return self.narrow_isinstance(test, frame, positive)
        return frame

    def narrow_compare(self, test, frame, positive):
        op, left, right = test.ops[0], test.left, test.comparators[0]
        if isinstance(op, (ast.Is, ast.IsNot, ast.Eq, ast.NotEq)) and \
                isinstance(right, ast.Constant) and right.value is None:
            key = _key(left)
            if key is None:
                return frame
            is_none = isinstance(op, (ast.Is, ast.Eq)) == positive
            current = frame.vars.get(key)
            if current is None:
                current = self.eval(left, frame)
            frame = frame.copy()
            frame.vars[key] = NONE if is_none else strip_none(current)
            return frame
        if isinstance(op, (ast.Eq, ast.NotEq)) and isinstance(op, ast.Eq) == positive and \
                isinstance(left, ast.BinOp) and isinstance(left.op, ast.Mod) and \
                isinstance(right, ast.Constant) and right.value == 0:
            self.quiet += 1
            try:
                a, k = self.eval(left.left, frame), self.eval(left.right, frame)
            finally:
                self.quiet -= 1
            if type(a) is IntV and type(k) is IntV and a.dim is not None and a.dim.is_symbol \
                    and k.dim is not None:
                frame = frame.copy()
                frame.facts = frame.facts + ((a.dim.name, k.dim),)
            return frame
        if isinstance(op, (ast.Eq, ast.NotEq)) and isinstance(op, ast.Eq) == positive:
            self.quiet += 1
            try:
                a, b = self.eval(left, frame), self.eval(right, frame)
            finally:
                self.quiet -= 1
            pairs = []
            if type(a) is IntV and type(b) is IntV:
                pairs = [(a.dim, b.dim)]
            elif type(a) is TupleV and type(b) is TupleV and len(a.items) == len(b.items):
                pairs = [(x.dim, y.dim) for x, y in zip(a.items, b.items)
                         if type(x) is IntV and type(y) is IntV]
            for x, y in pairs:
                if x is not None and y is not None:
                    frame = assume_equal(frame, x, y, test.lineno)
        return frame

    def narrow_isinstance(self, test, frame, positive):
        key = _key(test.args[0])
        if key is None:
            return frame
        current = frame.vars.get(key)
        if current is None or type(current) is not UnionV:
            return frame
        path = self.module.path_of(test.args[1]) or ""
        wants_array = path.endswith(("Tensor", "ndarray", "Array"))
        keep = [v for v in current.items if (type(v) is Arr) == (wants_array == positive)]
        frame = frame.copy()
        frame.vars[key] = keep[0] if len(keep) == 1 else UnionV(tuple(keep)) if keep else \
            UNKNOWN
        return frame


def _key(node):
    if isinstance(node, ast.Name):
        return node.id
    if isinstance(node, ast.Attribute):
        return attr_key(node)
    return None


def assume_equal(frame, a: Dim, b: Dim, line: int):
    """``frame`` where sizes ``a`` and ``b`` are known equal (after a check of them)."""
    if a is b:
        return frame
    if a.is_symbol:
        name, other = a.name, b
    elif b.is_symbol:
        name, other = b.name, a
    else:
        return frame
    mapping = {name: other}
    out = frame.copy()
    out.vars = {k: _substitute(v, mapping) for k, v in frame.vars.items()}
    out.where = dict(frame.where)
    out.where.setdefault(name, f"the check at line {line}")
    return out


def _substitute(value, mapping):
    t = type(value)
    if t is Arr and value.shape is not None:
        return value.with_(shape=tuple(_sub_dim(d, mapping) for d in value.shape))
    if t is IntV and value.dim is not None:
        return IntV(value.dim.substitute(mapping))
    if t is TupleV:
        return TupleV(tuple(_substitute(v, mapping) for v in value.items))
    if t is UnionV:
        return UnionV(tuple(_substitute(v, mapping) for v in value.items))
    return value


def _sub_dim(d, mapping):
    if type(d) is Dim:
        return d.substitute(mapping)
    if type(d) is Bcast:
        return Bcast(d.dim.substitute(mapping))
    return d
