"""``FunctionGraph``: a subgraph with its inputs, outputs and clients (layer 3, ``graph``).

A FunctionGraph owns the bookkeeping that rewrites need: the set of Apply
nodes and Variables between its inputs and outputs, and for each Variable its
*clients*, the ``(node, input position)`` pairs that read it (an output of the
graph is recorded as ``("output", i)``). ``replace`` rewires every client of
one Variable to another, imports the new nodes and drops the ones no longer
needed.

As in PyTensor, the bookkeeping lives in the graph's own dicts: Variables keep
their ``owner`` and ``index``. ``replace`` does edit ``Apply.inputs`` in place,
so build the graph with ``clone=True`` to leave the caller's graph untouched.
"""

from __future__ import annotations

from tensortypes.graph.basic import Apply, Constant, Variable
from tensortypes.graph.evaluate import MissingInputError, missing_input_message
from tensortypes.graph.walk import as_variable_list, io_toposort, variables

__all__ = ["FunctionGraph", "clone_get_equiv"]


def clone_get_equiv(inputs, outputs) -> dict:
    """Clone the graph between ``inputs`` and ``outputs``; return ``{old: new}``.

    Inputs become fresh root Variables (clones), Constants are cloned (sharing
    their data), and every Apply node in between is copied onto the clones.
    The mapping covers the Variables and the Apply nodes.

    >>> clone_get_equiv([], [])
    {}
    """
    inputs = as_variable_list(inputs, "inputs")
    outputs = as_variable_list(outputs, "outputs")
    equiv: dict = {}
    for var in inputs:
        equiv[var] = var.clone()
    for node in io_toposort(inputs, outputs):
        new_inputs = []
        for var in node.inputs:
            if var not in equiv:
                # A root outside the inputs: a Constant, or a missing input left as is.
                equiv[var] = var.clone() if isinstance(var, Constant) else var
            new_inputs.append(equiv[var])
        new_node = node.clone_with_new_inputs(new_inputs, strict=False)
        equiv[node] = new_node
        for old, new in zip(node.outputs, new_node.outputs):
            equiv[old] = new
    for var in outputs:
        if var not in equiv:
            equiv[var] = var.clone() if isinstance(var, Constant) else var
    return equiv


