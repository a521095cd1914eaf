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
- ``STABILIZE``: the numerically stable forms of what users write
  (``log(1 + exp(x))`` -> ``softplus(x)``, ``log(1 + y)`` -> ``log1p(y)``,
  ``exp(x) - 1`` -> ``expm1(x)``, ``1 / (1 + exp(-x))`` -> ``sigmoid(x)``,
  ``log(sum(exp(x)))`` -> a log-sum-exp that subtracts the maximum first).
- ``ReduceFusion``: a pass that turns a reduction (over any axes), the
  elementwise nodes feeding it and those consuming its ``keepdims`` result (and
  further reductions over the same axes among them) into one ``FusedReduce``,
  which the C back end runs row by row over trailing axes (row softmax, layer
  norm, log-sum-exp) and in passes accumulating per column over other axes
  (column softmax, standardisation, ``sum(exp(X), axis=0)``).
- ``default_rewriter()``: merge, canonicalise, stabilise, merge again, fuse: what
  ``tensortypes.function`` applies.
"""

from __future__ import annotations

import numpy as np

from tensortypes.graph import Constant
from tensortypes.graph.rewrite import (
    EquilibriumRewriter,
    GraphRewriter,
    MergeRewriter,
    NodeRewriter,
    RuleTable,
    SequenceRewriter,
    apply_replacements,
    fold_constants,
)
from tensortypes.core.dims import eq as dim_eq
from tensortypes.tensor.elemwise import Elemwise
from tensortypes.tensor.fused import FusedReduce
from tensortypes.tensor.math import Reduce
from tensortypes.tensor.scalar_ops import BasicScalarOp, Composite, ScalarExpr, op_exprs
from tensortypes.tensor.shape_ops import Transpose, squeeze

__all__ = [
    "NEUTRAL",
    "INVOLUTIONS",
    "IDEMPOTENT",
    "CANONICALIZE",
    "STABILIZE",
    "ElemwiseFusion",
    "ReduceFusion",
    "default_rewriter",
]

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
        if (
            _is_everywhere(const, value)
            and const.type.ndim <= other.type.ndim
            and all(s == 1 for s in const.type.shape)
            and _same_type(out, other)
        ):
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


CANONICALIZE = RuleTable(
    [
        NodeRewriter("neutral_operand", _neutral, tracks=[Elemwise]),
        NodeRewriter("involution", _unary_pairs, tracks=[Elemwise]),
        NodeRewriter("same_operands", _self_idempotent, tracks=[Elemwise]),
        NodeRewriter("transpose_of_transpose", _transpose_pairs, tracks=[Transpose]),
        fold_constants,
    ]
)


# -- stability: the forms users write, replaced by the ones that do not overflow ----------
def _operand_one(node):
    """For ``add(1, y)`` or ``add(y, 1)`` (1 everywhere, not broadcasting ``y``): ``y``."""
    if _basic_name(node) != "add":
        return None
    for position in (0, 1):
        const, other = node.inputs[position], node.inputs[1 - position]
        if (
            _is_everywhere(const, 1)
            and const.type.ndim <= other.type.ndim
            and all(s == 1 for s in const.type.shape)
        ):
            return other
    return None


def _inner(var, name: str):
    """The input of ``var`` when ``var`` is ``name(input)`` (a unary elementwise op)."""
    owner = var.owner
    return owner.inputs[0] if owner is not None and _basic_name(owner) == name else None


def _unary(name: str, x):
    from tensortypes.tensor.elemwise import elemwise

    return elemwise(name)(x)


def _stable_log(fgraph, node):
    """``log(1 + exp(x))`` -> ``softplus(x)``; ``log(1 + y)`` -> ``log1p(y)``;
    ``log(sum(exp(x)))`` -> a log-sum-exp that subtracts the maximum first."""
    if _basic_name(node) != "log":
        return None
    out = node.outputs[0]
    arg = node.inputs[0]
    owner = arg.owner
    if owner is not None and _basic_name(owner) == "add":
        y = _operand_one(owner)
        if y is not None:
            x = _inner(y, "exp")
            found = _unary("softplus", x) if x is not None else _unary("log1p", y)
            return [found] if _same_type(out, found) else None
    if owner is not None and isinstance(owner.op, Reduce) and owner.op.kind == "sum":
        x = _inner(owner.inputs[0], "exp")
        if x is not None and not _shifted(x):
            found = _logsumexp(x, owner.op.axis, owner.op.keepdims)
            if found is not None and _same_type(out, found):
                return [found]
    return None


def _shifted(x) -> bool:
    """Whether ``x`` is already ``y - where(|m| == inf, 0, m)`` with ``m`` a maximum: the
    form :func:`_logsumexp` builds, which must not be rewritten again."""
    owner = x.owner
    if owner is None or _basic_name(owner) != "sub":
        return False
    shift = owner.inputs[1].owner
    if shift is None or _basic_name(shift) != "where":
        return False
    m = shift.inputs[2].owner
    return m is not None and isinstance(m.op, Reduce) and m.op.kind == "max"


def _logsumexp(x, axes, keepdims):
    """``m + log(sum(exp(x - m)))`` with ``m`` the maximum over ``axes`` (0 where it is
    infinite, so all ``-inf`` gives ``-inf`` and an ``inf`` gives ``inf``, as the naive
    form does). Only where every reduced axis has a known nonzero size: the maximum of
    an empty axis has no value, where the naive sum is 0."""
    from tensortypes.tensor.elemwise import abs as abs_, exp, log, sub, add, eq, where

    shape = x.type.shape
    if not axes or any(not isinstance(shape[a], int) or shape[a] < 1 for a in axes):
        return None
    m = Reduce("max", axes, True)(x)
    safe = where(eq(abs_(m), np.inf), 0, m)
    # kept dims until the end, so the whole form is one fused reduction and the
    # reduced axes are dropped by a view
    found = add(log(Reduce("sum", axes, True)(exp(sub(x, safe)))), safe)
    return found if keepdims else squeeze(found, axes)


def _stable_sub(fgraph, node):
    """``exp(x) - 1`` -> ``expm1(x)``."""
    if _basic_name(node) != "sub":
        return None
    const, first = node.inputs[1], node.inputs[0]
    x = _inner(first, "exp")
    if (
        x is None
        or not _is_everywhere(const, 1)
        or const.type.ndim > first.type.ndim
        or not all(s == 1 for s in const.type.shape)
    ):
        return None
    found = _unary("expm1", x)
    return [found] if _same_type(node.outputs[0], found) else None


def _stable_div(fgraph, node):
    """``1 / (1 + exp(-x))`` -> ``sigmoid(x)``."""
    if _basic_name(node) != "true_div":
        return None
    const, denominator = node.inputs
    if (
        not _is_everywhere(const, 1)
        or not all(s == 1 for s in const.type.shape)
        or const.type.ndim > denominator.type.ndim
        or denominator.owner is None
    ):
        return None
    y = _operand_one(denominator.owner)
    e = _inner(y, "exp") if y is not None else None
    x = _inner(e, "neg") if e is not None else None
    if x is None:
        return None
    found = _unary("sigmoid", x)
    return [found] if _same_type(node.outputs[0], found) else None


def _stable_log1p(fgraph, node):
    """``log1p(exp(x))`` -> ``softplus(x)``."""
    if _basic_name(node) != "log1p":
        return None
    x = _inner(node.inputs[0], "exp")
    if x is None:
        return None
    found = _unary("softplus", x)
    return [found] if _same_type(node.outputs[0], found) else None


STABILIZE = RuleTable(
    [
        NodeRewriter("stable_log", _stable_log, tracks=[Elemwise]),
        NodeRewriter("stable_expm1", _stable_sub, tracks=[Elemwise]),
        NodeRewriter("stable_sigmoid", _stable_div, tracks=[Elemwise]),
        NodeRewriter("stable_softplus", _stable_log1p, tracks=[Elemwise]),
    ]
)
"""Numerically stable forms of what users write: ``log(1 + exp(x))`` is ``softplus``
(``log`` of an overflowed ``exp`` is ``inf`` where the answer is ``x``), ``log(1 + y)`` is
``log1p``, ``exp(x) - 1`` is ``expm1``, ``1 / (1 + exp(-x))`` is ``sigmoid``, and
``log(sum(exp(x)))`` subtracts the maximum before ``exp``. Each replacement has exactly
the type of what it replaces."""


def _fusable(node) -> bool:
    op = node.op
    return (
        isinstance(op, Elemwise)
        and len(node.outputs) == 1
        and (
            isinstance(op.scalar_op, BasicScalarOp)
            or (isinstance(op.scalar_op, Composite) and op.scalar_op.nout == 1)
        )
    )


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
                    if (
                        var.type.ndim != out_type.ndim
                        or var.type.broadcastable != out_type.broadcastable
                    ):
                        continue
                    if all(
                        client != "output" and client in group for client, _ in fgraph.clients[var]
                    ):
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


_NO_FUSED_DTYPES = frozenset({"float16", "complex64", "complex128"})


def _provably_equal(a, b) -> bool:
    if isinstance(a, int) and isinstance(b, int):
        return a == b
    return a is not None and b is not None and dim_eq(a, b) is True


class _Space:
    """The iteration space of a reduction: which values fit in it.

    The reduced axes are any of the space's (the trailing ones for a row softmax,
    the leading one for a column standardisation). When every size of the seed's
    input is known (ints or symbols), a value fits when its sizes provably are the
    space's (or 1 on the reduced axes). Otherwise (``None`` sizes: ``unknown``) a
    value fits by rank and by which axes are statically 1, and the region is kept
    only if ``spans`` proves its shapes right from what each value is computed from.
    """

    __slots__ = ("ndim", "axes", "kept", "outer", "inner", "unknown")

    def __init__(self, seed):
        shape = seed.inputs[0].type.shape
        self.ndim = len(shape)
        self.axes = seed.op.axis
        self.kept = tuple(a for a in range(self.ndim) if a not in self.axes)
        self.outer = tuple(shape[a] for a in self.kept)
        self.inner = tuple(shape[a] for a in self.axes)
        self.unknown = not all(_provably_equal(s, s) for s in shape)

    def usable(self) -> bool:
        return bool(self.axes) and not all(s == 1 for s in self.inner)

    def reduced(self, shape) -> tuple:
        """The sizes of ``shape`` (broadcast to the space's rank) on the reduced axes."""
        padded = (1,) * (self.ndim - len(shape)) + tuple(shape)
        return tuple(padded[a] for a in self.axes)

    def kind(self, var) -> str | None:
        """``"full"``, ``"row"`` or None (a shape the space cannot run), for a value
        computed inside (inputs from outside may have any shape that broadcasts).
        A *row* value is 1 on every reduced axis (one value per kept position)."""
        shape = var.type.shape
        if len(shape) != self.ndim or var.type.dtype in _NO_FUSED_DTYPES:
            return None
        reduced = self.reduced(shape)
        if self.unknown:
            return "row" if all(s == 1 for s in reduced) else "full"
        if not all(_provably_equal(shape[a], b) for a, b in zip(self.kept, self.outer)):
            return None
        if all(s == 1 for s in reduced):
            return "row"
        if all(_provably_equal(a, b) for a, b in zip(reduced, self.inner)):
            return "full"
        return None

    def member(self, node) -> bool:
        op = node.op
        if isinstance(op, Reduce):
            return (
                op.axis == self.axes
                and self.kind(node.inputs[0]) == "full"
                and node.outputs[0].type.dtype not in _NO_FUSED_DTYPES
            )
        return (
            _fusable(node)
            and self.kind(node.outputs[0]) is not None
            and not any(v.type.dtype in _NO_FUSED_DTYPES for v in node.inputs)
        )

    def spans(self, fgraph, region) -> bool:
        """With unknown sizes: whether the fused region computes every value at the
        shape the unfused graph gives it. The fused op runs over the broadcast of all
        its inputs; a value has that shape when it is computed from every input
        whose shape may matter: for the argument of a reduction, every input not
        statically 1 on the reduced axes (else it would reduce over a broadcast
        length); for a value read outside, every input not statically 1 on all axes
        (else its shape would be larger than the unfused one)."""
        if not self.unknown:
            return True
        nodes = [n for n in fgraph.toposort() if n in region]
        inputs = {v for n in nodes for v in n.inputs if v.owner not in region}
        wide = {v for v in inputs if not all(s == 1 for s in v.type.shape)}
        long = {v for v in wide if not all(s == 1 for s in self.reduced(v.type.shape))}
        deps: dict = {v: {v} & wide for v in inputs}
        for node in nodes:
            got = set().union(*(deps[v] for v in node.inputs))
            if isinstance(node.op, Reduce) and not long <= got:
                return False
            deps[node.outputs[0]] = got
            if not wide <= got and any(
                c == "output" or c not in region for c, _ in fgraph.clients[node.outputs[0]]
            ):
                return False
        return True


def _reaches(var, region) -> bool:
    """Whether ``var`` is computed from an output of a node of ``region``."""
    seen, stack = set(), [var]
    while stack:
        v = stack.pop()
        owner = v.owner
        if owner is None or owner in seen:
            continue
        if owner in region:
            return True
        seen.add(owner)
        stack.extend(owner.inputs)
    return False


class ReduceFusion(GraphRewriter):
    """Fuse reductions with their elementwise neighbours (see above).

    A region grows from a reduction: upwards over the producers (elementwise, or a
    ``keepdims`` reduction over the same axes) whose results only the region reads,
    downwards over consumers (elementwise of the same rank, or reductions over the
    same axes) whose other inputs do not come from the region. Every value computed
    inside has, provably, the sizes of the iteration space (or 1 on the reduced
    axes): from the static sizes when they are known, else from what each value is
    computed from (``_Space.spans``); a region that would read one of its own results
    through a node outside it is not fused. Values read outside the region are the
    op's outputs.
    """

    __slots__ = ()

    def apply(self, fgraph) -> dict:
        fused = 0
        for seed in fgraph.toposort():
            if seed not in fgraph.apply_nodes or not isinstance(seed.op, Reduce):
                continue
            space = _Space(seed)
            if not space.usable() or not space.member(seed):
                continue
            region = self._grow(fgraph, seed, space)
            if len(region) < 2 or not space.spans(fgraph, region):
                continue
            replacements = self._fuse(fgraph, region, space)
            if replacements:
                fused += apply_replacements(fgraph, seed, replacements, "reduce_fusion")
        return {"reduce_fusion": fused} if fused else {}

    @staticmethod
    def _grow(fgraph, seed, space) -> set:
        region = {seed}
        grew = True
        while grew:
            grew = False
            for member in list(region):
                for var in member.inputs:
                    owner = var.owner
                    if (
                        owner is None
                        or owner in region
                        or not space.member(owner)
                        or (isinstance(owner.op, Reduce) and not owner.op.keepdims)
                    ):
                        continue
                    if all(c != "output" and c in region for c, _ in fgraph.clients[var]):
                        region.add(owner)
                        grew = True
                for var in member.outputs:
                    if space.kind(var) is None:
                        continue  # a reduction without keepdims: only read outside
                    for client, _ in fgraph.clients[var]:
                        if client == "output" or client in region or not space.member(client):
                            continue
                        if any(
                            v.owner not in region and _reaches(v, region) for v in client.inputs
                        ):
                            continue
                        region.add(client)
                        grew = True
        inputs = {v for node in region for v in node.inputs if v.owner not in region}
        if any(_reaches(v, region) for v in inputs):
            return {seed}  # not convex after all: leave it as it is
        return region

    @staticmethod
    def _fuse(fgraph, region, space) -> dict:
        index: dict = {}
        inputs: list = []
        nodes = [n for n in fgraph.toposort() if n in region]
        for node in nodes:
            for v in node.inputs:
                if v.owner not in region and v not in index:
                    index[v] = len(inputs)
                    inputs.append(v)
        program: list[tuple] = []
        nin = len(inputs)
        for node in nodes:
            if isinstance(node.op, Reduce):
                program.append(("reduce", node.op.kind, index[node.inputs[0]], node.op.keepdims))
            else:
                program.append(
                    ("elemwise", node.op.scalar_op, tuple(index[v] for v in node.inputs))
                )
            index[node.outputs[0]] = nin + len(program) - 1
        olds = [
            n.outputs[0]
            for n in nodes
            if any(c == "output" or c not in region for c, _ in fgraph.clients[n.outputs[0]])
        ]
        op = FusedReduce(space.ndim, space.axes, nin, program, [index[v] for v in olds])
        news = op(*inputs)
        news = news if isinstance(news, list) else [news]
        return dict(zip(olds, news))


def default_rewriter() -> SequenceRewriter:
    """Merge, canonicalise (with constant folding), merge, fuse elementwise chains.

    >>> from tensortypes.graph import FunctionGraph
    >>> from tensortypes.tensor import dvector
    >>> x = dvector("x")
    >>> fg = FunctionGraph([x], [(x * 1 + 0).sum()], clone=True)
    >>> default_rewriter().apply(fg)
    {'neutral_operand': 2}
    """
    return SequenceRewriter(
        [
            MergeRewriter(),
            EquilibriumRewriter(CANONICALIZE),
            EquilibriumRewriter(STABILIZE),
            MergeRewriter(),
            ElemwiseFusion(),
            ReduceFusion(),
        ]
    )
