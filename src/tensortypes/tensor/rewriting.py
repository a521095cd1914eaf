"""The tensor rewrite rules, as data (layer 4, ``tensor``).

- ``CANONICALIZE``: a ``RuleTable`` of local simplifications: a neutral operand
  disappears (``x * 1``, ``x + 0``, ``x - 0``, ``x / 1``, ``x ** 1``, ``x | 0``,
  ``x ^ 0``, from the ``NEUTRAL`` table), involutions cancel (``neg(neg(x))``,
  ``invert(invert(x))``), idempotent ops collapse (``abs(abs(x))``,
  ``maximum(x, x)``), nested transposes compose, and constant folding. A rule
  fires only when its result has exactly the type of what it replaces: the same
  dtype (``int8 * 1.0`` is float64 and stays) and the same static shape (a
  neutral constant that would broadcast ``x`` to a larger shape stays).
  As in PyTensor, ``x + 0 -> x`` keeps ``x``'s zero sign where IEEE addition
  would turn ``-0.0`` into ``0.0``.
- ``ElemwiseFusion``: a pass that turns a connected group of single-output
  ``Elemwise`` nodes, whose intermediate results are read only inside the
  group, into one ``Elemwise(Composite(...))``; 0-d constants become literals.
- ``default_rewriter()``: merge, canonicalise, merge again, fuse: what
  ``tensortypes.function`` applies.
"""

from __future__ import annotations

import numpy as np

from tensortypes.graph import Constant
from tensortypes.graph.rewrite import (EquilibriumRewriter, GraphRewriter, MergeRewriter,
                                       NodeRewriter, RuleTable, SequenceRewriter,
                                       apply_replacements, fold_constants)
from tensortypes.tensor.elemwise import Elemwise
from tensortypes.tensor.scalar_ops import BasicScalarOp, Composite, ScalarExpr, op_exprs
from tensortypes.tensor.shape_ops import Transpose

__all__ = ["NEUTRAL", "INVOLUTIONS", "IDEMPOTENT", "CANONICALIZE", "ElemwiseFusion",
           "default_rewriter"]

NEUTRAL = {
    "add": ((0, 0), (1, 0)),
    "sub": ((1, 0),),
    "mul": ((0, 1), (1, 1)),
    "true_div": ((1, 1),),
    "pow": ((1, 1),),
    "bitwise_or": ((0, 0), (1, 0)),
    "bitwise_xor": ((0, 0), (1, 0)),
}
"""scalar op name -> ((operand position, value), ...): ``op`` with that operand equal
to ``value`` everywhere is the other operand."""

INVOLUTIONS = frozenset({"neg", "invert"})
"""Scalar ops ``f`` with ``f(f(x)) == x``."""

IDEMPOTENT = frozenset({"abs"})
"""Scalar ops ``f`` with ``f(f(x)) == f(x)``."""

SELF_IDEMPOTENT = frozenset({"maximum", "minimum", "bitwise_and", "bitwise_or"})
"""Binary scalar ops with ``f(x, x) == x``."""


def _basic_name(node) -> str | None:
    op = node.op
    if isinstance(op, Elemwise) and isinstance(op.scalar_op, BasicScalarOp):
        return op.scalar_op.name
    return None


def _same_type(out, var) -> bool:
    return var.type == out.type


def _is_everywhere(var, value) -> bool:
    if not isinstance(var, Constant):
        return False
    data = var.data
    return data.size > 0 and bool(np.all(data == value))


def _neutral(fgraph, node):
    name = _basic_name(node)
    out = node.outputs[0]
    for position, value in NEUTRAL.get(name, ()):
        const, other = node.inputs[position], node.inputs[1 - position]
        # The constant must not broadcast ``other`` to a larger shape.
        if (_is_everywhere(const, value) and const.type.ndim <= other.type.ndim
                and all(s == 1 for s in const.type.shape) and _same_type(out, other)):
            return [other]
    return None


def _unary_pairs(fgraph, node):
    name = _basic_name(node)
    if name not in INVOLUTIONS and name not in IDEMPOTENT:
        return None
    inner = node.inputs[0].owner
    if inner is None or _basic_name(inner) != name:
        return None
    result = inner.inputs[0] if name in INVOLUTIONS else inner.outputs[0]
    return [result] if _same_type(node.outputs[0], result) else None


