"""The small evaluator: run a graph's ``Op.perform`` methods in order (layer 3, ``graph``).

``compile_graph(inputs, outputs)`` sorts the graph once and flattens it into a
schedule of ``(perform, node, input slots, output slots)`` steps over one list
of storage slots. A call filters each input value through its Variable's type,
runs the steps, and returns the outputs' values. ``Variable.eval`` and the
Python linker are built on it.

This module sits below ``basic`` (``Variable.eval`` imports it), so it knows
Variables only by their attributes. A root that is not an input is a constant
when it carries its value in a ``data`` attribute (``Constant``), and a shared
variable when it has ``get_value`` (read at every call, so that ``set_value``
between calls is seen).
"""

from __future__ import annotations

from tensortypes.errors import TypeCheckError
from tensortypes.graph.walk import as_variable_list, io_toposort

__all__ = ["MissingInputError", "CompiledGraph", "compile_graph"]

_NO_DATA = object()


class MissingInputError(ValueError):
    """A graph needs the value of a Variable that nobody provides.

    Raised when a root Variable (no owner) that is not a Constant is needed by
    the outputs but is not among the given inputs. ``variable`` holds it.
    """

    def __init__(self, message: str, variable=None):
        super().__init__(message)
        self.variable = variable


def missing_input_message(var, where: str) -> str:
    """The message of a ``MissingInputError`` for ``var``, needed by ``where``."""
    return (
        f"{where} needs the value of {var} (a root Variable of type {var.type}), "
        f"but it is not among the inputs and is not a Constant; add {var} to the inputs"
    )


def empty_output_error(node, index: int) -> RuntimeError:
    """The error for an ``Op.perform`` that left output ``index`` of ``node`` unset."""
    return RuntimeError(
        f"{node.op}.perform left output {index} of {node} empty: it must "
        f"store a value in output_storage[{index}][0]"
    )


class CompiledGraph:
    """A callable that evaluates ``outputs`` from values of ``inputs``.

    Build one with ``compile_graph``. Calling it with one value per input
    returns the list of output values.
    """

    __slots__ = (
        "inputs",
        "outputs",
        "nodes",
        "_types",
        "_template",
        "_shared",
        "_steps",
        "_out_slots",
    )

    def __init__(self, inputs, outputs, nodes, template, shared, steps, out_slots):
        self.inputs = tuple(inputs)
        self.outputs = tuple(outputs)
        self.nodes = tuple(nodes)
        self._types = tuple(v.type for v in self.inputs)
        self._template = template
        self._shared = shared
        self._steps = steps
        self._out_slots = out_slots

    def __call__(self, *values) -> list:
        types = self._types
        if len(values) != len(types):
            raise TypeError(
                f"this graph takes {len(types)} input value(s) "
                f"({', '.join(map(str, self.inputs))}), got {len(values)}"
            )
        storage = list(self._template)
        for i, (t, value) in enumerate(zip(types, values)):
            try:
                storage[i] = t.filter(value)
            except (TypeError, ValueError) as exc:
                raise TypeCheckError(
                    f"bad value for input {i} ({self.inputs[i]}) of type {t}: {exc}"
                ) from exc
        for s, var in self._shared:
            storage[s] = var.get_value(borrow=True)
        for perform, node, in_slots, out_slots in self._steps:
            cells = [[None] for _ in out_slots]
            perform(node, [storage[s] for s in in_slots], cells)
            for j, (cell, s) in enumerate(zip(cells, out_slots)):
                value = cell[0]
                if value is None:
                    raise empty_output_error(node, j)
                storage[s] = value
        return [storage[s] for s in self._out_slots]

    def __repr__(self) -> str:
        ins = ", ".join(map(str, self.inputs))
        outs = ", ".join(map(str, self.outputs))
        return f"CompiledGraph([{ins}] -> [{outs}], {len(self.nodes)} node(s))"


def compile_graph(inputs, outputs) -> CompiledGraph:
    """Compile the graph from ``inputs`` to ``outputs`` into a callable.

    The callable takes one value per input (filtered through the input's type,
    non-strict) and returns the list of output values. A root Variable that the
    outputs need and that is neither an input, a Constant nor a shared variable
    raises ``MissingInputError`` here, at compile time.

    >>> compile_graph([], [])()
    []
    """
    inputs = as_variable_list(inputs, "inputs")
    outputs = as_variable_list(outputs, "outputs")
    slots: dict = {}
    template: list = []
    for i, var in enumerate(inputs):
        if var in slots:
            raise ValueError(f"input {var} is given twice (positions {slots[var]} and {i})")
        slots[var] = i
        template.append(None)

    shared = []

    def slot_of_root(var) -> int:
        data = getattr(var, "data", _NO_DATA)
        slot = slots[var] = len(template)
        if data is not _NO_DATA:
            template.append(data)
        elif callable(getattr(var, "get_value", None)):
            template.append(None)
            shared.append((slot, var))
        else:
            del slots[var]
            raise MissingInputError(missing_input_message(var, "the graph"), var)
        return slot

    nodes = io_toposort(inputs, outputs)
    steps = []
    for node in nodes:
        in_slots = tuple(slots[v] if v in slots else slot_of_root(v) for v in node.inputs)
        out_slots = []
        for v in node.outputs:
            slots[v] = len(template)
            template.append(None)
            out_slots.append(slots[v])
        steps.append((node.op.perform, node, in_slots, tuple(out_slots)))
    final_slots = tuple(slots[v] if v in slots else slot_of_root(v) for v in outputs)
    return CompiledGraph(
        inputs, outputs, nodes, tuple(template), tuple(shared), tuple(steps), final_slots
    )
