"""``PyLinker``: run a ``FunctionGraph`` in Python, one op at a time (layer 6, ``link``).

``PyLinker().make_function(fgraph)`` returns a callable taking the list of the
graph's input values (already filtered by their types) and returning the list
of output values. The schedule is fixed when the function is made: the graph
is sorted once and turned into straight-line Python source, one statement per
node, with every intermediate value in a local variable (no per-call dicts,
lists of storage cells only for ops that need them). An op whose node offers
``op.make_py_impl(node)`` (a plain ``f(*inputs) -> output``, as ``Elemwise``
does) is called directly; any other op goes through ``perform`` with PyTensor's
storage cells. Intermediates are released after their last use.

The source is registered with ``linecache`` under ``<tensortypes graph N>`` so
tracebacks show the statement that failed; ``PyFunction.source`` holds it.
"""

from __future__ import annotations

import itertools
import linecache

from tensortypes.graph import Constant, FunctionGraph
from tensortypes.graph.evaluate import empty_output_error

__all__ = ["PyLinker", "PyFunction"]

_COUNTER = itertools.count(1)


def _empty_output(node, index: int):
    raise empty_output_error(node, index)


def _comment(node) -> str:
    text = " ".join(str(node).split())
    return text if len(text) <= 100 else text[:97] + "..."


class PyFunction:
    """The callable made by ``PyLinker``: ``f(values) -> list of output values``."""

    __slots__ = ("fgraph", "source", "filename", "run", "_nin")

    def __init__(self, fgraph, source: str, filename: str, run):
        self.fgraph = fgraph
        self.source = source
        self.filename = filename
        self.run = run
        """The generated function itself: ``run(*values) -> list``."""
        self._nin = len(fgraph.inputs)

    def __call__(self, values) -> list:
        if len(values) != self._nin:
            raise TypeError(f"this function takes {self._nin} input value(s), got {len(values)}")
        return self.run(*values)

    def __repr__(self) -> str:
        return f"PyFunction({self.filename}, {len(self.fgraph.apply_nodes)} node(s))"


class PyLinker:
    """Make Python callables from ``FunctionGraph``s (every op through Python).

    >>> from tensortypes.graph import FunctionGraph
    >>> from tensortypes.tensor import dvector
    >>> import numpy as np
    >>> x = dvector("x")
    >>> f = PyLinker().make_function(FunctionGraph([x], [x * 2]))
    >>> f([np.array([1.0, 2.0])])[0]
    array([2., 4.])
    """

    __slots__ = ()

    def make_function(self, fgraph: FunctionGraph) -> PyFunction:
        """A callable computing ``fgraph``'s outputs from its inputs' values."""
        if not isinstance(fgraph, FunctionGraph):
            raise TypeError(f"make_function takes a FunctionGraph, got {type(fgraph).__name__}")
        names: dict = {}
        namespace: dict = {"_empty_output": _empty_output}
        params = []
        for i, var in enumerate(fgraph.inputs):
            names[var] = f"v{i}"
            params.append(f"v{i}")
        nodes = fgraph.toposort()
        last_use: dict = {}
        for k, node in enumerate(nodes):
            for var in node.inputs:
                last_use[var] = k
        keep = set(fgraph.inputs) | set(fgraph.outputs)
        body = []
        for k, node in enumerate(nodes):
            args = []
            for var in node.inputs:
                if var not in names:
                    if not isinstance(var, Constant):  # pragma: no cover - fgraph forbids it
                        raise ValueError(f"{var} is neither an input nor a Constant")
                    names[var] = f"k{len(namespace)}"
                    namespace[names[var]] = var.data
                args.append(names[var])
            outs = [f"s{k}_{j}" for j in range(len(node.outputs))]
            for var, name in zip(node.outputs, outs):
                names[var] = name
            body.extend(self._step(k, node, args, outs, namespace))
            dead = sorted(
                {
                    names[v]
                    for v in node.inputs
                    if last_use.get(v) == k and v not in keep and v.owner is not None
                }
            )
            if dead:
                body.append(f"    del {', '.join(dead)}")
        results = []
        for var in fgraph.outputs:
            if var not in names:
                names[var] = f"k{len(namespace)}"
                namespace[names[var]] = var.data
            results.append(names[var])
        filename = f"<tensortypes graph {next(_COUNTER)}>"
        source = (
            f"def run({', '.join(params)}):\n"
            + "".join(line + "\n" for line in body)
            + f"    return [{', '.join(results)}]\n"
        )
        exec(compile(source, filename, "exec"), namespace)  # noqa: S102  (our own source)
        linecache.cache[filename] = (len(source), None, source.splitlines(True), filename)
        return PyFunction(fgraph, source, filename, namespace["run"])

    @staticmethod
    def _step(k: int, node, args: list, outs: list, namespace: dict) -> list:
        make = getattr(node.op, "make_py_impl", None)
        impl = make(node) if make is not None and len(outs) == 1 else None
        call_args = ", ".join(args)
        if impl is not None:
            namespace[f"f{k}"] = impl
            return [f"    {outs[0]} = f{k}({call_args})  # {_comment(node)}"]
        namespace[f"p{k}"] = node.op.perform
        namespace[f"n{k}"] = node
        cells = ", ".join("[None]" for _ in outs)
        lines = [f"    c = [{cells}]", f"    p{k}(n{k}, [{call_args}], c)  # {_comment(node)}"]
        for j, out in enumerate(outs):
            lines.append(f"    {out} = c[{j}][0]")
            lines.append(f"    if {out} is None: _empty_output(n{k}, {j})")
        return lines