class FunctionGraph:
    """The subgraph between ``inputs`` and ``outputs``, with client bookkeeping.

    >>> from tensortypes.graph import generic
    >>> x = generic("x")
    >>> fg = FunctionGraph([x], [x])
    >>> fg.clients[x]
    [('output', 0)]
    """

    __slots__ = (
        "inputs",
        "outputs",
        "apply_nodes",
        "variables",
        "clients",
        "_input_set",
        "_order",
        "__weakref__",
    )

    def __init__(self, inputs, outputs, clone=False):
        inputs = as_variable_list(inputs, "inputs")
        outputs = as_variable_list(outputs, "outputs")
        if clone:
            equiv = clone_get_equiv(inputs, outputs)
            inputs = [equiv[v] for v in inputs]
            outputs = [equiv[v] for v in outputs]
        self.inputs: list = []
        self.outputs: list = list(outputs)
        self.apply_nodes: set = set()
        self.variables: set = set()
        self.clients: dict = {}
        self._input_set: set = set()
        self._order: list | None = None
        for var in inputs:
            if var in self._input_set:
                raise ValueError(f"input {var} is listed twice")
            self.inputs.append(var)
            self._input_set.add(var)
            self._setup_var(var)
        for i, var in enumerate(self.outputs):
            self.import_var(var)
            self.clients[var].append(("output", i))

    # -- bookkeeping ---------------------------------------------------------------------
    def _setup_var(self, var) -> None:
        self.variables.add(var)
        self.clients.setdefault(var, [])

    def _is_root(self, var) -> bool:
        return var.owner is None or var in self._input_set

    def import_var(self, var) -> None:
        """Add ``var`` and, when it is computed, the nodes computing it."""
        if var in self.variables:
            return
        if self._is_root(var):
            if not (var in self._input_set or isinstance(var, Constant)):
                raise MissingInputError(missing_input_message(var, "the FunctionGraph"), var)
            self._setup_var(var)
            return
        self.import_node(var.owner)

    def import_node(self, node) -> None:
        """Add ``node`` and every node between the graph and it (inputs must be known)."""
        if not isinstance(node, Apply):
            raise TypeError(f"import_node takes an Apply node, got {type(node).__name__}")
        if node in self.apply_nodes:
            return
        new_nodes = io_toposort(self.variables, node.outputs)
        for new in new_nodes:
            for var in new.inputs:
                if (
                    var not in self.variables
                    and self._is_root(var)
                    and not (var in self._input_set or isinstance(var, Constant))
                ):
                    raise MissingInputError(missing_input_message(var, "the FunctionGraph"), var)
        for new in new_nodes:
            self.apply_nodes.add(new)
            for out in new.outputs:
                self._setup_var(out)
            for i, var in enumerate(new.inputs):
                if var not in self.variables:
                    self._setup_var(var)
                self.clients[var].append((new, i))
        self._order = None

    def _remove_client(self, var, client) -> None:
        """Drop one client of ``var``; prune what nothing reads any more."""
        pending = [(var, client)]
        while pending:
            var, client = pending.pop()
            clients = self.clients[var]
            for k, c in enumerate(clients):
                if c[0] is client[0] and c[1] == client[1]:
                    del clients[k]
                    break
            if clients or var in self._input_set:
                continue
            node = var.owner
            if node is None:
                # An unused Constant leaves the graph with its last client.
                self.variables.discard(var)
                del self.clients[var]
                continue
            if node not in self.apply_nodes or any(self.clients[o] for o in node.outputs):
                continue
            self.apply_nodes.discard(node)
            for out in node.outputs:
                self.variables.discard(out)
                del self.clients[out]
            pending.extend((inp, (node, j)) for j, inp in enumerate(node.inputs))
        self._order = None

    # -- rewiring -------------------------------------------------------------------------
    def change_node_input(self, node, i, new_var) -> None:
        """Make input ``i`` of ``node`` (or output ``i`` for ``node == "output"``) ``new_var``."""
        if node == "output":
            old = self.outputs[i]
        else:
            old = node.inputs[i]
        if old is new_var:
            return
        if old.type.is_super(new_var.type) is not True:
            raise TypeError(
                f"cannot replace {old} of type {old.type} by {new_var} of type "
                f"{new_var.type}: the new type must be a subtype of the old one"
            )
        self.import_var(new_var)
        if node == "output":
            self.outputs[i] = new_var
        else:
            node.inputs[i] = new_var
        self.clients[new_var].append((node, i))
        self._remove_client(old, (node, i))
        self._order = None

    def replace(self, var, new_var, reason=None) -> None:
        """Replace ``var`` by ``new_var`` everywhere in the graph, outputs included.

        ``new_var`` first goes through ``var.type.filter_variable`` (which may
        wrap it, e.g. in ``SpecifyShape``, or raise TypeError for an
        incompatible type). ``reason`` documents the rewrite.
        """
        if not isinstance(var, Variable):
            raise TypeError(f"replace: {var!r} is not a Variable")
        if var not in self.variables:
            raise ValueError(f"replace: {var} is not a Variable of this FunctionGraph")
        new_var = var.type.filter_variable(new_var, allow_convert=True)
        if new_var is var:
            return
        for node, i in list(self.clients[var]):
            self.change_node_input(node, i, new_var)

    def replace_all(self, pairs, reason=None) -> None:
        """``replace(var, new_var)`` for each pair, in order."""
        for var, new_var in pairs:
            self.replace(var, new_var, reason=reason)

    # -- queries ---------------------------------------------------------------------------
    def toposort(self) -> list:
        """The Apply nodes in dependency order (cached until the graph changes)."""
        if self._order is None:
            self._order = io_toposort(self.inputs, self.outputs)
        return list(self._order)

    def check_integrity(self) -> None:
        """Raise RuntimeError if the bookkeeping disagrees with the graph itself."""
        nodes = set(io_toposort(self.inputs, self.outputs))
        if nodes != self.apply_nodes:
            raise RuntimeError(
                f"apply_nodes is out of date: missing {nodes - self.apply_nodes}, "
                f"extra {self.apply_nodes - nodes}"
            )
        reachable = set(variables(self.inputs, self.outputs)) | set(self.inputs)
        if reachable != self.variables:
            raise RuntimeError(
                f"variables is out of date: missing {reachable - self.variables}, "
                f"extra {self.variables - reachable}"
            )
        expected: dict = {v: [] for v in reachable}
        for node in nodes:
            for i, var in enumerate(node.inputs):
                expected[var].append((node, i))
        for i, var in enumerate(self.outputs):
            expected[var].append(("output", i))
        for var in reachable:
            got = sorted(self.clients.get(var, []), key=_client_key)
            if got != sorted(expected[var], key=_client_key):
                raise RuntimeError(f"the clients of {var} are {got}, expected {expected[var]}")
        if set(self.clients) != reachable:
            raise RuntimeError(
                "clients has entries for Variables outside the graph: "
                f"{set(self.clients) - reachable}"
            )

    def clone_get_equiv(self) -> tuple[FunctionGraph, dict]:
        """A copy of this graph on cloned Variables and nodes, and the ``{old: new}`` map."""
        equiv = clone_get_equiv(self.inputs, self.outputs)
        fg = FunctionGraph([equiv[v] for v in self.inputs], [equiv[v] for v in self.outputs])
        return fg, equiv

    def clone(self) -> FunctionGraph:
        """A copy of this graph on cloned Variables and nodes."""
        return self.clone_get_equiv()[0]

    def __contains__(self, obj) -> bool:
        return obj in self.variables or obj in self.apply_nodes

    def __str__(self) -> str:
        return (
            f"FunctionGraph([{', '.join(map(str, self.inputs))}] -> "
            f"[{', '.join(map(str, self.outputs))}])"
        )

    __repr__ = __str__


def _client_key(client) -> tuple:
    node, i = client
    return (0 if node == "output" else 1, id(node) if node != "output" else 0, i)
