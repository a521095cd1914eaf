"""``FusedReduce``: elementwise steps and reductions over some axes, as one op
(layer 4, ``tensor``).

The op carries a small program over its inputs, each step an ``Elemwise`` of a
scalar op or a ``Reduce`` over the op's ``axes`` (any nonempty sorted set of
axes of an ``ndim``-dimensional iteration space: the trailing ones for row
softmax, the leading one for column standardisation); ``outputs`` says which
values leave the op. Its output types are those the same ops give on the same input
types (the steps are built as the real ops when the node is made), and
``perform`` runs those ops' ``perform`` in order, so the op computes exactly
what the graph it replaces computes. ``tensor.rewriting.ReduceFusion`` builds it
(row or column softmax, layer norm, standardisation, log-sum-exp, a sum of an
elementwise chain); the C back end runs it row by row when the axes are the
trailing ones (``link.c.reduce``), else in passes over the whole space in memory
order, accumulating into one buffer per kept position (``link.c.fused_walk``).

A value is a *row* value when its size is 1 on every reduced axis (a reduction
kept with ``keepdims``, a per-row scale), else a *full* value, with the
iteration space's sizes there.
"""

from __future__ import annotations

from tensortypes.graph import Apply, Op
from tensortypes.tensor.basic import as_tensor_variable
from tensortypes.tensor.elemwise import Elemwise
from tensortypes.tensor.math import Reduce
from tensortypes.tensor.scalar_ops import ScalarOp

__all__ = ["FusedReduce"]


class FusedReduce(Op):
    """Steps over values ``0 .. nin-1`` (the inputs) and ``nin + i`` (step ``i``'s result).

    A step is ``("elemwise", scalar_op, (value, ...))`` or
    ``("reduce", kind, value, keepdims)``; ``outputs`` are value numbers.

    >>> from tensortypes.tensor import tensor
    >>> from tensortypes.tensor.scalar_ops import SCALAR_OPS
    >>> op = FusedReduce(2, (1,), 1, [("elemwise", SCALAR_OPS["exp"], (0,)),
    ...                               ("reduce", "sum", 1, True)], [2])
    >>> op(tensor("float64", ("n", 5))).type
    TensorType(float64, (n, 1))
    """

    __props__ = ("ndim", "axes", "nin", "program", "outputs")

    def __init__(self, ndim: int, axes, nin: int, program, outputs):
        self.ndim = int(ndim)
        self.axes = tuple(int(a) for a in axes)
        self.nin = int(nin)
        if (
            not self.axes
            or self.axes != tuple(sorted(set(self.axes)))
            or not 0 <= self.axes[0] <= self.axes[-1] < self.ndim
        ):
            raise ValueError(
                f"FusedReduce: axes {self.axes} are not a sorted set of axes of "
                f"{self.ndim} dimensions"
            )
        steps: list[tuple] = []
        for i, step in enumerate(program):
            known = self.nin + i
            if step[0] == "elemwise" and len(step) == 3 and isinstance(step[1], ScalarOp):
                args = tuple(int(a) for a in step[2])
                ok = all(0 <= a < known for a in args)
                steps.append(("elemwise", step[1], args))
            elif step[0] == "reduce" and len(step) == 4:
                ok = 0 <= int(step[2]) < known
                steps.append(("reduce", str(step[1]), int(step[2]), bool(step[3])))
            else:
                ok = False
            if not ok:
                raise ValueError(
                    f"FusedReduce: step {i} {step!r} is not ('elemwise', "
                    "scalar_op, values) or ('reduce', kind, value, keepdims) "
                    "over earlier values"
                )
        self.program = tuple(steps)
        self.outputs = tuple(int(o) for o in outputs)
        if not self.outputs or not all(0 <= o < self.nin + len(steps) for o in self.outputs):
            raise ValueError(f"FusedReduce: outputs {self.outputs} are not values of the program")

    @property
    def trailing(self) -> bool:
        """Whether the reduced axes are the last ones (each row of the space is contiguous)."""
        return self.axes == tuple(range(self.ndim - len(self.axes), self.ndim))

    def __str__(self) -> str:
        kinds = [str(s[1]) for s in self.program if s[0] == "reduce"]
        return f"FusedReduce{{{','.join(kinds)};axes={self.axes}}}"

    def build(self, inputs: list) -> list:
        """Every value of the program as the real ops compute it on ``inputs``."""
        values = list(inputs)
        for step in self.program:
            if step[0] == "elemwise":
                values.append(Elemwise(step[1])(*(values[a] for a in step[2])))
            else:
                _, kind, arg, keepdims = step
                values.append(Reduce(kind, self.axes, keepdims)(values[arg]))
        return values

    def make_node(self, *inputs) -> Apply:
        if len(inputs) != self.nin:
            raise TypeError(f"{self} takes {self.nin} input(s), got {len(inputs)}")
        xs = [as_tensor_variable(x) for x in inputs]
        for k, x in enumerate(xs):
            if x.type.ndim > self.ndim:
                raise TypeError(
                    f"{self}: input {k} ({x}) has {x.type.ndim} dimensions, "
                    f"more than the op's {self.ndim}"
                )
        values = self.build(xs)
        return Apply(self, xs, [values[o].type.make_variable() for o in self.outputs])

    def perform(self, node, inputs, output_storage):
        built = self.build(list(node.inputs))
        values = list(inputs)
        for i, step in enumerate(self.program):
            owner = built[self.nin + i].owner
            args = step[2] if step[0] == "elemwise" else (step[2],)
            cell: list = [[None]]
            owner.op.perform(owner, [values[a] for a in args], cell)
            values.append(cell[0][0])
        for cell, o in zip(output_storage, self.outputs):
            cell[0] = values[o]