def _self_idempotent(fgraph, node):
    if _basic_name(node) in SELF_IDEMPOTENT and node.inputs[0] is node.inputs[1]:
        x = node.inputs[0]
        return [x] if _same_type(node.outputs[0], x) else None
    return None


def _transpose_pairs(fgraph, node):
    inner = node.inputs[0].owner
    if inner is None or not isinstance(inner.op, Transpose):
        return None
    x = inner.inputs[0]
    axes = tuple(inner.op.axes[a] for a in node.op.axes)
    if axes == tuple(range(len(axes))):
        return [x] if _same_type(node.outputs[0], x) else None
    return [Transpose(axes)(x)]


CANONICALIZE = RuleTable([
    NodeRewriter("neutral_operand", _neutral, tracks=[Elemwise]),
    NodeRewriter("involution", _unary_pairs, tracks=[Elemwise]),
    NodeRewriter("same_operands", _self_idempotent, tracks=[Elemwise]),
    NodeRewriter("transpose_of_transpose", _transpose_pairs, tracks=[Transpose]),
    fold_constants,
])


def _fusable(node) -> bool:
    op = node.op
    return (isinstance(op, Elemwise) and len(node.outputs) == 1
            and (isinstance(op.scalar_op, BasicScalarOp)
                 or (isinstance(op.scalar_op, Composite) and op.scalar_op.nout == 1)))


class ElemwiseFusion(GraphRewriter):
    """Fuse chains of elementwise nodes into one ``Elemwise(Composite)`` per chain."""

    __slots__ = ()

    def apply(self, fgraph) -> dict:
        fused = 0
        for node in reversed(fgraph.toposort()):
            if node not in fgraph.apply_nodes or not _fusable(node):
                continue
            group = self._grow(fgraph, node)
            if len(group) < 2:
                continue
            new = self._fuse(fgraph, node, group)
            if new is not None:
                fused += apply_replacements(fgraph, node, [new], "elemwise_fusion")
        return {"elemwise_fusion": fused} if fused else {}

    @staticmethod
    def _grow(fgraph, root) -> set:
        group = {root}
        out_type = root.outputs[0].type
        grew = True
        while grew:
            grew = False
            for member in list(group):
                for var in member.inputs:
                    owner = var.owner
                    if owner is None or owner in group or not _fusable(owner):
                        continue
                    # Recomputing a smaller intermediate per output element would
                    # cost more than it saves: fuse only same-pattern results.
                    if (var.type.ndim != out_type.ndim
                            or var.type.broadcastable != out_type.broadcastable):
                        continue
                    if all(client != "output" and client in group
                           for client, _ in fgraph.clients[var]):
                        group.add(owner)
                        grew = True
        return group

    @staticmethod
    def _fuse(fgraph, root, group):
        exprs: dict = {}
        inputs: list = []
        externals: list = []
        for node in fgraph.toposort():
            if node not in group:
                continue
            args = []
            for var in node.inputs:
                e = exprs.get(var)
                if e is None:
                    if isinstance(var, Constant) and var.type.ndim == 0:
                        e = ScalarExpr.constant(var.data, var.type.dtype)
                    else:
                        e = ScalarExpr.input(var.type.dtype)
                        inputs.append(e)
                        externals.append(var)
                    exprs[var] = e
                args.append(e)
            for out, e in zip(node.outputs, op_exprs(node.op.scalar_op, *args)):
                exprs[out] = e
        if not externals:
            return None  # only constants: constant folding's job
        composite = Composite(inputs, [exprs[root.outputs[0]]])
        return Elemwise(composite)(*externals)


def default_rewriter() -> SequenceRewriter:
    """Merge, canonicalise (with constant folding), merge, fuse elementwise chains.

    >>> from tensortypes.graph import FunctionGraph
    >>> from tensortypes.tensor import dvector
    >>> x = dvector("x")
    >>> fg = FunctionGraph([x], [(x * 1 + 0).sum()], clone=True)
    >>> default_rewriter().apply(fg)
    {'neutral_operand': 2}
    """
    return SequenceRewriter([
        MergeRewriter(),
        EquilibriumRewriter(CANONICALIZE),
        MergeRewriter(),
        ElemwiseFusion(),
    ])
