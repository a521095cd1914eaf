"""Walking a graph of Variables and Apply nodes (layer 3, ``graph``).

A graph is made of Variables (anything with ``owner``) and Apply nodes
(anything with ``inputs`` and ``outputs``). These functions read only those
attributes, which is why they sit below the classes themselves: the evaluator
and ``FunctionGraph`` use them, and ``Variable.eval`` uses the evaluator.

Every walk is iterative, so a graph as deep as a 10 000-node chain never meets
Python's recursion limit.
"""

from __future__ import annotations

from collections.abc import Iterable, Iterator

__all__ = ["ancestors", "graph_inputs", "variables", "io_toposort", "as_variable_list"]


def as_variable_list(graphs, what: str = "graph") -> list:
    """Return ``graphs`` (one Variable or an iterable of them) as a list.

    Raises TypeError naming the offending item when something is not a Variable.

    >>> as_variable_list([])
    []
    """
    if _is_variable(graphs):
        return [graphs]
    if isinstance(graphs, (str, bytes)) or not isinstance(graphs, Iterable):
        raise TypeError(
            f"{what} must be a Variable or an iterable of Variables, "
            f"got {type(graphs).__name__} {graphs!r}"
        )
    out = list(graphs)
    for i, v in enumerate(out):
        if not _is_variable(v):
            raise TypeError(f"{what}[{i}] must be a Variable, got {type(v).__name__} {v!r}")
    return out


def _is_variable(obj) -> bool:
    # Duck-typed, like PyTensor's Types: anything with a type and an owner slot.
    return hasattr(obj, "owner") and hasattr(obj, "type") and not isinstance(obj, type)


def _blocker_set(blockers) -> set | frozenset:
    if blockers is None:
        return frozenset()
    if isinstance(blockers, (set, frozenset)):
        return blockers
    return set(as_variable_list(blockers, "blockers"))


def ancestors(graphs, blockers=None) -> Iterator:
    """Yield every Variable that ``graphs`` depend on, the graphs included.

    Depth-first, each input before the next, each Variable once. The walk does
    not go above a Variable of ``blockers`` (it is still yielded).

    >>> list(ancestors([]))
    []
    """
    stack = list(reversed(as_variable_list(graphs)))
    stop = _blocker_set(blockers)
    seen: set = set()
    while stack:
        var = stack.pop()
        if var in seen:
            continue
        seen.add(var)
        yield var
        node = var.owner
        if node is not None and var not in stop:
            stack.extend(reversed(node.inputs))


def graph_inputs(graphs, blockers=None) -> list:
    """Return the roots of ``graphs``: Variables without an owner (or in ``blockers``).

    >>> graph_inputs([])
    []
    """
    stop = _blocker_set(blockers)
    return [v for v in ancestors(graphs, stop) if v.owner is None or v in stop]


def variables(inputs, outputs) -> list:
    """Return every Variable of the subgraph between ``inputs`` and ``outputs``.

    Outputs of a node that are not themselves needed (the siblings of a
    needed output) are included: they belong to the subgraph's nodes.

    >>> variables([], [])
    []
    """
    stop = _blocker_set(inputs)
    stack = list(reversed(as_variable_list(outputs, "outputs")))
    seen: set = set()
    order = []
    while stack:
        var = stack.pop()
        if var in seen:
            continue
        seen.add(var)
        order.append(var)
        node = var.owner
        if node is not None and var not in stop:
            stack.extend(reversed(list(node.inputs) + list(node.outputs)))
    return order


def io_toposort(inputs, outputs) -> list:
    """Return the Apply nodes between ``inputs`` and ``outputs``, each after its producers.

    A Variable of ``inputs`` is treated as given: its owner is not visited.
    Raises ValueError when the graph has a cycle (possible only after someone
    rewired ``Apply.inputs`` by hand).

    >>> io_toposort([], [])
    []
    """
    stop = _blocker_set(inputs)
    order: list = []
    done: set = set()
    entered: set = set()
    for out in as_variable_list(outputs, "outputs"):
        root = out.owner
        if root is None or out in stop or root in done:
            continue
        # Each frame is (node, position of the next input to look at).
        stack = [(root, 0)]
        entered.add(root)
        while stack:
            node, i = stack[-1]
            node_inputs = node.inputs
            n = len(node_inputs)
            while i < n:
                var = node_inputs[i]
                i += 1
                child = var.owner
                if child is None or child in done or var in stop:
                    continue
                if child in entered:
                    raise ValueError(f"the graph has a cycle through {child}")
                stack[-1] = (node, i)
                stack.append((child, 0))
                entered.add(child)
                break
            else:
                stack.pop()
                entered.discard(node)
                done.add(node)
                order.append(node)
    return order
